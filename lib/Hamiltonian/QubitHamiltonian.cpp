//===- QubitHamiltonian.cpp - Pauli sums, JSON and OpenFermion readers ----===//
#include "q2/Hamiltonian/QubitHamiltonian.h"
#include "q2/Hamiltonian/FCIDump.h"
#include "q2/Hamiltonian/JordanWigner.h"
#include "Support.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

using namespace llvm;
using namespace q2::hamiltonian::detail;

namespace q2::hamiltonian {

//===----------------------------------------------------------------------===//
// QubitHamiltonian and Pauli words
//===----------------------------------------------------------------------===//

static bool isIdentityWord(StringRef w) {
  return w.find_first_not_of('I') == StringRef::npos;
}

double QubitHamiltonian::identityCoeff() const {
  double c = 0;
  for (const PauliTerm &t : terms)
    if (isIdentityWord(t.word))
      c += t.coeff;
  return c;
}

double QubitHamiltonian::oneNorm() const {
  double s = 0;
  for (const PauliTerm &t : terms)
    if (!isIdentityWord(t.word))
      s += std::fabs(t.coeff);
  return s;
}

PauliMask toMask(StringRef word) {
  PauliMask m;
  for (size_t i = 0; i < word.size(); ++i) {
    uint64_t bit = uint64_t(1) << i;
    switch (word[i]) {
    case 'X': m.x |= bit; break;
    case 'Y': m.x |= bit; m.z |= bit; break;
    case 'Z': m.z |= bit; break;
    default: break;
    }
  }
  return m;
}

std::string toWord(PauliMask m, unsigned numQubits) {
  std::string w(numQubits, 'I');
  for (unsigned i = 0; i < numQubits; ++i) {
    bool x = (m.x >> i) & 1, z = (m.z >> i) & 1;
    w[i] = x ? (z ? 'Y' : 'X') : (z ? 'Z' : 'I');
  }
  return w;
}

Error checkPauliWord(StringRef word, unsigned numQubits) {
  for (size_t i = 0; i < word.size(); ++i) {
    char c = word[i];
    if (c != 'I' && c != 'X' && c != 'Y' && c != 'Z')
      return plainError("unknown Pauli letter '" + Twine(c) + "' in '" + word +
                        "' (expected I, X, Y or Z)");
  }
  if (word.size() != numQubits)
    return plainError("Pauli word '" + word + "' has " + Twine(word.size()) +
                      " letters, expected " + Twine(numQubits));
  return Error::success();
}

static int letterRank(char c) {
  switch (c) {
  case 'I': return 0;
  case 'X': return 1;
  case 'Y': return 2;
  default: return 3;
  }
}

void canonicalizeTerms(std::vector<PauliTerm> &terms) {
  // Equal words are summed in input order (hashing, not a std::map of
  // 10^5 strings: q2-qpe at 10^5 terms), then ordered by weight and
  // letters, I < X < Y < Z.
  llvm::StringMap<size_t> index(unsigned(terms.size()));
  std::vector<PauliTerm> merged;
  merged.reserve(terms.size());
  for (PauliTerm &t : terms) {
    auto [it, fresh] = index.try_emplace(t.word, merged.size());
    if (fresh)
      merged.push_back({std::move(t.word), 0.0 + t.coeff});
    else
      merged[it->second].coeff += t.coeff;
  }
  struct Keyed {
    size_t weight;
    PauliTerm term;
  };
  std::vector<Keyed> kept;
  kept.reserve(merged.size());
  bool plain = true; // only IXYZ: rank order is byte order
  for (PauliTerm &t : merged) {
    if (!(std::fabs(t.coeff) >= 1e-12))
      continue;
    size_t w = 0;
    for (char c : t.word) {
      w += c != 'I';
      plain &= c == 'I' || c == 'X' || c == 'Y' || c == 'Z';
    }
    kept.push_back({w, std::move(t)});
  }
  std::sort(kept.begin(), kept.end(), [plain](const Keyed &a, const Keyed &b) {
    if (a.weight != b.weight)
      return a.weight < b.weight;
    if (plain)
      return a.term.word < b.term.word;
    return std::lexicographical_compare(
        a.term.word.begin(), a.term.word.end(), b.term.word.begin(),
        b.term.word.end(),
        [](char x, char y) { return letterRank(x) < letterRank(y); });
  });
  terms.clear();
  for (Keyed &k : kept)
    terms.push_back(std::move(k.term));
}

/// Fills numElectrons/ms2 from hf_state or hf_state from numElectrons.
static void completeOccupation(QubitHamiltonian &h) {
  if (!h.hfOccupation.empty()) {
    int na = 0, nb = 0;
    for (unsigned q = 0; q < h.hfOccupation.size(); ++q)
      (q % 2 == 0 ? na : nb) += h.hfOccupation[q];
    h.numElectrons = unsigned(na + nb);
    h.ms2 = na - nb;
  } else if (h.numElectrons > 0 && h.numQubits % 2 == 0) {
    int na = (int(h.numElectrons) + h.ms2) / 2, nb = (int(h.numElectrons) - h.ms2) / 2;
    h.hfOccupation = hartreeFockOccupation(h.numQubits, unsigned(na), unsigned(nb));
  }
}

/// Checks numElectrons/ms2 against the register (shared by the readers).
static std::optional<std::string> checkElectrons(const QubitHamiltonian &h) {
  if (h.numElectrons == 0)
    return std::nullopt;
  if (h.numElectrons > h.numQubits)
    return "n_electrons = " + std::to_string(h.numElectrons) + " exceeds n_qubits = " +
           std::to_string(h.numQubits);
  long long na = ((long long)h.numElectrons + h.ms2), nb = ((long long)h.numElectrons - h.ms2);
  if (h.numQubits % 2 != 0 || na % 2 != 0 || na < 0 || nb < 0 ||
      na / 2 > h.numQubits / 2 || nb / 2 > h.numQubits / 2)
    return "n_electrons = " + std::to_string(h.numElectrons) + " and ms2 = " +
           std::to_string(h.ms2) + " do not fit " + std::to_string(h.numQubits) +
           " interleaved spin-orbital qubits";
  return std::nullopt;
}

/// Two entries of the same Pauli word must agree to this; anything else is
/// a conflict (the readers refuse it instead of summing).
static constexpr double kDuplicateTermTolerance = 1e-12;

/// "X0 Z1" (or "[]" for the identity), for messages.
static std::string
describeOps(const std::vector<std::pair<unsigned, char>> &ops) {
  std::vector<std::pair<unsigned, char>> sorted = ops;
  std::sort(sorted.begin(), sorted.end());
  std::string s;
  for (auto [q, l] : sorted)
    s += (s.empty() ? "" : " ") + std::string(1, l) + std::to_string(q);
  return s.empty() ? "[]" : s;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace {

/// A char iterator that counts lines as nlohmann's lexer consumes input, so
/// that the parser callback can tell where a value ended.
struct LineTracker {
  unsigned line = 1;      // line of the next character
  unsigned lastToken = 1; // line of the last non-blank character consumed
};

class TrackingIterator {
public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char *;
  using reference = const char &;

  TrackingIterator() = default;
  TrackingIterator(const char *p, LineTracker *t) : p(p), t(t) {}
  reference operator*() const { return *p; }
  TrackingIterator &operator++() {
    if (*p == '\n')
      ++t->line;
    else if (!isSpace(*p))
      t->lastToken = t->line;
    ++p;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const TrackingIterator &o) const { return p == o.p; }
  bool operator!=(const TrackingIterator &o) const { return p != o.p; }

private:
  const char *p = nullptr;
  LineTracker *t = nullptr;
};

/// Line of \p offset; an offset at the end of the input or on blank space
/// (e.g. "unexpected end of input") moves back to the last real character.
unsigned lineOfOffset(StringRef text, size_t offset) {
  offset = std::min(offset, text.size());
  while (offset > 0 && (offset == text.size() || isSpace(text[offset])))
    --offset;
  return 1 + unsigned(text.take_front(offset).count('\n'));
}

} // namespace

Expected<QubitHamiltonian> parseQubitHamiltonianJSONBuffer(StringRef contents,
                                                           StringRef file,
                                                           StringRef stem) {
  using json = nlohmann::json;
  LineTracker tracker;
  std::map<std::string, unsigned> keyLines; // top-level key -> line
  std::vector<unsigned> termLines;          // line where terms[i] ends
  std::string topKey;
  auto callback = [&](int depth, json::parse_event_t event, json &parsed) {
    if (depth == 1 && event == json::parse_event_t::key) {
      topKey = parsed.is_string() ? parsed.get<std::string>() : "";
      keyLines[topKey] = tracker.lastToken;
    } else if (depth == 2 && topKey == "terms" &&
               (event == json::parse_event_t::array_end ||
                event == json::parse_event_t::object_end ||
                event == json::parse_event_t::value)) {
      termLines.push_back(tracker.lastToken);
    }
    return true;
  };

  json doc;
  try {
    doc = json::parse(TrackingIterator(contents.begin(), &tracker),
                      TrackingIterator(contents.end(), &tracker), callback);
  } catch (const json::parse_error &e) {
    // e.byte is 1-based and points just past the offending character.
    size_t off = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at line
    // 1, column 5: " prefix, we print our own location.
    if (size_t c = what.find("error: "); c != std::string::npos)
      what = what.substr(c + 7);
    else if (size_t c2 = what.find(": "); c2 != std::string::npos)
      what = what.substr(c2 + 2);
    return locError(file, lineOfOffset(contents, off), "malformed JSON: " + what);
  } catch (const json::out_of_range &e) {
    // 406: a number literal beyond the double range ("1e400").
    std::string what = e.what();
    if (size_t c = what.find("] "); c != std::string::npos)
      what = what.substr(c + 2);
    return locError(file, tracker.lastToken,
                    "non-finite coefficient: " + what);
  } catch (const json::exception &e) {
    return locError(file, tracker.line, Twine("malformed JSON: ") + e.what());
  }

  auto keyLine = [&](StringRef k) {
    auto it = keyLines.find(k.str());
    return it == keyLines.end() ? 1u : it->second;
  };
  if (!doc.is_object())
    return locError(file, 1, "expected a JSON object with \"n_qubits\" and \"terms\"");

  QubitHamiltonian h;
  h.name = stem.str();
  if (auto it = doc.find("name"); it != doc.end()) {
    if (!it->is_string())
      return locError(file, keyLine("name"), "\"name\" must be a string");
    h.name = it->get<std::string>();
  }

  auto getUnsigned = [&](StringRef key, long long lo, long long hi,
                         std::optional<long long> &out) -> Error {
    auto it = doc.find(key.str());
    if (it == doc.end())
      return Error::success();
    if (!it->is_number_integer())
      return locError(file, keyLine(key), "\"" + key + "\" must be an integer");
    long long v = it->is_number_unsigned()
                      ? (long long)std::min<uint64_t>(it->get<uint64_t>(), 1ull << 62)
                      : it->get<long long>();
    if (v < lo || v > hi)
      return locError(file, keyLine(key), "\"" + key + "\" = " + Twine(v) +
                                              " out of range [" + Twine(lo) +
                                              ", " + Twine(hi) + "]");
    out = v;
    return Error::success();
  };

  std::optional<long long> nq, ne, ms2;
  if (Error e = getUnsigned("n_qubits", 1, kMaxQubits, nq))
    return std::move(e);
  if (!nq)
    return locError(file, 1, "missing \"n_qubits\"");
  h.numQubits = unsigned(*nq);
  if (Error e = getUnsigned("n_electrons", 0, kMaxQubits, ne))
    return std::move(e);
  if (Error e = getUnsigned("ms2", -(long long)kMaxQubits, kMaxQubits, ms2))
    return std::move(e);

  if (auto it = doc.find("hf_state"); it != doc.end()) {
    unsigned ln = keyLine("hf_state");
    if (!it->is_array())
      return locError(file, ln, "\"hf_state\" must be an array of 0/1");
    if (it->size() != h.numQubits)
      return locError(file, ln, "\"hf_state\" has " + Twine(it->size()) +
                                    " entries, expected n_qubits = " +
                                    Twine(h.numQubits));
    for (const json &b : *it) {
      if (!b.is_number_integer() || (b.get<long long>() != 0 && b.get<long long>() != 1))
        return locError(file, ln, "\"hf_state\" entries must be 0 or 1");
      h.hfOccupation.push_back(int(b.get<long long>()));
    }
  }

  auto termsIt = doc.find("terms");
  if (termsIt == doc.end())
    return locError(file, 1, "missing \"terms\"");
  if (!termsIt->is_array())
    return locError(file, keyLine("terms"), "\"terms\" must be an array of "
                                            "[\"PAULIWORD\", coefficient] pairs");
  size_t idx = 0;
  std::map<std::string, std::pair<unsigned, double>> firstSeen; // line, coeff
  for (const json &t : *termsIt) {
    unsigned ln = idx < termLines.size() ? termLines[idx] : keyLine("terms");
    ++idx;
    if (!t.is_array() || t.size() != 2 || !t[0].is_string())
      return locError(file, ln, "term " + Twine(idx - 1) +
                                    ": expected [\"PAULIWORD\", coefficient]");
    if (!t[1].is_number())
      return locError(file, ln, "term " + Twine(idx - 1) +
                                    ": the coefficient must be a real number");
    std::string word = t[0].get<std::string>();
    if (Error e = checkPauliWord(word, h.numQubits))
      return locError(file, ln, toString(std::move(e)));
    double c = t[1].get<double>();
    if (!std::isfinite(c))
      return locError(file, ln, "non-finite coefficient");
    if (std::fabs(c) > kMaxCoefficientMagnitude)
      return locError(file, ln, "coefficient " + fmt(c) + ": " +
                                    magnitudeMessage(c));
    auto [it, fresh] = firstSeen.try_emplace(word, ln, c);
    if (!fresh) {
      if (std::fabs(it->second.second - c) > kDuplicateTermTolerance)
        return locError(file, ln, "Pauli word " + word + " again, with " +
                                      "coefficient " + fmt(c) +
                                      ", conflicting with line " +
                                      Twine(it->second.first) + " (" +
                                      fmt(it->second.second) + ")");
      continue; // an identical duplicate counts once
    }
    h.terms.push_back({std::move(word), c});
  }
  canonicalizeTerms(h.terms);

  if (ms2)
    h.ms2 = int(*ms2);
  if (ne)
    h.numElectrons = unsigned(*ne);
  if (!h.hfOccupation.empty()) {
    unsigned sum = 0;
    for (int b : h.hfOccupation)
      sum += unsigned(b);
    if (ne && *ne != (long long)sum)
      return locError(file, keyLine("n_electrons"),
                      "\"n_electrons\" = " + Twine(*ne) + " but \"hf_state\" has " +
                          Twine(sum) + " occupied qubits");
    int na = 0, nb = 0;
    for (unsigned q = 0; q < h.hfOccupation.size(); ++q)
      (q % 2 == 0 ? na : nb) += h.hfOccupation[q];
    if (ms2 && *ms2 != na - nb)
      return locError(file, keyLine("ms2"),
                      "\"ms2\" = " + Twine(*ms2) + " but \"hf_state\" has " +
                          Twine(na) + " alpha (even) and " + Twine(nb) +
                          " beta (odd) electrons");
  }
  if (auto msg = checkElectrons(h))
    return locError(file, keyLine("n_electrons"), *msg);
  completeOccupation(h);
  return h;
}

Expected<QubitHamiltonian> parseQubitHamiltonianJSON(StringRef path) {
  auto buf = readFile(path);
  if (!buf)
    return buf.takeError();
  return parseQubitHamiltonianJSONBuffer((*buf)->getBuffer(), path,
                                         sys::path::stem(path));
}

Error writeQubitHamiltonianJSON(const QubitHamiltonian &h, StringRef path) {
  nlohmann::ordered_json j;
  j["name"] = h.name;
  j["n_qubits"] = h.numQubits;
  if (h.numElectrons)
    j["n_electrons"] = h.numElectrons;
  j["ms2"] = h.ms2;
  if (!h.hfOccupation.empty())
    j["hf_state"] = h.hfOccupation;
  nlohmann::ordered_json terms = nlohmann::ordered_json::array();
  for (const PauliTerm &t : h.terms)
    terms.push_back({t.word, t.coeff});
  j["terms"] = std::move(terms);
  // max_digits10 keeps the coefficients exact through a round trip.
  std::string text = j.dump(1) + "\n";
  // Atomic, device- and clobber-safe, temporaries named after the owner
  // (llvm::writeToOutput would rename over a device or FIFO and leave
  // "<path>.temp-stream-*" behind when killed).
  return q2::writeFileAtomically(path, text);
}

//===----------------------------------------------------------------------===//
// OpenFermion-style text
//===----------------------------------------------------------------------===//

/// Parses "c", "(a+bj)", "(a-bj)", "a+bj"; the imaginary part must vanish.
static std::optional<double> parseOFCoefficient(StringRef tok, std::string &why) {
  auto parseReal = [&why](StringRef t) {
    bool notFinite = false;
    auto v = detail::parseReal(t, &notFinite);
    if (notFinite)
      why = "not a finite number";
    return v;
  };
  tok = tok.trim();
  if (tok.consume_front("(") && !tok.consume_back(")")) {
    why = "unbalanced parenthesis";
    return std::nullopt;
  }
  if (tok.ends_with("j") || tok.ends_with("J")) {
    StringRef body = tok.drop_back();
    // The split point is the last sign that is not part of an exponent.
    size_t split = StringRef::npos;
    for (size_t i = body.size(); i-- > 1;)
      if ((body[i] == '+' || body[i] == '-') && body[i - 1] != 'e' &&
          body[i - 1] != 'E') {
        split = i;
        break;
      }
    if (split == StringRef::npos) { // pure imaginary "0.5j"
      auto im = parseReal(body);
      if (!im) {
        if (why.empty())
          why = "bad number";
        return std::nullopt;
      }
      if (std::fabs(*im) > 1e-10) {
        why = "coefficient has a non-zero imaginary part";
        return std::nullopt;
      }
      return 0.0;
    }
    auto re = parseReal(body.take_front(split));
    auto im = parseReal(body.drop_front(split));
    if (!re || !im) {
      if (why.empty())
        why = "bad number";
      return std::nullopt;
    }
    if (std::fabs(*im) > 1e-10) {
      why = "coefficient has a non-zero imaginary part";
      return std::nullopt;
    }
    return *re;
  }
  auto v = parseReal(tok);
  if (!v && why.empty())
    why = "bad number";
  return v;
}

Expected<QubitHamiltonian> parseOpenFermionTermsBuffer(StringRef contents,
                                                       StringRef file,
                                                       StringRef stem) {
  QubitHamiltonian h;
  h.name = stem.str();
  struct RawTerm {
    std::vector<std::pair<unsigned, char>> ops;
    double coeff;
    unsigned line;
  };
  std::vector<RawTerm> raw;
  std::optional<unsigned> declaredQubits;
  unsigned declLine = 0;
  unsigned maxQubit = 0;
  bool anyQubit = false;
  std::optional<long long> electrons, ms2;
  unsigned electronsLine = 0;

  unsigned ln = 0;
  StringRef rest = contents;
  while (!rest.empty()) {
    auto [lineText, next] = rest.split('\n');
    rest = next;
    ++ln;
    StringRef text = lineText.rtrim('\r').trim();
    if (text.empty())
      continue;
    if (text.consume_front("#")) {
      // Metadata directives: "# key: value" or "# key = value".
      text = text.trim();
      auto [key, value] = text.split(text.contains(':') ? ':' : '=');
      key = key.trim();
      value = value.trim();
      if (key == "n_qubits" || key == "n_electrons" || key == "ms2") {
        auto v = parseInteger(value);
        if (!v)
          return locError(file, ln, "bad integer '" + value + "' for " + key);
        if (key == "n_qubits") {
          if (*v < 1 || *v > kMaxQubits)
            return locError(file, ln, "n_qubits = " + Twine(*v) +
                                          " out of range [1, " +
                                          Twine(kMaxQubits) + "]");
          declaredQubits = unsigned(*v);
          declLine = ln;
        } else if (key == "n_electrons") {
          if (*v < 0 || *v > kMaxQubits)
            return locError(file, ln, "n_electrons = " + Twine(*v) + " out of range");
          electrons = *v;
          electronsLine = ln;
        } else {
          if (*v < -(long long)kMaxQubits || *v > kMaxQubits)
            return locError(file, ln, "ms2 = " + Twine(*v) + " out of range");
          ms2 = *v;
        }
      } else if (key == "name") {
        h.name = value.str();
      }
      continue;
    }
    // Accept the QubitOperator print form: "(c) [X0 Y1] +".
    if (text.consume_back("+"))
      text = text.rtrim();
    std::string buf;
    for (char c : text)
      buf.push_back(c == '[' || c == ']' ? ' ' : c);
    SmallVector<StringRef, 16> toks;
    SplitString(buf, toks, " \t");
    if (toks.empty())
      return locError(file, ln, "expected 'coefficient [P<q> ...]'");
    std::string why;
    auto c = parseOFCoefficient(toks[0], why);
    if (!c)
      return locError(file, ln, why + " in coefficient '" + toks[0] + "'");
    if (std::fabs(*c) > kMaxCoefficientMagnitude)
      return locError(file, ln, "coefficient " + fmt(*c) + ": " +
                                    magnitudeMessage(*c));
    RawTerm t{{}, *c, ln};
    uint64_t seen = 0;
    for (StringRef op : ArrayRef<StringRef>(toks).drop_front()) {
      char letter = op[0];
      if (letter != 'X' && letter != 'Y' && letter != 'Z' && letter != 'I')
        return locError(file, ln, "unknown Pauli letter '" + Twine(letter) +
                                      "' in '" + op + "' (expected X, Y or Z)");
      auto q = parseInteger(op.drop_front());
      if (!q || op.size() < 2 || !isDigit(op[1]))
        return locError(file, ln, "bad qubit index in '" + op + "'");
      if (*q >= kMaxQubits)
        return locError(file, ln, "qubit index " + Twine(*q) + " in '" + op +
                                      "' exceeds the limit of " +
                                      Twine(kMaxQubits) + " qubits");
      if (seen & (uint64_t(1) << *q))
        return locError(file, ln, "qubit " + Twine(*q) + " appears twice in one term");
      seen |= uint64_t(1) << *q;
      anyQubit = true;
      maxQubit = std::max(maxQubit, unsigned(*q));
      if (letter != 'I')
        t.ops.push_back({unsigned(*q), letter});
    }
    raw.push_back(std::move(t));
  }
  if (raw.empty())
    return locError(file, std::max(ln, 1u), "no terms found");
  unsigned n = anyQubit ? maxQubit + 1 : 1;
  if (declaredQubits) {
    if (*declaredQubits < n)
      return locError(file, declLine, "n_qubits = " + Twine(*declaredQubits) +
                                          " but a term acts on qubit " +
                                          Twine(maxQubit));
    n = *declaredQubits;
  }
  h.numQubits = n;
  std::map<std::string, std::pair<unsigned, double>> firstSeen; // line, coeff
  for (RawTerm &t : raw) {
    std::string w(n, 'I');
    for (auto [q, l] : t.ops)
      w[q] = l;
    // "X0 Z1" and "Z1 X0" are the same word.
    auto [it, fresh] = firstSeen.try_emplace(w, t.line, t.coeff);
    if (!fresh) {
      if (std::fabs(it->second.second - t.coeff) > kDuplicateTermTolerance)
        return locError(file, t.line,
                        "Pauli term " + describeOps(t.ops) + " again, with " +
                            "coefficient " + fmt(t.coeff) +
                            ", conflicting with line " + Twine(it->second.first) +
                            " (" + fmt(it->second.second) + ")");
      continue; // an identical duplicate counts once
    }
    h.terms.push_back({std::move(w), t.coeff});
  }
  canonicalizeTerms(h.terms);
  if (ms2)
    h.ms2 = int(*ms2);
  if (electrons)
    h.numElectrons = unsigned(*electrons);
  if (auto msg = checkElectrons(h))
    return locError(file, electronsLine ? electronsLine : 1, *msg);
  completeOccupation(h);
  return h;
}

Expected<QubitHamiltonian> parseOpenFermionTerms(StringRef path) {
  auto buf = readFile(path);
  if (!buf)
    return buf.takeError();
  return parseOpenFermionTermsBuffer((*buf)->getBuffer(), path,
                                     sys::path::stem(path));
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

HamiltonianFormat detectFormat(StringRef contents) {
  StringRef t = contents.ltrim();
  if (t.starts_with("{") || t.starts_with("["))
    return HamiltonianFormat::JSON;
  if (t.starts_with("&") || t.starts_with("$"))
    return HamiltonianFormat::FCIDump;
  return HamiltonianFormat::OpenFermion;
}

Expected<QubitHamiltonian> loadHamiltonian(StringRef path) {
  auto buf = readFile(path);
  if (!buf)
    return buf.takeError();
  return parseHamiltonianBuffer((*buf)->getBuffer(), path,
                                sys::path::stem(path));
}

Expected<QubitHamiltonian> parseHamiltonianBuffer(StringRef contents,
                                                  StringRef path,
                                                  StringRef stem) {
  switch (detectFormat(contents)) {
  case HamiltonianFormat::JSON:
    return parseQubitHamiltonianJSONBuffer(contents, path, stem);
  case HamiltonianFormat::FCIDump: {
    auto dump = parseFCIDumpBuffer(contents, path, stem);
    if (!dump)
      return dump.takeError();
    return jordanWigner(*dump);
  }
  case HamiltonianFormat::OpenFermion:
    break;
  }
  return parseOpenFermionTermsBuffer(contents, path, stem);
}

} // namespace q2::hamiltonian
