//===- FCIDump.cpp - Knowles-Handy FCIDUMP reader -------------------------===//
#include "q2/Hamiltonian/FCIDump.h"
#include "Support.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <random>

using namespace llvm;
using namespace q2::hamiltonian::detail;

namespace q2::hamiltonian {
namespace {

/// Two lines giving the same integral must agree to this (Hartree): writers
/// print a value once, so anything beyond print noise is a real conflict.
constexpr double kDuplicateTolerance = 1e-12;

struct Line {
  StringRef text;
  unsigned number; // 1-based
};

std::vector<Line> splitLines(StringRef contents) {
  std::vector<Line> lines;
  unsigned n = 0;
  while (!contents.empty()) {
    auto [line, rest] = contents.split('\n');
    lines.push_back({line.rtrim('\r'), ++n});
    contents = rest;
  }
  return lines;
}

struct HeaderValue {
  std::string text;
  unsigned line;
};
struct HeaderEntry {
  unsigned line = 0;
  std::vector<HeaderValue> values;
};

bool isNamelistDelim(char c) {
  return isSpace(c) || c == ',' || c == '=' || c == '/' || c == '&' ||
         c == '$';
}

class Parser {
public:
  Parser(StringRef contents, StringRef file) : file(file), lines(splitLines(contents)) {}

  Expected<FCIDump> run(StringRef stem);

private:
  Error parseHeader();
  Error interpretHeader(FCIDump &d);
  Error parseIntegrals(FCIDump &d);

  Error err(unsigned line, const Twine &msg) { return locError(file, line, msg); }

  // Helpers over the parsed namelist.
  Expected<std::optional<long long>> intKey(StringRef key);

