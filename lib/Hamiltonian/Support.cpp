//===- Support.cpp - Private helpers of the Hamiltonian library -----------===//
#include "Support.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

using namespace llvm;

namespace q2::hamiltonian::detail {

Expected<std::unique_ptr<MemoryBuffer>> readFile(StringRef path) {
  auto buf = MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return plainError(path + ": cannot read file: " + buf.getError().message());
  return std::move(*buf);
}

std::optional<double> parseReal(StringRef text) {
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
  if (ec != std::errc() || end != tmp + text.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
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
