//===- Driver.cpp - One run of the QPE driver -----------------------------===//
//
// A compile session (its steps: Phase A, parse, the six stages, Phase C,
// the report), with q2-opt's hooks (the input's flags, the compile cache,
// the table, Phase C printing to the terminal) and its outputs around it:
// output paths, -o, the report and trace files.
//
//===----------------------------------------------------------------------===//
#include "DriverInternal.h"

#include "q2/Execution/PhaseC.h"
#include "q2/Profiling/ChromeTrace.h"
#include "q2/Profiling/ReportHTML.h"
#include "q2/Profiling/ReportView.h"
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

/// --cache-dir as the session's cache hook: the entry for the program text
/// and every option, and the "cache: ..." line.
class DriverCache : public session::ObjectCache {
public:
  DriverCache(std::string dir, llvm::raw_ostream &os)
      : dir(std::move(dir)), os(os) {}
  std::optional<llvm::SmallVector<char, 0>>
  lookup(llvm::StringRef programText,
         const pipeline::PipelineOptions &options) override {
    cache.emplace(dir, cacheKey(programText, options));
    auto obj = cache->lookup();
    os << "cache: " << cache->status();
    if (cache->status() == "corrupt")
      os << ", recompiled (" << cache->why() << ")";
    os << " (" << cache->path() << ")\n";
    return obj;
  }
  llvm::Error store(llvm::ArrayRef<char> object) override {
    return cache->store(object);
  }
  prof::CacheRecord record() const override {
    return {cache->path(), cache->status()};
  }

private:
  std::string dir;
  llvm::raw_ostream &os;
  std::optional<CompileCache> cache;
};

/// One driver run: a compile session with q2-opt's hooks (the input's
/// flags, the cache, the table, Phase C) and its outputs around it.
class DriverRun {
public:
  DriverRun(const DriverOptions &o, DialectRegistry &registry)
      : o(o), os(o.out ? *o.out : llvm::outs()),
        session(sessionOptions(o), registry,
                [](llvm::StringRef line, bool) { llvm::errs() << line << "\n"; }),
        phaseC(o, &os) {}

  int run();

private:
  static session::SessionOptions sessionOptions(const DriverOptions &o) {
    session::SessionOptions so = o;
    // The report copies every pass and sample: built only when written.
    so.buildReport = !o.reportPath.empty() || !o.htmlPath.empty();
    return so;
  }
  llvm::Error classified(InputKind kind);
  void ready();
  int finish(int code);
  int checkPaths();
  int writeOutput(const pipeline::CompileResult &r, ModuleOp module);

  const DriverOptions &o;
  llvm::raw_ostream &os;
  session::CompileSession session;
  execution::PhaseC phaseC;
};

