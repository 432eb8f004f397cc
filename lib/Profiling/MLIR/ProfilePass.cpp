//===- ProfilePass.cpp - q2-profile: profile any pass pipeline ------------===//
//
// The wrapped pipeline runs in pass managers of its own, one per top-level
// element, each with the profiling instrumentation attached. (A dynamic
// pipeline, Pass::runPipeline, would run under the host's instrumentor,
// which a pass cannot extend, and which is null when the host has no
// instrumentation; a pass manager of our own is how the instrumentation gets
// to see every pass, nested ones included.) One pass manager per element
// makes each element a stage: a VmHWM reset before it gives its kernel peak.
//
//===----------------------------------------------------------------------===//
#include "q2/Profiling/MLIR/ProfilePass.h"
#include "q2/Profiling/ChromeTrace.h"
#include "q2/Profiling/MLIR/IRMetrics.h"
#include "q2/Profiling/MLIR/Instrumentation.h"
#include "q2/Profiling/Report.h"
#include "q2/Profiling/Session.h"
#include "q2/Support/FileIO.h"

#include "ReportingPass.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace q2::profiling;

namespace {

constexpr llvm::StringLiteral kModule = "builtin.module";

/// Parses `text` into a pass manager on builtin.module.
FailureOr<OpPassManager> parseOnModule(llvm::StringRef text,
                                       std::string &error) {
  text = text.trim();
  llvm::raw_string_ostream es(error);
  if (text.starts_with(kModule.str() + "(")) {
    auto pm = parsePassPipeline(text, es);
    if (failed(pm))
      return failure();
    return std::move(*pm);
  }
  OpPassManager pm(kModule);
  if (failed(parsePassPipeline(text, pm, es)))
    return failure();
  return pm;
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

/// The file the module came from, when its location says.
std::string inputOf(ModuleOp module) {
  Location loc = module.getLoc();
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    return fl.getFilename().str();
  return "";
}

struct ProfilePass : q2::profiling::detail::ReportingPass<ProfilePass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ProfilePass)

  ProfilePass() = default;
  ProfilePass(const ProfilePass &other) : Base(other) {}

  llvm::StringRef getArgument() const override { return "q2-profile"; }
  llvm::StringRef getDescription() const override {
    return "Run a pass pipeline on the module and profile every pass (time, "
           "memory, IR size); writes a q2.profile/3 report and a trace";
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    // Loaded before any pass runs (loading while passes run is not allowed).
    std::string error;
    auto pm = parseOnModule(pipeline, error);
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
    if (report.empty() && trace.empty())
      return fail("nothing to write: give report=<file.json> and/or "
                  "trace=<file.json>");
    if (auto parts = splitPipeline(pipeline); !parts)
      return parts.takeError();
    else if (parts->empty())
      return fail("pipeline \"" + pipeline + "\" has no passes");
    for (auto [path, flag] : {std::pair<const std::string &, const char *>{
                                  report, "report"},
                              {trace, "trace"}})
      if (!path.empty())
        if (llvm::Error e = q2::checkOutputPath(path, flag))
          return fail(llvm::toString(std::move(e)));
    if (!report.empty() && report == trace)
      return fail("report and trace name the same file '" + report + "'");
    return llvm::Error::success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto elements = splitPipeline(pipeline);
    if (!elements)
      return fail(elements.takeError());

    // Per-pass memory is only attributable with one thread (as q2-opt's
    // profiling); the host's setting is restored afterwards.
    bool threaded = ctx->isMultithreadingEnabled();
    if (threaded)
      ctx->disableMultithreading();

    // Pass managers are built before the first stage: building one
    // (parsing its options, creating the passes) is not part of any pass,
    // and with nothing run between two stages the end snapshot of one is
    // the begin snapshot of the next (chainStageSnapshots).
    std::string error;
    struct Element {
      std::unique_ptr<PassManager> pm;
      /// One pass on the module (not a func.func(...) adaptor): the
      /// instrumentation measured the module right after it.
      bool modulePass = false;
    };
    std::vector<Element> pms;
    for (const PipelineElement &el : *elements) {
      std::string parseError;
      auto parsed = parseOnModule(el.text, parseError);
      if (failed(parsed)) { // it parsed as a whole: an internal error
        error = "cannot re-parse '" + el.text + "': " + parseError;
        break;
      }
      Element e;
      e.pm = std::make_unique<PassManager>(ctx, kModule);
      static_cast<OpPassManager &>(*e.pm) = *parsed;
      auto passes = e.pm->getPasses();
      // (MLIR's adaptor class is internal: recognized by name, as in
      // Instrumentation.cpp.)
      e.modulePass = std::distance(passes.begin(), passes.end()) == 1 &&
                     !passes.begin()->getName().contains("OpToOpPassAdaptor");
      pms.push_back(std::move(e));
    }

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
    for (size_t i = 0; i < pms.size() && error.empty(); ++i) {
      const PipelineElement &el = (*elements)[i];
      PassManager &pm = *pms[i].pm;
      InstrumentationOptions ins;
      ins.irMetricsPerPass = irMetrics;
      // A pass on a function measures that function; on the module, the
      // module (whole-module prints per function would be quadratic).
      ins.irMetricsOfPassOpOnly = true;
      ins.cache = cache;
      attachProfiling(pm, session, ins);
      ScopedStage stage(session, el.name);
      LogicalResult result = pm.run(module);
      if (StageRecord *rec = stage.finish(); rec && irMetrics)
        if (succeeded(result))
          session.chargeWork(rec, [&] {
            // After a single module pass the module was just measured: no
            // second fingerprint walk.
            std::optional<IRMetrics> last;
            if (pms[i].modulePass)
              last = cache->lastOf(module);
            rec->ir = last ? std::move(*last) : cache->measure(module);
          });
      if (failed(result)) {
        error = "q2-profile: '" + el.name + "' failed";
        break;
      }
    }
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
  Option<bool> irMetrics{
      *this, "ir-metrics",
      llvm::cl::desc("Measure IR bytes/lines/ops of the module before the "
                     "pipeline and after every top-level element, and of the "
                     "op each pass ran on after it (default true; false "
                     "leaves time and memory only)"),
      llvm::cl::init(true)};
};

} // namespace

llvm::Expected<std::vector<PipelineElement>>
q2::profiling::splitPipeline(llvm::StringRef pipeline) {
  std::string error;
  auto pm = parseOnModule(pipeline, error);
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
  std::vector<PipelineElement> out;
  for (Pass &pass : pm->getPasses()) {
    PipelineElement el;
    llvm::raw_string_ostream os(el.text);
    pass.printAsTextualPipeline(os);
    os.flush();
    el.name = pass.getArgument().empty() ? withoutOptions(el.text)
                                         : pass.getArgument().str();
    out.push_back(std::move(el));
  }
  return out;
}

std::unique_ptr<Pass>
q2::profiling::createProfilePass(ProfilePassOptions options) {
  auto pass = std::make_unique<ProfilePass>();
  pass->pipeline = std::move(options.pipeline);
  pass->report = std::move(options.report);
  pass->trace = std::move(options.trace);
  pass->irMetrics = options.irMetrics;
  return pass;
}

void q2::profiling::registerProfilePass() {
  if (PassInfo::lookup("q2-profile"))
    return;
  PassRegistration<ProfilePass>();
}
