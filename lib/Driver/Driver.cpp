//===- Driver.cpp - One run of the QPE driver -----------------------------===//
//
// parse -> (cache) -> compile() with hooks -> Phase C -> table and report.
// The hooks are where the driver's concerns attach to the one stage loop of
// lib/Pipeline: the profiler, MLIR's pass-manager command-line options,
// diagnostics that name the stage and pass, and --ir-dir files.
//
//===----------------------------------------------------------------------===//
#include "DriverInternal.h"

#include "q2/Profiling/ChromeTrace.h"
#include "q2/Profiling/MLIR/Instrumentation.h"
#include "q2/Profiling/Session.h"
#include "q2/QPE/QPEProgram.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace q2;
using namespace q2::driver;
using namespace q2::driver::detail;
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
  if (llvm::Error e = checkRunnable(md, maxQubits))
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

/// The stage and pass running now, so that a diagnostic can say where in
/// the pipeline it came from.
struct WhereAmI {
  std::string stage, pass;
};

struct TrackPass : PassInstrumentation {
  WhereAmI &where;
  explicit TrackPass(WhereAmI &where) : where(where) {}
  void runBeforePass(Pass *p, Operation *) override {
    where.pass = p->getArgument().empty() ? p->getName().str()
                                          : p->getArgument().str();
  }
};

/// --keep-intermediate=pass: the module after every pass execution, in
/// `dir`/KK_<pass>[_<symbol>].mlir (KK counts executions in the stage),
/// printed exactly as the per-pass IR metrics count it. An instrumentation
/// cannot fail a pass, so a write error is kept for after the stage, in a
/// string the hooks own (the pass manager, and this instrumentation with it,
/// is gone by then).
struct DumpAfterPass : PassInstrumentation {
  std::string dir;
  OpPrintingFlags flags;
  unsigned count = 0;
  std::string &error;
  DumpAfterPass(std::string dir, OpPrintingFlags flags, std::string &error)
      : dir(std::move(dir)), flags(flags), error(error) {}
  void runAfterPass(Pass *p, Operation *op) override {
    // Nested-pipeline adaptors have no argument; their passes are dumped.
    if (p->getArgument().empty() || !error.empty())
      return;
    ++count;
    std::string name = llvm::formatv("{0}{1}_{2}", count < 10 ? "0" : "",
                                     count, p->getArgument());
    if (auto sym =
            op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      name += "_" + sym.getValue().str();
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name + ".mlir");
    Operation *top = op;
    while (Operation *parent = top->getParentOp())
      top = parent;
    if (llvm::Error e = writeFileAtomically(path, [&](llvm::raw_ostream &os) {
          top->print(os, flags);
          os << "\n";
          return llvm::Error::success();
        }))
      error = llvm::toString(std::move(e));
  }
};

/// The driver's attachments to compile().
class DriverHooks : public pipeline::CompileHooks {
public:
  DriverHooks(const DriverOptions &opts, WhereAmI &where,
              prof::ProfilingSession *session,
              std::shared_ptr<prof::IRMetricsCache> irCache)
      : opts(opts), where(where), session(session),
        irCache(std::move(irCache)) {}

