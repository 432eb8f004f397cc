//===- Heap.cpp - Live-heap counters and peak windows ---------------------===//

#include "q2/Profiling/Heap.h"
#include "q2/Profiling/Heap/HeapCounter.h"
#include "q2/Profiling/Memory.h"

#include <algorithm>
#include <dlfcn.h>
#include <mutex>
#include <vector>

using namespace q2::profiling;

namespace {

/// The interposer's query functions, found once (q2-opt exports them from
/// its executable; libq2_heap.so when preloaded).
struct Interposer {
  void (*read)(q2_heap_counters *) = nullptr;
  uint64_t (*windowReset)() = nullptr;

  Interposer() {
    auto version = reinterpret_cast<unsigned (*)()>(
        dlsym(RTLD_DEFAULT, "q2_heap_abi_version"));
    if (!version || version() != Q2_HEAP_ABI_VERSION)
      return;
    read = reinterpret_cast<void (*)(q2_heap_counters *)>(
        dlsym(RTLD_DEFAULT, "q2_heap_read"));
    windowReset = reinterpret_cast<uint64_t (*)()>(
        dlsym(RTLD_DEFAULT, "q2_heap_window_reset"));
    if (!read || !windowReset) {
      read = nullptr;
      return;
    }
    // Found but idle: another allocator replaced it (valgrind), or the
    // library was loaded after the process started allocating.
    q2_heap_counters c;
    read(&c);
    if (c.alloc_count == 0)
      read = nullptr;
  }
  static const Interposer &get() {
    static const Interposer instance;
    return instance;
  }
};

HeapCounters fromC(const q2_heap_counters &c) {
  HeapCounters h;
  h.live = c.live_bytes;
  h.peak = c.peak_bytes;
  h.allocated = c.allocated_bytes;
  h.allocCount = c.alloc_count;
  h.foreignFrees = c.foreign_frees;
  return h;
}

struct Windows {
  struct Window {
    HeapWindows::Id id;
    uint64_t peak;
  };
  std::mutex mutex;
  std::vector<Window> open;
  HeapWindows::Id next = 1;
  uint64_t highest = 0;

  Windows() { open.reserve(64); }
  static Windows &get() {
    static Windows instance;
    return instance;
  }

  /// Ends the current piece of every open window (requires `mutex`): its
  /// highest live heap goes into each; returns the counters now.
  HeapCounters boundary() {
    // Growth of the list is an allocation of ours: before the piece ends.
    if (open.size() == open.capacity())
      open.reserve(2 * open.capacity());
    const Interposer &ip = Interposer::get();
    HeapCounters now;
    uint64_t pieceMax;
    if (ip.read) {
      pieceMax = ip.windowReset();
      q2_heap_counters c;
      ip.read(&c);
      now = fromC(c);
    } else {
      now.live = readHeap().inUse;
      pieceMax = now.live;
    }
    highest = std::max({highest, pieceMax, now.live});
    for (Window &w : open)
      w.peak = std::max(w.peak, pieceMax);
    return now;
  }

  /// The peak of window `id` (0 if unknown) after a boundary; `close`
  /// closes it.
  uint64_t peakOf(HeapWindows::Id id, HeapCounters *now, bool close) {
    std::lock_guard<std::mutex> lock(mutex);
    HeapCounters c = boundary();
    if (now)
      *now = c;
    auto it = std::find_if(open.begin(), open.end(),
                           [&](const Window &w) { return w.id == id; });
    if (it == open.end())
      return 0;
    uint64_t p = it->peak;
    if (close)
      open.erase(it);
    return p;
  }
};

} // namespace

bool q2::profiling::heapCountingExact() {
  return Interposer::get().read != nullptr;
}

HeapCounters q2::profiling::readHeapCounters() {
  const Interposer &ip = Interposer::get();
  if (!ip.read) {
    HeapCounters h;
    h.live = readHeap().inUse;
    return h;
  }
  q2_heap_counters c;
  ip.read(&c);
  return fromC(c);
}

HeapWindows::Id HeapWindows::open(HeapCounters *now) {
  Windows &ws = Windows::get();
  std::lock_guard<std::mutex> lock(ws.mutex);
  HeapCounters c = ws.boundary();
  Id id = ws.next++;
  ws.open.push_back({id, c.live}); // capacity reserved by boundary()
  if (now)
    *now = c;
  return id;
}

uint64_t HeapWindows::peak(Id id, HeapCounters *now) {
  return Windows::get().peakOf(id, now, /*close=*/false);
}

uint64_t HeapWindows::close(Id id, HeapCounters *now) {
  return Windows::get().peakOf(id, now, /*close=*/true);
}

uint64_t HeapWindows::highestReading() {
  Windows &ws = Windows::get();
  std::lock_guard<std::mutex> lock(ws.mutex);
  return ws.highest;
}
