//===- CompileSession.cpp - One compilation, measured ---------------------===//
//
// start -> [Phase A] -> parse ("Input") -> compile (the six stages through
// StageHooks) -> finish (the report) -> load. q2-opt's driver calls the
// steps one by one (its compile cache sits between parse and compile, its
// Phase C between compile and finish); everyone else calls run(), and the
// q2-qpe-pipeline pass compileHosted(). Loading (load, run) is in
// CompileSessionRun.cpp, in Q2Session: this file is Q2SessionCore, which
// the mlir-opt plugin links without the JIT.
//
//===----------------------------------------------------------------------===//
#include "q2/Session/CompileSession.h"

#include "q2/Hamiltonian/QubitHamiltonian.h"
#include "q2/Profiling/MLIR/IRMetrics.h"
#include "q2/Profiling/MLIR/SnapshotPass.h"
#include "q2/Profiling/Session.h"
#include "q2/QPE/QPEProgram.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace q2;
using namespace q2::session;
namespace prof = q2::profiling;
namespace ham = q2::hamiltonian;

namespace {

std::string formatLoc(Location loc) {
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}", fl.getFilename().getValue(),
                         fl.getLine(), fl.getColumn());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (std::string s = formatLoc(l); !s.empty())
        return s;
  if (auto name = dyn_cast<NameLoc>(loc))
    return formatLoc(name.getChildLoc());
  if (auto cs = dyn_cast<CallSiteLoc>(loc))
    return formatLoc(cs.getCallee());
  return "";
}

} // namespace

struct CompileSession::Impl {
  explicit Impl(DialectRegistry &registry)
      : owned(std::in_place, registry), ctx(&*owned) {}
  explicit Impl(MLIRContext *host) : ctx(host) {}
  std::optional<MLIRContext> owned; // none in a hosted session
  MLIRContext *ctx;
  std::optional<ScopedDiagnosticHandler> handler;
  llvm::SourceMgr sourceMgr; // owns the parsed program's text
};

CompileSession::CompileSession(SessionOptions o, DialectRegistry &registry,
                               DiagnosticSink s)
    : opts(std::move(o)), impl(std::make_unique<Impl>(registry)),
      sink(std::move(s)) {
  // One pass at a time while profiling: time and memory are attributed to
  // the pass that ran.
  if (opts.profile)
    impl->ctx->disableMultithreading();
  impl->handler.emplace(impl->ctx, [this](Diagnostic &d) {
    std::string line;
    llvm::raw_string_ostream ls(line);
    if (std::string loc = formatLoc(d.getLocation()); !loc.empty())
      ls << loc << ": ";
    ls << (d.getSeverity() == DiagnosticSeverity::Error     ? "error"
           : d.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                                                            : "note")
       << ": ";
    if (!here.stage.empty())
      ls << "[" << here.stage << " / " << here.pass << "] ";
    ls << d.str();
    bool isError = d.getSeverity() == DiagnosticSeverity::Error;
    if (isError && firstErr.empty())
      firstErr = line;
    if (sink)
      sink(line, isError);
    else
      diags += line + "\n";
    return success();
  });
  makeIRCache();
}

CompileSession::CompileSession(SessionOptions o, ModuleOp module,
                               HostedCompile h)
    : opts(std::move(o)), impl(std::make_unique<Impl>(module.getContext())),
      hostModule(module), hosting(std::move(h)) {
  // The host's process and context: its multithreading and diagnostic
  // handler stay as the host set them.
  opts.hosted = true;
  makeIRCache();
}

void CompileSession::makeIRCache() {
  // Stage outputs were verified by the pass manager: printing them for the
  // metrics need not verify again.
  prof::IRMetricsOptions io;
  io.flags = OpPrintingFlags().assumeVerified();
  irCache = std::make_shared<prof::IRMetricsCache>(io);
}

CompileSession::~CompileSession() {
  // The module and the products go before the context that owns them.
  // (The LLVM module before its context: assigning a fresh CompileResult
  // would free the context first.)
  compiled.llvmModule.reset();
  compiled.llvmContext.reset();
  mod = nullptr;
  if (prof)
    prof->stopTimeline();
}

MLIRContext &CompileSession::context() { return *impl->ctx; }
ModuleOp CompileSession::module() { return mod ? *mod : hostModule; }

void CompileSession::noteError(llvm::StringRef msg) {
  if (firstErr.empty())
    firstErr = msg.str();
}

