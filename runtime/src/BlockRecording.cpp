//===- BlockRecording.cpp - recording gate calls into a block -------------===//
//
// Between q2_rt_block_begin(count) and q2_rt_block_end() gate calls are
// recorded as decoded Ops (nested blocks as kOpNest levels) instead of
// applied; the outermost end hands the block to executeBlock (Blocks.cpp).
// Any error inside poisons the recording, which is dropped at its end.
//
//===----------------------------------------------------------------------===//
#include "BlockEngine.h"
#include "Subspace.h"

#include <new>

using namespace q2::runtime;
using namespace q2::runtime::blocks;

namespace {
struct Recorder {
  int depth = 0;         // open levels (also those past the limit)
  bool poisoned = false; // an error inside: dropped at the outermost end
  Register *reg = nullptr;
  uint64_t regHandle = 0;
  int64_t count = 0;
  std::vector<Op> ops; // capacity reused across blocks
  size_t open[kMaxBlockDepth] = {};
};
thread_local Recorder rec;
} // namespace

bool q2::runtime::recording() { return rec.depth > 0; }

void q2::runtime::resetRecording() {
  rec.depth = 0;
  rec.poisoned = false;
  rec.reg = nullptr;
  rec.regHandle = 0;
  rec.ops.clear();
  if (rec.ops.capacity() > (size_t(1) << 16))
    rec.ops.shrink_to_fit(); // a huge block does not pin its memory
}

bool q2::runtime::recordOp(const char *fn, Register *reg, const Op &op) {
  if (rec.depth == 0)
    return false;
  if (rec.poisoned)
    return true;
  if (!rec.reg) {
    rec.reg = reg;
    rec.regHandle = reg->handle;
  } else if (rec.reg != reg) {
    setError("%s: all gates of a block must act on one register", fn);
    rec.poisoned = true;
    return true;
  }
  if (rec.ops.size() >= kMaxRecordedOps) {
    setError("%s: a block may record at most %zu gates", fn, kMaxRecordedOps);
    rec.poisoned = true;
    return true;
  }
  rec.ops.push_back(op);
  return true;
}
// Only the C ABI is exported from libq2_runtime.so.
#pragma GCC visibility push(default)
extern "C" {

void q2_rt_block_begin(int64_t count) {
  if (errorPending() || rec.poisoned) {
    // Keep begin/end balanced so the matching end finds its level.
    ++rec.depth;
    rec.poisoned = true;
    return;
  }
  if (count < 0) {
    setError("q2_rt_block_begin: negative count %lld", (long long)count);
    ++rec.depth;
    rec.poisoned = true;
    return;
  }
  // Repeated squaring loses unitarity in proportion to the count; above
  // this the result is not exact to 1e-6 (docs/runtime-blocks.md).
  if (count > Q2_MAX_POWER_COUNT) {
    setError("q2_rt_block_begin: count %lld is above %lld (2^32), the largest "
             "power the runtime computes exactly",
             (long long)count, (long long)Q2_MAX_POWER_COUNT);
    ++rec.depth;
    rec.poisoned = true;
    return;
  }
  if (rec.depth >= kMaxBlockDepth) {
    setError("q2_rt_block_begin: blocks nested deeper than %d levels",
             kMaxBlockDepth);
    ++rec.depth;
    rec.poisoned = true;
    return;
  }
  try {
    if (rec.depth == 0) {
      rec.ops.clear();
      rec.reg = nullptr;
      rec.regHandle = 0;
      rec.count = count;
    } else {
      Op nest;
      nest.kind = kOpNest;
      nest.count = count;
      rec.open[rec.depth] = rec.ops.size();
      rec.ops.push_back(nest);
    }
  } catch (...) {
    setError("q2_rt_block_begin: internal error: out of memory");
    rec.poisoned = true;
  }
  ++rec.depth;
}

void q2_rt_block_end(void) {
  if (rec.depth == 0) {
    setError("q2_rt_block_end: no open block (q2_rt_block_end without "
             "q2_rt_block_begin)");
    return;
  }
  --rec.depth;
  if (rec.poisoned || errorPending()) {
    if (rec.depth == 0)
      resetRecording();
    return;
  }
  if (rec.depth > 0) { // close a nested level
    size_t at = rec.open[rec.depth];
    rec.ops[at].len = int64_t(rec.ops.size() - at - 1);
    return;
  }
  try {
    if (rec.reg) {
      Register *reg = lookupRegister(
          reinterpret_cast<const Q2Register *>(uintptr_t(rec.regHandle)));
      if (!reg)
        setError("q2_rt_block_end: the block's register was deallocated");
      else if (reg->deferred) // kept for the subspace paths (Subspace.h)
        subspace::recordBlock(reg, rec.ops.data(), rec.ops.size(), rec.count);
      else
        executeBlock(reg, rec.ops.data(), rec.ops.size(), rec.count);
    }
  } catch (const std::bad_alloc &) {
    setError("q2_rt_block_end: internal error: out of memory");
  } catch (const std::exception &ex) {
    setError("q2_rt_block_end: internal error: %s", ex.what());
  } catch (...) {
    setError("q2_rt_block_end: internal error: unknown exception");
  }
  resetRecording();
}

} // extern "C"
#pragma GCC visibility pop