  StringRef file;
  std::vector<Line> lines;
  size_t firstIntegralLine = 0; // index into lines
  unsigned headerLine = 1;
  std::map<std::string, HeaderEntry> header; // upper-case keys
};

Error Parser::parseHeader() {
  size_t li = 0;
  while (li < lines.size() && lines[li].text.trim().empty())
    ++li;
  if (li == lines.size())
    return err(lines.empty() ? 1 : lines.back().number,
               "empty file, expected an FCIDUMP header '&FCI ...'");
  StringRef first = lines[li].text.ltrim();
  headerLine = lines[li].number;
  if (!(first.starts_with_insensitive("&FCI") ||
        first.starts_with_insensitive("$FCI")))
    return err(headerLine, "expected the FCIDUMP namelist header '&FCI'");

  std::string currentKey;
  size_t pos = first.data() - lines[li].text.data() + 4;
  for (; li < lines.size(); ++li, pos = 0) {
    StringRef text = lines[li].text;
    unsigned ln = lines[li].number;
    while (pos < text.size()) {
      char c = text[pos];
      if (isSpace(c) || c == ',') {
        ++pos;
        continue;
      }
      if (c == '/' || c == '&' || c == '$') {
        size_t start = pos + 1;
        size_t end = start;
        while (end < text.size() && !isNamelistDelim(text[end]))
          ++end;
        StringRef word = text.slice(start, end);
        if (c != '/' && !word.equals_insensitive("END"))
          return err(ln, "unexpected '" + text.slice(pos, end) +
                             "' in the &FCI namelist");
        if (!text.substr(c == '/' ? pos + 1 : end).trim().empty())
          return err(ln, "unexpected text after the end of the &FCI namelist");
        firstIntegralLine = li + 1;
        return Error::success();
      }
      if (c == '=')
        return err(ln, "'=' without a key in the &FCI namelist");
      // A key or a value; quoted strings are kept as one token.
      size_t end = pos;
      if (c == '\'' || c == '"') {
        end = text.find(c, pos + 1);
        if (end == StringRef::npos)
          return err(ln, "unterminated string in the &FCI namelist");
        ++end;
      } else {
        while (end < text.size() && !isNamelistDelim(text[end]))
          ++end;
      }
      StringRef tok = text.slice(pos, end);
      size_t after = end;
      while (after < text.size() && isSpace(text[after]))
        ++after;
      if (after < text.size() && text[after] == '=') {
        currentKey = tok.upper();
        auto &entry = header[currentKey];
        entry.line = ln;
        entry.values.clear();
        pos = after + 1;
        continue;
      }
      if (currentKey.empty())
        return err(ln, "value '" + tok + "' without a key in the &FCI namelist");
      auto &values = header[currentKey].values;
      // Fortran repeat count "4*1".
      auto [count, value] = tok.split('*');
      long long n;
      if (!value.empty() && !count.getAsInteger(10, n) && n > 0 && n <= 4096) {
        for (long long i = 0; i < n; ++i)
          values.push_back({value.str(), ln});
      } else {
        values.push_back({tok.str(), ln});
      }
      pos = end;
    }
  }
  return err(headerLine, "the &FCI namelist is not terminated by '&END' or '/' "
                         "(reached the end of the file)");
}

Expected<std::optional<long long>> Parser::intKey(StringRef key) {
  auto it = header.find(key.str());
  if (it == header.end())
    return std::optional<long long>();
  const HeaderEntry &e = it->second;
  if (e.values.size() != 1)
    return err(e.line, key + " needs exactly one value, found " +
                           Twine(e.values.size()));
  auto v = parseInteger(e.values[0].text);
  if (!v)
    return err(e.values[0].line,
               "bad integer '" + e.values[0].text + "' for " + key);
  return v;
}

Error Parser::interpretHeader(FCIDump &d) {
  auto norb = intKey("NORB");
  if (!norb)
    return norb.takeError();
  if (!*norb)
    return err(headerLine, "the &FCI namelist has no NORB");
  unsigned norbLine = header["NORB"].line;
  if (**norb < 1)
    return err(norbLine, "NORB must be positive, got " + Twine(**norb));
  if (**norb > kMaxQubits / 2)
    return err(norbLine, "NORB = " + Twine(**norb) + " needs " +
                             Twine(2 * **norb) + " qubits; at most " +
                             Twine(kMaxQubits) + " are supported");
  d.norb = unsigned(**norb);

  auto nelec = intKey("NELEC");
  if (!nelec)
    return nelec.takeError();
  if (!*nelec)
    return err(headerLine, "the &FCI namelist has no NELEC");
  unsigned nelecLine = header["NELEC"].line;
  if (**nelec < 0 || **nelec > 2 * (long long)d.norb)
    return err(nelecLine, "NELEC = " + Twine(**nelec) +
                              " is inconsistent with NORB = " + Twine(d.norb) +
                              " (need 0 <= NELEC <= 2*NORB)");
  d.nelec = unsigned(**nelec);

  auto ms2 = intKey("MS2");
  if (!ms2)
    return ms2.takeError();
  long long m = ms2->value_or(0);
  unsigned ms2Line = *ms2 ? header["MS2"].line : nelecLine;
  long long na = ((long long)d.nelec + m) / 2, nb = ((long long)d.nelec - m) / 2;
  if (((long long)d.nelec + m) % 2 != 0 || na < 0 || nb < 0 || na > d.norb ||
      nb > d.norb)
    return err(ms2Line, "MS2 = " + Twine(m) + " is inconsistent with NELEC = " +
                            Twine(d.nelec) + " and NORB = " + Twine(d.norb));
  d.ms2 = int(m);

  auto isym = intKey("ISYM");
  if (!isym)
    return isym.takeError();
  d.isym = int(isym->value_or(1));

  if (auto it = header.find("ORBSYM"); it != header.end()) {
    for (const HeaderValue &v : it->second.values) {
      auto s = parseInteger(v.text);
      if (!s)
        return err(v.line, "bad integer '" + v.text + "' in ORBSYM");
      d.orbsym.push_back(int(*s));
    }
    if (d.orbsym.size() != d.norb)
      return err(it->second.line, "ORBSYM has " + Twine(d.orbsym.size()) +
                                      " entries but NORB = " + Twine(d.norb));
  }

  // Spin-unrestricted integrals have three blocks; we only map RHF orbitals.
  if (auto it = header.find("UHF"); it != header.end()) {
    for (const HeaderValue &v : it->second.values) {
      std::string s = StringRef(v.text).trim('.').upper();
      if (s == "TRUE" || s == "T")
        return err(v.line, "UHF FCIDUMP files are not supported (UHF=" +
                               v.text + ")");
    }
  }
  if (auto it = header.find("IUHF"); it != header.end()) {
    for (const HeaderValue &v : it->second.values) {
      auto s = parseInteger(v.text);
      if (!s || *s != 0)
        return err(v.line, "UHF FCIDUMP files are not supported (IUHF=" +
                               v.text + ")");
    }
  }
  return Error::success();
}

Error Parser::parseIntegrals(FCIDump &d) {
  const size_t n = d.norb;
  d.h1.assign(n * n, 0.0);
  d.eri.assign(n * n * n * n, 0.0);
  bool haveCore = false;
  unsigned lastLine = headerLine;
  const size_t nPairs = n * (n + 1) / 2;
  std::vector<unsigned> eriLine(nPairs * (nPairs + 1) / 2, 0), h1Line(n * n, 0);
  std::vector<double> eriSeen(eriLine.size(), 0.0), h1Seen(n * n, 0.0);
  for (size_t li = firstIntegralLine; li < lines.size(); ++li) {
    StringRef text = lines[li].text;
    unsigned ln = lines[li].number;
    lastLine = ln;
    SmallVector<StringRef, 6> f;
    text.split(f, ' ', -1, /*KeepEmpty=*/false);
    // Tabs are rare but legal separators.
    if (text.contains('\t')) {
      f.clear();
      SplitString(text, f, " \t");
    }
    if (f.empty())
      continue;
    if (f.size() < 5)
      return err(ln, "truncated integral line: expected 'value i j k l', found " +
                         Twine(f.size()) + " field(s)");
    if (f.size() > 5)
      return err(ln, "expected 'value i j k l', found " + Twine(f.size()) +
                         " fields");
    bool notFinite = false;
    auto value = parseReal(f[0], &notFinite);
    if (!value)
      return err(ln, notFinite ? "value '" + f[0] + "' is not a finite number"
                               : "bad number '" + f[0] + "'");
    if (std::fabs(*value) > kMaxCoefficientMagnitude)
      return err(ln, "value " + fmt(*value) + ": " + magnitudeMessage(*value));
    long long idx[4];
    for (int k = 0; k < 4; ++k) {
      auto v = parseInteger(f[k + 1]);
      if (!v)
        return err(ln, "bad orbital index '" + f[k + 1] + "'");
      if (*v < 0 || *v > (long long)n)
        return err(ln, "orbital index " + Twine(*v) + " out of range (NORB = " +
                           Twine(n) + ")");
      idx[k] = *v;
    }
    auto [i, j, k, l] = std::tie(idx[0], idx[1], idx[2], idx[3]);
    // The same integral twice (up to the permutational symmetry): identical
    // values (within kDuplicateTolerance) are fine, different ones are an
    // error naming both lines.
    auto checkDuplicate = [&](unsigned &seenLine, double &seenValue,
                              const Twine &what) -> Error {
      if (seenLine && std::fabs(seenValue - *value) > kDuplicateTolerance)
        return err(ln, what + " = " + fmt(*value) + " conflicts with line " +
                           Twine(seenLine) + " (" + fmt(seenValue) +
                           "), the same integral up to permutation symmetry");
      seenLine = ln;
      seenValue = *value;
      return Error::success();
    };
    if (i && j && k && l) {
      size_t p = i - 1, q = j - 1, r = k - 1, s = l - 1;
      size_t pq = p >= q ? p * (p + 1) / 2 + q : q * (q + 1) / 2 + p;
      size_t rs = r >= s ? r * (r + 1) / 2 + s : s * (s + 1) / 2 + r;
      size_t key = pq >= rs ? pq * (pq + 1) / 2 + rs : rs * (rs + 1) / 2 + pq;
      if (Error e = checkDuplicate(eriLine[key], eriSeen[key],
                                   "(" + Twine(i) + " " + Twine(j) + "|" +
                                       Twine(k) + " " + Twine(l) + ")"))
        return e;
      auto at = [&](size_t a, size_t b, size_t c, size_t e) -> double & {
        return d.eri[((a * n + b) * n + c) * n + e];
      };
      double v = *value;
      at(p, q, r, s) = at(q, p, r, s) = at(p, q, s, r) = at(q, p, s, r) = v;
      at(r, s, p, q) = at(s, r, p, q) = at(r, s, q, p) = at(s, r, q, p) = v;
    } else if (i && j && !k && !l) {
      size_t key = std::max(i, j) * n + std::min(i, j) - n - 1;
      if (Error e = checkDuplicate(h1Line[key], h1Seen[key],
                                   "h(" + Twine(i) + "," + Twine(j) + ")"))
        return e;
      d.h1[(i - 1) * n + (j - 1)] = d.h1[(j - 1) * n + (i - 1)] = *value;
    } else if (i && !j && !k && !l) {
      // Orbital energy: not part of the Hamiltonian.
    } else if (!i && !j && !k && !l) {
      if (haveCore)
        return err(ln, "second core-energy line '0 0 0 0' (UHF-style blocks are "
                       "not supported)");
      haveCore = true;
      d.coreEnergy = *value;
    } else {
      return err(ln, "invalid index pattern " + Twine(i) + " " + Twine(j) + " " +
                         Twine(k) + " " + Twine(l));
    }
  }
  // Every writer ends with the core energy; without it the file was cut off.
  if (!haveCore)
    return err(lastLine, "truncated file: no core-energy line 'value 0 0 0 0' "
                         "before the end of the file");
  return Error::success();
}

Expected<FCIDump> Parser::run(StringRef stem) {
  FCIDump d;
  d.name = stem.str();
  if (Error e = parseHeader())
    return std::move(e);
  if (Error e = interpretHeader(d))
    return std::move(e);
  if (Error e = parseIntegrals(d))
    return std::move(e);
  return d;
}

} // namespace

Expected<FCIDump> parseFCIDumpBuffer(StringRef contents, StringRef bufferName,
                                     StringRef stem) {
  return Parser(contents, bufferName).run(stem);
}

std::string formatFCIDump(const FCIDump &d) {
  const unsigned n = d.norb;
  std::string out = "&FCI\nNORB=" + std::to_string(n) + ",\nNELEC=" +
                    std::to_string(d.nelec) + ",\nMS2=" + std::to_string(d.ms2) +
                    ",\nUHF=.FALSE.,\nORBSYM=";
  for (unsigned p = 0; p < n; ++p)
    out += (d.orbsym.size() == n ? std::to_string(d.orbsym[p]) : "1") + ",";
  out += "\nISYM=" + std::to_string(d.isym) + ",\n&END\n";
  char line[96];
  auto emit = [&](double v, unsigned i, unsigned j, unsigned k, unsigned l) {
    std::snprintf(line, sizeof line, "%25.17E %4u %4u %4u %4u\n", v, i, j, k, l);
    out += line;
  };
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j <= i; ++j)
      for (unsigned k = 0; k < n; ++k)
        for (unsigned l = 0; l <= k; ++l) {
          if (k * (k + 1) / 2 + l > i * (i + 1) / 2 + j)
            continue;
          double v = d.twoBody(i, j, k, l);
          if (v != 0.0)
            emit(v, i + 1, j + 1, k + 1, l + 1);
        }
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j <= i; ++j)
      if (d.oneBody(i, j) != 0.0)
        emit(d.oneBody(i, j), i + 1, j + 1, 0, 0);
  emit(d.coreEnergy, 0, 0, 0, 0);
  return out;
}

