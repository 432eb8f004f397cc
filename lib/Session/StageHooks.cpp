//===- StageHooks.cpp - The compile session's attachments to compile() ----===//
//
// The hooks are where the session's concerns attach to the one stage loop
// of lib/Pipeline: the profiler, MLIR's pass-manager command-line options,
// diagnostics that name the stage and pass, and --ir-dir files.
//
//===----------------------------------------------------------------------===//
#include "q2/Session/StageHooks.h"

#include "q2/Profiling/MLIR/IRMetrics.h"
#include "q2/Profiling/MLIR/Instrumentation.h"
#include "q2/Profiling/Session.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace q2;
using namespace q2::session;
using pipeline::Stage;
namespace prof = q2::profiling;

namespace {

struct TrackPass : PassInstrumentation {
  WhereAmI &where;
  explicit TrackPass(WhereAmI &where) : where(where) {}
  void runBeforePass(Pass *p, Operation *) override {
    where.pass =
        p->getArgument().empty() ? p->getName().str() : p->getArgument().str();
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
    std::string name = llvm::formatv("{0}{1}_{2}", count < 10 ? "0" : "", count,
                                     p->getArgument());
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

} // namespace

StageHooks::StageHooks(const SessionOptions &opts, WhereAmI &where,
                       prof::ProfilingSession *profiler,
                       std::shared_ptr<prof::IRMetricsCache> irCache)
    : opts(opts), where(where), profiler(profiler),
      irCache(irCache ? std::move(irCache)
                      : std::make_shared<prof::IRMetricsCache>()) {}

StageHooks::~StageHooks() = default;

void StageHooks::configure(Stage s, PassManager &pm) {
  pm.addInstrumentation(std::make_unique<TrackPass>(where));
  if (profiler) {
    prof::InstrumentationOptions io;
    io.irMetricsPerPass = opts.profilePasses;
    io.cache = irCache;
    prof::attachProfiling(pm, *profiler, io);
  }
  // --mlir-timing, --mlir-print-ir-after-all, ... act on every stage.
  if (opts.mlirCommandLine) {
    if (failed(applyPassManagerCLOptions(pm)))
      cliError = "cannot apply MLIR's pass manager options";
    applyDefaultTimingPassManagerCLOptions(pm);
  }
  if (opts.keep == Keep::Pass && !opts.irDir.empty()) {
    llvm::SmallString<256> dir(opts.irDir);
    llvm::sys::path::append(dir,
                            llvm::formatv("{0}_{1}", pipeline::stageIndex(s),
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
StageHooks::runStage(Stage s, ModuleOp module,
                     llvm::function_ref<void(OpPassManager &)> addPasses) {
  if (runNested) {
    OpPassManager pm(ModuleOp::getOperationName());
    addPasses(pm);
    return runNested(pm, module);
  }
  LogicalResult r = CompileHooks::runStage(s, module, addPasses);
  return cliError.empty() ? r : failure();
}

void StageHooks::beforeStage(Stage s) {
  where.stage = pipeline::stageName(s).str();
  where.pass = "(stage setup)";
  dumpError.clear();
  if (profiler)
    stage =
        std::make_unique<prof::ScopedStage>(*profiler, pipeline::stageName(s));
}

void StageHooks::step(const pipeline::StepEvent &e) {
  where.pass = e.name.str();
  if (!profiler)
    return;
  if (e.begin) {
    profiler->beginPass(this,
                        {e.name.str(), e.name.str(), "", "", false, false});
    return;
  }
  int64_t idx = profiler->endPass(this);
  if (idx < 0 || !opts.profilePasses)
    return;
  // --profile-passes: what the step produced, LLVM IR or the object.
  double t0 = prof::elapsedSeconds();
  if (e.module)
    profiler->setPassIR(idx, prof::measureIR(*e.module));
  else
    profiler->setPassIR(idx, prof::measureBuffer(llvm::StringRef(
                                 e.object.data(), e.object.size())));
  profiler->chargeProfilerTime(prof::elapsedSeconds() - t0);
}

llvm::Error StageHooks::afterStage(const pipeline::StageOutput &out) {
  if (llvm::Error e = measureAndWrite(out))
    return e;
  return alsoAfterStage ? alsoAfterStage(out) : llvm::Error::success();
}

llvm::Error StageHooks::measureAndWrite(const pipeline::StageOutput &out) {
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
  // Measuring is the profiler's time (the stage's clocks have stopped).
  auto charged = [&](llvm::function_ref<void()> work) {
    if (profiler)
      profiler->chargeWork(rec, work);
    else
      work();
  };
  if (out.stage == Stage::ObjectCode) {
    llvm::StringRef obj(out.object.data(), out.object.size());
    if (rec)
      charged([&] { rec->ir = prof::measureBuffer(obj); });
    return path.empty() ? llvm::Error::success()
                        : writeFileAtomically(path, obj);
  }
  if (path.empty()) {
    // With --profile-passes the module was usually just measured after
    // the stage's last pass: the cache has it.
    if (rec)
      charged([&] {
        rec->ir = out.llvmModule ? prof::measureIR(*out.llvmModule)
                                 : irCache->measure(out.module);
      });
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
