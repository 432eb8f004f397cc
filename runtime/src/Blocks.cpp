//===- Blocks.cpp - executing a recorded block (executeBlock) -------------===//
//
// Between q2_rt_block_begin(count) and q2_rt_block_end() gate calls are
// recorded (as decoded Ops) instead of applied; at the outermost end the
// block, the C-controlled unitary U on the qubits T it touches (C = controls
// common to every recorded call), is applied `count` times by one of
//   replay        the Ops count times with the whole-state kernels;
//   slice replay  per slice of the C = 1 subspace (2^m amplitudes over T,
//                 batched to a cache-sized buffer): gather, all Ops count
//                 times in cache, scatter; slices split over the threads;
//   dense         U built on the identity (column panels in place), U^count
//                 by repeated squaring (Eigen GEMM, cached per register),
//                 applied once as a GEMM over the slices;
// chosen by a cost model (docs/runtime-blocks.md) with constants measured by
// bench-runtime --calibrate.
//
// The parts: BlockEngine.h lists the files.
//
//===----------------------------------------------------------------------===//
#include "BlockEngine.h"

#include <chrono>

using namespace q2::runtime;
using namespace q2::runtime::blocks;

void q2::runtime::executeBlock(Register *reg, const Op *ops, size_t len,
                               int64_t count, int64_t recordedCalls) {
  auto t0 = std::chrono::steady_clock::now();
  const int64_t products0 = denseProducts;
  int mode = blockMode.load(std::memory_order_relaxed);
  int64_t recorded = 0;
  for (size_t i = 0; i < len; ++i)
    recorded += ops[i].kind != kOpNest;
  if (recordedCalls >= 0)
    recorded = recordedCalls;
  // Every method but the reference (mode 0) runs the block with its
  // Clifford frames folded away when that removes Ops (CliffordFold.cpp).
  thread_local std::vector<Op> folded;
  if (folded.capacity() > (size_t(1) << 16) && len < (size_t(1) << 16))
    std::vector<Op>().swap(folded); // a huge block does not pin its memory
  if (mode != 0 && count != 0 && foldCliffords(ops, len, folded) &&
      folded.size() < len) {
    ops = folded.data();
    len = folded.size();
  }
  Shape s = shapeOf(ops, len);
  int n = int(reg->numQubits);
  stateBytes = 16.0 * std::ldexp(1.0, n);
  int64_t denseDim = 0, numCosets = 0;
  auto finish = [&](int method, bool reused) {
    double secs = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - t0)
                      .count();
    addBlockStat(s.m, __builtin_popcountll(s.C), count, recorded, s.calls,
                 method, reused, secs, denseProducts - products0, denseDim,
                 numCosets);
    notifyProgress(method, secs);
  };
  if (count == 0 || !s.any) {
    finish(kReplay, false);
    return;
  }
  flushFusion(reg);
  if (mode == 0) {
    replayOps(data(reg), n, ops, len, count);
    finish(kReplay, false);
    return;
  }
  std::vector<Op> local;
  translateAll(ops, len, s.C, s.T, local);
  if (!reg->cache)
    reg->cache.reset(new BlockCache);
  // Invariant cosets of U (block diagonal) and the ones the state has
  // amplitude on: dense then works on those 2^d x 2^d blocks only.
  Cosets cs = s.m >= cosetMinQubits.load(std::memory_order_relaxed)
                  ? cosetsOf(local, s.m)
                  : Cosets::full(s.m);
  std::vector<uint64_t> reps{0};
  if (cs.d < s.m && denseFits(cs.d) && !liveCosets(reg, s, cs, reps))
    cs = Cosets::full(s.m), reps.assign(1, 0);
  CacheEntry *e =
      reg->cache->find(hashOps(local, s.T), s.T, local, reps[0], cs.d);
  double amps = std::ldexp(1.0, n - __builtin_popcountll(s.C));
  Estimate est = estimate(n, amps, s.m, s.apps, count, e, false, cs.d,
                          double(reps.size()));
  int method = choose(est, mode, cs.d);
  int forced = forcedMethod.load(std::memory_order_relaxed);
  if (forced == kReplay || forced == kSliceReplay ||
      (forced == kDense && denseFits(cs.d)))
    method = forced;
  bool reused = false;
  switch (method) {
  case kReplay:
    replayOps(data(reg), n, ops, len, count);
    break;
  case kSliceReplay:
    sliceReplay(data(reg), n, ops, len, s.T, s.C, count, s.apps);
    break;
  default: {
    std::vector<uint64_t> members;
    for (uint64_t r : reps) {
      DenseResult d;
      denseMatrix(*reg->cache, local, s.T, cs, r, count, mode, d);
      if (cs.d < s.m)
        cs.members(r, members);
      applyControlledDense(data(reg), n, s.T, s.C, *d.matrix,
                           cs.d < s.m ? &members : nullptr);
      reused = reused || d.reused;
    }
    denseDim = int64_t(1) << cs.d;
    numCosets = int64_t(reps.size());
    break;
  }
  }
  finish(method, reused);
}
