//===- ProfilePass.cpp - q2-profile: profile any pass pipeline ------------===//
//
// The wrapped pipeline runs in a pass manager of its own with the profiling
// instrumentation attached. (A dynamic pipeline, Pass::runPipeline, would
// run under the host's instrumentor, which a pass cannot extend, and which
// is null when the host has no instrumentation; a pass manager of our own is
// how the instrumentation gets to see every pass, nested ones included.)
// Each top-level element is a stage (StageBoundaries): a VmHWM reset before
// it gives its kernel peak.
//
//===----------------------------------------------------------------------===//
#include "q2/Profiling/MLIR/ProfilePass.h"
#include "q2/Profiling/ChromeTrace.h"
#include "q2/Profiling/MLIR/IRMetrics.h"
#include "q2/Profiling/MLIR/Instrumentation.h"
#include "q2/Profiling/Report.h"
#include "q2/Profiling/ReportView.h"
#include "q2/Profiling/Session.h"
#include "q2/Support/FileIO.h"

#include "ReportingPass.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace q2::profiling;

namespace {

constexpr llvm::StringLiteral kModule = "builtin.module";

/// Parses `text`, what runs inside the module ("canonicalize,func.func(cse)"),
/// into a pass manager on builtin.module. With `unwrap`, a text that is one
/// `builtin.module(...)` element names the module itself, as in
/// --pass-pipeline: that one wrapper (and only it) is dropped. Without, every
/// element is nested as written (the re-parse of one element of a pipeline,
/// where `builtin.module(...)` runs on nested modules).
FailureOr<OpPassManager> parseOnModule(llvm::StringRef text, std::string &error,
                                       bool unwrap) {
  text = text.trim();
  llvm::raw_string_ostream es(error);
  OpPassManager pm(kModule);
  if (failed(parsePassPipeline(text, pm, es)))
    return failure();
  if (!unwrap || pm.size() != 1)
    return pm;
  std::string only;
  llvm::raw_string_ostream os(only);
  pm.begin()->printAsTextualPipeline(os);
  os.flush();
  if (!llvm::StringRef(only).starts_with(kModule.str() + "("))
    return pm;
  auto anchored = parsePassPipeline(text, es);
  if (failed(anchored))
    return failure();
  return std::move(*anchored);
}

/// parseOnModule with the pass's one-line diagnostic ("q2-profile: invalid
/// pipeline ... at column N: ...") and the anchor checked.
llvm::Expected<OpPassManager> parseChecked(llvm::StringRef pipeline) {
  std::string error;
  auto pm = parseOnModule(pipeline, error, /*unwrap=*/true);
  if (failed(pm)) {
    // One line: "<parser>:1:14: error: msg" (then the text and a caret).
    llvm::StringRef first = llvm::StringRef(error).trim().split('\n').first;
    std::string where;
    if (size_t e = first.find(": error: "); e != llvm::StringRef::npos) {
      llvm::StringRef loc = first.take_front(e);
      where = " at column " + loc.rsplit(':').second.str();
      first = first.drop_front(e + 9);
    }
    return llvm::createStringError("q2-profile: invalid pipeline \"" +
                                   pipeline.str() + "\"" + where + ": " +
                                   first.str());
  }
  if (pm->getOpAnchorName() != kModule)
    return llvm::createStringError("q2-profile: the pipeline must run on " +
                                   kModule.str() + ", not " +
                                   pm->getOpAnchorName().str());
  return std::move(*pm);
}

/// "canonicalize{max-iterations=3},func.func(cse)" -> without the {...}.
std::string withoutOptions(llvm::StringRef text) {
  std::string out;
  int depth = 0;
  for (char c : text) {
    if (c == '{')
      ++depth;
    else if (c == '}')
      depth = depth > 0 ? depth - 1 : 0;
    else if (depth == 0 && c != ' ')
      out += c;
  }
  return out;
}

/// A top-level element's stage name: the pass argument, or the nested
/// pipeline's text without options ("func.func(cse,canonicalize)").
std::string elementName(Pass &pass) {
  if (!pass.getArgument().empty())
    return pass.getArgument().str();
  std::string text;
  llvm::raw_string_ostream os(text);
  pass.printAsTextualPipeline(os);
  os.flush();
  return withoutOptions(text);
}

/// The file the module came from, when its location says.
std::string inputOf(ModuleOp module) {
  Location loc = module.getLoc();
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    return fl.getFilename().str();
  return "";
}

/// Makes each top-level pass of the pipeline a stage of the session, with
/// the module's IR after it: a pass on the module, or the adaptor of a
/// nested pipeline. (MLIR merges adjacent adaptors on one op when the pass
/// manager runs, func.func(a),func.func(b) into func.func(a,b), as the plain
/// pipeline does: the stages are what runs.)
class StageBoundaries : public PassInstrumentation {
public:
  StageBoundaries(ProfilingSession &session, ModuleOp module,
                  IRMetricsCache &cache, bool irMetrics)
      : session(session), root(module.getOperation()), cache(cache),
        irMetrics(irMetrics) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    if (open || op != root)
      return; // a pass inside the element (nested, or a dynamic pipeline)
    open = pass;
    session.beginStage(elementName(*pass));
  }
  void runAfterPass(Pass *pass, Operation *op) override {
    if (pass == open)
      close(/*succeeded=*/true);
  }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    if (pass == open) {
      failed = elementName(*pass);
      close(/*succeeded=*/false);
    }
  }
  /// The element that failed.
  const std::string &failedName() const { return failed; }