  void configure(Stage s, PassManager &pm) override {
    pm.addInstrumentation(std::make_unique<TrackPass>(where));
    if (session) {
      prof::InstrumentationOptions io;
      io.irMetricsPerPass = opts.profilePasses;
      io.cache = irCache;
      prof::attachProfiling(pm, *session, io);
    }
    // --mlir-timing, --mlir-print-ir-after-all, ... act on every stage.
    if (opts.mlirCommandLine) {
      if (failed(applyPassManagerCLOptions(pm)))
        cliError = "cannot apply MLIR's pass manager options";
      applyDefaultTimingPassManagerCLOptions(pm);
    }
    if (opts.keep == Keep::Pass && !opts.irDir.empty()) {
      llvm::SmallString<256> dir(opts.irDir);
      llvm::sys::path::append(
          dir, llvm::formatv("{0}_{1}", pipeline::stageIndex(s),
                             pipeline::stageName(s))
                   .str());
      if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
        cliError = "cannot create '" + std::string(dir) + "': " + ec.message();
        return;
      }
      pm.addInstrumentation(std::make_unique<DumpAfterPass>(
          std::string(dir), irCache->options().flags, dumpError));
    }
  }

  LogicalResult
  runStage(Stage s, ModuleOp module,
           llvm::function_ref<void(OpPassManager &)> addPasses) override {
    LogicalResult r = CompileHooks::runStage(s, module, addPasses);
    return cliError.empty() ? r : failure();
  }

  void beforeStage(Stage s) override {
    where.stage = pipeline::stageName(s).str();
    where.pass = "(stage setup)";
    dumpError.clear();
    if (session)
      stage.emplace(*session, pipeline::stageName(s));
  }

  void step(const pipeline::StepEvent &e) override {
    where.pass = e.name.str();
    if (!session)
      return;
    if (e.begin) {
      session->beginPass(this, {e.name.str(), e.name.str(), "", "", false,
                                false});
      return;
    }
    int64_t idx = session->endPass(this);
    if (idx < 0 || !opts.profilePasses)
      return;
    // --profile-passes: what the step produced, LLVM IR or the object.
    double t0 = prof::elapsedSeconds();
    if (e.module)
      session->setPassIR(idx, prof::measureIR(*e.module));
    else
      session->setPassIR(idx, prof::measureBuffer(llvm::StringRef(
                                  e.object.data(), e.object.size())));
    session->chargeProfilerTime(prof::elapsedSeconds() - t0);
  }

  llvm::Error afterStage(const pipeline::StageOutput &out) override {
    if (!cliError.empty())
      return llvm::createStringError(cliError);
    // (Regression: this read the instrumentation itself, freed with the
    // stage's pass manager; found by the sanitizer build.)
    if (!dumpError.empty())
      return llvm::createStringError(dumpError);
    prof::StageRecord *rec = stage ? stage->finish() : nullptr;
    stage.reset();
    unsigned i = pipeline::stageIndex(out.stage);
    std::string path;
    if (!opts.irDir.empty()) {
      llvm::SmallString<256> p(opts.irDir);
      llvm::sys::path::append(p, pipeline::stageFileName(i));
      path = std::string(p);
    }
    if (out.stage == Stage::ObjectCode) {
      llvm::StringRef obj(out.object.data(), out.object.size());
      if (rec)
        rec->ir = prof::measureBuffer(obj);
      return path.empty() ? llvm::Error::success()
                          : writeFileAtomically(path, obj);
    }
    if (path.empty()) {
      // With --profile-passes the module was usually just measured after
      // the stage's last pass: the cache has it.
      if (rec)
        rec->ir = out.llvmModule ? prof::measureIR(*out.llvmModule)
                                 : irCache->measure(out.module);
      return llvm::Error::success();
    }
    // With --ir-dir the metrics are counted while the file is written: one
    // print, no copy of the text, the file's size by construction.
    return writeFileAtomically(path, [&](llvm::raw_ostream &file) {
      if (out.llvmModule) {
        if (rec)
          rec->ir = prof::measureIR(*out.llvmModule, /*countOps=*/true, &file);
        else
          out.llvmModule->print(file, nullptr);
      } else {
        prof::IRMetricsOptions tee = irCache->options();
        tee.alsoWriteTo = &file;
        prof::IRMetrics m = prof::measureIR(out.module, tee);
        if (rec)
          rec->ir = std::move(m);
      }
      return llvm::Error::success();
    });
  }

private:
  const DriverOptions &opts;
  WhereAmI &where;
  prof::ProfilingSession *session;
  std::shared_ptr<prof::IRMetricsCache> irCache;
  std::optional<prof::ScopedStage> stage;
  std::string dumpError; ///< a --keep-intermediate=pass write error
  std::string cliError;
};

/// One driver run: owns the context, the session and the report.
class DriverRun {
public:
  DriverRun(const DriverOptions &o, DialectRegistry &registry)
      : o(o), os(o.out ? *o.out : llvm::outs()), ctx(registry) {}

  int run();

private:
  int finish(int code);
  int failWith(const llvm::Twine &msg) {
    if (firstError.empty())
      firstError = msg.str();
    fail(msg);
    return finish(1);
  }
  int checkPaths();
  int createDirectories();
  int startProfiling();
  int runObject(llvm::StringRef data);
  int writeOutput(const pipeline::CompileResult &r, ModuleOp module);

