//===- QubitHamiltonian.h - Pauli-sum Hamiltonians and readers ---*- C++ -*-===//
//
// A qubit Hamiltonian H = sum_k c_k P_k with real c_k and Pauli words P_k.
//
// Conventions (see docs/hamiltonians.md):
//  * word[i] in "IXYZ" acts on qubit i; qubit 0 is the LEFTMOST letter.
//  * Spin orbitals are interleaved: qubit 2p = spatial orbital p alpha,
//    qubit 2p+1 = orbital p beta (this matters for hfOccupation and for the
//    (N, Sz) sector of the exact solver).
//  * Terms are merged (one entry per word), |c| < 1e-12 dropped, the identity
//    (if non-zero) is kept as "II..I", and terms are sorted by weight (number
//    of non-I letters), then lexicographically with I < X < Y < Z.
//
// Input formats:
//  * JSON: {"name": str?, "n_qubits": int, "n_electrons": int?, "ms2": int?,
//           "hf_state": [0/1, ...]?, "terms": [["XXYY", -0.045], ...]}
//    Unknown keys (e.g. "description", "ground_energy") are ignored.
//  * OpenFermion-style text, one term per line: "-0.045 X0 X1 Y2 Y3"; also
//    the QubitOperator print form "(-0.045+0j) [X0 X1 Y2 Y3] +". A line with
//    only a coefficient (or "[]") is the identity. '#' starts a comment;
//    "# n_qubits: N", "# n_electrons: N", "# ms2: M", "# name: S" set metadata.
//  * FCIDUMP: parsed and mapped with Jordan-Wigner (see JordanWigner.h).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_HAMILTONIAN_QUBITHAMILTONIAN_H
#define Q2_HAMILTONIAN_QUBITHAMILTONIAN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace q2::hamiltonian {

/// Largest register the library accepts: Pauli strings are stored as 64-bit
/// masks and sector states as 64-bit integers.
constexpr unsigned kMaxQubits = 62;

/// Every reader refuses an FCIDUMP integral or a Pauli coefficient whose
/// magnitude exceeds this (Hartree): no molecular Hamiltonian comes near it
/// (the nuclear repulsion of a 100-atom organic molecule is ~1e4 Ha), and
/// below it every derived quantity (Jordan-Wigner coefficients, 1-norm,
/// commutator norms) stays far from overflow.
constexpr double kMaxCoefficientMagnitude = 1e6;

struct PauliTerm {
  std::string word; ///< word[i] in "IXYZ" acts on qubit i (qubit 0 = leftmost)
  double coeff;
};

struct QubitHamiltonian {
  std::string name;              ///< e.g. file stem "h2_0.7414"
  unsigned numQubits = 0;
  unsigned numElectrons = 0;     ///< 0 if unknown
  int ms2 = 0;                   ///< 2*Sz
  std::vector<int> hfOccupation; ///< per qubit 0/1 (empty if unknown)
  std::vector<PauliTerm> terms;  ///< merged, |c| >= 1e-12, identity included

  /// Coefficient of "II..I" (0 if absent).
  double identityCoeff() const;
  /// sum |c_k| over the non-identity terms (lambda, bounds ||H - c0||).
  double oneNorm() const;
};

/// Symplectic form of a Pauli word: qubit i is X if x_i & !z_i, Z if z_i & !x_i,
/// Y if both, I if neither (bit i = qubit i).
struct PauliMask {
  uint64_t x = 0, z = 0;
};
/// Requires a validated word (letters IXYZ, length <= kMaxQubits).
PauliMask toMask(llvm::StringRef word);
std::string toWord(PauliMask m, unsigned numQubits);

/// Checks a word ("IXYZ" letters only, expected length); the error text has
/// no location prefix, callers add it.
llvm::Error checkPauliWord(llvm::StringRef word, unsigned numQubits);

/// Merges equal words, drops |c| < 1e-12, sorts (see the file comment).
void canonicalizeTerms(std::vector<PauliTerm> &terms);

llvm::Expected<QubitHamiltonian> parseQubitHamiltonianJSON(llvm::StringRef path);
llvm::Expected<QubitHamiltonian>
parseQubitHamiltonianJSONBuffer(llvm::StringRef contents,
                                llvm::StringRef bufferName,
                                llvm::StringRef stem = "");

llvm::Expected<QubitHamiltonian> parseOpenFermionTerms(llvm::StringRef path);
llvm::Expected<QubitHamiltonian>
parseOpenFermionTermsBuffer(llvm::StringRef contents, llvm::StringRef bufferName,
                            llvm::StringRef stem = "");

enum class HamiltonianFormat { FCIDump, JSON, OpenFermion };

/// Guesses the format: first non-blank character '{' or '[' -> JSON, '&'/'$' (the
/// &FCI namelist) -> FCIDUMP, anything else -> OpenFermion text.
HamiltonianFormat detectFormat(llvm::StringRef contents);

/// Reads any supported file (FCIDUMP files go through jordanWigner).
llvm::Expected<QubitHamiltonian> loadHamiltonian(llvm::StringRef path);
/// The same for contents already read (`bufferName` in diagnostics, `stem`
/// the name when the file has none).
llvm::Expected<QubitHamiltonian> parseHamiltonianBuffer(llvm::StringRef contents,
                                                        llvm::StringRef bufferName,
                                                        llvm::StringRef stem);

/// Writes \p h in the JSON schema above (atomically: temp file + rename).
llvm::Error writeQubitHamiltonianJSON(const QubitHamiltonian &h,
                                      llvm::StringRef path);

} // namespace q2::hamiltonian

#endif // Q2_HAMILTONIAN_QUBITHAMILTONIAN_H
