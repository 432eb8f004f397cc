//===- HeapCounter.cpp - Exact live-heap counting by malloc interposition -===//
//
// Defines the malloc family over glibc's allocator (its __libc_* entry
// points) and counts the requested bytes of every block.
//
// The size of a block is needed again when it is freed. It is kept in a
// footer: each request asks glibc for 8 bytes more, and the last 8 usable
// bytes of the chunk hold the requested size plus a tag derived from the
// address. The usable size comes from glibc's chunk header (what
// malloc_usable_size reads). A footer rather than a header keeps the
// pointers glibc returns (alignment, malloc_usable_size and a free that
// bypasses us all stay valid), and for requests that are a multiple of 8 it
// costs a larger chunk only when the request filled its chunk exactly. A
// block whose footer does not carry its tag was not allocated here: its
// free is counted in foreign_frees and subtracts nothing.
//
// Counting is a handful of plain loads and stores per call, on every
// thread (each has totals of its own; see Counters); no locks, no
// allocation, no initialization (the counters are zero-initialized
// statics, valid from the first malloc of the process, before any
// constructor).
//
// Built twice from this one file: into q2-opt (so that every library it
// loads binds to these definitions) and as lib/libq2_heap.so for LD_PRELOAD.
//
//===----------------------------------------------------------------------===//

#include "q2/Profiling/Heap/HeapCounter.h"

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

extern "C" {
void *__libc_malloc(size_t);
void __libc_free(void *);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void *__libc_valloc(size_t);
}

#define Q2_HEAP_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr size_t kFooter = sizeof(uint64_t);
/// Requests are refused above this (glibc cannot serve them either); the
/// bits above it hold the tag.
constexpr uint64_t kSizeBits = 48;
constexpr uint64_t kSizeMask = (uint64_t(1) << kSizeBits) - 1;

/// Totals of one thread (or of the threads beyond kSlots). Live bytes may
/// wrap below zero (a block allocated by one thread and freed by another):
/// only sums are read.
struct alignas(64) Totals {
  std::atomic<uint64_t> live{0}, allocated{0}, allocs{0};
};

/// Threads other than the owner that get totals of their own.
constexpr uint32_t kSlots = 256;
/// A thread's own live bytes are added to the shared sum once they have
/// moved this far: threads allocating at once do not contend on one cache
/// line at every call.
constexpr int64_t kPublish = 64 << 10;

/// The thread that allocates first (the process's main thread, which does
/// a compiler's work) counts into `owner` with plain loads and stores and
/// checks the peak at every allocation. Every other thread counts into a
/// slot of its own, also with plain stores, and adds its live bytes to
/// `published` (one atomic add) when they have moved by kPublish; the peak
/// is checked then. The live heap, read at a boundary, is exact (the sum of
/// everything); a peak reached while several threads allocate may miss what
/// the others have not published yet (< kPublish each).
/// Fields written at different rates sit on cache lines of their own: every
/// call reads ownerThread, which must not share a line with the peaks.
struct Counters {
  Totals owner;
  alignas(64) std::atomic<uint64_t> published{0};
  alignas(64) std::atomic<void *> ownerThread{nullptr};
  alignas(64) std::atomic<uint64_t> window{0}, peak{0};
  alignas(64) std::atomic<uint64_t> foreign{0};
  std::atomic<uint32_t> slotsUsed{0};
  Totals slots[kSlots]; ///< live: not yet published
  Totals overflow;      ///< threads beyond kSlots: atomics, published at once
};
Counters counters; // constant-initialized: no constructor runs

/// This thread's slot + 1; 0 = none yet, -1 = none (all taken, or the
/// thread is exiting).
__thread int slotOfThread __attribute__((tls_model("initial-exec"))) = 0;

inline bool isOwner() {
  void *self = __builtin_thread_pointer();
  void *owner = counters.ownerThread.load(std::memory_order_relaxed);
  if (__builtin_expect(owner == self, 1))
    return true;
  return !owner && counters.ownerThread.compare_exchange_strong(
                       owner, self, std::memory_order_relaxed);
}

