//===- MoleculeTest.cpp - XYZ, electron counting, the psi4 runner ---------===//
//
// The psi4 runner is exercised with a stand-in `psi4` (a shell script
// written here) for the success and failure paths and for the process group
// and signal cleanup; the real psi4 run is skipped unless psi4 is on PATH.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "q2/Hamiltonian/Molecule.h"
#include "q2/Hamiltonian/Psi4.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace q2::hamiltonian;
using namespace q2::hamiltonian::test;

namespace {

TEST(Molecule, ElementTable) {
  const char *expected[] = {"H", "He", "Li", "Be", "B", "C", "N", "O", "F",
                            "Ne", "Na", "Mg", "Al", "Si", "P", "S", "Cl", "Ar",
                            "K", "Ca", "Sc", "Ti", "V", "Cr", "Mn", "Fe", "Co",
                            "Ni", "Cu", "Zn", "Ga", "Ge", "As", "Se", "Br", "Kr"};
  for (int z = 1; z <= kMaxAtomicNumber; ++z) {
    EXPECT_EQ(elementSymbol(z), expected[z - 1]);
    EXPECT_EQ(atomicNumber(expected[z - 1]), z);
  }
  EXPECT_EQ(atomicNumber("cl"), 17);
  EXPECT_EQ(atomicNumber("LI"), 3);
  EXPECT_EQ(atomicNumber("Xx"), 0);
  EXPECT_EQ(atomicNumber("Rb"), 0); // beyond Kr
  EXPECT_EQ(elementSymbol(0), "");
  EXPECT_EQ(elementSymbol(37), "");
}

TEST(Molecule, ParsesStandardAndBareXYZ) {
  Molecule w = expectOk(parseXYZBuffer("3\nwater, Angstrom\n"
                                       "O 0.0 0.0 0.1173\n"
                                       "H\t0.0  0.7572 -0.4692\n"
                                       "h 0.0 -0.7572 -0.4692\n",
                                       "dir/water.xyz"));
  EXPECT_EQ(w.name, "water");
  ASSERT_EQ(w.atoms.size(), 3u);
  EXPECT_EQ(w.nuclearCharge(), 10);
  EXPECT_EQ(w.atoms[1].line, 4u);
  EXPECT_DOUBLE_EQ(w.atoms[1].y, 0.7572);
  EXPECT_EQ(w.geometryLines()[2], "h 0.0 -0.7572 -0.4692");
  // The comment line may look like anything, even an atom.
  Molecule c = expectOk(parseXYZBuffer("1\nH 0 0 0\nHe 0 0 0\n", "c.xyz"));
  EXPECT_EQ(c.nuclearCharge(), 2);
  Molecule b = expectOk(parseXYZBuffer("# LiH\n\nLi 0 0 0\nH 0 0 1.595e0\n\n",
                                       "b.xyz"));
  EXPECT_EQ(b.nuclearCharge(), 4);
  EXPECT_DOUBLE_EQ(b.atoms[1].z, 1.595);
}

TEST(Molecule, BadXYZNamesFileAndLine) {
  struct Case {
    const char *text, *message;
  };
  for (Case c : {Case{"H 0 0 0\nXx 0 0 1\n", "m.xyz:2: unknown element 'Xx'"},
                 Case{"H 0 0\n", "m.xyz:1: expected 'Element x y z', got 'H 0 0'"},
                 Case{"H 0 0 0 0\n", "m.xyz:1: expected 'Element x y z'"},
                 Case{"H 0 0 0\nH 0 zero 1\n", "m.xyz:2: bad coordinate 'zero'"},
                 Case{"H 0 0 0\nH 0 0 1e999\n", "m.xyz:2: bad coordinate '1e999'"},
                 Case{"H 0 0 0\nH 0 0 nan\n", "m.xyz:2: bad coordinate 'nan'"},
                 Case{"H 0 0 1.0D0\n", "m.xyz:1: bad coordinate '1.0D0'"},
                 Case{"H 0 0 1e6\n", "m.xyz:1: coordinate '1e6' is beyond"},
                 Case{"3\n\nH 0 0 0\nH 0 0 0.7\n", "m.xyz:1: atom count 3 but 2 atom lines"},
                 Case{"H 0 0 0\n# x\nH 0 0 0.01\n",
                      "m.xyz:3: H is 0.01 Angstrom from the H on line 1"},
                 Case{"\n# nothing\n", "m.xyz: no atoms in XYZ file"},
                 Case{"2\ncomment only\n", "m.xyz: no atoms in XYZ file"}}) {
    std::string msg = errorOf(parseXYZBuffer(c.text, "m.xyz"));
    EXPECT_EQ(msg.rfind(c.message, 0), 0u) << c.text << " -> " << msg;
  }
  std::string msg = errorOf(parseXYZ("/nonexistent/q2/none.xyz"));
  EXPECT_NE(msg.find("cannot read '/nonexistent/q2/none.xyz'"), std::string::npos)
      << msg;
}

TEST(Molecule, ElectronsAndActiveSpaces) {
  Molecule h3o = expectOk(parseXYZBuffer(
      "O 0 0 0.1173\nH 0 0.9572 -0.4692\nH 0.8286 -0.4786 -0.4692\n"
      "H -0.8286 -0.4786 -0.4692\n", "h3o.xyz"));
  EXPECT_EQ(h3o.nuclearCharge(), 11);
  EXPECT_EQ(expectOk(countElectrons(h3o, "h3o.xyz", 1)), 10u);
  EXPECT_EQ(errorOf(countElectrons(h3o, "h3o.xyz", 0)),
            "h3o.xyz: 11 electrons (charge 0) is odd; multiplicity 1 needs an "
            "even count");
  EXPECT_EQ(errorOf(countElectrons(h3o, "h3o.xyz", 11)),
            "h3o.xyz: charge 11 leaves 0 electrons");
  EXPECT_EQ(expectOk(countElectrons(h3o, "h3o.xyz", -1)), 12u);

  ActiveSpace a = expectOk(parseActiveSpace(" 4 , 4 "));
  EXPECT_EQ(a.electrons, 4u);
  EXPECT_EQ(a.orbitals, 4u);
  EXPECT_EQ(errorOf(parseActiveSpace("2")).rfind("--active must be NE,NO", 0), 0u);
  EXPECT_EQ(errorOf(parseActiveSpace("a,b")).rfind("--active must be NE,NO", 0), 0u);
  EXPECT_EQ(errorOf(parseActiveSpace("-2,3")).rfind("--active must be NE,NO", 0), 0u);
  EXPECT_EQ(errorOf(parseActiveSpace("5,2")),
            "--active 5,2: need 1 <= NE <= 2*NO and NO >= 1");
  EXPECT_EQ(errorOf(parseActiveSpace("0,2")),
            "--active 0,2: need 1 <= NE <= 2*NO and NO >= 1");
  EXPECT_NE(errorOf(parseActiveSpace("2,17")).find("at most 16"), std::string::npos);
  EXPECT_TRUE(!!parseActiveSpace("32,16"));

  EXPECT_FALSE(llvm::errorToBool(checkActiveSpace({4, 4}, 10)));
  EXPECT_NE(llvm::toString(checkActiveSpace({3, 4}, 10)).find("N - NE must be even"),
            std::string::npos);
  EXPECT_NE(llvm::toString(checkActiveSpace({12, 8}, 10)).find("does not fit 10"),
            std::string::npos);
}

TEST(Psi4, ValidatesInTheDocumentedOrder) {
  TempDir tmp;
  std::string h2 = tmp.write("h2.xyz", "2\nH2\nH 0 0 0\nH 0 0 0.7414\n");
  Psi4Request r;
  r.xyzPath = tmp.path + "/none.xyz"; // not read before the options are checked
  EXPECT_EQ(errorOf(validatePsi4Request(r)),
            "--molecule needs --charge (total charge, an integer)");
  r.charge = "0.5";
  EXPECT_EQ(errorOf(validatePsi4Request(r)), "--charge must be an integer, got '0.5'");
  r.charge = " 0 ";
  r.multiplicity = 3;
  EXPECT_EQ(errorOf(validatePsi4Request(r)).rfind("--multiplicity 3 is not supported", 0), 0u);
  r.multiplicity = 1;
  EXPECT_EQ(errorOf(validatePsi4Request(r)), "--molecule needs --active NE,NO");
  r.active = "5,2";
  EXPECT_EQ(errorOf(validatePsi4Request(r)), "--active 5,2: need 1 <= NE <= 2*NO and NO >= 1");
  r.active = "2,2";
  r.basis = "sto'3g";
  EXPECT_EQ(errorOf(validatePsi4Request(r)), "--basis: bad basis set name 'sto'3g'");
  r.basis = " sto-3g ";
  EXPECT_NE(errorOf(validatePsi4Request(r)).find("none.xyz': No such file"),
            std::string::npos);
  r.xyzPath = h2;
  r.charge = "1";
  EXPECT_EQ(errorOf(validatePsi4Request(r)),
            h2 + ": 1 electrons (charge 1) is odd; multiplicity 1 needs an even count");
  r.charge = "-2";
  r.active = "3,3";
  EXPECT_EQ(errorOf(validatePsi4Request(r)).rfind("--active: NE = 3 does not fit 4", 0), 0u);
  r.active = "4,3";
  Psi4Job job = expectOk(validatePsi4Request(r));
  EXPECT_EQ(job.totalElectrons, 4u);
  EXPECT_EQ(job.frozenCore, 0u);
  EXPECT_EQ(job.basis, "sto-3g");
  EXPECT_EQ(job.charge, -2);
}

/// A stand-in for psi4: called as `psi4 -k -n 1 -s DIR -i IN -o OUT`.
/// Q2_FAKE_PSI4_MODE: ok (writes $DIR/$Q2_FAKE_PSI4_STEM.FCIDUMP from
/// $Q2_FAKE_PSI4_FCIDUMP, result.json and scratch files), fail (exit 3 with
/// the script's exception file), hang (starts a grandchild `sleep`, writes
/// "pid grandchild-pid DIR" to $Q2_FAKE_PSI4_TRACE and waits).
const char *kFakePsi4 = R"(#!/bin/sh
dir=$5
case "$Q2_FAKE_PSI4_MODE" in
ok)
  cp "$Q2_FAKE_PSI4_FCIDUMP" "$dir/$Q2_FAKE_PSI4_STEM.FCIDUMP"
  echo scratch > "$dir/psi.12345.clean"
  mkdir "$dir/scratchdir" && echo x > "$dir/scratchdir/f"
  echo '{"scf_energy": -1.1166843871, "ci_energy": -1.1372701747, "n_core": 0}' > "$dir/result.json"
  ;;
