//===- FormatsTest.cpp - FCIDUMP dialects, JSON, OpenFermion, dispatch ----===//
#include "TestUtil.h"

#include <sys/stat.h>

using namespace q2::hamiltonian;
using namespace q2::hamiltonian::test;

namespace {

void expectSameTerms(const QubitHamiltonian &a, const QubitHamiltonian &b,
                     double tol) {
  ASSERT_EQ(a.numQubits, b.numQubits);
  ASSERT_EQ(a.terms.size(), b.terms.size());
  for (size_t i = 0; i < a.terms.size(); ++i) {
    EXPECT_EQ(a.terms[i].word, b.terms[i].word);
    EXPECT_NEAR(a.terms[i].coeff, b.terms[i].coeff, tol) << a.terms[i].word;
  }
}

TEST(FCIDump, ReadsH2Values) {
  FCIDump d = expectOk(parseFCIDump(dataFile("h2_0.7414.FCIDUMP")));
  EXPECT_EQ(d.name, "h2_0.7414");
  EXPECT_EQ(d.norb, 2u);
  EXPECT_EQ(d.nelec, 2u);
  EXPECT_EQ(d.ms2, 0);
  EXPECT_EQ(d.isym, 1);
  EXPECT_EQ(d.orbsym, (std::vector<int>{1, 1}));
  EXPECT_DOUBLE_EQ(d.coreEnergy, 7.13753993350418225461E-01);
  EXPECT_DOUBLE_EQ(d.oneBody(0, 0), -1.25246357335330404936E+00);
  EXPECT_DOUBLE_EQ(d.oneBody(1, 1), -4.75948715440682068589E-01);
  EXPECT_EQ(d.oneBody(0, 1), 0.0);
  // "2 1 2 1" fills all 8 permutations of (21|21).
  for (auto [p, q, r, s] : {std::array<int, 4>{1, 0, 1, 0}, {0, 1, 0, 1},
                            {0, 1, 1, 0}, {1, 0, 0, 1}})
    EXPECT_DOUBLE_EQ(d.twoBody(p, q, r, s), 1.81288808231110792901E-01);
  EXPECT_DOUBLE_EQ(d.twoBody(0, 0, 1, 1), 6.63468096362711978742E-01);
  EXPECT_DOUBLE_EQ(d.twoBody(1, 1, 0, 0), 6.63468096362711978742E-01);
  EXPECT_EQ(d.twoBody(0, 0, 0, 1), 0.0);
}

TEST(FCIDump, AcceptsWriterDialects) {
  // Molpro/older styles: $FCI...'/' terminator, lower case, values over
  // several lines, a repeat count, Fortran D exponents, tabs, other
  // permutations of the same unique integrals and an orbital-energy line.
  const char *variant =
      " $fci norb = 2 , nelec=2,\n"
      "  ms2=0, uhf=.false., orbsym=2*1,\n"
      "  isym=1\n"
      " /\n"
      " 0.674488766289997210279D+00 1 1 1 1\n"
      " 1.81288808231110792901d-01\t1 2 1 2\n"
      " 6.63468096362711978742E-01 1 1 2 2\n"
      "\n"
      " 6.97393767358555627389E-01 2 2 2 2\n"
      "-1.25246357335330404936E+00 1 1 0 0\n"
      "-4.75948715440682068589E-01 2 2 0 0\n"
      "-0.5 1 0 0 0\n"
      " 7.13753993350418225461E-01 0 0 0 0\n";
  FCIDump v = expectOk(parseFCIDumpBuffer(variant, "variant", "h2"));
  EXPECT_EQ(v.orbsym, (std::vector<int>{1, 1}));
  QubitHamiltonian a = expectOk(jordanWigner(v));
  QubitHamiltonian b = expectOk(loadHamiltonian(dataFile("h2_0.7414.FCIDUMP")));
  expectSameTerms(a, b, 1e-15);
}

TEST(FCIDump, PySCFStyleHeader) {
  // pyscf.tools.fcidump.from_integrals layout.
  const char *text = " &FCI NORB=   2,NELEC= 2,MS2=0,\n"
                     "  ORBSYM=1,1,\n"
                     "  ISYM=1,\n"
                     " &END\n"
                     "  0.6744887662899972    1    1    1    1\n"
                     "  0.1812888082311108    2    1    2    1\n"
                     "  0.6634680963627120    2    2    1    1\n"
                     "  0.6973937673585554    2    2    2    2\n"
                     " -1.252463573353304    1    1    0    0\n"
                     " -0.4759487154406821    2    2    0    0\n"
                     "  0.7137539933504182    0    0    0    0\n";
  QubitHamiltonian h = expectOk(jordanWigner(expectOk(parseFCIDumpBuffer(text, "p"))));
  ExactResult r = expectOk(exactSectorEnergies(h));
  EXPECT_NEAR(r.groundEnergy, readReference()["h2_0.7414"].casci, 1e-8);
}

TEST(FCIDump, OneLineHeaderAndCRLF) {
  const char *text = "&FCI NORB=1,NELEC=2,MS2=0,ORBSYM=1,ISYM=1 &END\r\n"
                     "0.5 1 1 1 1\r\n-1.0 1 1 0 0\r\n0.25 0 0 0 0\r\n";
  FCIDump d = expectOk(parseFCIDumpBuffer(text, "t", "t"));
  EXPECT_EQ(d.norb, 1u);
  EXPECT_DOUBLE_EQ(d.twoBody(0, 0, 0, 0), 0.5);
  // Two electrons in one orbital: E = core + 2 h + (00|00).
  QubitHamiltonian h = expectOk(jordanWigner(d));
  ExactResult r = expectOk(exactSectorEnergies(h));
  EXPECT_NEAR(r.groundEnergy, 0.25 - 2.0 + 0.5, 1e-14);
  EXPECT_NEAR(r.hfEnergy, 0.25 - 2.0 + 0.5, 1e-14);
}

TEST(JSON, ReadsPublishedFile) {
  QubitHamiltonian h =
      expectOk(parseQubitHamiltonianJSON(dataFile("h2_0.7414_jw_published.json")));
  EXPECT_EQ(h.name, "h2_0.7414_jw_published");
  EXPECT_EQ(h.numQubits, 4u);
  EXPECT_EQ(h.numElectrons, 2u);
  EXPECT_EQ(h.hfOccupation, (std::vector<int>{1, 1, 0, 0}));
  EXPECT_EQ(h.terms.size(), 15u);
  EXPECT_EQ(h.terms.front().word, "IIII");
}

TEST(JSON, DuplicateWordsCountOnceAndZerosAreDropped) {
  // Formerly duplicates were summed; now a word given twice must have the
  // same coefficient (it is then counted once), a different one is an error
  // (BadInput.ConflictingDuplicates).
  const char *text = R"({"name": "m", "n_qubits": 2, "n_electrons": 1, "ms2": 1,
    "terms": [["ZI", 0.5], ["XX", 1e-13], ["ZI", 0.5], ["II", -1.0],
              ["YY", 0.0], ["IZ", 2.0]]})";
  QubitHamiltonian h = expectOk(parseQubitHamiltonianJSONBuffer(text, "m.json"));
  ASSERT_EQ(h.terms.size(), 3u);
  EXPECT_EQ(h.terms[0].word, "II");
  EXPECT_EQ(h.terms[1].word, "IZ");
  EXPECT_EQ(h.terms[2].word, "ZI");
  EXPECT_DOUBLE_EQ(h.terms[2].coeff, 0.5);
  EXPECT_EQ(h.name, "m");
  EXPECT_EQ(h.hfOccupation, (std::vector<int>{1, 0}));
  // The same in OpenFermion text, with the factors in another order.
  QubitHamiltonian o = expectOk(parseOpenFermionTermsBuffer(
      "0.5 Z0\n0.25 X0 Y1\n0.25 Y1 X0\n-1.0\n", "o.txt"));
  ASSERT_EQ(o.terms.size(), 3u);
  EXPECT_EQ(o.terms[2].word, "XY");
  EXPECT_DOUBLE_EQ(o.terms[2].coeff, 0.25);
}

