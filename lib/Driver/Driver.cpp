//===- Driver.cpp - One run of the QPE driver -----------------------------===//
//
// A compile session (Phase A, parse, the six stages with the session's
// hooks, the report), with q2-opt's parts around it: output paths, the
// compile cache between parse and compile, Phase C, the table, the report
// and trace files.
//
//===----------------------------------------------------------------------===//
#include "DriverInternal.h"

#include "q2/Profiling/ChromeTrace.h"
#include "q2/Profiling/Session.h"
#include "q2/Session/CompileSession.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace q2;
using namespace q2::driver;
using namespace q2::driver::detail;
using session::InputKind;
using pipeline::Stage;
namespace prof = q2::profiling;

namespace {

int fail(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "q2-opt") << msg << "\n";
  return 1;
}

/// The coefficient sets a run calls @qpe with, after the metadata's limits
/// are checked: --coeffs (dynamic programs only) or the defaults.
llvm::Expected<std::vector<CoeffSet>>
setsToRun(const qpe::QPEMetadata &md, llvm::StringRef coeffsPath,
          int64_t maxQubits) {
  if (llvm::Error e = jit::checkRunnable(md, maxQubits))
    return std::move(e);
  if (coeffsPath.empty())
    return std::vector<CoeffSet>{
        {"default", md.mode == qpe::Mode::Dynamic ? md.defaultCoeffs
                                                  : std::vector<double>{}}};
  if (md.mode != qpe::Mode::Dynamic)
    return llvm::createStringError(
        "--coeffs needs a dynamic-mode program (this one is fixed)");
  return readCoeffSets(coeffsPath, md.nTerms);
}

/// One driver run: a compile session and what q2-opt does around it.
class DriverRun {
public:
  DriverRun(const DriverOptions &o, DialectRegistry &registry)
      : o(o), os(o.out ? *o.out : llvm::outs()),
        session(o, registry,
                [](llvm::StringRef line, bool) { llvm::errs() << line << "\n"; }) {}

  int run();

private:
  int finish(int code);
  int failWith(const llvm::Twine &msg) {
    session.noteError(msg.str());
    fail(msg);
    return finish(1);
  }
  int checkPaths();
  int createDirectories();
  int runObject(llvm::StringRef data);
  int writeOutput(const pipeline::CompileResult &r, ModuleOp module);

  const DriverOptions &o;
  llvm::raw_ostream &os;
  session::CompileSession session;
  /// The lifetime peak the footer printed: the report carries the same
  /// figure (read again later, it would include writing the report).
  std::optional<uint64_t> shownPeak;
  std::optional<prof::HeapPeakRecord> shownHeap; ///< the footer's, reported

};

int DriverRun::checkPaths() {
  if (llvm::Error e = checkOutputPath(o.reportPath, "--report"))
    return fail(llvm::toString(std::move(e)));
  if (llvm::Error e = checkOutputPath(o.tracePath, "--trace"))
    return fail(llvm::toString(std::move(e)));
  bool writesOutput = !(o.profile && !o.outputGiven);
  if (writesOutput)
    if (llvm::Error e = checkOutputPath(o.output, "-o"))
      return fail(llvm::toString(std::move(e)));
  std::vector<NamedPath> outputs = {{o.reportPath, "--report"},
                                    {o.tracePath, "--trace"}};
  if (writesOutput)
    outputs.push_back({o.output, "-o"});
  if (llvm::Error e = checkDistinctPaths(
          {{o.input, "input"}, {o.coeffsPath, "--coeffs file"}}, outputs))
    return fail(llvm::toString(std::move(e)));
  for (auto [dir, flag] : {std::pair<const std::string &, const char *>{
                               o.irDir, "--ir-dir"},
                           {o.cacheDir, "--cache-dir"}}) {
    if (dir.empty())
      continue;
    if (llvm::sys::fs::exists(dir) && !llvm::sys::fs::is_directory(dir))
      return fail(llvm::Twine(flag) + " '" + dir +
                  "' exists and is not a directory");
  }
  return 0;
}

/// Only once the input is known to be compiled: an object input refuses
/// these flags, and must leave no directory behind.
int DriverRun::createDirectories() {
  for (auto [dir, flag] : {std::pair<const std::string &, const char *>{
                               o.irDir, "--ir-dir"},
                           {o.cacheDir, "--cache-dir"}}) {
    if (dir.empty())
      continue;
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      return fail(llvm::Twine("cannot create ") + flag + " '" + dir +
                  "': " + ec.message());
  }
  return 0;
}