fail)
  echo "ValueError: 3 frozen core + 4 active orbitals exceed the 6 molecular orbitals" > "$dir/result.json.err"
  echo "psi4 output line" > "$dir/output.dat"
  echo "Traceback: something on stderr" >&2
  exit 3
  ;;
hang)
  sleep 300 &
  echo "$$ $! $dir" > "$Q2_FAKE_PSI4_TRACE.tmp"
  mv "$Q2_FAKE_PSI4_TRACE.tmp" "$Q2_FAKE_PSI4_TRACE"
  wait
  ;;
esac
)";

struct FakePsi4 {
  TempDir tmp;
  std::string exe, script, xyz;
  Psi4Job job;
  FakePsi4() {
    exe = tmp.write("psi4", kFakePsi4);
    ::chmod(exe.c_str(), 0755);
    script = tmp.write("psi4_fcidump.py", "# not run by the stand-in\n");
    xyz = tmp.write("h2.xyz", "H 0 0 0\nH 0 0 0.7414\n");
    Psi4Request r;
    r.xyzPath = xyz;
    r.charge = "0";
    r.active = "2,2";
    job = expectOk(validatePsi4Request(r));
    ::setenv("Q2_FAKE_PSI4_FCIDUMP", dataFile("h2_0.7414.FCIDUMP").c_str(), 1);
    ::setenv("Q2_FAKE_PSI4_STEM", "h2", 1);
    ::setenv("Q2_FAKE_PSI4_TRACE", (tmp.path + "/trace").c_str(), 1);
  }
};

