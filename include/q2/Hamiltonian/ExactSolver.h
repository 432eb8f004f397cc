//===- ExactSolver.h - Exact energies in an (N, Sz) sector -------*- C++ -*-===//
//
// Builds H in the basis of determinants with n_alpha electrons on the even
// (alpha) qubits and n_beta on the odd (beta) qubits, directly from the Pauli
// terms (a Pauli string maps a basis state to one basis state times a phase),
// as a sparse matrix (terms grouped by their X mask: one matrix element per
// group and column). Sectors up to ExactSolverOptions::denseLimit are
// diagonalised densely (Eigen's SelfAdjointEigenSolver), larger ones with
// Lanczos with full reorthogonalisation (docs/hamiltonians.md, section 3).
// The sum of terms must conserve the sector; a Hamiltonian that does not is
// an error.
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
  bool iterative = false;  ///< Lanczos (true) or dense (false)
  unsigned iterations = 0; ///< Lanczos matrix-vector products
  double residual = 0;     ///< Lanczos: ||H y - E y|| of the Ritz vector
  size_t nonZeros = 0;     ///< stored matrix elements of the sector matrix
};

/// Sectors above this dimension are refused (the sparse matrix of a dense
/// FCIDUMP has ~ dim * (singles + doubles) elements).
constexpr size_t kDefaultMaxSectorDim = 20000;
/// Sectors up to this dimension are solved densely (8*dim^2 bytes).
constexpr size_t kDefaultDenseSectorDim = 1500;

struct ExactSolverOptions {
  size_t maxSectorDim = kDefaultMaxSectorDim;
  size_t denseLimit = kDefaultDenseSectorDim; ///< 0: always Lanczos
  /// Lanczos stops when the residual norm ||H y - theta y|| of the lowest
  /// Ritz pair is below tolerance * max(1, |theta|); the eigenvalue error is
  /// then about residual^2 / gap.
  double tolerance = 1e-9;
  unsigned maxIterations = 400; ///< Krylov dimension before a restart
  unsigned maxRestarts = 20;
};

/// Sector: from hfOccupation if present (alpha = even qubits), else from
/// numElectrons and ms2; a Hamiltonian with neither is an error.
llvm::Expected<ExactResult>
exactSectorEnergies(const QubitHamiltonian &h,
                    size_t maxSectorDim = kDefaultMaxSectorDim);
llvm::Expected<ExactResult> exactSectorEnergies(const QubitHamiltonian &h,
                                                const ExactSolverOptions &opts);

/// <HF|H|HF> for the determinant of hfOccupation (or the lowest spin
/// orbitals for numElectrons/ms2): the sum of the Z-only terms with sign
/// (-1)^{|z & hf|}. Cheap for any size.
llvm::Expected<double> hartreeFockEnergy(const QubitHamiltonian &h);

} // namespace q2::hamiltonian

#endif // Q2_HAMILTONIAN_EXACTSOLVER_H
