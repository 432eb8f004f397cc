//===- ProfilingBench.cpp - Cost of the profiling primitives --------------===//
//
// What each measurement costs, to budget the profiler's overhead: readers of
// the memory layers, a stage-boundary snapshot, IR metrics versus printing to
// a string, and the per-pass cost of the instrumentation.
//
//===----------------------------------------------------------------------===//

#include "q2/Profiling/MLIR/Instrumentation.h"
#include "q2/Profiling/Profiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>

using namespace q2::profiling;

namespace {

void BM_ReadCurrentRSS_statm(benchmark::State &state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(llvm::cantFail(readCurrentRSS()));
}
BENCHMARK(BM_ReadCurrentRSS_statm);

void BM_ReadProcStatus(benchmark::State &state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(llvm::cantFail(readProcStatus()));
}
BENCHMARK(BM_ReadProcStatus);

void BM_RSSReader_pread(benchmark::State &state) {
  RSSReader reader;
  for (auto _ : state)
    benchmark::DoNotOptimize(llvm::cantFail(reader.read()));
}
BENCHMARK(BM_RSSReader_pread);

// smaps_rollup walks the page tables: its cost grows with resident memory.
// Arg: extra MiB made resident first.
void BM_ReadSmapsRollup(benchmark::State &state) {
  size_t n = size_t(state.range(0)) << 20;
  char *p = n ? static_cast<char *>(std::malloc(n)) : nullptr;
  if (p)
    std::memset(p, 1, n);
  benchmark::DoNotOptimize(p);
  for (auto _ : state)
    benchmark::DoNotOptimize(llvm::cantFail(readSmapsRollup()));
  std::free(p);
}
BENCHMARK(BM_ReadSmapsRollup)->Arg(0)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_ReadHeap_mallinfo2(benchmark::State &state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(readHeap());
}
BENCHMARK(BM_ReadHeap_mallinfo2);

void BM_TakeSnapshot(benchmark::State &state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(llvm::cantFail(takeSnapshot("s")));
}
BENCHMARK(BM_TakeSnapshot);

void BM_ResetPeakRSS(benchmark::State &state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(resetPeakRSS());
}
BENCHMARK(BM_ResetPeakRSS);

std::string moduleText(int funcs) {
  std::string s;
  for (int i = 0; i < funcs; ++i)
    s += "func.func @f" + std::to_string(i) +
         "(%a: i32, %b: i32) -> i32 {\n  %0 = arith.addi %a, %b : i32\n"
         "  %1 = arith.muli %0, %b : i32\n  return %1 : i32\n}\n";
  return s;
}

struct Parsed {
  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> mod;
  explicit Parsed(int funcs) {
    ctx.loadDialect<mlir::func::FuncDialect, mlir::arith::ArithDialect>();
    ctx.disableMultithreading();
    mod = mlir::parseSourceString<mlir::ModuleOp>(moduleText(funcs), &ctx);
  }
};

void BM_MeasureIR_Counting(benchmark::State &state) {
  Parsed p(int(state.range(0)));
  uint64_t bytes = 0;
  for (auto _ : state)
    bytes = measureIR(p.mod.get()).bytes;
  state.SetBytesProcessed(int64_t(bytes) * state.iterations());
}
BENCHMARK(BM_MeasureIR_Counting)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_PrintToString(benchmark::State &state) {
  Parsed p(int(state.range(0)));
  uint64_t bytes = 0;
  for (auto _ : state) {
    std::string s;
    llvm::raw_string_ostream os(s);
    p.mod->print(os);
    os << '\n';
    bytes = s.size();
    benchmark::DoNotOptimize(s.data());
  }
  state.SetBytesProcessed(int64_t(bytes) * state.iterations());
}
BENCHMARK(BM_PrintToString)->Arg(1000)->Unit(benchmark::kMillisecond);

struct NopPass : mlir::PassWrapper<NopPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NopPass)
  llvm::StringRef getArgument() const final { return "nop"; }
  void runOnOperation() override { markAllAnalysesPreserved(); }
};

// 100 nested no-op passes on each of 10 functions: 1000 pass executions
// (plus the adaptor) per iteration. Arg 0: plain, 1: instrumented,
// 2: instrumented with per-pass IR metrics.
void BM_PassManager100x10(benchmark::State &state) {
  Parsed p(10);
  ProfilingOptions o;
  InstrumentationOptions io;
  io.irMetricsPerPass = state.range(0) == 2;
  o.warnOnStderr = false;
  o.resetPeakPerStage = false;
  for (auto _ : state) {
    ProfilingSession session(o);
    mlir::PassManager pm(&p.ctx);
    pm.enableVerifier(false);
    auto &fpm = pm.nest<mlir::func::FuncOp>();
    for (int i = 0; i < 100; ++i)
      fpm.addPass(std::make_unique<NopPass>());
    if (state.range(0) > 0)
      attachProfiling(pm, session, io);
    if (mlir::failed(pm.run(*p.mod)))
      state.SkipWithError("pass manager failed");
  }
  state.SetItemsProcessed(1000 * state.iterations());
}
BENCHMARK(BM_PassManager100x10)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
