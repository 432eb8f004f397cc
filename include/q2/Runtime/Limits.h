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

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
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

/// The eigenphase path (docs/runtime-blocks.md) holds about six dense
/// D x D complex matrices for a system live subspace of D states (U, its
/// eigenvectors, U times them, the Hermitian matrix and the solver's
/// workspace): D is at most the largest power of two with 6 * 16 * D^2
/// bytes within 80 % of physical memory (8192 on 24 GiB), and at most 2^14.
inline constexpr const char *kEigenphaseLimitRule =
    "6 dense matrices of 16 * D^2 bytes within 80% of RAM";
inline int64_t maxEigenphaseStates() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  long double budget = pages > 0 && page > 0
                           ? 0.8L * (long double)pages * (long double)page
                           : 0.8L * 16 * (1LL << 30);
  int64_t d = 1;
  while (d < (int64_t(1) << 14) && 96.0L * (long double)(2 * d) * (2 * d) <= budget)
    d *= 2;
  return d;
}

/// Why the eigenphase path cannot take a system live subspace of 2^d
/// states with nEst estimation wires (its matrices, or the 2^nEst
/// outcomes' buffers: about 8 doubles per outcome), or nullopt.
inline std::optional<std::string> eigenphaseRefusal(int64_t d, int64_t nEst) {
  int64_t maxD = maxEigenphaseStates();
  if (d > 62 || (int64_t(1) << d) > maxD)
    return "above the eigenphase path's limit of " + std::to_string(maxD) +
           " states (" + kEigenphaseLimitRule + ")";
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  long double budget = pages > 0 && page > 0
                           ? 0.8L * (long double)pages * (long double)page
                           : 0.8L * 16 * (1LL << 30);
  long double need = 96.0L * std::ldexp(1.0L, int(2 * d)) +
                     64.0L * std::ldexp(1.0L, int(std::min<int64_t>(nEst, 120)));
  if (need > budget)
    return "the eigenphase path's matrices and the 2^" + std::to_string(nEst) +
           " outcomes' buffers need " +
           std::to_string((unsigned long long)std::min(need, 1e19L)) +
           " bytes, more than 80% of RAM";
  return std::nullopt;
}

} // namespace q2::runtime::limits

#endif // Q2_RUNTIME_LIMITS_H