inline uint64_t get(const std::atomic<uint64_t> &a) {
  return a.load(std::memory_order_relaxed);
}

/// At a thread's exit (a pthread key destructor): what it had not
/// published is added to the shared sum, which the peaks are checked
/// against; what the thread frees after that (later destructors) goes
/// through the shared totals.
void retire(void *slot) {
  auto *t = static_cast<Totals *>(slot);
  slotOfThread = -1;
  uint64_t pending = get(t->live);
  t->live.store(0, std::memory_order_relaxed);
  counters.published.fetch_add(pending, std::memory_order_relaxed);
}

pthread_key_t exitKey;
bool exitKeyCreated = false;
pthread_once_t exitKeyOnce = PTHREAD_ONCE_INIT;

/// Gives this thread a slot (or none, when all are taken).
__attribute__((noinline)) int assignSlot() {
  uint32_t n = counters.slotsUsed.fetch_add(1, std::memory_order_relaxed);
  if (n >= kSlots)
    return slotOfThread = -1;
  slotOfThread = int(n) + 1;
  // Neither allocates (a key below 32 is stored in the thread itself; one
  // above would allocate through us, with the slot already set).
  pthread_once(&exitKeyOnce, [] {
    exitKeyCreated = pthread_key_create(&exitKey, retire) == 0;
  });
  if (exitKeyCreated)
    pthread_setspecific(exitKey, &counters.slots[n]);
  return int(n) + 1;
}

/// This thread's slot, or null when all are taken.
inline Totals *mySlot() {
  int k = slotOfThread;
  if (__builtin_expect(k == 0, 0))
    k = assignSlot();
  return k > 0 ? &counters.slots[k - 1] : nullptr;
}

/// a += v with a plain load and store: `a` has one writer.
inline uint64_t bump(std::atomic<uint64_t> &a, uint64_t v) {
  uint64_t x = get(a) + v;
  a.store(x, std::memory_order_relaxed);
  return x;
}

inline void raiseTo(std::atomic<uint64_t> &a, uint64_t v) {
  uint64_t cur = get(a);
  while (v > cur &&
         !a.compare_exchange_weak(cur, v, std::memory_order_relaxed))
    ;
}

/// Live bytes grew to `live`, above the current window's peak.
__attribute__((noinline)) void newPeak(uint64_t live) {
  raiseTo(counters.window, live);
  raiseTo(counters.peak, live);
}

inline void checkPeak(uint64_t live) {
  if (live > get(counters.window))
    newPeak(live);
}

/// Adds this thread's pending live bytes to the shared sum.
__attribute__((noinline)) void publish(Totals *t, uint64_t pending,
                                       bool grew) {
  Counters &c = counters;
  t->live.store(0, std::memory_order_relaxed);
  uint64_t live =
      c.published.fetch_add(pending, std::memory_order_relaxed) + pending +
      get(c.owner.live);
  if (grew)
    checkPeak(live);
}

