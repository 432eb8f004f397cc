//===- JordanWigner.h - Fermion-to-qubit mapping -----------------*- C++ -*-===//
//
// H = E_core + sum_{pq,s} h_pq a+_ps a_qs
//     + 1/2 sum_{pqrs,s,t} (pq|rs) a+_ps a+_rt a_st a_qs
// with interleaved spin orbitals j = 2p + s (s = 0 alpha, 1 beta) and
//   a_j  = Z_0 ... Z_{j-1} (X_j + iY_j)/2,   a+_j = Z_0 ... Z_{j-1} (X_j - iY_j)/2
// (the OpenFermion convention). Like terms are merged, |c| < 1e-12 dropped;
// an imaginary remainder |Im c| > 1e-10 is reported as an error.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_HAMILTONIAN_JORDANWIGNER_H
#define Q2_HAMILTONIAN_JORDANWIGNER_H

#include "q2/Hamiltonian/FCIDump.h"
#include "q2/Hamiltonian/QubitHamiltonian.h"

namespace q2::hamiltonian {

/// Maps the integrals to 2*norb qubits. hfOccupation = the lowest
/// n_alpha = (N+MS2)/2 alpha and n_beta = (N-MS2)/2 beta spin orbitals.
llvm::Expected<QubitHamiltonian> jordanWigner(const FCIDump &dump);

/// The HF occupation vector in interleaved ordering.
std::vector<int> hartreeFockOccupation(unsigned numQubits, unsigned nAlpha,
                                       unsigned nBeta);

} // namespace q2::hamiltonian

#endif // Q2_HAMILTONIAN_JORDANWIGNER_H
