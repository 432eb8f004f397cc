//===- SubspaceTape.cpp - deferred registers: the tape --------------------===//
//
// Which registers are deferred, keeping their calls, and materialising the
// state vector when a path needs it (the calls replayed through the same
// entry points they would have taken: fusion, executeBlock). Also the path
// report (q2_rt_path_stats) and the stage callback.
//
//===----------------------------------------------------------------------===//
#include "BlockEngine.h"
#include "Subspace.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

using namespace q2::runtime;
using namespace q2::runtime::subspace;

void q2::runtime::TapeDeleter::operator()(Tape *t) const { delete t; }

namespace {
// Q2_RT_SUBSPACE=0 starts the process on the state-vector path only (to
// profile it next to the subspace paths), =2 defers every register.
int initialMode() {
  const char *env = std::getenv("Q2_RT_SUBSPACE");
  if (env && (env[0] == '0' || env[0] == '2') && env[1] == 0)
    return env[0] - '0';
  return 1;
}
std::atomic<int> subspaceMode{initialMode()};

struct StageProgress {
  Q2StageProgressFn fn = nullptr;
  void *user = nullptr;
};
thread_local StageProgress stageProgress;
thread_local Q2PathStat lastPath;
thread_local bool havePath = false;
} // namespace

namespace q2::runtime::subspace {
thread_local int statPath = Q2_PATH_STATE_VECTOR;
thread_local int64_t statDim = 0;

int mode() { return subspaceMode.load(std::memory_order_relaxed); }

bool defers(int64_t n) {
  int m = mode();
  return m == 2 || (m == 1 && n >= kDeferMinQubits);
}

Q2PathStat &pathStat() {
  havePath = true;
  return lastPath;
}

void notifyStage(int path, const char *stage, int64_t dim) {
  if (stageProgress.fn)
    stageProgress.fn(stageProgress.user, int32_t(path), stage, dim);
}

void record(Register *reg, const Op &op) {
  Tape &t = *reg->tape;
  if (t.ops.size() + 1 > kMaxTapeOps) {
    // Too many calls to keep: the program runs on the state vector from
    // here (a program without powered blocks, or not QPE-shaped).
    if (materialize(reg, "q2_rt_gate",
                    "more than " + std::to_string(kMaxTapeOps) +
                        " recorded operations (compile with power blocks)"))
      applyOrFuse(reg, op);
    return;
  }
  t.items.push_back({t.ops.size(), 1, -1, 1});
  t.ops.push_back(op);
}

void recordBlock(Register *reg, const Op *ops, size_t len, int64_t count) {
  Tape &t = *reg->tape;
  int64_t recorded = 0;
  for (size_t i = 0; i < len; ++i)
    recorded += ops[i].kind != kOpNest;
  // Kept with its Clifford frames folded, as the block engine runs it
  // (except in block mode 0, the reference): a decomposed Trotter step is
  // ~20x shorter.
  thread_local std::vector<Op> folded;
  if (getBlockMode() != 0 && count != 0 &&
      foldCliffords(ops, len, folded) && folded.size() < len) {
    ops = folded.data();
    len = folded.size();
  }
  if (t.ops.size() + len > kMaxTapeOps) {
    if (materialize(reg, "q2_rt_block_end",
                    "more than " + std::to_string(kMaxTapeOps) +
                        " recorded operations"))
      executeBlock(reg, ops, len, count);
    return;
  }
  t.items.push_back({t.ops.size(), len, count, recorded});
  t.ops.insert(t.ops.end(), ops, ops + len);
}

bool materialize(Register *reg, const char *fn, const std::string &why) {
  if (!reg->deferred)
    return true;
  int64_t limit = effectiveMaxQubits();
  if (reg->numQubits > limit) {
    // The state vector does not fit: say what the subspace paths needed.
    setError("%s: the %lld-qubit register does not fit as a state vector "
             "(16 * 2^%lld bytes; the limit is %lld qubits) and no subspace "
             "path could run it: %s",
             fn, (long long)reg->numQubits, (long long)reg->numQubits,
             (long long)limit,
             why.empty() ? "the program needs the state itself" : why.c_str());
    return false;
  }
  if (!allocateState(reg, fn))
    return false;
  std::unique_ptr<Tape, TapeDeleter> tape = std::move(reg->tape);
  reg->deferred = false;
  Q2PathStat &p = pathStat();
  std::memset(&p, 0, sizeof p);
  p.path = Q2_PATH_STATE_VECTOR;
  p.num_qubits = int32_t(reg->numQubits);
  p.live_qubits = reg->numQubits;
  p.subspace_dim = int64_t(1) << reg->numQubits;
  p.bytes = int64_t(16) << reg->numQubits;
  std::snprintf(p.note, sizeof p.note, "%s",
                why.empty() ? "the program needs the state vector" : why.c_str());
  statPath = Q2_PATH_STATE_VECTOR;
  statDim = 0;
  for (const TapeItem &it : tape->items) {
    if (errorPending())
      break;
    if (it.isBlock())
      executeBlock(reg, tape->ops.data() + it.begin, it.len, it.count,
                   it.recorded);
    else
      applyOrFuse(reg, tape->ops[it.begin]);
  }
  return !errorPending();
}

} // namespace q2::runtime::subspace

void q2::runtime::applyCall(Register *reg, const Op &op) {
  if (reg->deferred)
    record(reg, op);
  else
    applyOrFuse(reg, op);
}

// Only the C ABI is exported from libq2_runtime.so.
#pragma GCC visibility push(default)
extern "C" {

int32_t q2_rt_set_subspace_mode(int32_t m) {
  if (m < 0 || m > 2) {
    setError("q2_rt_set_subspace_mode: unknown mode %d (0 state vector, 1 "
             "auto, 2 every register deferred)",
             m);
    return subspaceMode.load();
  }
  return subspaceMode.exchange(m);
}

int64_t q2_rt_path_stats(Q2PathStat *out) {
  if (!havePath)
    return 0;
  if (out)
    *out = lastPath;
  return 1;
}

void q2_rt_reset_path_stats(void) { havePath = false; }

void q2_rt_set_stage_progress(Q2StageProgressFn fn, void *user) {
  stageProgress.fn = fn;
  stageProgress.user = user;
}

} // extern "C"
#pragma GCC visibility pop