/// Threads beyond kSlots: atomics, published at once.
__attribute__((noinline)) void countOverflow(uint64_t delta, bool alloc,
                                             uint64_t n) {
  Counters &c = counters;
  if (alloc) {
    c.overflow.allocated.fetch_add(n, std::memory_order_relaxed);
    c.overflow.allocs.fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t live = c.published.fetch_add(delta, std::memory_order_relaxed) +
                  delta + get(c.owner.live);
  if (int64_t(delta) > 0)
    checkPeak(live);
}

/// Live bytes of this thread change by `delta`; with `alloc`, because of
/// an allocation of `n` bytes.
inline void count(uint64_t delta, bool alloc, uint64_t n) {
  Counters &c = counters;
  if (__builtin_expect(isOwner(), 1)) {
    uint64_t live = bump(c.owner.live, delta) + get(c.published);
    if (alloc) {
      bump(c.owner.allocated, n);
      bump(c.owner.allocs, 1);
    }
    if (int64_t(delta) > 0)
      checkPeak(live);
    return;
  }
  Totals *t = mySlot();
  if (!t)
    return countOverflow(delta, alloc, n);
  if (alloc) {
    bump(t->allocated, n);
    bump(t->allocs, 1);
  }
  int64_t pending = int64_t(bump(t->live, delta));
  if (__builtin_expect(pending >= kPublish || pending <= -kPublish, 0))
    publish(t, uint64_t(pending), int64_t(delta) > 0);
}

/// An allocation of `n` bytes; `freed` bytes of an old block went with it
/// (realloc).
inline void countAlloc(uint64_t n, uint64_t freed = 0) {
  count(n - freed, true, n);
}

inline void countFree(uint64_t n) { count(-n, false, 0); }

inline void countForeign() {
  counters.foreign.fetch_add(1, std::memory_order_relaxed);
}

/// Sum of `field` over the owner, the slots in use and the overflow.
uint64_t total(std::atomic<uint64_t> Totals::*field) {
  const Counters &c = counters;
  uint64_t x = get(c.owner.*field) + get(c.overflow.*field);
  uint32_t used = c.slotsUsed.load(std::memory_order_relaxed);
  for (uint32_t k = 0; k < used && k < kSlots; ++k)
    x += get(c.slots[k].*field);
  return x;
}

/// Usable bytes of a chunk glibc returned, from its header (the size field
/// before the block; bit 1 marks an mmapped chunk, whose header is 16 bytes
/// instead of the 8 a chunk borrows from its successor).
inline size_t usableSize(void *p) {
  size_t field = static_cast<size_t *>(p)[-1];
  size_t size = field & ~size_t(7);
  return (field & 2) ? size - 16 : size - 8;
}

/// 16 bits of the block's address (its low 4 are always 0). A footer of
/// zeros can match (1 address in 65536), but then it says 0 bytes.
inline uint64_t tagOf(void *p) {
  return (reinterpret_cast<uintptr_t>(p) >> 4) & 0xffff;
}

/// Writes the footer of a fresh block of `n` requested bytes.
inline void *seal(void *p, size_t n) {
  uint64_t footer = (tagOf(p) << kSizeBits) | n;
  std::memcpy(static_cast<char *>(p) + usableSize(p) - kFooter, &footer,
              kFooter);
  return p;
}

/// The requested size of a block, or false if it has no footer of ours.
/// With `clear`, the footer is erased: a chunk glibc hands out again at the
/// same address must not show it to a free that bypassed us.
inline bool sizeOf(void *p, size_t &n, bool clear = false) {
  size_t usable = usableSize(p); // >= 24: glibc's smallest chunk
  char *at = static_cast<char *>(p) + usable - kFooter;
  uint64_t footer;
  std::memcpy(&footer, at, kFooter);
  n = size_t(footer & kSizeMask);
  if ((footer >> kSizeBits) != tagOf(p) || n > usable - kFooter)
    return false;
  if (clear)
    std::memset(at, 0, kFooter);
  return true;
}

/// The request to pass on for `n` bytes, or false (errno ENOMEM) if none.
inline bool padded(size_t n, size_t &request) {
  if (n > kSizeMask - kFooter) {
    errno = ENOMEM;
    return false;
  }
  request = n + kFooter;
  return true;
}

inline void *allocated(void *p, size_t n) {
  if (!p)
    return nullptr;
  seal(p, n);
  countAlloc(n);
  return p;
}

inline void released(void *p) {
  size_t n;
  if (sizeOf(p, n, /*clear=*/true))
    countFree(n);
  else
    countForeign();
}

inline void *alignedAlloc(size_t alignment, size_t n) {
  size_t request;
  if (!padded(n, request))
    return nullptr;
  return allocated(__libc_memalign(alignment, request), n);
}

} // namespace

Q2_HEAP_EXPORT void *malloc(size_t n) {
  size_t request;
  if (!padded(n, request))
    return nullptr;
  return allocated(__libc_malloc(request), n);
}

