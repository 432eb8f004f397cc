//===- q2/Runtime/Limits.h - the register-size limit -------------*- C++ -*-===//
//
// The runtime's limit on the register it allocates, owned by the runtime and
// read by the hosts that refuse a program before loading it (q2-opt's Phase
// C, Python's Circuit): one rule, header-only so that the driver need not
// link the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_RUNTIME_LIMITS_H
#define Q2_RUNTIME_LIMITS_H

#include <cmath>
#include <cstdint>
#include <unistd.h>

namespace q2::runtime::limits {

/// An index must fit in uint64_t and 16 * 2^n bytes in (almost) any size_t.
inline constexpr int64_t kHardMaxQubits = 59;

/// Default of q2_rt_set_max_qubits (the runtime's defaultMaxQubits): the
/// largest n with 16 * 2^n bytes <= 80 %
/// of physical memory (sysconf; 30 when unknown), at most kHardMaxQubits.
inline int64_t defaultMaxQubits() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0)
    return 30;
  long double budget = 0.8L * (long double)pages * (long double)page;
  int64_t n = 0;
  while (n < kHardMaxQubits && std::ldexp(16.0L, int(n + 1)) <= budget)
    ++n;
  return n;
}

} // namespace q2::runtime::limits

#endif // Q2_RUNTIME_LIMITS_H
