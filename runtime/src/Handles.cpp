//===- Handles.cpp - register and qubit handles ---------------------------===//
//
// Q2Register * and Q2Qubit * are tagged ids, not pointers: a table of slots
// with generation counters turns them back into registers and tells NULL,
// foreign, stale (deallocated) and wrong-kind handles apart.
//
//===----------------------------------------------------------------------===//
#include "RuntimeInternal.h"

#include <atomic>
#include <mutex>
#include <vector>

using namespace q2::runtime;

namespace {

// Handle bits: [0] = 1 (tag: never an aligned pointer), [1] = qubit handle,
// [2..7] = qubit index, [8..39] = generation, [40..63] = slot. Slots live in
// chunks that are never freed (their number is bounded by the most registers
// alive at once); a slot's generation moves on at every dealloc, so old
// handles of the slot stop matching.
constexpr int kSlotBits = kHandleSlotBits, kChunkBits = 10;
constexpr uint32_t kSlotsPerChunk = 1u << kChunkBits;
constexpr uint32_t kNumChunks = 1u << (kSlotBits - kChunkBits);
struct Slot {
  std::atomic<Register *> reg{nullptr};
  std::atomic<uint32_t> gen{0};
};
std::atomic<Slot *> slotChunks[kNumChunks];
std::mutex registryMutex;
std::vector<uint32_t> freeSlots;
uint32_t slotsIssued = 0;

uint64_t makeHandle(uint32_t slot, uint32_t gen, bool qubit, int64_t index) {
  return 1 | (uint64_t(qubit) << 1) | (uint64_t(index & 63) << 2) |
         (uint64_t(gen) << 8) | (uint64_t(slot) << 40);
}

/// At unload (dlclose, or exit) the chunks go back to the allocator when no
/// register is alive, so a host that unloads the runtime leaks nothing
/// (LeakSanitizer). With registers still alive they stay: a late call on
/// another thread must not find freed memory.
struct SlotChunkReclaimer {
  ~SlotChunkReclaimer() {
    std::lock_guard<std::mutex> g(registryMutex);
    if (freeSlots.size() != slotsIssued)
      return;
    for (auto &c : slotChunks)
      delete[] c.exchange(nullptr);
    freeSlots.clear();
    slotsIssued = 0;
  }
} slotChunkReclaimer;

Register *lookupHandle(uintptr_t x, bool qubit, HandleStatus *status) {
  auto fail = [&](HandleStatus st) -> Register * {
    if (status)
      *status = st;
    return nullptr;
  };
  if (x == 0)
    return fail(HandleStatus::Null);
  if (!(x & 1))
    return fail(HandleStatus::Foreign);
  if (bool(x & 2) != qubit)
    return fail(HandleStatus::WrongKind);
  if (!qubit && ((x >> 2) & 63))
    return fail(HandleStatus::Foreign);
  uint32_t slot = uint32_t(uint64_t(x) >> 40);
  uint32_t gen = uint32_t(uint64_t(x) >> 8);
  Slot *chunk = slotChunks[slot >> kChunkBits].load(std::memory_order_acquire);
  if (!chunk)
    return fail(HandleStatus::Foreign);
  Slot &s = chunk[slot & (kSlotsPerChunk - 1)];
  uint32_t cur = s.gen.load(std::memory_order_acquire);
  if (gen != cur)
    return fail(gen == 0 || gen > cur ? HandleStatus::Foreign
                                      : HandleStatus::Stale);
  Register *r = s.reg.load(std::memory_order_acquire);
  if (!r)
    return fail(HandleStatus::Stale);
  if (status)
    *status = HandleStatus::Ok;
  return r;
}
} // namespace

/// Gives reg a slot and its handle; false when 2^24 registers are alive.
bool q2::runtime::registerRegister(Register *reg) {
  std::lock_guard<std::mutex> g(registryMutex);
  uint32_t slot;
  if (!freeSlots.empty()) {
    slot = freeSlots.back();
    freeSlots.pop_back();
  } else {
    if (slotsIssued >= (1u << kSlotBits))
      return false;
    slot = slotsIssued;
    uint32_t c = slot >> kChunkBits;
    if (!slotChunks[c].load(std::memory_order_acquire)) {
      freeSlots.reserve(freeSlots.size() + kSlotsPerChunk);
      slotChunks[c].store(new Slot[kSlotsPerChunk], std::memory_order_release);
    }
    ++slotsIssued;
  }
  Slot &s = slotChunks[slot >> kChunkBits].load()[slot & (kSlotsPerChunk - 1)];
  uint32_t gen = s.gen.load();
  if (gen == 0)
    gen = 1;
  s.gen.store(gen, std::memory_order_release);
  s.reg.store(reg, std::memory_order_release);
  reg->handle = makeHandle(slot, gen, false, 0);
  return true;
}

void q2::runtime::unregisterRegister(Register *reg) {
  std::lock_guard<std::mutex> g(registryMutex);
  uint32_t slot = uint32_t(reg->handle >> 40);
  Slot &s = slotChunks[slot >> kChunkBits].load()[slot & (kSlotsPerChunk - 1)];
  s.reg.store(nullptr, std::memory_order_release);
  uint32_t next = s.gen.load() + 1;
  s.gen.store(next == 0 ? 1 : next, std::memory_order_release);
  freeSlots.push_back(slot);
}

const char *q2::runtime::handleStatusText(HandleStatus s) {
  switch (s) {
  case HandleStatus::Ok: return "ok";
  case HandleStatus::Null: return "NULL";
  case HandleStatus::Foreign: return "not a handle given out by this runtime";
  case HandleStatus::WrongKind: return "a register handle where a qubit is expected, or the reverse";
  case HandleStatus::Stale: return "its register was deallocated";
  case HandleStatus::BadIndex: return "qubit index out of range";
  }
  return "?";
}

Register *q2::runtime::lookupRegister(const Q2Register *h,
                                      HandleStatus *status) {
  return lookupHandle(reinterpret_cast<uintptr_t>(h), false, status);
}

Register *q2::runtime::lookupQubit(const Q2Qubit *h, int64_t *index,
                                   HandleStatus *status) {
  uintptr_t x = reinterpret_cast<uintptr_t>(h);
  Register *r = lookupHandle(x, true, status);
  if (!r)
    return nullptr;
  int64_t i = int64_t((x >> 2) & 63);
  if (i >= r->numQubits) {
    if (status)
      *status = HandleStatus::BadIndex;
    return nullptr;
  }
  if (index)
    *index = i;
  return r;
}
