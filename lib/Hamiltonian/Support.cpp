//===- Support.cpp - Private helpers of the Hamiltonian library -----------===//
#include "Support.h"
#include "q2/Hamiltonian/QubitHamiltonian.h"
#include "q2/Support/FileIO.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace llvm;

namespace q2::hamiltonian::detail {

Expected<std::unique_ptr<MemoryBuffer>> readFile(StringRef path) {
  // Regular files only, bounded: /dev/zero or a FIFO is an error, not a
  // read that grows or blocks forever.
  return q2::readInputFile(path);
}

std::optional<double> parseReal(StringRef text, bool *notFinite) {
  if (notFinite)
    *notFinite = false;
  text = text.trim();
  if (text.starts_with("+"))
    text = text.drop_front();
  if (text.empty() || text.size() > 64)
    return std::nullopt;
  // Fortran writes 1.0D-03; from_chars only knows 'e'.
  char tmp[65];
  for (size_t i = 0; i < text.size(); ++i)
    tmp[i] = (text[i] == 'D' || text[i] == 'd') ? 'e' : text[i];
  double v = 0;
  auto [end, ec] = std::from_chars(tmp, tmp + text.size(), v);
  if (end != tmp + text.size())
    return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves v alone on a range error: ask strtod which side.
    tmp[text.size()] = 0;
    v = std::strtod(tmp, nullptr); // +-HUGE_VAL on overflow, ~0 on underflow
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  if (!std::isfinite(v)) {
    if (notFinite)
      *notFinite = true;
    return std::nullopt;
  }
  return v;
}

std::string magnitudeMessage(double v) {
  return "magnitude " + fmt(std::fabs(v)) + " exceeds " +
         fmt(kMaxCoefficientMagnitude) +
         " Hartree (the limit for integrals and coefficients)";
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::optional<long long> parseInteger(StringRef text) {
  text = text.trim();
  if (text.starts_with("+"))
    text = text.drop_front();
  long long v;
  if (text.empty() || text.getAsInteger(10, v))
    return std::nullopt;
  return v;
}

} // namespace q2::hamiltonian::detail
