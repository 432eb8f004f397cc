//===- Heap.h - Live-heap counters and peak windows -------------*- C++ -*-===//
//
// The C++ side of the heap counter (q2/Profiling/Heap/HeapCounter.h): exact
// figures when the allocator interposer is in place (q2-opt, or
// lib/libq2_heap.so preloaded), glibc's mallinfo2 otherwise. Nothing links
// the interposer to use this: it is looked up at run time.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PROFILING_HEAP_H
#define Q2_PROFILING_HEAP_H

#include <cstdint>

namespace q2::profiling {

/// Process-wide heap totals. Exact: requested bytes, as valgrind massif's
/// mem_heap_B. Not exact: only `live`, glibc's heap in use (mallinfo2
/// uordblks + hblkhd: chunk sizes, not requests).
struct HeapCounters {
  uint64_t live = 0;
  uint64_t peak = 0;       ///< highest `live` of the process so far
  uint64_t allocated = 0;  ///< bytes of all allocations
  uint64_t allocCount = 0; ///< number of allocations
  uint64_t foreignFrees = 0;
};

/// Whether the interposer counts this process's allocations (its query
/// functions are found and it has seen allocations; under valgrind, whose
/// allocator replaces it, it has not).
bool heapCountingExact();
HeapCounters readHeapCounters();

/// Peak windows over the process's live heap. One set for the process:
/// every profiler (nested sessions, threads) opens and closes windows
/// here, and each boundary ends the current piece of every open window, so
/// windows may nest and overlap in any order. Exact: the peak of a window
/// is the highest live heap between its open and close, counted at every
/// allocation. Not exact: the highest mallinfo2 reading at any boundary
/// while it was open.
class HeapWindows {
public:
  using Id = uint64_t;
  /// Opens a window; `now` (optional) gets the counters at its start.
  static Id open(HeapCounters *now = nullptr);
  /// The window's peak so far (it stays open).
  static uint64_t peak(Id id, HeapCounters *now = nullptr);
  /// Closes the window; returns its peak (0 for an unknown id).
  static uint64_t close(Id id, HeapCounters *now = nullptr);
  /// Not exact: the highest mallinfo2 reading at any boundary (exact:
  /// HeapCounters::peak is the process's own).
  static uint64_t highestReading();
};

} // namespace q2::profiling

#endif // Q2_PROFILING_HEAP_H
