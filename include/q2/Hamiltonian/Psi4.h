//===- Psi4.h - Molecule -> RHF -> FCIDUMP through psi4 ----------*- C++ -*-===//
//
// The psi4 path of `q2-qpe --molecule` (docs/hamiltonians.md, section 6):
// validatePsi4Request checks every option before anything runs, runPsi4
// writes params.json and a 3-line input.py into a fresh temporary directory
// and runs `psi4 -k -n 1 -s DIR -i DIR/input.py -o DIR/output.dat`, which
// executes psi4_fcidump.py (RHF, FCIDUMP from psi4's orbitals and AO
// integrals, psi4's own CI as a check).
//
// The child dies with us:
//  * psi4 runs in its own process group (setpgid in the child), with
//    PR_SET_PDEATHSIG = SIGKILL (Linux: killed if we die, even by SIGKILL),
//    stdin from /dev/null and stdout/stderr into DIR/psi4.log;
//  * while it runs, SIGINT, SIGTERM and SIGHUP are blocked in the calling
//    thread and collected with sigtimedwait (no race with waitpid): on one
//    of them the whole group gets SIGKILL, is reaped, the directory is
//    removed, and the signal is re-raised with the previous disposition
//    (LLVM's handler or the default), so the process ends as if it had
//    received the signal (exit status 128 + signal number in a shell);
//  * after a successful run only the FCIDUMP is left in the directory, and
//    until the Psi4Run is destroyed an async-signal-safe handler for the
//    same signals unlinks it, removes the directory and chains to the
//    previous handler.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_HAMILTONIAN_PSI4_H
#define Q2_HAMILTONIAN_PSI4_H

#include "q2/Hamiltonian/Molecule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace q2::hamiltonian {

/// The options as the user gave them (text, so that messages can quote it).
struct Psi4Request {
  std::string xyzPath;
  std::optional<std::string> charge; ///< total charge, must be an integer
  unsigned multiplicity = 1;         ///< only 1 (closed-shell RHF)
  std::optional<std::string> active; ///< "NE,NO"
  std::string basis = "sto-3g";
};

/// A validated request.
struct Psi4Job {
  Molecule molecule;
  std::string xyzPath;
  int charge = 0;
  unsigned multiplicity = 1;
  ActiveSpace active;
  unsigned totalElectrons = 0;
  unsigned frozenCore = 0; ///< (N - NE) / 2 lowest orbitals
  std::string basis;
};

/// Checks, in this order: --charge given and an integer, --multiplicity 1,
/// --active given and valid, the basis name, the XYZ file, the electron count
/// (positive, even) and that the active space fits it. Does not run psi4.
llvm::Expected<Psi4Job> validatePsi4Request(const Psi4Request &r);

/// psi4 on PATH (the error says how to install it).
llvm::Expected<std::string> findPsi4();

/// psi4_fcidump.py next to the running executable (\p argv0 and an address
/// inside it, as for llvm::sys::fs::getMainExecutable).
std::string defaultPsi4Script(const char *argv0, void *mainAddress);

/// Owns the temporary directory of one psi4 run; removes it when destroyed.
class Psi4Run {
public:
  ~Psi4Run();
  Psi4Run(const Psi4Run &) = delete;
  Psi4Run &operator=(const Psi4Run &) = delete;

  const std::string &fcidumpPath() const { return fcidump; }
  const std::string &directory() const { return dir; }
  /// result.json of psi4_fcidump.py (scf_energy, ci_energy, n_core, ...).
  const std::string &resultJSON() const { return result; }
  double scfEnergy() const { return scf; }
  double ciEnergy() const { return ci; }
  int frozenCore() const { return nCore; }

private:
  friend llvm::Expected<std::unique_ptr<Psi4Run>>
  runPsi4(const Psi4Job &, llvm::StringRef, llvm::StringRef);
  Psi4Run() = default;
  std::string dir, fcidump, result;
  double scf = 0, ci = 0;
  int nCore = 0;
};

/// Runs psi4 (\p psi4 from findPsi4) with \p script (psi4_fcidump.py) on the
/// job; the FCIDUMP is named after the XYZ file's stem. On failure: "psi4
/// failed (exit code N)", the Python exception of the script and the tails
/// of psi4's output and of its stdout/stderr; the directory is removed.
llvm::Expected<std::unique_ptr<Psi4Run>>
runPsi4(const Psi4Job &job, llvm::StringRef psi4, llvm::StringRef script);

/// q2-qpe --molecule: validatePsi4Request, findPsi4, then runPsi4 with
/// \p script; `summary` gets one line for the user (the molecule, basis,
/// RHF and CI energies, the active space).
llvm::Expected<std::unique_ptr<Psi4Run>>
runPsi4(const Psi4Request &request, llvm::StringRef script,
        std::string &summary);

} // namespace q2::hamiltonian

#endif // Q2_HAMILTONIAN_PSI4_H
