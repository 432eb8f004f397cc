//===- Instrumentation.cpp - MLIR pass profiling --------------------------===//
//
// A thin adapter: MLIR's pass callbacks become ProfilingSession pass records.
//
//===----------------------------------------------------------------------===//

#include "q2/Profiling/MLIR/Instrumentation.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

using namespace q2::profiling;

namespace {

// MLIR's nested-pipeline adaptor is an internal class; recognize it by name.
bool isAdaptor(const mlir::Pass *pass) {
  return pass->getArgument().empty() &&
         pass->getName().contains("OpToOpPassAdaptor");
}

/// An adaptor named as `--mlir-timing` names its pipeline: "'func.func'
/// Pipeline" ("'any' Pipeline" for an op-agnostic one). An adaptor holding
/// pipelines on several op kinds (timed by MLIR as sibling pipelines) gets
/// MLIR's own adaptor name, "Pipeline Collection : ['func.func',
/// 'llvm.func']". The anchors are read from the adaptor's textual form
/// ("func.func(cse),llvm.func(...)"): the class is internal.
std::string adaptorName(mlir::Pass *adaptor) {
  std::string text;
  llvm::raw_string_ostream os(text);
  adaptor->printAsTextualPipeline(os);
  os.flush();
  llvm::SmallVector<llvm::StringRef> anchors;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '{') {
      if (depth++ == 0 && c == '(')
        anchors.push_back(llvm::StringRef(text).slice(start, i).trim());
    } else if (c == ')' || c == '}') {
      depth = depth > 0 ? depth - 1 : 0;
    } else if (c == ',' && depth == 0) {
      start = i + 1;
    }
  }
  if (anchors.size() == 1)
    return ("'" + anchors.front() + "' Pipeline").str();
  std::string name = "Pipeline Collection : [";
  for (size_t i = 0; i < anchors.size(); ++i)
    name += (i ? ", '" : "'") + anchors[i].str() + "'";
  return name + "]";
}

class ProfilingInstrumentation : public mlir::PassInstrumentation {
public:
  ProfilingInstrumentation(ProfilingSession &session,
                           InstrumentationOptions options)
      : session(session), opts(std::move(options)) {
    if (!opts.cache)
      opts.cache = std::make_shared<IRMetricsCache>();
  }

  void runBeforePipeline(std::optional<mlir::OperationName> name,
                         const PipelineParentInfo &parentInfo) override {
    session.beginPipeline(parentInfo.parentPass,
                          name ? name->getStringRef() : llvm::StringRef());
  }
  void runAfterPipeline(std::optional<mlir::OperationName>,
                        const PipelineParentInfo &) override {
    session.endPipeline();
  }
  void runBeforePass(mlir::Pass *pass, mlir::Operation *op) override {
    PassStart s;
    s.isAdaptor = isAdaptor(pass);
    if (s.isAdaptor) {
      auto [it, fresh] = adaptorNames.try_emplace(pass);
      if (fresh)
        it->second = adaptorName(pass);
      s.name = it->second;
    } else {
      s.name = pass->getName().str();
    }
    s.argument = pass->getArgument().str();
    s.opName = op->getName().getStringRef().str();
    if (auto sym = op->getAttrOfType<mlir::StringAttr>(
            mlir::SymbolTable::getSymbolAttrName()))
      s.opSymbol = sym.getValue().str();
    s.multithreaded = op->getContext()->isMultithreadingEnabled();
    // Before nested passes run: code other than passes may have changed the
    // IR since the cache last saw it (measureAfterPassOn's premise).
    if (s.isAdaptor && opts.irMetricsPerPass)
      opts.cache->invalidateNested();
    session.beginPass(pass, std::move(s));
  }
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    finish(pass, op, /*failed=*/false);
  }
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override {
    finish(pass, op, /*failed=*/true);
  }

private:
  void finish(mlir::Pass *pass, mlir::Operation *op, bool failed) {
    int64_t idx = session.endPass(pass, failed);
    if (idx < 0 || failed || !opts.irMetricsPerPass || isAdaptor(pass))
      return;
    double t0 = elapsedSeconds();
    bool threaded = op->getContext()->isMultithreadingEnabled();
    mlir::Operation *top = op;
    while (mlir::Operation *parent = top->getParentOp())
      top = parent;
    if (threaded) {
      // The cache is for one thread; other threads may be rewriting IR
      // outside `op`, so only `op` is measured, in its local scope (the
      // default would number the values of the whole module: O(module) per
      // function, and a race with other threads).
      IRMetricsOptions local = opts.cache->options();
      if (op->getParentOp())
        local.flags.useLocalScope();
      session.setPassIR(idx, measureIR(op, local));
    } else if (op == top) {
      session.setPassIR(idx, opts.cache->measure(op));
    } else if (opts.irMetricsOfPassOpOnly) {
      session.setPassIR(idx, opts.cache->measureLocal(op));
    } else {
      // The pass could only change `op`: only its top-level op is hashed.
      session.setPassIR(idx, opts.cache->measureAfterPassOn(top, op));
    }
    session.chargeProfilerTime(elapsedSeconds() - t0);
  }

  ProfilingSession &session;
  InstrumentationOptions opts;
  /// Per adaptor object (the pipeline it holds does not change).
  llvm::DenseMap<const mlir::Pass *, std::string> adaptorNames;
};

} // namespace

void q2::profiling::attachProfiling(mlir::PassManager &pm,
                                    ProfilingSession &session,
                                    InstrumentationOptions options,
                                    bool disableThreading) {
  mlir::MLIRContext *ctx = pm.getContext();
  // Multithreading is checked when passes run (the caller may still turn it
  // off between attaching and running); a warning is recorded then.
  if (disableThreading && ctx->isMultithreadingEnabled())
    ctx->disableMultithreading();
  pm.addInstrumentation(
      std::make_unique<ProfilingInstrumentation>(session, std::move(options)));
}
