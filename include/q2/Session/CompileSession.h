//===- CompileSession.h - One compilation, measured -------------*- C++ -*-===//
//
// A compile session takes a program (MLIR text or file, or a Hamiltonian
// built into one through a qpe::ProgramRequest) and the options, and runs
// it: Phase A for a Hamiltonian ("Hamiltonian", "Program"), the parse
// ("Input"), the six stages with the session's StageHooks (profiler,
// --ir-dir, MLIR pass-manager options, where diagnostics come from), the
// timeline and the start snapshot. It owns the MLIR context, the module,
// the profiling session and the report, and returns the object, the report
// and the loaded circuit. q2-opt's driver (command line, cache, Phase C and
// printing around it), the Python module and the tests all compile through
// it, so their reports have the same keys and sections. The mlir-opt pass
// q2-qpe-pipeline runs a hosted session on its own module (compileHosted:
// the caller's context, no parse).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_SESSION_COMPILESESSION_H
#define Q2_SESSION_COMPILESESSION_H

#include "q2/JIT/Circuit.h"
#include "q2/Pipeline/Pipeline.h"
#include "q2/Profiling/Report.h"
#include "q2/Profiling/Timeline.h"
#include "q2/QPE/ProgramRequest.h"
#include "q2/QPE/QPEMetadata.h"
#include "q2/Session/ProgramInput.h"
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

struct SessionOptions {
  pipeline::PipelineOptions pipeline;
  pipeline::Stage last = pipeline::Stage::ObjectCode;
  /// Per-stage (and with profilePasses per-pass) measurements, the
  /// timeline and the report.
  bool profile = false;
  bool profilePasses = false;
  int timelineIntervalMs = 100;
  profiling::TimelineSampler::Options::Backend timelineBackend =
      profiling::TimelineSampler::Options::Backend::Auto;
  /// In a process that is not the session's own (Python): the host's
  /// VmHWM is not reset per stage (per-stage peaks come from the sampler
  /// thread instead), the sampler is a thread without smaps at peaks, and
  /// profiler warnings are not printed; a timeline that cannot start is a
  /// warning, not an error.
  bool hosted = false;
  std::string irDir;
  Keep keep = Keep::Stage;
  /// Apply MLIR's pass-manager command-line options to every stage (only
  /// for tools that registered them).
  bool mlirCommandLine = false;
  /// What to build from a Hamiltonian input (Phase A).
  qpe::ProgramRequest program;
  /// Loading: the runtime library (empty: the default) and the register
  /// limit (0: the runtime's default).
  std::string runtimeLib;
  int64_t maxQubits = 0;
};

/// Where a program comes from.
struct ProgramSource {
  enum class Kind { Text, File };
  Kind kind = Kind::Text;
  std::string text; ///< Kind::Text: the program
  std::string name; ///< the source name (Text) or the path (File)
  static ProgramSource fromText(std::string text, std::string name) {
    return {Kind::Text, std::move(text), std::move(name)};
  }
  /// MLIR, or a Hamiltonian (FCIDUMP, qubit JSON, term lines) built with
  /// SessionOptions::program.
  static ProgramSource fromFile(std::string path) {
    return {Kind::File, "", std::move(path)};
  }
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

/// What a session produced, with the loaded circuit (run()).
struct CompiledProgram : CompiledObject {
  std::unique_ptr<jit::Circuit> circuit; ///< when loaded
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

  /// Starts the session: with profiling, the profiler, its timeline and
  /// the "start" snapshot. Fills the report's input and options.
  llvm::Error start(llvm::StringRef inputName);
  /// Phase A: the stage-0 program of the Hamiltonian in `contents` (of
  /// kind `kind`), measured as the stages "Hamiltonian" and "Program" (the
  /// report's phase_a).
  llvm::Expected<std::string>
  buildProgram(llvm::StringRef contents, llvm::StringRef path, InputKind kind);
  /// Parses the program (stage "Input"), reads its metadata (the report's
  /// parameters) and, with an IR directory, writes 0_Input.mlir. A failure
  /// was reported as a diagnostic; the error repeats it.
  llvm::Error parse(std::unique_ptr<llvm::MemoryBuffer> program);
  /// Stages 1..last with the session's hooks. The error names the failing
  /// stage and pass (their diagnostics went to the sink).
  llvm::Error compile();
  /// An object from elsewhere (a compile cache) instead of compile().
  void useObject(llvm::SmallVector<char, 0> object);
  /// Links the object against the runtime (SessionOptions::runtimeLib,
  /// maxQubits).
  llvm::Expected<std::unique_ptr<jit::Circuit>>
  load(bool digestChecked = false);
  /// Ends the profile: stops the timeline and, with `buildReport`, fills
  /// the report's phase_b (it copies every pass and sample) and its error.
  /// `shownPeak`: the lifetime peak already printed, reported as such.
  void finish(bool failed, bool buildReport = true,
              std::optional<uint64_t> shownPeak = std::nullopt);

  /// All of the above for one program: start, Phase A (a Hamiltonian
  /// file), parse, compile, finish and, with `loadCircuit`, load.
  static llvm::Expected<CompiledProgram> run(const ProgramSource &source,
                                             const SessionOptions &opts,
                                             mlir::DialectRegistry &registry,
                                             bool loadCircuit = true);

  /// All of the above for a module in the caller's context (an mlir-opt
  /// pass's module): start, the Input snapshot, compile (stages 1..last
  /// with the same hooks, the stages run through hosting.runNested), finish
  /// and the output. The metadata is read when the module carries it. A
  /// stage's error is returned as the pipeline gave it.
  static llvm::Expected<CompiledObject>
  compileHosted(mlir::ModuleOp module, const SessionOptions &opts,
                HostedCompile hosting);
  /// Appends a q2-snapshot record labelled `label` (hosted sessions with a
  /// snapshot report; else nothing); `out` adds the LLVM IR and object.
  llvm::Error snapshot(llvm::StringRef label,
                       const pipeline::StageOutput *out = nullptr);

  const SessionOptions &options() const { return opts; }
  mlir::MLIRContext &context();
  mlir::ModuleOp module();
  /// The parsed program's text (the compile cache keys on it).
  llvm::StringRef programText() const { return text; }
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
  pipeline::CompileResult compiled;
  profiling::ProfileReport rep;
};

} // namespace q2::session

#endif // Q2_SESSION_COMPILESESSION_H