llvm::Error CompileSession::start(llvm::StringRef inputName) {
  rep.input = inputName.str();
  opts.pipeline.forEach(
      [&](llvm::StringRef name, pipeline::PipelineOptions::Value v) {
        std::visit([&](const auto &x) { rep.options[name.str()] = x; }, v);
      });
  rep.options["profile_passes"] = opts.profilePasses;
  rep.options["timeline_interval_ms"] = int64_t(opts.timelineIntervalMs);
  rep.options["last_stage"] = pipeline::stageName(opts.last).str();
  if (!opts.profile)
    return llvm::Error::success();
  prof::ProfilingOptions po;
  prof::TimelineSampler::Options to;
  to.intervalMs = opts.timelineIntervalMs;
  to.backend = opts.timelineBackend;
  if (opts.hosted) {
    // The host's VmHWM/ru_maxrss is not ours to reset; per-stage peaks
    // come from the sampler thread (a timer signal would interrupt the
    // host's system calls).
    po.warnOnStderr = false;
    po.resetPeakPerStage = false;
    to.smapsAtPeaks = false;
    to.backend = prof::TimelineSampler::Options::Backend::Thread;
  }
  prof = std::make_unique<prof::ProfilingSession>(po);
  if (llvm::Error e = prof->startTimeline(to)) {
    if (!opts.hosted) {
      prof.reset();
      return e;
    }
    prof->warn("no sampled stage peaks: " + llvm::toString(std::move(e)));
  }
  if (auto snap = prof->snapshot("start"); !snap)
    llvm::consumeError(snap.takeError());
  return llvm::Error::success();
}

llvm::Expected<std::string>
CompileSession::buildProgram(llvm::StringRef contents, llvm::StringRef path,
                             InputKind kind) {
  prof::PhaseARecord rec;
  const qpe::ProgramRequest &request = opts.program;
  rec.format = kind == InputKind::FCIDump           ? "fcidump"
               : kind == InputKind::HamiltonianJSON ? "json"
                                                    : "openfermion";
  rec.nEst = request.nEst;
  rec.nTrotter = request.nTrotter;
  rec.resolution = request.resolution;
  rec.mode = qpe::toString(request.mode).str();
  // Parse errors name the file and line already; planning errors do not.
  auto failed = [&](llvm::Error e) -> llvm::Error {
    std::string msg = llvm::toString(std::move(e));
    return llvm::createStringError(llvm::StringRef(msg).starts_with(path)
                                       ? msg
                                       : (path + ": " + msg).str());
  };
  auto summarize = [&](std::unique_ptr<prof::ScopedStage> &stage,
                       double &wall) {
    const prof::StageRecord *s = stage ? stage->finish() : nullptr;
    if (!s)
      return;
    wall = s->wallS;
    rec.wallS += s->wallS;
    rec.cpuS += s->cpuS;
    rec.peakRSS = std::max(rec.peakRSS, s->peakRSS);
  };

  std::optional<ham::QubitHamiltonian> h;
  {
    std::unique_ptr<prof::ScopedStage> stage;
    if (prof)
      stage = std::make_unique<prof::ScopedStage>(*prof, "Hamiltonian",
                                                  prof::StageKind::Input);
    auto read = ham::parseHamiltonianBuffer(contents, path,
                                            llvm::sys::path::stem(path));
    if (!read)
      return failed(read.takeError());
    h = std::move(*read);
    summarize(stage, rec.hamiltonianS);
  }
  rec.nQubits = h->numQubits;
  rec.nElectrons = h->numElectrons;
  rec.nTerms = h->terms.size();

  std::unique_ptr<prof::ScopedStage> stage;
  if (prof)
    stage = std::make_unique<prof::ScopedStage>(*prof, "Program",
                                                prof::StageKind::Input);
  auto program = buildProgramText(*h, request);
  if (!program)
    return failed(program.takeError());
  summarize(stage, rec.programS);
  rec.programBytes = program->size();
  if (prof)
    rep.phaseA = std::move(rec);
  return program;
}

llvm::Error CompileSession::parse(std::unique_ptr<llvm::MemoryBuffer> program) {
  std::string name = program->getBufferIdentifier().str();
  llvm::SourceMgr &sm = impl->sourceMgr;
  unsigned id = sm.AddNewSourceBuffer(std::move(program), llvm::SMLoc());
  text = sm.getMemoryBuffer(id)->getBuffer();
  {
    std::unique_ptr<prof::ScopedStage> parse;
    if (prof)
      parse = std::make_unique<prof::ScopedStage>(*prof, "Input",
                                                  prof::StageKind::Input);
    mod = parseSourceFile<ModuleOp>(sm, impl->ctx);
    if (mod && parse)
      if (prof::StageRecord *rec = parse->finish())
        // The program as given is the Input stage's text (0_Input.mlir is
        // a copy of it): counted, not printed again.
        prof->chargeWork(rec, [&] {
          rec->ir = prof::measureIRFromText(*mod, text, irCache->options());
        });
  }
  if (!mod) // the parser reported where
    return llvm::createStringError(firstErr.empty() ? name + ": cannot parse"
                                                    : firstErr);
  auto read = qpe::readQPEMetadata(*mod);
  if (!read) {
    (*mod)->emitError(llvm::toString(read.takeError()));
    return llvm::createStringError(firstErr);
  }
  md = std::move(*read);
  rep.parameters = *md;
  return llvm::Error::success();
}

