//===- ExactSolver.h - Exact energies in an (N, Sz) sector -------*- C++ -*-===//
//
// Builds H in the basis of determinants with n_alpha electrons on the even
// (alpha) qubits and n_beta on the odd (beta) qubits, directly from the Pauli
// terms (a Pauli string maps a basis state to one basis state times a phase),
// and diagonalises it densely with Eigen's SelfAdjointEigenSolver. The sum of
// terms must conserve the sector; a Hamiltonian that does not is an error.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_HAMILTONIAN_EXACTSOLVER_H
#define Q2_HAMILTONIAN_EXACTSOLVER_H

#include "q2/Hamiltonian/QubitHamiltonian.h"

#include <cstddef>

namespace q2::hamiltonian {

struct ExactResult {
  double groundEnergy; ///< lowest eigenvalue in the sector
  double hfEnergy;     ///< <HF|H|HF>
  size_t sectorDim;
  unsigned nAlpha, nBeta;
};

/// Dense solve refuses sectors above this dimension (memory ~ 8*dim^2 bytes).
constexpr size_t kDefaultMaxSectorDim = 20000;

/// Sector: from hfOccupation if present (alpha = even qubits), else from
/// numElectrons and ms2; a Hamiltonian with neither is an error.
llvm::Expected<ExactResult>
exactSectorEnergies(const QubitHamiltonian &h,
                    size_t maxSectorDim = kDefaultMaxSectorDim);

} // namespace q2::hamiltonian

#endif // Q2_HAMILTONIAN_EXACTSOLVER_H