bool processGone(pid_t pid) {
  // A killed process may stay a zombie for a moment until it is reaped.
  for (int i = 0; i < 100; ++i) {
    if (::kill(pid, 0) < 0 && errno == ESRCH)
      return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string s;
    std::getline(stat, s);
    size_t close = s.rfind(')');
    if (close != std::string::npos && close + 2 < s.size() && s[close + 2] == 'Z')
      return true; // dead, waiting for its (new) parent to reap it
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST(Psi4, RunnerSuccessKeepsOnlyTheFCIDUMPAndCleansUp) {
  FakePsi4 f;
  ::setenv("Q2_FAKE_PSI4_MODE", "ok", 1);
  std::string dir;
  {
    std::unique_ptr<Psi4Run> run = expectOk(runPsi4(f.job, f.exe, f.script));
    ASSERT_TRUE(run);
    dir = run->directory();
    EXPECT_EQ(llvm::sys::path::filename(run->fcidumpPath()), "h2.FCIDUMP");
    EXPECT_DOUBLE_EQ(run->ciEnergy(), -1.1372701747);
    EXPECT_DOUBLE_EQ(run->scfEnergy(), -1.1166843871);
    EXPECT_NE(run->resultJSON().find("ci_energy"), std::string::npos);
    QubitHamiltonian h = expectOk(loadHamiltonian(run->fcidumpPath()));
    EXPECT_EQ(h.name, "h2");
    // Everything but the FCIDUMP is gone already.
    std::error_code ec;
    unsigned entries = 0;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec))
      ++entries;
    EXPECT_EQ(entries, 1u);
  }
  EXPECT_FALSE(llvm::sys::fs::exists(dir));
}

