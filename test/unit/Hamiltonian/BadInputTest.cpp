//===- BadInputTest.cpp - Corrupt inputs give file:line errors ------------===//
#include "TestUtil.h"

using namespace q2::hamiltonian;
using namespace q2::hamiltonian::test;
using ::q2::test::slurp;

namespace {

const char *kH2 = "&FCI\n"                                  // 1
                  "NORB=2,\n"                               // 2
                  "NELEC=2,\n"                              // 3
                  "MS2=0,\n"                                // 4
                  "UHF=.FALSE.,\n"                          // 5
                  "ORBSYM=1,1,\n"                           // 6
                  "ISYM=1,\n"                               // 7
                  "&END\n"                                  // 8
                  "  6.744887662899972E-01    1    1    1    1\n" // 9
                  "  1.812888082311108E-01    2    1    2    1\n" // 10
                  "  6.634680963627120E-01    2    2    1    1\n" // 11
                  "  6.973937673585554E-01    2    2    2    2\n" // 12
                  " -1.252463573353304E+00    1    1    0    0\n" // 13
                  " -4.759487154406821E-01    2    2    0    0\n" // 14
                  "  7.137539933504182E-01    0    0    0    0\n"; // 15

std::string replaceLine(std::string text, int line, const std::string &with) {
  size_t start = 0;
  for (int i = 1; i < line; ++i)
    start = text.find('\n', start) + 1;
  size_t end = text.find('\n', start);
  return text.replace(start, end - start, with);
}
std::string firstLines(const std::string &text, int n) {
  size_t end = 0;
  for (int i = 0; i < n; ++i)
    end = text.find('\n', end) + 1;
  return text.substr(0, end);
}

struct BadCase {
  const char *name;
  std::string contents;
  int line;
  const char *message;
};

void checkBad(const std::vector<BadCase> &cases, const char *ext) {
  TempDir tmp;
  for (const BadCase &c : cases) {
    std::string f = tmp.write(std::string(c.name) + ext, c.contents);
    llvm::Expected<QubitHamiltonian> h = loadHamiltonian(f);
    std::string msg = errorOf(std::move(h));
    std::string where = f + ":" + std::to_string(c.line) + ": ";
    EXPECT_EQ(msg.rfind(where, 0), 0u) << c.name << ": " << msg;
    EXPECT_NE(msg.find(c.message), std::string::npos) << c.name << ": " << msg;
  }
}

TEST(BadInput, SanityOfTheBaseFile) {
  // The corrupted variants below start from a file that is itself valid.
  QubitHamiltonian h = expectOk(jordanWigner(expectOk(parseFCIDumpBuffer(kH2, "h2"))));
  EXPECT_EQ(h.terms.size(), 15u);
}

TEST(BadInput, CorruptFCIDUMP) {
  std::string h2 = kH2;
  std::string noEnd = replaceLine(h2, 8, "");
  checkBad(
      {
          {"missing_end", noEnd, 1, "not terminated by '&END'"},
          {"bad_number", replaceLine(h2, 10, "  1.81288Q-01 2 1 2 1"), 10, "bad number"},
          {"index_range", replaceLine(h2, 11, "  0.1 3 1 1 1"), 11, "out of range (NORB = 2)"},
          {"negative_index", replaceLine(h2, 11, "  0.1 -1 1 1 1"), 11, "out of range"},
          {"bad_index", replaceLine(h2, 11, "  0.1 1.5 1 1 1"), 11, "bad orbital index"},
          {"nelec", replaceLine(h2, 3, "NELEC=5,"), 3, "inconsistent with NORB"},
          {"ms2", replaceLine(h2, 4, "MS2=1,"), 4, "MS2 = 1 is inconsistent"},
          {"truncated", firstLines(h2, 12), 12, "truncated file"},
          {"truncated_line", firstLines(h2, 14) + "  7.13753993", 15, "truncated integral line"},
          {"uhf", replaceLine(h2, 5, "UHF=.TRUE.,"), 5, "UHF FCIDUMP files are not supported"},
          {"iuhf", replaceLine(h2, 5, "IUHF=1,"), 5, "not supported"},
          {"orbsym", replaceLine(h2, 6, "ORBSYM=1,1,1,"), 6, "ORBSYM has 3 entries"},
          {"no_norb", replaceLine(h2, 2, ""), 1, "has no NORB"},
          {"norb_text", replaceLine(h2, 2, "NORB=two,"), 2, "bad integer 'two'"},
          {"norb_huge", replaceLine(h2, 2, "NORB=40,"), 2, "at most 62"},
          {"pattern", replaceLine(h2, 13, " 0.1 1 0 1 0"), 13, "invalid index pattern"},
          {"extra_field", replaceLine(h2, 13, " 0.1 1 1 0 0 7"), 13, "found 6 fields"},
          {"two_cores", h2 + "0.0 0 0 0 0\n", 16, "second core-energy line"},
          {"junk_in_header", replaceLine(h2, 7, "ISYM=1, &FOO"), 7, "unexpected '&FOO'"},
          {"value_without_key", "&FCI 7, NORB=1 &END\n", 1, "without a key"},
      },
      ".FCIDUMP");
  // Without '&FCI' loadHamiltonian would read OpenFermion text, so these go
  // to the FCIDUMP parser directly.
  std::string msg = errorOf(parseFCIDumpBuffer("\n\n", "empty.FCIDUMP"));
  EXPECT_EQ(msg.rfind("empty.FCIDUMP:2: empty file", 0), 0u) << msg;
  msg = errorOf(parseFCIDumpBuffer("\nNORB=2\n", "nohead.FCIDUMP"));
  EXPECT_EQ(msg.rfind("nohead.FCIDUMP:2: expected the FCIDUMP namelist header", 0), 0u)
      << msg;
}

TEST(BadInput, MalformedJSON) {
  std::string good = "{\n"                          // 1
                     " \"n_qubits\": 2,\n"          // 2
                     " \"terms\": [\n"              // 3
                     "  [\"XX\", 0.5],\n"           // 4
                     "  [\"ZZ\", 0.1]\n"            // 5
                     " ]\n"                         // 6
                     "}\n";                         // 7
  ASSERT_TRUE(!!parseQubitHamiltonianJSONBuffer(good, "good.json"));
  checkBad(
      {
          {"syntax", replaceLine(good, 4, "  [\"XX\", 0.5]"), 5, "malformed JSON"},
          {"letter", replaceLine(good, 5, "  [\"ZQ\", 0.1]"), 5, "unknown Pauli letter 'Q'"},
          {"length", replaceLine(good, 4, "  [\"XXX\", 0.5],"), 4, "has 3 letters, expected 2"},
          {"coeff", replaceLine(good, 5, "  [\"ZZ\", \"0.1\"]"), 5, "must be a real number"},
          {"shape", replaceLine(good, 5, "  [\"ZZ\"]"), 5, "expected [\"PAULIWORD\""},
          {"nq_huge", replaceLine(good, 2, " \"n_qubits\": 70,"), 2, "out of range [1, 62]"},
          {"nq_float", replaceLine(good, 2, " \"n_qubits\": 2.5,"), 2, "must be an integer"},
          {"no_nq", replaceLine(good, 2, ""), 1, "missing \"n_qubits\""},
          {"no_terms", "{\"n_qubits\": 2}", 1, "missing \"terms\""},
          {"hf_len", replaceLine(good, 2, " \"n_qubits\": 2, \"hf_state\": [1],"), 2, "\"hf_state\" has 1 entries"},
          {"hf_val", replaceLine(good, 2, " \"n_qubits\": 2, \"hf_state\": [1, 2],"), 2, "must be 0 or 1"},
          {"ne_vs_hf", replaceLine(good, 2, " \"n_qubits\": 2, \"hf_state\": [1, 0],\n \"n_electrons\": 2,"), 3, "but \"hf_state\" has 1"},
          {"ms2_vs_hf", replaceLine(good, 2, " \"n_qubits\": 2, \"hf_state\": [1, 0],\n \"ms2\": 0,"), 3, "has 1 alpha (even) and 0 beta"},
          {"not_object", "[1, 2]", 1, "expected a JSON object"},
          {"truncated", firstLines(good, 4), 4, "malformed JSON"},
      },
      ".json");
}

TEST(BadInput, MalformedOpenFermionText) {
  checkBad(
      {
          {"letter", "0.5 Z0\n0.5 Q0 X1\n", 2, "unknown Pauli letter 'Q'"},
          {"index", "0.5 Z0\n\n0.5 X70\n", 3, "exceeds the limit of 62 qubits"},
          {"index_text", "0.5 Xa\n", 1, "bad qubit index"},
          {"index_missing", "0.5 X\n", 1, "bad qubit index"},
          {"coeff", "abc X0\n", 1, "bad number"},
          {"imag", "# c\n(0.5+0.2j) [X0]\n", 2, "non-zero imaginary part"},
          {"twice", "0.5 X0 Z0\n", 1, "appears twice"},
          {"declared", "# n_qubits: 2\n0.5 X3\n", 1, "but a term acts on qubit 3"},
          {"empty", "# only a comment\n", 1, "no terms found"},
          {"electrons", "# n_electrons: 3\n0.5 Z0 Z1\n", 1, "exceeds n_qubits"},
      },
      ".txt");
}

TEST(BadInput, HugeAndNonFiniteValues) {
  std::string h2 = kH2;
  checkBad(
      {
          // 1e300 used to give "exact ground 0.0000000000".
          {"huge_eri", replaceLine(h2, 10, "  1.0E+300 2 1 2 1"), 10, "exceeds 1000000 Hartree"},
          {"huge_h1", replaceLine(h2, 13, " -2.0D+06 1 1 0 0"), 13, "magnitude 2000000 exceeds"},
          {"huge_core", replaceLine(h2, 15, " 1.5e7 0 0 0 0"), 15, "exceeds 1000000 Hartree"},
          {"overflow", replaceLine(h2, 11, "  1.0E+400 2 2 1 1"), 11, "'1.0E+400' is not a finite number"},
          {"inf", replaceLine(h2, 11, "  inf 2 2 1 1"), 11, "is not a finite number"},
          {"nan", replaceLine(h2, 12, "  NaN 2 2 2 2"), 12, "is not a finite number"},
      },
      ".FCIDUMP");
  // Just below the limit is accepted.
  EXPECT_TRUE(!!parseFCIDumpBuffer(replaceLine(h2, 15, " 9.9e5 0 0 0 0"), "ok"));
  // A value underflowing to zero is harmless.
  EXPECT_TRUE(!!parseFCIDumpBuffer(replaceLine(h2, 10, "  1.0E-400 2 1 2 1"), "ok"));
  std::string json = "{\n \"n_qubits\": 1,\n \"terms\": [\n  [\"Z\", 1e400],\n"
                     "  [\"X\", 2e6]\n ]\n}\n";
  checkBad(
      {
          {"json_overflow", json, 4, "non-finite coefficient"},
          {"json_huge", replaceLine(json, 4, "  [\"Z\", 1.0],"), 5, "exceeds 1000000 Hartree"},
      },
      ".json");
  checkBad(
      {
          {"of_overflow", "0.5 Z0\n1e999 X0\n", 2, "not a finite number in coefficient '1e999'"},
          {"of_inf", "(inf+0j) [Z0]\n", 1, "not a finite number"},
          {"of_huge", "0.5 Z0\n-3e6 X0\n", 2, "magnitude 3000000 exceeds"},
      },
      ".txt");
  // A hand-made FCIDump past the reader: the JW coefficients overflow.
  FCIDump d = expectOk(parseFCIDumpBuffer(kH2, "h2"));
  d.h1[0] = 1e308;
  d.eri[0] = 1e308;
  d.coreEnergy = 1e308;
  std::string msg = errorOf(jordanWigner(d));
  EXPECT_NE(msg.find("not finite"), std::string::npos) << msg;
}

TEST(BadInput, ConflictingDuplicates) {
  std::string h2 = kH2;
  // (21|21) again as (12|21) with another value; h_11 twice; (22|11) given
  // as (11|22) with another value.
  checkBad(
      {
          {"eri", h2 + "  0.2 1 2 2 1\n", 16, "(1 2|2 1) = 0.2 conflicts with line 10 (0.1812888082)"},
          {"eri_swap", replaceLine(h2, 12, "  0.6 1 1 2 2"), 12, "conflicts with line 11"},
          {"h1", replaceLine(h2, 14, " -1.25 1 1 0 0"), 14, "h(1,1) = -1.25 conflicts with line 13"},
      },
      ".FCIDUMP");
  // Identical duplicates, in any of the 8 permutations, are accepted.
  std::string dup = replaceLine(h2, 15, "  1.812888082311108E-01 1 2 1 2\n"
                                        "  6.634680963627120E-01 1 1 2 2\n"
                                        " -1.252463573353304E+00 1 1 0 0\n"
                                        "  7.137539933504182E-01 0 0 0 0");
  QubitHamiltonian a = expectOk(jordanWigner(expectOk(parseFCIDumpBuffer(dup, "dup"))));
  QubitHamiltonian b = expectOk(jordanWigner(expectOk(parseFCIDumpBuffer(kH2, "h2"))));
  ASSERT_EQ(a.terms.size(), b.terms.size());
  for (size_t i = 0; i < a.terms.size(); ++i)
    EXPECT_EQ(a.terms[i].coeff, b.terms[i].coeff) << a.terms[i].word;

  std::string json = "{\n \"n_qubits\": 2,\n \"terms\": [\n  [\"XX\", 0.5],\n"
                     "  [\"ZZ\", 0.1],\n  [\"XX\", 0.25]\n ]\n}\n";
  checkBad({{"json_dup", json, 6, "Pauli word XX again, with coefficient 0.25, "
                                  "conflicting with line 4 (0.5)"}},
           ".json");
  checkBad({{"of_dup", "0.5 X0 Z1\n0.1 Z0\n# c\n0.4 Z1 X0\n", 4,
             "Pauli term X0 Z1 again, with coefficient 0.4, conflicting with line 1 (0.5)"},
            {"of_dup_identity", "-1.0\n0.5 Z0\n(-0.5+0j) []\n", 3,
             "Pauli term [] again"}},
           ".txt");
}

TEST(BadInput, MissingFile) {
  std::string msg = errorOf(loadHamiltonian("/nonexistent/dir/h.FCIDUMP"));
  EXPECT_NE(msg.find("cannot read '/nonexistent/dir/h.FCIDUMP'"),
            std::string::npos)
      << msg;
}

} // namespace