private:
  void close(bool succeeded) {
    // (MLIR's adaptor class is internal: recognized by name, as in
    // Instrumentation.cpp.) After a module pass the instrumentation has
    // just measured the module: no second fingerprint walk.
    bool modulePass = !open->getName().contains("OpToOpPassAdaptor");
    open = nullptr;
    StageRecord *rec = session.endStage();
    if (!rec || !irMetrics || !succeeded)
      return;
    ModuleOp module = cast<ModuleOp>(root);
    // Measuring is the profiler's time, not the stage's.
    session.chargeWork(rec, [&] {
      std::optional<IRMetrics> last;
      if (modulePass)
        last = cache.lastOf(module);
      rec->ir = last ? std::move(*last) : cache.measure(module);
    });
  }

  ProfilingSession &session;
  Operation *root;
  IRMetricsCache &cache;
  bool irMetrics;
  Pass *open = nullptr;
  std::string failed;
};

struct ProfilePass : q2::profiling::detail::ReportingPass<ProfilePass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ProfilePass)

  ProfilePass() = default;
  ProfilePass(const ProfilePass &other) : Base(other) {}

  llvm::StringRef getArgument() const override { return "q2-profile"; }
  llvm::StringRef getDescription() const override {
    return "Run a pass pipeline on the module and profile every pass (time, "
           "memory, heap, IR size); prints a pass tree, writes a q2.profile/3 "
           "report and a Perfetto trace";
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    // Loaded before any pass runs (loading while passes run is not allowed).
    std::string error;
    auto pm = parseOnModule(pipeline, error, /*unwrap=*/true);
    if (succeeded(pm))
      pm->getDependentDialects(registry);
  }

  llvm::Error checkOptions() const {
    auto fail = [](const llvm::Twine &msg) {
      return llvm::createStringError("q2-profile: " + msg);
    };
    if (pipeline.empty())
      return fail("the 'pipeline' option is required, e.g. "
                  "q2-profile{pipeline=\"canonicalize,func.func(cse)\" "
                  "report=r.json}");
    if (auto parsed = parseChecked(pipeline); !parsed)
      return parsed.takeError();
    else if (parsed->empty())
      return fail("pipeline \"" + pipeline + "\" has no passes");
    std::vector<q2::NamedPath> outs = outputs();
    for (const q2::NamedPath &out : outs) {
      if (llvm::Error e = q2::checkOutputPath(out.path, out.flag))
        return fail(llvm::toString(std::move(e)));
      if (llvm::Error e = q2::checkNotHostOutput(out.path, out.flag))
        return fail(llvm::toString(std::move(e)));
    }
    // Files, not spellings: "r.json" and "./r.json" are one.
    if (llvm::Error e = q2::checkDistinctPaths({}, outs))
      return fail(llvm::toString(std::move(e)));
    return llvm::Error::success();
  }

  /// The files this pass writes, with the option naming each.
  std::vector<q2::NamedPath> outputs() const {
    std::vector<q2::NamedPath> out;
    for (auto [path, flag] : {std::pair<const std::string &, const char *>{
                                  report, "report"},
                              {trace, "trace"},
                              {table, "table"}})
      if (!path.empty() && path != "-")
        out.push_back({path, flag});
    return out;
  }

  /// Where the table goes: `table`, or stderr when nothing else is written.
  std::string tablePath() const {
    if (!table.empty())
      return table;
    return report.empty() && trace.empty() ? "-" : "";
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // The module's file is known only now; no pass has run yet.
    if (llvm::Error e = q2::checkDistinctPaths(
            {{inputOf(module), "input"}}, outputs()))
      return fail(std::move(e));

    // (Checked with the options: a failure here is an internal error.)
    auto parsed = parseChecked(pipeline);
    if (!parsed)
      return fail(parsed.takeError());

    // Per-pass memory is only attributable with one thread (as q2-opt's
    // profiling); the host's setting is restored afterwards.
    bool threaded = ctx->isMultithreadingEnabled();
    if (threaded)
      ctx->disableMultithreading();

    // The pipeline runs as parsed, in one pass manager: a copy of a pass
    // manager clones its passes with all their state, while printing an
    // element and parsing it again loses what a pipeline builder gave its
    // passes through their constructors (sparsifier{...}'s options). Built
    // before the first stage: building it is not part of any pass, and
    // with nothing run between two stages the end snapshot of one is the
    // begin snapshot of the next (chainStageSnapshots).
    PassManager pm(ctx, kModule);
    static_cast<OpPassManager &>(pm) = std::move(*parsed);
    std::string error;

    ProfilingOptions po;
    po.warnOnStderr = false; // warnings go to the report
    po.chainStageSnapshots = true;
    ProfilingSession session(po);
    IRMetricsOptions io;
    // The pass manager verifies after each pass: no second verification.
    io.flags = OpPrintingFlags().assumeVerified();
    auto cache = std::make_shared<IRMetricsCache>(io);

    if (auto snap = session.snapshot("start"); !snap)
      llvm::consumeError(snap.takeError());
    {
      // IR before the first pass.
      ScopedStage input(session, "Input", StageKind::Input);
      if (StageRecord *rec = input.finish(); rec && irMetrics)
        session.chargeWork(rec, [&] { rec->ir = cache->measure(module); });
    }
    // Each top-level element a stage; added first, so that its stage is
    // open around the profiler's record of the element's pass.
    auto boundaries =
        std::make_unique<StageBoundaries>(session, module, *cache, irMetrics);
    StageBoundaries &stages = *boundaries;
    pm.addInstrumentation(std::move(boundaries));
    InstrumentationOptions ins;
    ins.irMetricsPerPass = irMetrics;
    // A pass on a function measures that function; on the module, the
    // module (whole-module prints per function would be quadratic).
    ins.irMetricsOfPassOpOnly = true;
    ins.cache = cache;
    attachProfiling(pm, session, ins);
    if (failed(pm.run(module)))
      error = "q2-profile: '" + stages.failedName() + "' failed";
    if (threaded)
      ctx->enableMultithreading();

    ProfileReport report;
    report.tool = "q2-profile";
    report.input = inputOf(module);
    if (!error.empty())
      report.error = error;
    report.options["pipeline"] = pipeline.getValue();
    report.options["ir_metrics"] = bool(irMetrics);
    report.options["profile_passes"] = true;
    report.phaseB = session.record();
    report.lifetimePeakRSS = report.phaseB.lifetimePeakRSS;
    if (!this->report.empty())
      if (llvm::Error e = writeReport(this->report, report))
        return fail(std::move(e));
    if (!trace.empty()) {
      ChromeTrace t;
      t.setProcessName("q2-profile");
      session.exportTrace(t);
      if (llvm::Error e = t.write(trace))
        return fail(std::move(e));
    }
    if (std::string path = tablePath(); !path.empty()) {
      view::TextOptions to;
      std::string text = view::formatPassTreeTable(
          view::buildView(view::documentOf(report), report.input), to);
      if (path == "-") {
        llvm::errs() << text;
        llvm::errs().flush();
      } else if (llvm::Error e = q2::writeFileAtomically(path, text)) {
        return fail(std::move(e));
      }
    }
    if (!error.empty()) {
      // The failing pass has reported why; this says where.
      failAtModule("", error);
    }
  }

  void fail(llvm::Error e) {
    failAtModule("q2-profile: ", llvm::toString(std::move(e)));
  }

  Option<std::string> pipeline{
      *this, "pipeline",
      llvm::cl::desc("The pass pipeline to run and profile, on builtin.module "
                     "(\"canonicalize,func.func(cse)\"; a builtin.module(...) "
                     "wrapper is accepted)")};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("q2.profile/3 report to write (docs/report.md)")};
  Option<std::string> trace{
      *this, "trace",
      llvm::cl::desc("Chrome trace to write (open in ui.perfetto.dev)")};
  Option<std::string> table{
      *this, "table",
      llvm::cl::desc("Print the pass tree (wall, CPU, RSS, heap, IR after "
                     "each pass, nested as MLIR nests them) to a file, or "
                     "'-' for stderr; the default when neither report nor "
                     "trace is given")};
  Option<bool> irMetrics{
      *this, "ir-metrics",
      llvm::cl::desc("Measure IR bytes/lines/ops of the module before the "
                     "pipeline and after every top-level element, and of the "
                     "op each pass ran on after it (default true; false "
                     "leaves time and memory only)"),
      llvm::cl::init(true)};
};

} // namespace

std::unique_ptr<Pass>
q2::profiling::createProfilePass(ProfilePassOptions options) {
  auto pass = std::make_unique<ProfilePass>();
  pass->pipeline = std::move(options.pipeline);
  pass->report = std::move(options.report);
  pass->trace = std::move(options.trace);
  pass->table = std::move(options.table);
  pass->irMetrics = options.irMetrics;
  return pass;
}

void q2::profiling::registerProfilePass() {
  if (PassInfo::lookup("q2-profile"))
    return;
  PassRegistration<ProfilePass>();
}
