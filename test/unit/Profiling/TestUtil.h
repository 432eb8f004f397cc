//===- TestUtil.h - Helpers shared by the profiling unit tests --*- C++ -*-===//

#ifndef Q2_TEST_PROFILING_TESTUTIL_H
#define Q2_TEST_PROFILING_TESTUTIL_H

#include "q2/Profiling/Report.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <thread>

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

/// Sleeps the full time: the signal timeline backend interrupts the
/// sampled thread, which cuts usleep() short (sleep_for resumes on EINTR).
inline void sleepMs(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

/// A record as the report writes it, parsed back for inspection.
template <class T> nlohmann::json asJSON(const T &record) {
  return nlohmann::json::parse(q2::profiling::toJSONText(record));
}

} // namespace q2::profiling::test

#endif
