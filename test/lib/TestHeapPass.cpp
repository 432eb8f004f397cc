//===- TestHeapPass.cpp - Test passes with a known heap behaviour ---------===//
//
// `q2-test-heap-spike{mb=N chunks=K}` allocates N MiB in K blocks, writes
// every page, and frees all of it before it returns: its heap peak is at
// least N MiB above its start while its heap and (for one block, which
// glibc maps and unmaps) RSS end where they started. Loaded as a pass
// plugin (Q2TestPlugin.so) by the tests only; runs on any op.
//
//===----------------------------------------------------------------------===//
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

#include <cstdlib>
#include <cstring>
#include <vector>

using namespace mlir;

namespace {

struct HeapSpikePass
    : PassWrapper<HeapSpikePass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(HeapSpikePass)
  HeapSpikePass() = default;
  HeapSpikePass(const HeapSpikePass &other) : PassWrapper(other) {}

  StringRef getArgument() const override { return "q2-test-heap-spike"; }
  StringRef getDescription() const override {
    return "Test: allocate `mb` MiB in `chunks` blocks, touch them, free them";
  }

  void runOnOperation() override {
    if (chunks == 0) {
      getOperation()->emitError("q2-test-heap-spike: chunks must be >= 1");
      return signalPassFailure();
    }
    size_t total = size_t(mb) << 20, each = total / chunks;
    std::vector<char *> blocks;
    blocks.reserve(chunks);
    for (unsigned i = 0; i < chunks; ++i) {
      auto *p = static_cast<char *>(std::malloc(each));
      if (!p) {
        getOperation()->emitError("q2-test-heap-spike: out of memory");
        break;
      }
      std::memset(p, int(i + 1), each); // resident, not just reserved
      blocks.push_back(p);
    }
    for (char *p : blocks)
      std::free(p);
    if (blocks.size() != chunks)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  Option<unsigned> mb{*this, "mb", llvm::cl::desc("MiB to allocate"),
                      llvm::cl::init(64)};
  Option<unsigned> chunks{*this, "chunks",
                          llvm::cl::desc("Blocks to allocate them in"),
                          llvm::cl::init(1)};
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ABI PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Q2TestPasses", LLVM_VERSION_STRING,
          []() { PassRegistration<HeapSpikePass>(); }};
}
