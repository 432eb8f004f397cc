//===- Fusion.cpp - rotation and gate fusion ------------------------------===//
//
// Consecutive gate calls with the same controls on at most
// Fusion::kMaxFusedQubits other qubits are collected per register; at a
// flush the cost model (fusionPays, BlockCostModel.cpp) decides between one
// dense 2^k x 2^k sweep and applying them one by one. Q2_RT_FUSION=0 turns
// it off.
//
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "RuntimeInternal.h"

#include <atomic>
#include <cstdlib>

using namespace q2::runtime;

namespace {
bool initialFusion() {
  const char *env = std::getenv("Q2_RT_FUSION");
  return !(env && env[0] == '0');
}
std::atomic<bool> fusionOn{initialFusion()};
std::atomic<int64_t> fusionMinQubits{1};
std::atomic<int> fusionPolicy{0};

/// Joins op to the register's pending group if it fits: the group's
/// controls are effective controls of op, and the other qubits of all its
/// Ops stay within kMaxFusedQubits. False: apply directly.
bool tryFuse(Register *reg, const Op &op) {
  if (!fusionOn.load(std::memory_order_relaxed) ||
      fusionPolicy.load(std::memory_order_relaxed) < 0 ||
      reg->numQubits < fusionMinQubits.load(std::memory_order_relaxed))
    return false;
  const int maxQ = Fusion::kMaxFusedQubits;
  // A phase (scale) starts a group controlled by all its fixed bits; other
  // Ops by their explicit controls, so a CNOT ladder under the same control
  // stays in one group.
  uint64_t startCtrl = op.kind == kOpScale ? op.ones : op.ctrl;
  if (__builtin_popcountll(op.touch & ~startCtrl) > maxQ)
    return false;
  Fusion &f = reg->fusion;
  if (f.active &&
      ((op.ones & f.ctrlMask) != f.ctrlMask ||
       __builtin_popcountll(f.targetMask | (op.touch & ~f.ctrlMask)) > maxQ ||
       f.ops.size() >= Fusion::kMaxOps))
    flushFusion(reg);
  if (!f.active) {
    f.active = true;
    f.ctrlMask = startCtrl;
    f.targetMask = 0;
    f.ops.clear();
  }
  f.targetMask |= op.touch & ~f.ctrlMask;
  f.ops.push_back(op);
  return true;
}
} // namespace

void q2::runtime::applyOrFuse(Register *reg, const Op &op) {
  if (tryFuse(reg, op))
    return;
  flushFusion(reg);
  applyOp(data(reg), int(reg->numQubits), op);
}

void q2::runtime::flushFusion(Register *reg) {
  if (!reg || !reg->fusion.active)
    return;
  Fusion &f = reg->fusion;
  f.active = false;
  int n = int(reg->numQubits), k = __builtin_popcountll(f.targetMask);
  uint64_t amps = uint64_t(1) << (n - __builtin_popcountll(f.ctrlMask));
  uint64_t fixed = f.targetMask | f.ctrlMask;
  int policy = fusionPolicy.load(std::memory_order_relaxed);
  bool dense =
      f.ops.size() > 1 &&
      (policy > 0 ||
       (policy == 0 && fusionPays(k, n, amps, f.ops.data(), f.ops.size(),
                                  fixed ? uint64_t(__builtin_ctzll(fixed))
                                        : uint64_t(n))));
  if (!dense) {
    for (const Op &op : f.ops)
      applyOp(data(reg), n, op);
    return;
  }
  // U on the k group qubits: the Ops (in local bits) applied to the columns
  // of the identity, a 2k-qubit buffer with the row in the low k bits.
  uint64_t dim = uint64_t(1) << k;
  f.scratch.assign(dim * dim, std::complex<double>(0, 0));
  for (uint64_t i = 0; i < dim; ++i)
    f.scratch[i * dim + i] = 1.0;
  double *buf = reinterpret_cast<double *>(f.scratch.data());
  for (const Op &op : f.ops)
    applyOp(buf, 2 * k, translateOp(op, f.ctrlMask, f.targetMask));
  f.matrix.resize(dim * dim); // row major for applyDense
  for (uint64_t r = 0; r < dim; ++r)
    for (uint64_t c = 0; c < dim; ++c)
      f.matrix[r * dim + c] = f.scratch[c * dim + r];
  kernels().applyDense(data(reg), n, f.targetMask, f.ctrlMask,
                       reinterpret_cast<const Cplx *>(f.matrix.data()));
}

bool q2::runtime::getFusionEnabled() { return fusionOn.load(); }
bool q2::runtime::setFusionEnabled(bool on) { return fusionOn.exchange(on); }
int64_t q2::runtime::getFusionMinQubits() { return fusionMinQubits.load(); }
int64_t q2::runtime::setFusionMinQubits(int64_t n) {
  return fusionMinQubits.exchange(n);
}
int q2::runtime::setFusionPolicy(int policy) {
  return fusionPolicy.exchange(policy);
}
