// libFuzzer target: q2-opt's --coeffs reader (driver::detail::readCoeffSets)
// for programs of 1 and 15 terms.
#include "FuzzUtil.h"
#include "../lib/Driver/DriverInternal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = q2::fuzz::scratchPath("coeffs");
  if (!q2::fuzz::writeScratch(path, data, size))
    return 0;
  for (unsigned nTerms : {1u, 15u})
    q2::fuzz::discard(q2::driver::detail::readCoeffSets(path, nTerms));
  return 0;
}
