//===- Molecule.cpp - XYZ geometries, elements, electron counting ---------===//
#include "q2/Hamiltonian/Molecule.h"
#include "Support.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <optional>

using namespace llvm;
using namespace q2::hamiltonian::detail;

namespace q2::hamiltonian {

static const char *const kElements[kMaxAtomicNumber] = {
    "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg",
    "Al", "Si", "P",  "S",  "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr",
    "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As", "Se", "Br", "Kr"};

int atomicNumber(StringRef sym) {
  for (int i = 0; i < kMaxAtomicNumber; ++i)
    if (sym.equals_insensitive(kElements[i]))
      return i + 1;
  return 0;
}

StringRef elementSymbol(int z) {
  return z >= 1 && z <= kMaxAtomicNumber ? kElements[z - 1] : "";
}

int Molecule::nuclearCharge() const {
  int z = 0;
  for (const Atom &a : atoms)
    z += a.charge;
  return z;
}

std::vector<std::string> Molecule::geometryLines() const {
  std::vector<std::string> out;
  for (const Atom &a : atoms)
    out.push_back(a.symbol + " " + a.coords[0] + " " + a.coords[1] + " " +
                  a.coords[2]);
  return out;
}

Expected<Molecule> parseXYZBuffer(StringRef contents, StringRef file) {
  SmallVector<StringRef> lines;
  contents.split(lines, '\n');
  Molecule m;
  m.name = sys::path::stem(file).str();
  unsigned first = 0;
  std::optional<unsigned> count;
  unsigned n;
  if (!lines.empty() && !lines[0].trim().getAsInteger(10, n)) {
    count = n;
    first = 2; // skip the comment line
  }
  for (unsigned i = first; i < lines.size(); ++i) {
    StringRef line = lines[i].trim();
    if (line.empty() || line.starts_with("#"))
      continue;
    unsigned ln = i + 1;
    SmallVector<StringRef> f;
    SplitString(line, f, " \t\r");
    if (f.size() != 4)
      return locError(file, ln, "expected 'Element x y z', got '" + line + "'");
    Atom a;
    a.symbol = f[0].str();
    a.charge = atomicNumber(f[0]);
    a.line = ln;
    if (!a.charge)
      return locError(file, ln, "unknown element '" + f[0] +
                                    "' (supported: H..Kr)");
    double *xyz[3] = {&a.x, &a.y, &a.z};
    for (unsigned c = 0; c < 3; ++c) {
      auto v = parseReal(f[c + 1]);
      if (!v || f[c + 1].contains_insensitive('d'))
        return locError(file, ln, "bad coordinate '" + f[c + 1] + "'");
      if (std::fabs(*v) > 1e5)
        return locError(file, ln, "coordinate '" + f[c + 1] +
                                      "' is beyond 1e5 Angstrom");
      *xyz[c] = *v;
      a.coords[c] = f[c + 1].str();
    }
    for (const Atom &b : m.atoms) {
      double d = std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) +
                           (a.z - b.z) * (a.z - b.z));
      if (d < 0.1)
        return locError(file, ln, a.symbol + " is " + fmt(d) +
                                      " Angstrom from the " + b.symbol +
                                      " on line " + Twine(b.line) +
                                      " (atoms closer than 0.1 A)");
    }
    m.atoms.push_back(std::move(a));
  }
  if (m.atoms.empty())
    return plainError(file + ": no atoms in XYZ file");
  if (count && *count != m.atoms.size())
    return locError(file, 1, "atom count " + Twine(*count) + " but " +
                                 Twine(m.atoms.size()) + " atom lines");
  return m;
}

Expected<Molecule> parseXYZ(StringRef path) {
  auto buf = readFile(path);
  if (!buf)
    return buf.takeError();
  return parseXYZBuffer((*buf)->getBuffer(), path);
}

Expected<ActiveSpace> parseActiveSpace(StringRef text) {
  ActiveSpace a;
  auto [ne, no] = text.split(',');
  if (ne.trim().getAsInteger(10, a.electrons) ||
      no.trim().getAsInteger(10, a.orbitals))
    return plainError("--active must be NE,NO (two non-negative integers), "
                      "got '" + text + "'");
  if (a.electrons < 1 || a.orbitals < 1 || a.electrons > 2 * a.orbitals)
    return plainError("--active " + Twine(a.electrons) + "," +
                      Twine(a.orbitals) + ": need 1 <= NE <= 2*NO and NO >= 1");
  // 2*NO qubits; the exact solver and the program builder are for small
  // active spaces anyway.
  if (a.orbitals > kMaxActiveOrbitals)
    return plainError("--active: NO = " + Twine(a.orbitals) + " orbitals (" +
                      Twine(2 * a.orbitals) + " qubits) is too large; at most " +
                      Twine(kMaxActiveOrbitals));
  return a;
}

Expected<unsigned> countElectrons(const Molecule &m, StringRef file,
                                  int charge) {
  long long n = (long long)m.nuclearCharge() - charge;
  if (n <= 0)
    return plainError(file + ": charge " + Twine(charge) + " leaves " +
                      Twine(n) + " electrons");
  if (n % 2)
    return plainError(file + ": " + Twine(n) + " electrons (charge " +
                      Twine(charge) +
                      ") is odd; multiplicity 1 needs an even count");
  return unsigned(n);
}

Error checkActiveSpace(const ActiveSpace &a, unsigned total) {
  if (a.electrons > total || (total - a.electrons) % 2)
    return plainError("--active: NE = " + Twine(a.electrons) +
                      " does not fit " + Twine(total) +
                      " electrons (N - NE must be even and >= 0)");
  return Error::success();
}

} // namespace q2::hamiltonian
