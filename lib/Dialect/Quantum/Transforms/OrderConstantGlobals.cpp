//===- OrderConstantGlobals.cpp - deterministic bufferization globals -----===//
#include "q2/Dialect/Quantum/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

namespace q2::quantum {
#define GEN_PASS_DEF_ORDERCONSTANTGLOBALS
#include "q2/Dialect/Quantum/Transforms/Passes.h.inc"
} // namespace q2::quantum

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kPrefix = "__constant_";

/// "__constant_52xf64_3" -> "__constant_52xf64" (the suffix bufferization
/// adds to make a name unique).
StringRef baseName(StringRef name) {
  auto [head, tail] = name.rsplit('_');
  if (!tail.empty() && head.size() > kPrefix.size() &&
      llvm::all_of(tail, llvm::isDigit))
    return head;
  return name;
}

struct OrderConstantGlobalsPass
    : q2::quantum::impl::OrderConstantGlobalsBase<OrderConstantGlobalsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringMap<memref::GlobalOp> globals;
    for (auto g : module.getOps<memref::GlobalOp>())
      if (g.getConstant() && g.isPrivate() &&
          g.getSymName().starts_with(kPrefix))
        globals[g.getSymName()] = g;
    if (globals.empty())
      return markAllAnalysesPreserved();
    // First use, in walk order (deterministic, unlike the creation order).
    llvm::MapVector<Operation *, SmallVector<memref::GetGlobalOp>> order;
    module.walk([&](memref::GetGlobalOp use) {
      auto it = globals.find(use.getName());
      if (it != globals.end())
        order[it->second].push_back(use);
    });
    // Unused ones (none after canonicalize) last, by name and value.
    SmallVector<memref::GlobalOp> unused;
    for (auto &entry : globals)
      if (!order.count(entry.second))
        unused.push_back(entry.second);
    llvm::sort(unused, [](memref::GlobalOp a, memref::GlobalOp b) {
      std::string x, y;
      llvm::raw_string_ostream xs(x), ys(y);
      a->print(xs);
      b->print(ys);
      return x < y;
    });
    for (memref::GlobalOp g : unused)
      order[g];
    // New names: per base name, the first gets it bare, then _1, _2, ...
    llvm::StringMap<unsigned> seen;
    SmallVector<std::pair<Operation *, std::string>> names;
    for (auto &entry : order) {
      auto g = cast<memref::GlobalOp>(entry.first);
      std::string base = baseName(g.getSymName()).str();
      unsigned n = seen[base]++;
      names.push_back({g, n ? base + "_" + std::to_string(n) : base});
    }
    // Two steps, so that no new name meets an old one still in use.
    auto rename = [&](bool final) {
      unsigned k = 0;
      for (auto &[op, name] : names) {
        auto g = cast<memref::GlobalOp>(op);
        std::string now =
            final ? name : "__q2_order_tmp_" + std::to_string(k++);
        g.setSymName(now);
        for (memref::GetGlobalOp use : order[op])
          use.setName(now);
      }
    };
    rename(false);
    rename(true);
    // At the top of the module, in that order.
    Block &body = module.getBodyRegion().front();
    for (auto it = names.rbegin(); it != names.rend(); ++it)
      it->first->moveBefore(&body, body.begin());
  }
};
} // namespace