llvm::Error CompileSession::compile() {
  if (!opts.irDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(opts.irDir))
      return llvm::createStringError("cannot create --ir-dir '" + opts.irDir +
                                     "': " + ec.message());
    llvm::SmallString<256> p(opts.irDir);
    llvm::sys::path::append(p, pipeline::stageFileName(0));
    // A hosted module was not parsed here: its text is printed.
    llvm::Error e = hostModule
                        ? writeFileAtomically(p,
                                              [&](llvm::raw_ostream &os) {
                                                hostModule->print(os);
                                                return llvm::Error::success();
                                              })
                        : writeFileAtomically(p, text);
    if (e)
      return e;
  }
  StageHookOptions ho;
  ho.profilePasses = opts.profilePasses;
  ho.mlirCommandLine = opts.mlirCommandLine;
  ho.irDir = opts.irDir;
  ho.keep = opts.keep;
  StageHooks hooks(ho, here, prof.get(), irCache);
  hooks.runNested = hosting.runNested;
  if (!hosting.snapshotReport.empty())
    hooks.alsoAfterStage = [&](const pipeline::StageOutput &out) {
      return snapshot(pipeline::stageName(out.stage), &out);
    };
  auto r = pipeline::compile(module(), opts.pipeline, opts.last, &hooks);
  if (!r && hostModule) // the host's diagnostics said where
    return r.takeError();
  if (!r)
    return llvm::createStringError(llvm::toString(r.takeError()) +
                                   " in pass '" + here.pass + "'");
  compiled = std::move(*r);
  here.stage.clear();
  return llvm::Error::success();
}

llvm::Error CompileSession::snapshot(llvm::StringRef label,
                                     const pipeline::StageOutput *out) {
  if (hosting.snapshotReport.empty())
    return llvm::Error::success();
  auto entry = prof::snapshotWithIR(label, module());
  if (!entry)
    return entry.takeError();
  if (out && out->llvmModule)
    entry->llvmIR = prof::measureIR(*out->llvmModule);
  if (out && !out->object.empty())
    entry->object = prof::measureBuffer(
        llvm::StringRef(out->object.data(), out->object.size()));
  return prof::appendSnapshot(hosting.snapshotReport, std::move(*entry));
}

void CompileSession::useObject(llvm::SmallVector<char, 0> object) {
  compiled.object = std::move(object);
}

void CompileSession::finish(bool failed, bool buildReport,
                            std::optional<uint64_t> shownPeak) {
  if (!prof)
    return;
  prof->stopTimeline();
  if (failed && !rep.error)
    rep.error = firstErr.empty() ? "failed" : firstErr;
  if (!buildReport)
    return;
  rep.phaseB = prof->record();
  if (shownPeak)
    rep.phaseB.lifetimePeakRSS = *shownPeak;
  rep.lifetimePeakRSS = rep.phaseB.lifetimePeakRSS;
}

llvm::Expected<CompiledObject>
CompileSession::compileHosted(ModuleOp module, const SessionOptions &opts,
                              HostedCompile hosting) {
  CompileSession s(opts, module, std::move(hosting));
  std::string name = "<module>";
  if (auto fl = dyn_cast<FileLineColLoc>(module.getLoc()))
    name = fl.getFilename().str();
  if (llvm::Error e = s.start(name))
    return e;
  // The stages do not need the metadata: a module without it compiles,
  // its report has no parameters.
  if (auto read = qpe::readQPEMetadata(module)) {
    s.md = std::move(*read);
    s.rep.parameters = *s.md;
  } else {
    llvm::consumeError(read.takeError());
  }
  llvm::Error e = s.snapshot("Input");
  if (!e)
    e = s.compile();
  if (e) {
    s.finish(/*failed=*/true);
    return e;
  }
  s.finish(/*failed=*/false);
  CompiledObject out;
  if (s.md)
    out.metadata = *s.md;
  out.object = std::move(s.compiled.object);
  if (!s.hosting.output.empty())
    if (llvm::Error e = writeFileAtomically(
            s.hosting.output,
            llvm::StringRef(out.object.data(), out.object.size())))
      return e;
  if (s.prof)
    out.report = std::move(s.rep);
  return std::move(out);
}
