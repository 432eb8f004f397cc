//===- RandomFCIDump.cpp - a synthetic FCIDUMP for the scaling sweep ------===//
//
// Usage: q2-random-fcidump NORB NELEC SEED -o FILE
//
// Writes formatFCIDump(randomFCIDump(NORB, NELEC, SEED)): every integral
// non-zero, so the Jordan-Wigner Hamiltonian has more Pauli terms than a
// molecule with as many orbitals (compile_bench.py uses it for the points
// above the bundled molecules). Deterministic in SEED.
//
//===----------------------------------------------------------------------===//
#include "q2/Hamiltonian/FCIDump.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

int main(int argc, char **argv) {
  if (argc != 6 || std::strcmp(argv[4], "-o") != 0) {
    llvm::errs() << "usage: q2-random-fcidump NORB NELEC SEED -o FILE\n";
    return 2;
  }
  char *end;
  unsigned long norb = std::strtoul(argv[1], &end, 10);
  bool ok = *end == 0 && norb >= 1 && norb <= 16;
  unsigned long nelec = std::strtoul(argv[2], &end, 10);
  ok &= *end == 0 && nelec >= 1 && nelec <= 2 * norb;
  unsigned long long seed = std::strtoull(argv[3], &end, 10);
  ok &= *end == 0;
  if (!ok) {
    llvm::errs() << "q2-random-fcidump: NORB in [1, 16], NELEC in [1, "
                    "2*NORB], SEED a non-negative integer\n";
    return 2;
  }
  std::string text = q2::hamiltonian::formatFCIDump(
      q2::hamiltonian::randomFCIDump(norb, nelec, seed));
  std::ofstream out(argv[5], std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    llvm::errs() << "q2-random-fcidump: cannot write " << argv[5] << "\n";
    return 1;
  }
  return 0;
}
