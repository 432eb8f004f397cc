//===- CompileSession.cpp - One compilation, measured ---------------------===//
//
// The one sequence of the compile steps (run): start -> the input's kind
// -> [an object: Phase C] | [Phase A] -> parse ("Input") -> prepare Phase
// C -> cache or compile (the six stages through StageHooks) -> ready ->
// Phase C -> finish (the report). q2-opt's driver, Python, the
// q2-qpe-pipeline pass (a hosted module) and the tests all run it; their
// differences are hooks (SessionHooks). No JIT here: Phase C is the
// Executor a front end passes (lib/Execution).
//
//===----------------------------------------------------------------------===//
#include "q2/Session/CompileSession.h"

#include "q2/Hamiltonian/QubitHamiltonian.h"
#include "q2/Profiling/MLIR/IRMetrics.h"
#include "q2/Profiling/MLIR/SnapshotPass.h"
#include "q2/Profiling/Session.h"
#include "q2/Dialect/QPE/IR/QPEDialect.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/DialectRegistry.h"

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
    return llvm::make_error<DiagnosedError>(
        firstErr.empty() ? name + ": cannot parse" : firstErr);
  auto read = qpe::readQPEMetadata(*mod);
  if (!read) {
    (*mod)->emitError(llvm::toString(read.takeError()));
    return llvm::make_error<DiagnosedError>(firstErr);
  }
  md = std::move(*read);
  rep.parameters = json::RawObject{qpe::toJSON(*md)};
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
  StageHooks hooks(opts, here, prof.get(), irCache);
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

void CompileSession::finish(bool failed) {
  if (!prof)
    return;
  prof->stopTimeline();
  if (failed && !rep.error)
    rep.error = firstErr.empty() ? "failed" : firstErr;
  if (!opts.buildReport)
    return;
  rep.phaseB = prof->record();
  rep.lifetimePeakRSS = rep.phaseB.lifetimePeakRSS;
}

llvm::Error CompileSession::execute(SessionHooks &hooks, bool digestChecked) {
  ExecuteOutcome c = hooks.executor->execute(compiled.object, *md, prof.get(),
                                             digestChecked);
  if (c.record)
    rep.phaseC = std::move(c.record);
  return std::move(c.error);
}

llvm::Error CompileSession::runObject(llvm::StringRef data,
                                      SessionHooks &hooks) {
  llvm::ArrayRef<char> object(data.data(), data.size());
  auto read = qpe::readObjectMetadata(object, rep.input);
  if (!read)
    return read.takeError();
  md = std::move(*read);
  rep.parameters = json::RawObject{qpe::toJSON(*md)};
  if (llvm::Error e = hooks.executor->prepare(*md))
    return e;
  compiled.object.assign(object.begin(), object.end());
  if (hooks.ready)
    hooks.ready();
  // readObjectMetadata checked the digest: the JIT need not hash it again.
  return execute(hooks, /*digestChecked=*/true);
}