int DriverRun::finish(int code) {
  prof::ProfilingSession *profiler = session.profiler();
  if (!profiler)
    return code;
  // The report is built only when asked for: it copies every pass and
  // sample.
  session.finish(code != 0, !o.reportPath.empty(), shownPeak);
  if (shownHeap)
    session.report().phaseB.heap = *shownHeap;
  if (!o.reportPath.empty()) {
    if (llvm::Error e = prof::writeReport(o.reportPath, session.report())) {
      fail(llvm::toString(std::move(e)));
      code = code ? code : 1;
    }
  }
  if (!o.tracePath.empty()) {
    prof::ChromeTrace trace;
    profiler->exportTrace(trace);
    if (llvm::Error e = trace.write(o.tracePath)) {
      fail(llvm::toString(std::move(e)));
      code = code ? code : 1;
    }
  }
  return code;
}

int DriverRun::writeOutput(const pipeline::CompileResult &r, ModuleOp module) {
  if (o.profile && !o.outputGiven)
    return 0; // profiling runs print no object on the terminal
  llvm::Error e = writeFileAtomically(o.output, [&](llvm::raw_ostream &out) {
    if (o.emit == Emit::LLVM)
      r.llvmModule->print(out, nullptr);
    else if (o.emit == Emit::Obj)
      out.write(r.object.data(), r.object.size());
    else {
      module->print(out, OpPrintingFlags().assumeVerified());
      out << "\n";
    }
    return llvm::Error::success();
  });
  if (e) {
    std::string msg = llvm::toString(std::move(e));
    session.noteError(msg);
    return fail(msg);
  }
  return 0;
}

int DriverRun::run() {
  if (int code = checkPaths())
    return code;
  if (llvm::Error e = session.start(o.input))
    return fail(llvm::toString(std::move(e)));
  prof::ProfilingSession *profiler = session.profiler();
  prof::ProfileReport &report = session.report();

  auto file = readInputFile(o.input);
  if (!file)
    return failWith(llvm::toString(file.takeError()));
  llvm::StringRef text = (*file)->getBuffer();
  InputKind kind = session::classifyInput(o.input, text);
  if (kind == InputKind::Object)
    return runObject(text);
  if (kind == InputKind::Unknown)
    return failWith(llvm::toString(session::unknownInputError(o.input)));
  if (session::isHamiltonian(kind)) {
    // Phase A in process: the program q2-qpe would write, then on as for it.
    auto program = session.buildProgram(text, o.input, kind);
    if (!program)
      return failWith(llvm::toString(program.takeError()));
    *file = llvm::MemoryBuffer::getMemBufferCopy(*program, o.input);
  } else if (!o.programFlag.empty()) {
    return failWith(o.programFlag +
                    " acts in Phase A: it needs a Hamiltonian input (FCIDUMP, "
                    "qubit-Hamiltonian JSON or OpenFermion terms); '" +
                    o.input + "' is MLIR (its program is already built)");
  }
  if (int code = createDirectories())
    return finish(code);

  if (llvm::Error e = session.parse(std::move(*file))) {
    llvm::consumeError(std::move(e)); // reported as a diagnostic
    return finish(1);
  }
  const qpe::QPEMetadata &md = session.metadata();

  // Phase C inputs are checked before compiling. A register that cannot
  // be allocated fails here, unless the run is only implied by profiling:
  // then the stages are profiled and Phase C is recorded as skipped.
  std::vector<CoeffSet> sets;
  std::optional<prof::PhaseCRecord> skipped;
  if (o.runs > 0 && o.skipUnrunnable)
    skipped = jit::skippedRun(md, o.maxQubits);
  if (o.runs > 0 && !skipped) {
    auto read = setsToRun(md, o.coeffsPath, o.maxQubits);
    if (!read)
      return failWith(llvm::toString(read.takeError()));
    sets = std::move(*read);
  }

  // The compile cache: objects only, every option in the key.
  std::optional<CompileCache> cache;
  bool cacheHit = false;
  if (!o.cacheDir.empty()) {
    cache.emplace(o.cacheDir, cacheKey(session.programText(), o.pipeline));
    if (auto obj = cache->lookup()) {
      session.useObject(std::move(*obj));
      cacheHit = true;
    }
    report.cache = prof::CacheRecord{cache->path(), cache->status()};
    os << "cache: " << cache->status();
    if (cache->status() == "corrupt")
      os << ", recompiled (" << cache->why() << ")";
    os << " (" << cache->path() << ")\n";
  }

  if (!cacheHit) {
    if (llvm::Error e = session.compile())
      return failWith(llvm::toString(std::move(e)));
    if (cache)
      if (llvm::Error e = cache->store(session.result().object))
        return failWith(llvm::toString(std::move(e)));
  }

  if (profiler) {
    os << "q2-opt profile: " << md.molecule << ", " << md.numQubits()
       << " qubits (" << md.nSystem << " system + " << md.nEst
       << " estimation), n_trotter " << md.nTrotter << ", " << md.nTerms
       << " terms, " << qpe::toString(md.mode) << " mode, ir_scale "
       << md.irScale() << "\n";
    if (report.phaseA)
      os << formatHamiltonianSummary(o.input, *report.phaseA);
    os << "\n" << prof::formatStageTable(profiler->stages());
    if (o.profilePasses)
      os << "\n" << prof::formatPassTable(profiler->passes())
         << "\nPasses by heap held at their peak (HeapPk MB minus the heap "
            "live when they began):\n"
         << prof::formatHeapPassTable(profiler->passes());
  }

  if (skipped) {
    os << "\nPhase C skipped: " << *skipped->reason
       << "; the stages above were profiled (--max-qubits raises the limit; "
          "--run N insists and fails)\n";
    report.phaseC = std::move(skipped);
  } else if (o.runs > 0) {
    ExecuteOutcome c = execute(session.result().object, md, sets, o.runs, o,
                               os, profiler);
    report.phaseC = std::move(c.record);
    if (c.error)
      return failWith(llvm::toString(std::move(c.error)));
  }
  if (profiler) {
    shownPeak = profiler->lifetimePeakRSS();
    os << "\nlifetime peak RSS: " << llvm::formatv("{0:F1}", *shownPeak / 1e6)
       << (report.phaseC && report.phaseC->skipped
               ? " MB\n"
               : " MB (stages Load/Execute are in the report)\n");
    shownHeap = profiler->heapPeak();
    os << prof::formatHeapPeak(*shownHeap);
  }
  if (int code = writeOutput(session.result(), session.module()))
    return finish(code);
  return finish(0);
}

