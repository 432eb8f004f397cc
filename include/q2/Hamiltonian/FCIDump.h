//===- FCIDump.h - Knowles-Handy FCIDUMP reader ------------------*- C++ -*-===//
//
// Reads molecular integrals in the FCIDUMP format written by psi4, PySCF and
// Molpro (P. J. Knowles, N. C. Handy, Comput. Phys. Commun. 54, 75 (1989)):
//
//   &FCI NORB=4,NELEC=4,MS2=0,ORBSYM=1,1,1,1,ISYM=1, &END   (or '/' or '$END')
//   value  i j k l      two-electron (ij|kl), chemist notation, 1-based
//   value  i j 0 0      one-electron h_ij
//   value  i 0 0 0      orbital energy (ignored)
//   value  0 0 0 0      core energy (nuclear repulsion + frozen core)
//
// Keys are case-insensitive, values may span lines, `n*v` repeats are
// expanded, and Fortran 'D' exponents are accepted. Only the unique integrals
// need to be present: the 8-fold permutational symmetry of real orbitals
// (ij|kl) = (ji|kl) = (ij|lk) = (kl|ij) = ... fills in the rest. UHF files
// (UHF=.TRUE. or IUHF=1) are rejected as unsupported.
//
// Every error names the file and line: "file:line: message".
//
//===----------------------------------------------------------------------===//
#ifndef Q2_HAMILTONIAN_FCIDUMP_H
#define Q2_HAMILTONIAN_FCIDUMP_H

#include "q2/Hamiltonian/QubitHamiltonian.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace q2::hamiltonian {

/// Spin-free integrals of a closed-shell (RHF-orbital) active space.
struct FCIDump {
  std::string name;          ///< file stem, e.g. "h2_0.7414"
  unsigned norb = 0;         ///< spatial orbitals
  unsigned nelec = 0;        ///< active electrons
  int ms2 = 0;               ///< 2*Sz
  int isym = 1;
  std::vector<int> orbsym;   ///< empty if the header has no ORBSYM
  double coreEnergy = 0.0;   ///< the `0 0 0 0` line
  std::vector<double> h1;    ///< norb*norb, h1[p*norb+q] = h_pq (0-based)
  std::vector<double> eri;   ///< norb^4, eri[((p*n+q)*n+r)*n+s] = (pq|rs)

  double oneBody(unsigned p, unsigned q) const { return h1[p * norb + q]; }
  double twoBody(unsigned p, unsigned q, unsigned r, unsigned s) const {
    return eri[((size_t(p) * norb + q) * norb + r) * norb + s];
  }
};

/// Reads and validates an FCIDUMP file.
llvm::Expected<FCIDump> parseFCIDump(llvm::StringRef path);

/// Same, from memory. \p bufferName is used in messages ("name:line: ...");
/// \p stem becomes FCIDump::name.
llvm::Expected<FCIDump> parseFCIDumpBuffer(llvm::StringRef contents,
                                           llvm::StringRef bufferName,
                                           llvm::StringRef stem = "");

/// The file text in the Knowles-Handy layout of psi4_fcidump.py: the unique
/// two-electron integrals (i>=j, k>=l, ij>=kl), then `i j 0 0` (i>=j), then
/// the core energy; zeros are omitted and values have 17 significant digits,
/// so parseFCIDumpBuffer gives back the same numbers.
std::string formatFCIDump(const FCIDump &d);

/// Synthetic integrals for tests and benchmarks: every integral non-zero
/// (a "dense" FCIDUMP), h symmetric with h_pp in [-2.5, -0.5] and off-diagonal
/// |h_pq| <= 0.1, (pq|rs) = sum_L B^L_pq B^L_rs with random symmetric B^L
/// (so the ERI matrix is positive semidefinite, like a real one), core 1.0,
/// MS2 = NELEC mod 2. Deterministic in \p seed.
FCIDump randomFCIDump(unsigned norb, unsigned nelec, uint64_t seed);

} // namespace q2::hamiltonian

#endif // Q2_HAMILTONIAN_FCIDUMP_H
