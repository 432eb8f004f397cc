//===- CompileSession.h - One compilation, measured -------------*- C++ -*-===//
//
// A compile session takes a program (MLIR text or file, a Hamiltonian
// built into one through a qpe::ProgramRequest, an object, or a module in
// the caller's context) and the options, and runs the steps, once, in
// run(): the start snapshot and timeline, Phase A for a Hamiltonian
// ("Hamiltonian", "Program"), the parse ("Input"), the compile cache, the
// six stages with the session's StageHooks (profiler, --ir-dir, MLIR
// pass-manager options, where diagnostics come from), Phase C and the
// report. Front ends add hooks, not steps: the cache (ObjectCache) and the
// execution (Executor; the JIT's, lib/Execution, so that this library and
// the mlir-opt plugin link no JIT). It owns the MLIR context, the module,
// the profiling session and the report. q2-opt's driver (command line,
// cache, printing), the Python module, the q2-qpe-pipeline pass (a module
// in the host's context) and the tests all run it, so their reports have
// the same keys and sections.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_SESSION_COMPILESESSION_H
#define Q2_SESSION_COMPILESESSION_H

#include "q2/Pipeline/Pipeline.h"
#include "q2/Profiling/Report.h"
#include "q2/QPE/ProgramRequest.h"
#include "q2/QPE/QPEMetadata.h"
#include "q2/Session/ProgramInput.h"
#include "q2/Session/SessionOptions.h"
#include "q2/Session/StageHooks.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
class MLIRContext;
class OpPassManager;
} // namespace mlir

namespace q2::profiling {
class IRMetricsCache;
class ProfilingSession;
} // namespace q2::profiling

namespace q2::session {

/// Where a program comes from.
struct ProgramSource {
  enum class Kind { Text, File };
  Kind kind = Kind::Text;
  std::string text; ///< Kind::Text: the program
  std::string name; ///< the source name (Text) or the path (File)
  static ProgramSource fromText(std::string text, std::string name) {
    return {Kind::Text, std::move(text), std::move(name)};
  }
  /// MLIR, a Hamiltonian (FCIDUMP, qubit JSON, term lines) built with
  /// SessionOptions::program, or an object (SessionHooks::runObjects).
  static ProgramSource fromFile(std::string path) {
    return {Kind::File, "", std::move(path)};
  }
};

/// What a Phase C step produced: the report's phase_c record (none when
/// nothing ran), and the failure (the record says it too).
struct ExecuteOutcome {
  std::optional<profiling::PhaseCRecord> record;
  llvm::Error error = llvm::Error::success();
};

/// Phase C, as a step of the session: runs the compiled object. The JIT's
/// is execution::PhaseC (q2/Execution/PhaseC.h); the session only calls it.
class Executor {
public:
  virtual ~Executor();
  /// Before the stages, once the metadata is known: whether the program can
  /// run as asked (limits, coefficient sets). An error ends the session
  /// before anything is compiled.
  virtual llvm::Error prepare(const qpe::QPEMetadata &md) = 0;
  /// Runs the object (measured as stages of `profiler`, which may be null).
  /// `digestChecked`: the object's metadata was read from it and its digest
  /// checked already.
  virtual ExecuteOutcome execute(llvm::ArrayRef<char> object,
                                 const qpe::QPEMetadata &md,
                                 profiling::ProfilingSession *profiler,
                                 bool digestChecked) = 0;
};

/// Compiled objects kept between runs (q2-opt --cache-dir).
class ObjectCache {
public:
  virtual ~ObjectCache();
  /// The object compiled before for this program text and these options,
  /// or none (then the stages run and store() keeps their object).
  virtual std::optional<llvm::SmallVector<char, 0>>
  lookup(llvm::StringRef programText,
         const pipeline::PipelineOptions &options) = 0;
  virtual llvm::Error store(llvm::ArrayRef<char> object) = 0;
  /// The report's cache record after lookup().
  virtual profiling::CacheRecord record() const = 0;
};

/// What a front end adds to the session's steps.
struct SessionHooks {
  /// Once the input's kind is known, before Phase A or the parse: an error
  /// refuses the input (e.g. a flag that cannot act on it).
  std::function<llvm::Error(InputKind)> classified;
  /// Between the parse and the stages (compiled objects only).
  ObjectCache *cache = nullptr;
  /// The object is ready (compiled, from the cache, or the input), before
  /// Phase C (q2-opt prints its table here).
  std::function<void()> ready;
  /// Phase C after the stages; none: the session ends with the object.
  Executor *executor = nullptr;
  /// An object input is run (needs an executor) instead of refused.
  bool runObjects = false;
};

/// An error whose diagnostics already went to the session's sink (a parse
/// error): a front end that prints the diagnostics need not repeat it.
class DiagnosedError : public llvm::ErrorInfo<DiagnosedError> {
public:
  static char ID;
  explicit DiagnosedError(std::string msg) : msg(std::move(msg)) {}
  void log(llvm::raw_ostream &os) const override { os << msg; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string msg;
};

/// What a session on a module it does not own (compileHosted) adds: the
/// q2-qpe-pipeline pass's stage runner, snapshots and output.
struct HostedCompile {
  /// Runs a stage's passes as a nested pipeline of the calling pass (so the
  /// host's instrumentation sees every pass); empty: a fresh PassManager.
  std::function<mlir::LogicalResult(mlir::OpPassManager &, mlir::ModuleOp)>
      runNested;
  /// Append a q2-snapshot record (schema q2.snapshots/1) to this file
  /// before the first stage (label Input) and after each stage (the stage's
  /// name); empty: none.
  std::string snapshotReport;
  /// Write the object here (atomically); empty: not written.
  std::string output;
};

/// What a session compiled.
struct CompiledObject {
  qpe::QPEMetadata metadata;
  llvm::SmallVector<char, 0> object;
  std::optional<profiling::ProfileReport> report; ///< when profiled
};

/// A diagnostic as the session formats it ("file:line:col: error: [stage /
/// pass] message"); isError for errors.
using DiagnosticSink = std::function<void(llvm::StringRef line, bool isError)>;

class CompileSession {
public:
  /// Without a sink, diagnostics are collected (diagnostics()).
  CompileSession(SessionOptions opts, mlir::DialectRegistry &registry,
                 DiagnosticSink sink = nullptr);
  /// A hosted session on `module`, which lives in the caller's context:
  /// no parse, no context of its own (diagnostics go to the caller's
  /// handler), SessionOptions::hosted implied.
  CompileSession(SessionOptions opts, mlir::ModuleOp module,
                 HostedCompile hosting);
  ~CompileSession();
  CompileSession(const CompileSession &) = delete;
  CompileSession &operator=(const CompileSession &) = delete;