llvm::Error CompileSession::runSteps(const ProgramSource &source,
                                     SessionHooks &hooks) {
  if (hostModule) {
    // The stages do not need the metadata: a module without it compiles,
    // its report has no parameters.
    if (auto read = qpe::readQPEMetadata(hostModule)) {
      md = std::move(*read);
      rep.parameters = json::RawObject{qpe::toJSON(*md)};
    } else {
      llvm::consumeError(read.takeError());
    }
    if (llvm::Error e = snapshot("Input"))
      return e;
  } else {
    std::unique_ptr<llvm::MemoryBuffer> program;
    if (source.kind == ProgramSource::Kind::Text) {
      program = llvm::MemoryBuffer::getMemBufferCopy(source.text, source.name);
    } else {
      auto file = readInputFile(source.name);
      if (!file)
        return file.takeError();
      llvm::StringRef contents = (*file)->getBuffer();
      kind = classifyInput(source.name, contents);
      if (hooks.classified)
        if (llvm::Error e = hooks.classified(kind))
          return e;
      if (kind == InputKind::Object) {
        if (!hooks.runObjects || !hooks.executor)
          return llvm::createStringError(
              std::make_error_code(std::errc::invalid_argument),
              "'" + source.name +
                  "' is an object file: it is loaded, not compiled");
        return runObject(contents, hooks);
      }
      if (kind == InputKind::Unknown)
        return unknownInputError(source.name);
      if (isHamiltonian(kind)) {
        // Phase A in process: the program q2-qpe would write.
        auto text = buildProgram(contents, source.name, kind);
        if (!text)
          return text.takeError();
        program = llvm::MemoryBuffer::getMemBufferCopy(*text, source.name);
      } else {
        program = std::move(*file);
      }
    }
    if (llvm::Error e = parse(std::move(program)))
      return e;
  }
  // Phase C's inputs are checked before compiling.
  if (hooks.executor)
    if (llvm::Error e = hooks.executor->prepare(*md))
      return e;
  // The compile cache: objects only, every option in the key.
  bool cached = false;
  if (hooks.cache) {
    if (auto obj = hooks.cache->lookup(programText(), opts.pipeline)) {
      compiled.object = std::move(*obj);
      cached = true;
    }
    rep.cache = hooks.cache->record();
  }
  if (!cached) {
    if (llvm::Error e = compile())
      return e;
    if (hooks.cache)
      if (llvm::Error e = hooks.cache->store(compiled.object))
        return e;
  }
  if (hooks.ready)
    hooks.ready();
  if (hooks.executor)
    if (llvm::Error e = execute(hooks, /*digestChecked=*/false))
      return e;
  if (!hosting.output.empty())
    return writeFileAtomically(hosting.output,
                               llvm::StringRef(compiled.object.data(),
                                               compiled.object.size()));
  return llvm::Error::success();
}

llvm::Error CompileSession::run(const ProgramSource &source,
                                SessionHooks hooks) {
  if (llvm::Error e = start(source.name))
    return e;
  llvm::Error e = runSteps(source, hooks);
  if (e) {
    // The report says why (the first diagnostic, else this error).
    e = llvm::handleErrors(std::move(e),
                           [&](std::unique_ptr<llvm::ErrorInfoBase> info) {
                             noteError(info->message());
                             return llvm::Error(std::move(info));
                           });
  }
  finish(/*failed=*/bool(e));
  return e;
}

llvm::Expected<CompiledObject>
CompileSession::run(const ProgramSource &source, const SessionOptions &opts,
                    DialectRegistry &registry, SessionHooks hooks) {
  CompileSession s(opts, registry);
  if (llvm::Error e = s.run(source, std::move(hooks))) {
    // The error keeps its code (a missing file stays ENOENT) and gains the
    // diagnostics collected.
    std::string msg;
    std::error_code ec = llvm::inconvertibleErrorCode();
    llvm::handleAllErrors(std::move(e), [&](const llvm::ErrorInfoBase &info) {
      msg = info.message();
      ec = info.convertToErrorCode();
    });
    if (!s.diags.empty() && msg + "\n" != s.diags)
      msg += "\n" + s.diags;
    while (!msg.empty() && msg.back() == '\n')
      msg.pop_back();
    return llvm::createStringError(ec, msg);
  }
  return s.products();
}

CompiledObject CompileSession::products() {
  CompiledObject out;
  if (md)
    out.metadata = *md;
  out.object = std::move(compiled.object);
  if (prof)
    out.report = std::move(rep);
  return out;
}

llvm::Expected<CompiledObject>
CompileSession::compileHosted(ModuleOp module, const SessionOptions &opts,
                              HostedCompile hosting) {
  CompileSession s(opts, module, std::move(hosting));
  std::string name = "<module>";
  if (auto fl = dyn_cast<FileLineColLoc>(module.getLoc()))
    name = fl.getFilename().str();
  if (llvm::Error e = s.run(ProgramSource::fromText("", name)))
    return std::move(e);
  return s.products();
}

llvm::StringRef q2::session::toString(Keep k) {
  return k == Keep::Pass ? "pass" : "stage";
}

llvm::StringRef q2::session::toString(TimelineBackend b) {
  switch (b) {
  case TimelineBackend::Signal:
    return "signal";
  case TimelineBackend::Thread:
    return "thread";
  case TimelineBackend::Auto:
    break;
  }
  return "auto";
}

char DiagnosedError::ID;
Executor::~Executor() = default;
ObjectCache::~ObjectCache() = default;