TEST(JSON, WriteRoundTrip) {
  TempDir tmp;
  QubitHamiltonian h = expectOk(loadHamiltonian(dataFile("lih_1.595_2e3o.FCIDUMP")));
  std::string out = tmp.path + "/lih.json";
  ASSERT_FALSE(llvm::errorToBool(writeQubitHamiltonianJSON(h, out)));
  QubitHamiltonian back = expectOk(loadHamiltonian(out));
  expectSameTerms(h, back, 0.0);
  EXPECT_EQ(back.name, h.name);
  EXPECT_EQ(back.numElectrons, h.numElectrons);
  EXPECT_EQ(back.hfOccupation, h.hfOccupation);
}

TEST(JSON, WriterNeverReplacesNonRegularFiles) {
  // Regression: the writer renamed a temporary over its target, so a FIFO
  // (or, as root, a device node) became a regular file.
  TempDir tmp;
  QubitHamiltonian h = expectOk(loadHamiltonian(dataFile("h2_0.7414.FCIDUMP")));
  std::string fifo = tmp.path + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  llvm::Error e = writeQubitHamiltonianJSON(h, fifo);
  ASSERT_TRUE(bool(e));
  std::string msg = llvm::toString(std::move(e));
  EXPECT_NE(msg.find("FIFO"), std::string::npos) << msg;
  struct stat st;
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_TRUE(bool(llvm::errorToBool(writeQubitHamiltonianJSON(h, tmp.path))));
  // Nothing but the FIFO is left in the directory (no temporaries).
  std::error_code ec;
  int entries = 0;
  for (llvm::sys::fs::directory_iterator it(tmp.path, ec), end; it != end && !ec;
       it.increment(ec))
    ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(OpenFermion, BothTextFormsMatchJSON) {
  QubitHamiltonian pub =
      expectOk(parseQubitHamiltonianJSON(dataFile("h2_0.7414_jw_published.json")));
  std::string plain = "# OpenFermion-style terms\n# n_electrons: 2\n";
  std::string printed = "# name: h2pub\n# n_qubits = 4\n";
  for (const PauliTerm &t : pub.terms) {
    char c[64];
    std::snprintf(c, sizeof c, "%.17g", t.coeff);
    std::string ops;
    for (size_t q = 0; q < t.word.size(); ++q)
      if (t.word[q] != 'I')
        ops += (ops.empty() ? "" : " ") + std::string(1, t.word[q]) + std::to_string(q);
    plain += std::string(c) + " " + ops + "\n";
    printed += "(" + std::string(c) + "+0j) [" + ops + "] +\n";
  }
  QubitHamiltonian a = expectOk(parseOpenFermionTermsBuffer(plain, "a.txt"));
  QubitHamiltonian b = expectOk(parseOpenFermionTermsBuffer(printed, "b.txt"));
  expectSameTerms(a, pub, 0.0);
  expectSameTerms(b, pub, 0.0);
  EXPECT_EQ(a.numElectrons, 2u);
  EXPECT_EQ(a.hfOccupation, (std::vector<int>{1, 1, 0, 0}));
  EXPECT_EQ(b.name, "h2pub");
  EXPECT_EQ(b.numElectrons, 0u);
}

TEST(Dispatch, DetectsFormats) {
  EXPECT_EQ(detectFormat("  \n{\"n_qubits\": 1}"), HamiltonianFormat::JSON);
  EXPECT_EQ(detectFormat(" &FCI NORB=1"), HamiltonianFormat::FCIDump);
  EXPECT_EQ(detectFormat("$FCI NORB=1"), HamiltonianFormat::FCIDump);
  EXPECT_EQ(detectFormat("-0.5 X0 X1"), HamiltonianFormat::OpenFermion);
  TempDir tmp;
  std::string f = tmp.write("terms.txt", "0.5 Z0\n-0.25 X0 X1\n");
  QubitHamiltonian h = expectOk(loadHamiltonian(f));
  EXPECT_EQ(h.name, "terms");
  EXPECT_EQ(h.numQubits, 2u);
  ASSERT_EQ(h.terms.size(), 2u);
  EXPECT_EQ(h.terms[0].word, "ZI");
  EXPECT_EQ(h.terms[1].word, "XX");
}

TEST(PauliMask, RoundTrip) {
  for (const char *w : {"IXYZ", "YYYY", "I", "ZIIIIIIIIIIIIIIIIIIIIIIIIIIIIIX"}) {
    std::string s = w;
    PauliMask m = toMask(s);
    EXPECT_EQ(toWord(m, s.size()), s);
  }
  PauliMask y = toMask("IY");
  EXPECT_EQ(y.x, 2u);
  EXPECT_EQ(y.z, 2u);
}

} // namespace