namespace {

/// Runs the whole front end on a buffer; any outcome but a crash or an
/// exception is fine, and the result is reported.
bool frontEndAccepts(const std::string &text, const std::string &name) {
  switch (detectFormat(text)) {
  case HamiltonianFormat::FCIDump: {
    auto d = parseFCIDumpBuffer(text, name);
    if (!d) {
      llvm::consumeError(d.takeError());
      return false;
    }
    auto h = jordanWigner(*d);
    if (!h) {
      llvm::consumeError(h.takeError());
      return false;
    }
    auto r = exactSectorEnergies(*h);
    if (!r)
      llvm::consumeError(r.takeError());
    return true;
  }
  case HamiltonianFormat::JSON: {
    auto h = parseQubitHamiltonianJSONBuffer(text, name);
    if (!h) {
      llvm::consumeError(h.takeError());
      return false;
    }
    auto r = exactSectorEnergies(*h);
    if (!r)
      llvm::consumeError(r.takeError());
    return true;
  }
  case HamiltonianFormat::OpenFermion: {
    auto h = parseOpenFermionTermsBuffer(text, name);
    if (!h) {
      llvm::consumeError(h.takeError());
      return false;
    }
    return true;
  }
  }
  return false;
}

TEST(BadInput, EveryTruncationIsRejected) {
  for (const char *f : {"h2_0.7414.FCIDUMP", "lih_1.595_2e3o.FCIDUMP",
                        "h3o+_4e4o.FCIDUMP", "h2_0.7414_jw_published.json"}) {
    std::string text = slurp(dataFile(f));
    ASSERT_FALSE(text.empty()) << f;
    size_t end = text.find_last_not_of(" \t\r\n") + 1;
    EXPECT_TRUE(frontEndAccepts(text, f)) << f;
    for (size_t n = 0; n < end; ++n)
      EXPECT_FALSE(frontEndAccepts(text.substr(0, n), f))
          << f << " cut at byte " << n << " was accepted";
  }
}

TEST(BadInput, ByteCorruptionsNeverCrash) {
  // Not every corruption is detectable (a digit changed inside a value is
  // still a valid file); this checks that none crashes or throws.
  for (const char *f : {"h2_0.7414.FCIDUMP", "h2_0.7414_jw_published.json"}) {
    std::string text = slurp(dataFile(f));
    size_t accepted = 0, total = 0;
    for (size_t i = 0; i < text.size(); ++i)
      for (char c : {'x', '9', '-', ' ', '\n', '&', '/', '"', '[', '\0'}) {
        std::string t = text;
        t[i] = c;
        accepted += frontEndAccepts(t, f);
        ++total;
      }
    EXPECT_LT(accepted, total) << f;
  }
}

} // namespace