  /// The steps, once, for `source`: start (with profiling the profiler,
  /// its timeline and the "start" snapshot; the report's input and
  /// options), then for a file its kind (hooks.classified): an object is
  /// read and run, a Hamiltonian built (Phase A); the parse ("Input") and
  /// the metadata (the report's parameters), hooks.executor->prepare, the
  /// cache, the stages 1..last, hooks.ready, Phase C
  /// (hooks.executor->execute), and finish (the report). A hosted session
  /// (the constructor taking a module) compiles its module in place, named
  /// source.name: the Input snapshot, the stages through
  /// HostedCompile::runNested, the snapshots and the output. On failure
  /// the report holds the error; a parse error is a DiagnosedError (its
  /// diagnostics went to the sink). Call once per session.
  llvm::Error run(const ProgramSource &source, SessionHooks hooks = {});

  /// One session on `source`, for callers that want only its products:
  /// the metadata, the object and (when profiled) the report. The error
  /// keeps its code (a missing file stays ENOENT) and carries the
  /// diagnostics collected.
  static llvm::Expected<CompiledObject> run(const ProgramSource &source,
                                            const SessionOptions &opts,
                                            mlir::DialectRegistry &registry,
                                            SessionHooks hooks = {});
  /// One hosted session on `module` (the q2-qpe-pipeline pass): the
  /// metadata is read when the module carries it; a stage's error is
  /// returned as the pipeline gave it.
  static llvm::Expected<CompiledObject>
  compileHosted(mlir::ModuleOp module, const SessionOptions &opts,
                HostedCompile hosting);
  /// Appends a q2-snapshot record labelled `label` (hosted sessions with a
  /// snapshot report; else nothing); `out` adds the LLVM IR and object.
  llvm::Error snapshot(llvm::StringRef label,
                       const pipeline::StageOutput *out = nullptr);

  const SessionOptions &options() const { return opts; }
  /// What run() found the input to be (MLIR for text and hosted modules).
  InputKind inputKind() const { return kind; }
  mlir::MLIRContext &context();
  mlir::ModuleOp module();
  /// The parsed program's text (the compile cache keys on it).
  llvm::StringRef programText() const { return text; }
  /// The program's metadata (after the parse, or read from an object).
  const qpe::QPEMetadata &metadata() const { return *md; }
  pipeline::CompileResult &result() { return compiled; }
  /// Null unless profiling.
  profiling::ProfilingSession *profiler() { return prof.get(); }
  profiling::ProfileReport &report() { return rep; }
  WhereAmI &where() { return here; }
  /// The first error (a diagnostic, or one noted by the caller).
  const std::string &firstError() const { return firstErr; }
  void noteError(llvm::StringRef msg);
  /// The diagnostics collected (no sink given).
  const std::string &diagnostics() const { return diags; }

private:
  void makeIRCache();
  llvm::Error start(llvm::StringRef inputName);
  llvm::Expected<std::string>
  buildProgram(llvm::StringRef contents, llvm::StringRef path, InputKind kind);
  llvm::Error parse(std::unique_ptr<llvm::MemoryBuffer> program);
  llvm::Error compile();
  llvm::Error runSteps(const ProgramSource &source, SessionHooks &hooks);
  llvm::Error runObject(llvm::StringRef data, SessionHooks &hooks);
  llvm::Error execute(SessionHooks &hooks, bool digestChecked);
  void finish(bool failed);
  CompiledObject products();

  struct Impl;
  SessionOptions opts;
  std::unique_ptr<Impl> impl;
  DiagnosticSink sink;
  WhereAmI here;
  std::string firstErr, diags;
  std::unique_ptr<profiling::ProfilingSession> prof;
  std::shared_ptr<profiling::IRMetricsCache> irCache;
  mlir::OwningOpRef<mlir::ModuleOp> mod;
  mlir::ModuleOp hostModule; ///< a hosted session's module (not owned)
  HostedCompile hosting;
  std::unique_ptr<llvm::MemoryBuffer> source;
  llvm::StringRef text;
  std::optional<qpe::QPEMetadata> md;
  InputKind kind = InputKind::MLIR;
  pipeline::CompileResult compiled;
  profiling::ProfileReport rep;
};

} // namespace q2::session

#endif // Q2_SESSION_COMPILESESSION_H
