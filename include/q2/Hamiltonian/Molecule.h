//===- Molecule.h - XYZ geometries, elements, electron counting --*- C++ -*-===//
//
// The input side of `q2-qpe --molecule`: an XYZ file in Angstrom, either the
// standard form (atom count, comment line, `Sym x y z` lines) or bare
// `Sym x y z` lines ('#' lines and blank lines are skipped), elements H..Kr
// (the range of STO-3G). Errors are one line, "file:line: message".
//
//===----------------------------------------------------------------------===//
#ifndef Q2_HAMILTONIAN_MOLECULE_H
#define Q2_HAMILTONIAN_MOLECULE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace q2::hamiltonian {

/// Heaviest element supported (Kr).
constexpr int kMaxAtomicNumber = 36;

/// Element symbol (case-insensitive) -> nuclear charge; 0 if unknown.
int atomicNumber(llvm::StringRef symbol);
/// Nuclear charge -> symbol ("H", "He", ...); "" outside 1..kMaxAtomicNumber.
llvm::StringRef elementSymbol(int z);

struct Atom {
  std::string symbol; ///< as written in the file
  int charge = 0;     ///< nuclear charge Z
  double x = 0, y = 0, z = 0; ///< Angstrom
  std::string coords[3];      ///< the coordinate texts, passed on verbatim
  unsigned line = 0;          ///< 1-based line in the file
};

struct Molecule {
  std::string name; ///< file stem
  std::vector<Atom> atoms;
  int nuclearCharge() const;
  /// "Sym x y z" per atom, the coordinates as written (psi4's geometry).
  std::vector<std::string> geometryLines() const;
};

/// Reads an XYZ file (through the library's file reader). Errors: unreadable
/// file, a line that is not `Element x y z`, an unknown element, a
/// coordinate that is not a finite number, two atoms closer than 0.1 A, no
/// atoms, an atom count that disagrees with the atom lines.
llvm::Expected<Molecule> parseXYZ(llvm::StringRef path);
llvm::Expected<Molecule> parseXYZBuffer(llvm::StringRef contents,
                                        llvm::StringRef bufferName);

/// An active space "NE,NO" (electrons, spatial orbitals).
struct ActiveSpace {
  unsigned electrons = 0, orbitals = 0;
};

/// Largest active space the psi4 path accepts (2*NO qubits).
constexpr unsigned kMaxActiveOrbitals = 16;

/// Parses and range-checks "NE,NO": 1 <= NE <= 2*NO, 1 <= NO <= 16.
/// Messages name the option (--active).
llvm::Expected<ActiveSpace> parseActiveSpace(llvm::StringRef text);

/// Electrons of the molecule at \p charge for a closed-shell (multiplicity
/// 1) calculation: N = sum Z - charge must be positive and even.
llvm::Expected<unsigned> countElectrons(const Molecule &m, llvm::StringRef file,
                                        int charge);

/// Does the active space fit N electrons: NE <= N and N - NE even (the
/// (N - NE)/2 lowest orbitals are frozen)?
llvm::Error checkActiveSpace(const ActiveSpace &a, unsigned totalElectrons);

} // namespace q2::hamiltonian

#endif // Q2_HAMILTONIAN_MOLECULE_H