  const DriverOptions &o;
  llvm::raw_ostream &os;
  MLIRContext ctx;
  WhereAmI where;
  std::string firstError;
  std::unique_ptr<prof::ProfilingSession> session;
  /// The lifetime peak the footer printed: the report carries the same
  /// figure (read again later, it would include writing the report).
  std::optional<uint64_t> shownPeak;
  prof::ProfileReport report;
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

int DriverRun::startProfiling() {
  if (!o.profile)
    return 0;
  session = std::make_unique<prof::ProfilingSession>();
  prof::TimelineSampler::Options to;
  to.intervalMs = o.timelineIntervalMs;
  to.backend = o.timelineBackend;
  if (llvm::Error e = session->startTimeline(to)) {
    session.reset();
    return fail(llvm::toString(std::move(e)));
  }
  if (auto snap = session->snapshot("start"); !snap)
    llvm::consumeError(snap.takeError());
  return 0;
}

int DriverRun::finish(int code) {
  if (!session)
    return code;
  session->stopTimeline();
  if (code != 0 && !report.error)
    report.error = firstError.empty() ? "failed" : firstError;
  if (!o.reportPath.empty()) {
    // Built only when asked for: it copies every pass and sample.
    report.phaseB = session->record();
    if (shownPeak)
      report.phaseB.lifetimePeakRSS = *shownPeak;
    report.lifetimePeakRSS = report.phaseB.lifetimePeakRSS;
    if (llvm::Error e = prof::writeReport(o.reportPath, report)) {
      fail(llvm::toString(std::move(e)));
      code = code ? code : 1;
    }
  }
  if (!o.tracePath.empty()) {
    prof::ChromeTrace trace;
    session->exportTrace(trace);
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
    firstError = llvm::toString(std::move(e));
    return fail(firstError);
  }
  return 0;
}

int DriverRun::run() {
  if (int code = checkPaths())
    return code;
  // One pass at a time while profiling: time and memory are attributed to
  // the pass that ran.
  if (o.profile)
    ctx.disableMultithreading();
  ScopedDiagnosticHandler diagHandler(&ctx, [&](Diagnostic &d) {
    std::string line;
    llvm::raw_string_ostream ls(line);
    if (std::string loc = formatLoc(d.getLocation()); !loc.empty())
      ls << loc << ": ";
    ls << (d.getSeverity() == DiagnosticSeverity::Error     ? "error"
           : d.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                                                            : "note")
       << ": ";
    if (!where.stage.empty())
      ls << "[" << where.stage << " / " << where.pass << "] ";
    ls << d.str();
    llvm::errs() << line << "\n";
    if (d.getSeverity() == DiagnosticSeverity::Error && firstError.empty())
      firstError = line;
    return success();
  });
  if (int code = startProfiling())
    return code;
  report.input = o.input;
  pipeline::PipelineOptions popts = o.pipeline;
  popts.forEach([&](llvm::StringRef name, pipeline::PipelineOptions::Value v) {
    std::visit([&](const auto &x) { report.options[name.str()] = x; }, v);
  });
  report.options["profile_passes"] = o.profilePasses;
  report.options["timeline_interval_ms"] = int64_t(o.timelineIntervalMs);
  report.options["last_stage"] = pipeline::stageName(o.last).str();

  auto file = readInputFile(o.input);
  if (!file)
    return failWith(llvm::toString(file.takeError()));
  llvm::StringRef text = (*file)->getBuffer();
  InputKind kind = classifyInput(o.input, text);
  if (kind == InputKind::Object)
    return runObject(text);
  if (kind == InputKind::Unknown)
    return failWith(llvm::toString(unknownInputError(o.input)));
  if (isHamiltonian(kind)) {
    // Phase A in process: the program q2-qpe would write, then on as for it.
    prof::PhaseARecord a;
    auto program =
        runPhaseA(text, o.input, kind, o.program, session.get(), a);
    if (!program) {
      // Parse errors name the file and line already; planning errors do not.
      std::string msg = llvm::toString(program.takeError());
      return failWith(llvm::StringRef(msg).starts_with(o.input)
                          ? msg
                          : o.input + ": " + msg);
    }
    if (session)
      report.phaseA = std::move(a);
    *file = llvm::MemoryBuffer::getMemBufferCopy(*program, o.input);
  } else if (!o.programFlag.empty()) {
    return failWith(o.programFlag +
                    " acts in Phase A: it needs a Hamiltonian input (FCIDUMP, "
                    "qubit-Hamiltonian JSON or OpenFermion terms); '" +
                    o.input + "' is MLIR (its program is already built)");
  }
  if (int code = createDirectories())
    return finish(code);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  text = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  auto irCache = std::make_shared<prof::IRMetricsCache>([] {
    // Stage outputs were verified by the pass manager: printing them for
    // the metrics need not verify again.
    prof::IRMetricsOptions io;
    io.flags = OpPrintingFlags().assumeVerified();
    return io;
  }());
  OwningOpRef<ModuleOp> module;
  {
    std::optional<prof::ScopedStage> parse;
    if (session)
      parse.emplace(*session, "Input", prof::StageKind::Input);
    module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
    if (module && parse)
      if (prof::StageRecord *rec = parse->finish())
        // The file as given is the Input stage's text (0_Input.mlir is a
        // copy of it): counted, not printed again.
        rec->ir = prof::measureIRFromText(*module, text, irCache->options());
  }
  if (!module)
    return finish(1); // the parser reported where
  auto md = qpe::readQPEMetadata(*module);
  if (!md) {
    (*module)->emitError(llvm::toString(md.takeError()));
    return finish(1);
  }
  report.parameters = *md;

  // Phase C inputs are checked before compiling. A register that cannot
  // be allocated fails here, unless the run is only implied by profiling:
  // then the stages are profiled and Phase C is recorded as skipped.
  std::vector<CoeffSet> sets;
  std::optional<prof::PhaseCRecord> skipped;
  if (o.runs > 0 && o.skipUnrunnable)
    skipped = skippedPhaseC(*md, o.maxQubits);
  if (o.runs > 0 && !skipped) {
    auto read = setsToRun(*md, o.coeffsPath, o.maxQubits);
    if (!read)
      return failWith(llvm::toString(read.takeError()));
    sets = std::move(*read);
  }

  if (!o.irDir.empty()) {
    llvm::SmallString<256> p(o.irDir);
    llvm::sys::path::append(p, pipeline::stageFileName(0));
    if (llvm::Error e = writeFileAtomically(p, text))
      return failWith(llvm::toString(std::move(e)));
  }

  // The compile cache: objects only, every option in the key.
  std::optional<CompileCache> cache;
  pipeline::CompileResult result;
  bool cacheHit = false;
  if (!o.cacheDir.empty()) {
    cache.emplace(o.cacheDir, cacheKey(text, o.pipeline));
    if (auto obj = cache->lookup()) {
      result.object = std::move(*obj);
      cacheHit = true;
    }
    report.cache = prof::CacheRecord{cache->path(), cache->status()};
    os << "cache: " << cache->status();
    if (cache->status() == "corrupt")
      os << ", recompiled (" << cache->why() << ")";
    os << " (" << cache->path() << ")\n";
  }

  if (!cacheHit) {
    DriverHooks hooks(o, where, session.get(), irCache);
    auto r = pipeline::compile(*module, o.pipeline, o.last, &hooks);
    if (!r) {
      std::string msg = llvm::toString(r.takeError());
      return failWith(msg + " in pass '" + where.pass + "'");
    }
    result = std::move(*r);
    where.stage.clear();
    if (cache)
      if (llvm::Error e = cache->store(result.object))
        return failWith(llvm::toString(std::move(e)));
  }

  if (session) {
    os << "q2-opt profile: " << md->molecule << ", " << md->numQubits()
       << " qubits (" << md->nSystem << " system + " << md->nEst
       << " estimation), n_trotter " << md->nTrotter << ", " << md->nTerms
       << " terms, " << qpe::toString(md->mode) << " mode, ir_scale "
       << md->irScale() << "\n";
    if (report.phaseA)
      os << formatPhaseA(o.input, *report.phaseA);
    os << "\n" << prof::formatStageTable(session->stages());
    if (o.profilePasses)
      os << "\n" << prof::formatPassTable(session->passes());
  }

  if (skipped) {
    os << "\nPhase C skipped: " << *skipped->reason
       << "; the stages above were profiled (--max-qubits raises the limit; "
          "--run N insists and fails)\n";
    report.phaseC = std::move(skipped);
  } else if (o.runs > 0) {
    PhaseCOutcome c =
        runPhaseC(result.object, *md, sets, o.runs, o, os, session.get());
    report.phaseC = std::move(c.record);
    if (c.error)
      return failWith(llvm::toString(std::move(c.error)));
  }
  if (session)
    shownPeak = session->lifetimePeakRSS();
  if (session)
    os << "\nlifetime peak RSS: " << llvm::formatv("{0:F1}", *shownPeak / 1e6)
       << (report.phaseC && report.phaseC->skipped
               ? " MB\n"
               : " MB (stages Load/Execute are in the report)\n");
  if (int code = writeOutput(result, *module))
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
  report.parameters = *md;
  auto read = setsToRun(*md, o.coeffsPath, o.maxQubits);
  if (!read)
    return failWith(llvm::toString(read.takeError()));
  std::vector<CoeffSet> sets = std::move(*read);
  os << "object: " << md->molecule << ", " << md->numQubits() << " qubits ("
     << md->nSystem << " system + " << md->nEst << " estimation), "
     << md->nTerms << " terms, " << qpe::toString(md->mode) << " mode\n";
  // readObjectMetadata checked the digest: the JIT need not hash it again.
  PhaseCOutcome c = runPhaseC(object, *md, sets, std::max(o.runs, 1), o, os,
                              session.get(), /*digestChecked=*/true);
  report.phaseC = std::move(c.record);
  if (c.error)
    return failWith(llvm::toString(std::move(c.error)));
  return finish(0);
}

} // namespace