FCIDump randomFCIDump(unsigned norb, unsigned nelec, uint64_t seed) {
  FCIDump d;
  d.name = "random_" + std::to_string(norb) + "o" + std::to_string(nelec) + "e";
  d.norb = norb;
  d.nelec = nelec;
  d.ms2 = int(nelec % 2);
  d.coreEnergy = 1.0;
  const size_t n = norb;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  d.h1.assign(n * n, 0.0);
  for (size_t p = 0; p < n; ++p) {
    d.h1[p * n + p] = -1.5 + uni(rng);
    for (size_t q = 0; q < p; ++q)
      d.h1[p * n + q] = d.h1[q * n + p] = 0.1 * uni(rng);
  }
  d.eri.assign(n * n * n * n, 0.0);
  std::vector<double> B(n * n);
  for (size_t L = 0; L < n; ++L) {
    for (size_t p = 0; p < n; ++p)
      for (size_t q = 0; q <= p; ++q)
        B[p * n + q] = B[q * n + p] = (p == q ? 0.4 : 0.15) * uni(rng);
    for (size_t pq = 0; pq < n * n; ++pq)
      for (size_t rs = 0; rs < n * n; ++rs)
        d.eri[pq * n * n + rs] += B[pq] * B[rs];
  }
  return d;
}

Expected<FCIDump> parseFCIDump(StringRef path) {
  auto buf = readFile(path);
  if (!buf)
    return buf.takeError();
  return parseFCIDumpBuffer((*buf)->getBuffer(), path, sys::path::stem(path));
}

} // namespace q2::hamiltonian