int DriverRun::checkPaths() {
  if (llvm::Error e = checkOutputPath(o.reportPath, "--report"))
    return fail(llvm::toString(std::move(e)));
  if (llvm::Error e = checkOutputPath(o.tracePath, "--trace"))
    return fail(llvm::toString(std::move(e)));
  if (llvm::Error e = checkOutputPath(o.htmlPath, "--html"))
    return fail(llvm::toString(std::move(e)));
  if (!o.htmlPath.empty() && !prof::html::available())
    return fail("--html: this q2-opt was built without plotly.js (install "
                "python3-plotly, or set Q2_PLOTLY_JS, and rebuild)");
  bool writesOutput = !(o.profile && !o.outputGiven);
  if (writesOutput)
    if (llvm::Error e = checkOutputPath(o.output, "-o"))
      return fail(llvm::toString(std::move(e)));
  std::vector<NamedPath> outputs = {{o.reportPath, "--report"},
                                    {o.tracePath, "--trace"},
                                    {o.htmlPath, "--html"}};
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

/// The input's kind is known: refuse the flags that cannot act on it, and
/// (only for an input that is compiled) create the directories, so that an
/// object input leaves none behind.
llvm::Error DriverRun::classified(InputKind kind) {
  if (kind == InputKind::Object) {
    if (llvm::Error e = checkObjectInputFlags(o))
      return e;
    if (o.outputGiven)
      return llvm::createStringError(
          "-o: the input is an object file, which is only run: nothing "
          "would be written to '" +
          o.output + "' (copy the object with cp)");
    // A saved object is run at least once, and a run it cannot do fails.
    phaseC.options().runs = std::max(o.runs, 1);
    phaseC.options().skipUnrunnable = false;
    return llvm::Error::success();
  }
  if (kind == InputKind::Unknown)
    return llvm::Error::success(); // the session says what it is not
  if (!session::isHamiltonian(kind) && !o.programFlag.empty())
    return llvm::createStringError(
        o.programFlag +
        " acts in Phase A: it needs a Hamiltonian input (FCIDUMP, qubit-"
        "Hamiltonian JSON or OpenFermion terms); '" +
        o.input + "' is MLIR (its program is already built)");
  for (auto [dir, flag] : {std::pair<const std::string &, const char *>{
                               o.irDir, "--ir-dir"},
                           {o.cacheDir, "--cache-dir"}}) {
    if (dir.empty())
      continue;
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      return llvm::createStringError(llvm::Twine("cannot create ") + flag +
                                     " '" + dir + "': " + ec.message());
  }
  return llvm::Error::success();
}

/// The object is ready: what it is, and with profiling the stage table.
void DriverRun::ready() {
  const qpe::QPEMetadata &md = session.metadata();
  if (session.inputKind() == InputKind::Object) {
    os << "object: " << md.molecule << ", " << md.numQubits() << " qubits ("
       << md.nSystem << " system + " << md.nEst << " estimation), "
       << md.nTerms << " terms, " << qpe::toString(md.mode) << " mode\n";
    return;
  }
  prof::ProfilingSession *profiler = session.profiler();
  if (!profiler)
    return;
  os << "q2-opt profile: " << md.molecule << ", " << md.numQubits()
     << " qubits (" << md.nSystem << " system + " << md.nEst
     << " estimation), n_trotter " << md.nTrotter << ", " << md.nTerms
     << " terms, " << qpe::toString(md.mode) << " mode, ir_scale "
     << md.irScale() << "\n";
  if (session.report().phaseA)
    os << formatHamiltonianSummary(o.input, *session.report().phaseA);
  os << "\n" << prof::formatStageTable(profiler->stages());
  if (o.profilePasses)
    os << "\n" << prof::formatPassTable(profiler->passes())
       << "\nPasses by heap held at their peak (HeapPk MB minus the heap "
          "live when they began):\n"
       << prof::formatHeapPassTable(profiler->passes());
}

/// The report and the trace, when asked for (also after a failure).
int DriverRun::finish(int code) {
  prof::ProfilingSession *profiler = session.profiler();
  if (!profiler)
    return code;
  if (!o.reportPath.empty()) {
    if (llvm::Error e = prof::writeReport(o.reportPath, session.report())) {
      fail(llvm::toString(std::move(e)));
      code = code ? code : 1;
    }
  }
  if (!o.htmlPath.empty()) {
    prof::html::PageInputs page;
    std::string label = o.reportPath.empty() ? o.input : o.reportPath;
    page.title = "q2-opt profile: " + llvm::sys::path::filename(o.input).str();
    page.views.push_back(prof::view::buildView(
        prof::view::documentOf(session.report()), label));
    if (llvm::Error e = prof::html::writePage(o.htmlPath, page)) {
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
  if (session.inputKind() == InputKind::Object)
    return 0; // only run
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
  std::optional<DriverCache> cache;
  if (!o.cacheDir.empty())
    cache.emplace(o.cacheDir, os);
  session::SessionHooks hooks;
  hooks.classified = [this](InputKind kind) { return classified(kind); };
  hooks.cache = cache ? &*cache : nullptr;
  hooks.ready = [this] { ready(); };
  // Phase C runs when --run (or profiling) asks for it, and always for an
  // object input (classified() sees to it).
  hooks.executor = &phaseC;
  hooks.runObjects = true;
  if (llvm::Error e =
          session.run(session::ProgramSource::fromFile(o.input), hooks)) {
    // A parse error's diagnostics were printed already.
    llvm::handleAllErrors(
        std::move(e), [](const session::DiagnosedError &) {},
        [](const llvm::ErrorInfoBase &info) { fail(info.message()); });
    return finish(1);
  }
  prof::ProfilingSession *profiler = session.profiler();
  if (profiler && session.inputKind() != InputKind::Object) {
    // The figure the report carries, when it was built.
    const prof::ProfileReport &report = session.report();
    uint64_t peak = o.reportPath.empty() ? profiler->lifetimePeakRSS()
                                         : report.lifetimePeakRSS;
    os << "\nlifetime peak RSS: " << llvm::formatv("{0:F1}", peak / 1e6)
       << (report.phaseC && report.phaseC->skipped
               ? " MB\n"
               : " MB (stages Load/Execute are in the report)\n");
    // The figure the report carries, when it was built.
    os << prof::formatHeapPeak(o.reportPath.empty() ? profiler->heapPeak()
                                                    : report.phaseB.heap);
  }
  if (int code = writeOutput(session.result(), session.module()))
    return finish(code);
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