int q2::driver::runDriver(const DriverOptions &opts, DialectRegistry &registry) {
  DriverRun run(opts, registry);
  return run.run();
}

llvm::Expected<CompiledProgram>
q2::driver::compileProgram(llvm::StringRef mlirText, llvm::StringRef sourceName,
                           const pipeline::PipelineOptions &opts, bool profile,
                           DialectRegistry &registry, llvm::StringRef irDir) {
  MLIRContext ctx(registry);
  std::string diags;
  llvm::raw_string_ostream ds(diags);
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (std::string loc = formatLoc(d.getLocation()); !loc.empty())
      ds << loc << ": ";
    ds << d << "\n";
    return success();
  });
  auto failed = [&](llvm::Error e) {
    std::string msg = llvm::toString(std::move(e));
    return llvm::createStringError(diags.empty() ? msg : msg + "\n" + diags);
  };
  std::unique_ptr<prof::ProfilingSession> session;
  prof::ProfileReport report;
  if (profile) {
    ctx.disableMultithreading();
    prof::ProfilingOptions po;
    po.warnOnStderr = false;
    // Embedded (Python): the host's VmHWM/ru_maxrss is not ours to reset;
    // per-stage peaks come from a sampler thread instead (docs/python.md).
    po.resetPeakPerStage = false;
    session = std::make_unique<prof::ProfilingSession>(po);
    prof::TimelineSampler::Options to;
    to.intervalMs = 5;
    to.smapsAtPeaks = false;
    to.backend = prof::TimelineSampler::Options::Backend::Thread;
    if (llvm::Error e = session->startTimeline(to))
      session->warn("no sampled stage peaks: " + llvm::toString(std::move(e)));
  }
  auto irCache = std::make_shared<prof::IRMetricsCache>();
  OwningOpRef<ModuleOp> module;
  {
    std::optional<prof::ScopedStage> parse;
    if (session)
      parse.emplace(*session, "Input", prof::StageKind::Input);
    llvm::SourceMgr sm;
    sm.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(mlirText, sourceName),
        llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sm, &ctx);
    if (module && parse)
      if (prof::StageRecord *rec = parse->finish())
        rec->ir = prof::measureIRFromText(*module, mlirText);
  }
  if (!module)
    return failed(llvm::createStringError(sourceName + ": cannot parse"));
  auto md = qpe::readQPEMetadata(*module);
  if (!md)
    return failed(md.takeError());
  DriverOptions dopts;
  dopts.pipeline = opts;
  dopts.profile = profile;
  dopts.irDir = irDir.str();
  if (!irDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(irDir))
      return failed(llvm::createStringError("cannot create '" + irDir +
                                            "': " + ec.message()));
    llvm::SmallString<256> p(irDir);
    llvm::sys::path::append(p, pipeline::stageFileName(0));
    if (llvm::Error e = writeFileAtomically(p, mlirText))
      return failed(std::move(e));
  }
  WhereAmI where;
  DriverHooks hooks(dopts, where, session.get(), irCache);
  auto r = pipeline::compile(*module, opts, Stage::ObjectCode, &hooks);
  if (!r)
    return failed(r.takeError());
  CompiledProgram out;
  out.metadata = std::move(*md);
  out.object = std::move(r->object);
  if (session) {
    report.input = sourceName.str();
    report.parameters = out.metadata;
    opts.forEach([&](llvm::StringRef name, pipeline::PipelineOptions::Value v) {
      std::visit([&](const auto &x) { report.options[name.str()] = x; }, v);
    });
    session->stopTimeline();
    report.phaseB = session->record();
    report.lifetimePeakRSS = report.phaseB.lifetimePeakRSS;
    out.report = std::move(report);
  }
  return std::move(out);
}
