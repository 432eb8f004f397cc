//===- TestUtil.h - Helpers shared by the profiling unit tests --*- C++ -*-===//

#ifndef Q2_TEST_PROFILING_TESTUTIL_H
#define Q2_TEST_PROFILING_TESTUTIL_H

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace q2::profiling::test {

constexpr size_t MiB = size_t(1) << 20;

/// Keeps the compiler from eliding an allocation whose contents are unused.
inline void clobber(void *p) { asm volatile("" : : "r"(p) : "memory"); }

/// malloc + write every page, so the memory is resident.
inline char *allocTouched(size_t bytes, int fill = 1) {
  char *p = static_cast<char *>(std::malloc(bytes));
  if (p)
    std::memset(p, fill, bytes);
  clobber(p);
  return p;
}

} // namespace q2::profiling::test

#endif
