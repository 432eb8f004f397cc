//===- Hamiltonian.h - Umbrella header of the Hamiltonian library -*- C++ -*-===//
#ifndef Q2_HAMILTONIAN_HAMILTONIAN_H
#define Q2_HAMILTONIAN_HAMILTONIAN_H

#include "q2/Hamiltonian/ExactSolver.h"
#include "q2/Hamiltonian/FCIDump.h"
#include "q2/Hamiltonian/JordanWigner.h"
#include "q2/Hamiltonian/Molecule.h"
#include "q2/Hamiltonian/Psi4.h"
#include "q2/Hamiltonian/QubitHamiltonian.h"

#endif // Q2_HAMILTONIAN_HAMILTONIAN_H