TEST(Psi4, RunnerFailureReportsTheScriptsException) {
  FakePsi4 f;
  ::setenv("Q2_FAKE_PSI4_MODE", "fail", 1);
  std::string msg = errorOf(runPsi4(f.job, f.exe, f.script));
  EXPECT_EQ(msg.rfind("psi4 failed (exit code 3)", 0), 0u) << msg;
  EXPECT_NE(msg.find("ValueError: 3 frozen core"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tail of psi4's output:\n    psi4 output line"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Traceback: something on stderr"), std::string::npos) << msg;
  EXPECT_NE(errorOf(runPsi4(f.job, f.exe, f.tmp.path + "/missing.py"))
                .find("psi4 driver script"),
            std::string::npos);
}

/// Forks a process that runs the stand-in in "hang" mode, sends \p sig to
/// it, and checks that it died of that signal, took the whole psi4 process
/// group with it and removed the temporary directory.
void checkInterrupted(int sig) {
  FakePsi4 f;
  ::setenv("Q2_FAKE_PSI4_MODE", "hang", 1);
  std::string trace = f.tmp.path + "/trace";
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto r = runPsi4(f.job, f.exe, f.script);
    ::_exit(r ? 0 : 42); // not reached when the signal kills us
  }
  for (int i = 0; i < 200 && !llvm::sys::fs::exists(trace); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::ifstream in(trace);
  long psi4Pid = 0, grandchild = 0;
  std::string dir;
  in >> psi4Pid >> grandchild >> dir;
  ASSERT_GT(psi4Pid, 0) << "the stand-in did not start";
  EXPECT_TRUE(llvm::sys::fs::is_directory(dir));
  EXPECT_EQ(::getpgid(pid_t(psi4Pid)), pid_t(psi4Pid)) << "psi4 is not in its own group";
  ::kill(child, sig);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
  EXPECT_TRUE(processGone(pid_t(psi4Pid)));
  EXPECT_TRUE(processGone(pid_t(grandchild)));
  EXPECT_FALSE(llvm::sys::fs::exists(dir)) << dir;
}

TEST(Psi4, SigtermKillsTheGroupAndRemovesTheDirectory) { checkInterrupted(SIGTERM); }
TEST(Psi4, SigintKillsTheGroupAndRemovesTheDirectory) { checkInterrupted(SIGINT); }
TEST(Psi4, SighupKillsTheGroupAndRemovesTheDirectory) { checkInterrupted(SIGHUP); }

TEST(Psi4, SignalAfterTheRunRemovesTheFCIDUMP) {
  FakePsi4 f;
  ::setenv("Q2_FAKE_PSI4_MODE", "ok", 1);
  std::string report = f.tmp.path + "/dir";
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto r = runPsi4(f.job, f.exe, f.script);
    if (!r)
      ::_exit(42);
    std::ofstream(report) << (*r)->directory() << "\n";
    ::raise(SIGTERM); // while the run (and its FCIDUMP) is alive
    ::_exit(43);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  std::ifstream in(report);
  std::string dir;
  in >> dir;
  ASSERT_FALSE(dir.empty());
  EXPECT_FALSE(llvm::sys::fs::exists(dir)) << dir;
}

TEST(Psi4, RealRunWhenInstalled) {
  auto psi4 = findPsi4();
  if (!psi4) {
    EXPECT_NE(llvm::toString(psi4.takeError()).find("apt-get install psi4"),
              std::string::npos);
    GTEST_SKIP() << "psi4 is not on PATH";
  }
  TempDir tmp;
  Psi4Request r;
  r.xyzPath = tmp.write("h2.xyz", "2\nH2\nH 0 0 0\nH 0 0 0.7414\n");
  r.charge = "0";
  r.active = "2,2";
  Psi4Job job = expectOk(validatePsi4Request(r));
  std::string script = std::string(Q2_TEST_SOURCE_DIR) + "/tools/q2-qpe/psi4_fcidump.py";
  std::unique_ptr<Psi4Run> run = expectOk(runPsi4(job, *psi4, script));
  ASSERT_TRUE(run);
  QubitHamiltonian h = expectOk(loadHamiltonian(run->fcidumpPath()));
  ExactResult e = expectOk(exactSectorEnergies(h));
  EXPECT_NEAR(e.groundEnergy, -1.1372701747, 1e-6);
  EXPECT_NEAR(e.groundEnergy, run->ciEnergy(), 1e-6);
  EXPECT_NEAR(e.hfEnergy, run->scfEnergy(), 1e-6);
}

TEST(Psi4, MissingPsi4Message) {
  const char *old = std::getenv("PATH");
  std::string saved = old ? old : "";
  ::setenv("PATH", "/nonexistent", 1);
  std::string msg = errorOf(findPsi4());
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(msg, "--molecule needs psi4 (not found on PATH); install it with "
                 "`apt-get install psi4` (Debian), or pass an FCIDUMP");
}

} // namespace
