/*===- HeapCounter.h - Exact live-heap counting: the C query API -*- C -*-===*\
|*                                                                            *|
|* The allocator interposer (lib/Profiling/Heap) counts every malloc-family   *|
|* call of the process: the *requested* bytes of live blocks (what valgrind   *|
|* massif reports as mem_heap_B), their peak, the bytes and number of         *|
|* allocations. It is linked into q2-opt and shipped as lib/libq2_heap.so for *|
|* LD_PRELOAD into other programs (stock mlir-opt-22, python3).               *|
|*                                                                            *|
|* Profilers find these functions at run time (dlsym(RTLD_DEFAULT, ...)), so  *|
|* nothing needs to link the interposer to ask; q2::profiling::HeapCounter    *|
|* (q2/Profiling/Heap.h) is the C++ side. Plain C so that any tool can use it.*|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef Q2_PROFILING_HEAP_HEAPCOUNTER_H
#define Q2_PROFILING_HEAP_HEAPCOUNTER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bumped when q2_heap_counters or a function's meaning changes. */
#define Q2_HEAP_ABI_VERSION 1

/** Process-wide totals since the process started. */
typedef struct q2_heap_counters {
  /** Requested bytes of the blocks live now (malloc(n) counts n). */
  uint64_t live_bytes;
  /** Highest live_bytes so far. */
  uint64_t peak_bytes;
  /** Requested bytes of all allocations (a realloc counts its new size). */
  uint64_t allocated_bytes;
  /** Successful allocations (malloc, calloc, realloc, the aligned ones). */
  uint64_t alloc_count;
  /** Frees of blocks this counter did not allocate (allocated before it was
      in place or through glibc's internal entry points); not subtracted. */
  uint64_t foreign_frees;
} q2_heap_counters;

/** Q2_HEAP_ABI_VERSION of the interposer that is in place. */
unsigned q2_heap_abi_version(void);

/** Reads all counters (each exact; together a snapshot up to allocations
    racing on other threads). */
void q2_heap_read(q2_heap_counters *out);

/** live_bytes alone (a sum over the threads' totals), async-signal-safe. */
uint64_t q2_heap_live_bytes(void);

/** Peak windows. Returns the highest live_bytes since the previous call
    (since the process started, on the first), and starts a new window at
    the current live_bytes. A profiler that calls it at every boundary of
    its intervals gets the peak of each piece; the peak of a pass is the
    maximum over the pieces between its begin and end. */
uint64_t q2_heap_window_reset(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* Q2_PROFILING_HEAP_HEAPCOUNTER_H */