/// A saved object: its metadata comes from its .q2.qpe section.
int DriverRun::runObject(llvm::StringRef data) {
  if (llvm::Error e = checkObjectInputFlags(o))
    return failWith(llvm::toString(std::move(e)));
  if (o.outputGiven)
    return failWith("-o: the input is an object file, which is only run: "
                    "nothing would be written to '" + o.output +
                    "' (copy the object with cp)");
  llvm::ArrayRef<char> object(data.data(), data.size());
  auto md = qpe::readObjectMetadata(object, o.input);
  if (!md)
    return failWith(llvm::toString(md.takeError()));
  session.report().parameters = *md;
  auto read = setsToRun(*md, o.coeffsPath, o.maxQubits);
  if (!read)
    return failWith(llvm::toString(read.takeError()));
  std::vector<CoeffSet> sets = std::move(*read);
  os << "object: " << md->molecule << ", " << md->numQubits() << " qubits ("
     << md->nSystem << " system + " << md->nEst << " estimation), "
     << md->nTerms << " terms, " << qpe::toString(md->mode) << " mode\n";
  // readObjectMetadata checked the digest: the JIT need not hash it again.
  ExecuteOutcome c = execute(object, *md, sets, std::max(o.runs, 1), o, os,
                             session.profiler(), /*digestChecked=*/true);
  session.report().phaseC = std::move(c.record);
  if (c.error)
    return failWith(llvm::toString(std::move(c.error)));
  return finish(0);
}

} // namespace

int q2::driver::runDriver(const DriverOptions &opts, DialectRegistry &registry) {
  DriverRun run(opts, registry);
  return run.run();
}

std::string
q2::driver::detail::formatHamiltonianSummary(llvm::StringRef path,
                                             const prof::PhaseARecord &a) {
  return llvm::formatv("Phase A: {0} ({1}): {2} qubits, {3} electrons, {4} "
                       "Pauli terms; Hamiltonian {5:F3} s, program {6:F3} s "
                       "({7} bytes), peak RSS {8:F1} MB\n",
                       llvm::sys::path::filename(path), a.format, a.nQubits,
                       a.nElectrons, a.nTerms, a.hamiltonianS, a.programS,
                       a.programBytes, double(a.peakRSS) / 1e6)
      .str();
}