Q2_HEAP_EXPORT void free(void *p) {
  if (!p)
    return;
  // Counted before the block can be reused by another thread, so that
  // live_bytes never holds both.
  released(p);
  __libc_free(p);
}

Q2_HEAP_EXPORT void *calloc(size_t count_, size_t size) {
  size_t n, request;
  if (__builtin_mul_overflow(count_, size, &n)) {
    errno = ENOMEM;
    return nullptr;
  }
  if (!padded(n, request))
    return nullptr;
  return allocated(__libc_calloc(1, request), n);
}

Q2_HEAP_EXPORT void *realloc(void *p, size_t n) {
  if (!p)
    return malloc(n);
  if (n == 0) { // glibc frees and returns null
    free(p);
    return nullptr;
  }
  size_t request;
  if (!padded(n, request))
    return nullptr;
  size_t old = 0;
  bool ours = sizeOf(p, old, /*clear=*/true); // glibc may free p
  void *q = __libc_realloc(p, request);
  if (!q) { // p is untouched
    if (ours)
      seal(p, old);
    return nullptr;
  }
  seal(q, n);
  countAlloc(n, old);
  if (!ours)
    countForeign();
  return q;
}

Q2_HEAP_EXPORT void *reallocarray(void *p, size_t count_, size_t size) {
  size_t n;
  if (__builtin_mul_overflow(count_, size, &n)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, n);
}

Q2_HEAP_EXPORT void *memalign(size_t alignment, size_t n) {
  return alignedAlloc(alignment, n);
}

Q2_HEAP_EXPORT void *aligned_alloc(size_t alignment, size_t n) {
  return alignedAlloc(alignment, n);
}

Q2_HEAP_EXPORT int posix_memalign(void **out, size_t alignment, size_t n) {
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 ||
      alignment == 0)
    return EINVAL;
  int saved = errno;
  void *p = alignedAlloc(alignment, n);
  errno = saved;
  if (!p)
    return ENOMEM;
  *out = p;
  return 0;
}

Q2_HEAP_EXPORT void *valloc(size_t n) {
  size_t request;
  if (!padded(n, request))
    return nullptr;
  return allocated(__libc_valloc(request), n);
}

Q2_HEAP_EXPORT void *pvalloc(size_t n) {
  // pvalloc hands out whole pages: that is what it allocated.
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  size_t rounded;
  if (__builtin_add_overflow(n, page - 1, &rounded)) {
    errno = ENOMEM;
    return nullptr;
  }
  rounded &= ~(page - 1);
  return alignedAlloc(page, rounded ? rounded : page);
}

Q2_HEAP_EXPORT size_t malloc_usable_size(void *p) {
  if (!p)
    return 0;
  // What was requested: the rest of the chunk holds the footer.
  size_t n;
  return sizeOf(p, n) ? n : usableSize(p);
}

Q2_HEAP_EXPORT unsigned q2_heap_abi_version(void) {
  return Q2_HEAP_ABI_VERSION;
}

Q2_HEAP_EXPORT void q2_heap_read(q2_heap_counters *out) {
  out->live_bytes = q2_heap_live_bytes();
  // What other threads had not published counts now.
  checkPeak(out->live_bytes);
  out->peak_bytes = get(counters.peak);
  out->allocated_bytes = total(&Totals::allocated);
  out->alloc_count = total(&Totals::allocs);
  out->foreign_frees = get(counters.foreign);
}

Q2_HEAP_EXPORT uint64_t q2_heap_live_bytes(void) {
  return total(&Totals::live) + get(counters.published);
}

Q2_HEAP_EXPORT uint64_t q2_heap_window_reset(void) {
  uint64_t live = q2_heap_live_bytes();
  checkPeak(live); // what other threads had not published ends this window
  uint64_t before =
      counters.window.exchange(live, std::memory_order_relaxed);
  // An allocation on another thread between the two loads may have raised
  // the window that was just replaced: the new one starts at least at what
  // is live now.
  raiseTo(counters.window, q2_heap_live_bytes());
  return before;
}
