//===- JordanWigner.cpp - Fermion-to-qubit mapping ------------------------===//
#include "q2/Hamiltonian/JordanWigner.h"
#include "Support.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <complex>

using namespace llvm;
using namespace q2::hamiltonian::detail;

namespace q2::hamiltonian {
namespace {

using cplx = std::complex<double>;

/// sigma(x, z) = i^{popcount(x & z)} X^x Z^z is the Hermitian Pauli string of
/// the mask. Multiplying: sigma1 sigma2 = i^e sigma(x1^x2, z1^z2) with
/// e = |x1 z1| + |x2 z2| + 2 |z1 x2| - |x3 z3|  (Z^z X^x = (-1)^{|z x|} X^x Z^z).
inline unsigned productPhase(PauliMask a, PauliMask b) {
  uint64_t x3 = a.x ^ b.x, z3 = a.z ^ b.z;
  int e = popcount(a.x & a.z) + popcount(b.x & b.z) + 2 * popcount(a.z & b.x) -
          popcount(x3 & z3);
  return unsigned(e) & 3u;
}

const cplx kIPow[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};

/// A ladder operator as a two-term Pauli sum: 1/2 (P_X -+ i P_Y).
struct Ladder {
  PauliMask m[2];
  cplx c[2];
};

Ladder ladder(unsigned j, bool dagger) {
  uint64_t bit = uint64_t(1) << j, string = bit - 1;
  Ladder l;
  l.m[0] = {bit, string};       // Z..Z X_j
  l.m[1] = {bit, string | bit}; // Z..Z Y_j
  l.c[0] = 0.5;
  l.c[1] = dagger ? cplx(0, -0.5) : cplx(0, 0.5);
  return l;
}

struct MaskKey {
  static PauliMask getEmptyKey() { return {~0ull, ~0ull}; }
  static PauliMask getTombstoneKey() { return {~0ull - 1, ~0ull}; }
  static unsigned getHashValue(const PauliMask &m) {
    return unsigned(hash_combine(m.x, m.z));
  }
  static bool isEqual(const PauliMask &a, const PauliMask &b) {
    return a.x == b.x && a.z == b.z;
  }
};

using PauliSum = DenseMap<PauliMask, cplx, MaskKey>;

/// Adds coeff * prod(ops) to the sum by expanding every ladder operator.
void addProduct(PauliSum &sum, cplx coeff, const Ladder *ops, unsigned n) {
  unsigned combos = 1u << n;
  for (unsigned sel = 0; sel < combos; ++sel) {
    PauliMask acc{0, 0};
    cplx c = coeff;
    unsigned phase = 0;
    for (unsigned k = 0; k < n; ++k) {
      unsigned b = (sel >> k) & 1;
      phase += productPhase(acc, ops[k].m[b]);
      acc = {acc.x ^ ops[k].m[b].x, acc.z ^ ops[k].m[b].z};
      c *= ops[k].c[b];
    }
    sum[acc] += c * kIPow[phase & 3];
  }
}

} // namespace

std::vector<int> hartreeFockOccupation(unsigned numQubits, unsigned nAlpha,
                                       unsigned nBeta) {
  std::vector<int> occ(numQubits, 0);
  for (unsigned p = 0; p < nAlpha && 2 * p < numQubits; ++p)
    occ[2 * p] = 1;
  for (unsigned p = 0; p < nBeta && 2 * p + 1 < numQubits; ++p)
    occ[2 * p + 1] = 1;
  return occ;
}

Expected<QubitHamiltonian> jordanWigner(const FCIDump &d) {
  const unsigned n = d.norb;
  if (n == 0 || 2 * n > kMaxQubits)
    return plainError("jordanWigner(" + d.name + "): " + Twine(2 * n) +
                      " qubits, supported are 1.." + Twine(kMaxQubits));
  if (d.h1.size() != size_t(n) * n || d.eri.size() != size_t(n) * n * n * n)
    return plainError("jordanWigner(" + d.name + "): integral arrays do not "
                      "match NORB = " + Twine(n));
  const unsigned nq = 2 * n;
  PauliSum sum;
  sum[PauliMask{0, 0}] += d.coreEnergy;

  // One-body part: sum_{pq,s} h_pq a+_{ps} a_{qs}.
  for (unsigned p = 0; p < n; ++p)
    for (unsigned q = 0; q < n; ++q) {
      double h = d.oneBody(p, q);
      if (h == 0.0)
        continue;
      for (unsigned s = 0; s < 2; ++s) {
        Ladder ops[2] = {ladder(2 * p + s, true), ladder(2 * q + s, false)};
        addProduct(sum, h, ops, 2);
      }
    }

  // Two-body part: 1/2 sum (pq|rs) a+_{ps} a+_{rt} a_{st} a_{qs}.
  for (unsigned p = 0; p < n; ++p)
    for (unsigned q = 0; q < n; ++q)
      for (unsigned r = 0; r < n; ++r)
        for (unsigned s = 0; s < n; ++s) {
          double g = d.twoBody(p, q, r, s);
          if (g == 0.0)
            continue;
          for (unsigned sig = 0; sig < 2; ++sig)
            for (unsigned tau = 0; tau < 2; ++tau) {
              unsigned P = 2 * p + sig, Q = 2 * q + sig;
              unsigned R = 2 * r + tau, S = 2 * s + tau;
              if (P == R || Q == S) // a+_P a+_P = a_Q a_Q = 0
                continue;
              Ladder ops[4] = {ladder(P, true), ladder(R, true),
                               ladder(S, false), ladder(Q, false)};
              addProduct(sum, 0.5 * g, ops, 4);
            }
        }

  QubitHamiltonian h;
  h.name = d.name;
  h.numQubits = nq;
  h.numElectrons = d.nelec;
  h.ms2 = d.ms2;
  unsigned na = unsigned((int(d.nelec) + d.ms2) / 2);
  unsigned nb = d.nelec - na;
  h.hfOccupation = hartreeFockOccupation(nq, na, nb);
  h.terms.reserve(sum.size());
  double norm = 0;
  for (auto &[mask, c] : sum) {
    // Integrals beyond kMaxCoefficientMagnitude are refused by the reader;
    // a hand-made FCIDump could still overflow here.
    if (!std::isfinite(c.real()) || !std::isfinite(c.imag()))
      return plainError("jordanWigner(" + d.name + "): the coefficient of " +
                        toWord(mask, nq) + " is not finite (integrals too "
                        "large or not finite)");
    norm += std::abs(c);
    // A Hermitian operator with real integrals has real Pauli coefficients;
    // anything else means broken input (or a bug) and must not be dropped.
    if (std::fabs(c.imag()) > 1e-10)
      return plainError("jordanWigner(" + d.name + "): Pauli term " +
                        toWord(mask, nq) + " has a non-real coefficient (" +
                        fmt(c.real()) + " + " + fmt(c.imag()) + "i)");
    h.terms.push_back({toWord(mask, nq), c.real()});
  }
  if (!std::isfinite(norm))
    return plainError("jordanWigner(" + d.name + "): the 1-norm of the "
                      "qubit Hamiltonian overflows");
  canonicalizeTerms(h.terms);
  return h;
}

} // namespace q2::hamiltonian
