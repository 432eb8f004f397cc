//===- TrotterError.cpp - Commutator bounds of Trotter error --------------===//
//
// Pauli algebra on masks: sigma(x, z) = i^{|x & z|} X^x Z^z is the Hermitian
// Pauli word of the mask, and sigma(a) sigma(b) = i^e sigma(a ^ b) with
//   e = |xa za| + |xb zb| + 2 |za xb| - |(xa^xb)(za^zb)|   (mod 4).
// For anticommuting a, b the product is anti-Hermitian, so e is odd and
// [sigma_a, sigma_b] = 2 i^e sigma(a ^ b) = 2 i s sigma(a ^ b), s = +-1. The
// single commutators are kept as real numbers r meaning i r sigma, the double
// commutators are Hermitian and real.
//
//===----------------------------------------------------------------------===//
#include "q2/QPE/TrotterError.h"
#include "FormatReal.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace llvm;
using q2::qpe::detail::formatReal;

namespace q2::qpe {
using hamiltonian::checkPauliWord;
using hamiltonian::PauliMask;
using hamiltonian::PauliTerm;
using hamiltonian::toMask;
using hamiltonian::QubitHamiltonian;
namespace {

struct Term {
  uint64_t x, z;
  double c;
};

// Without -mpopcnt, __builtin_popcountll is a call into libgcc; these inline
// forms are what the hot loops below need (a quarter of the time otherwise).
inline unsigned popcount64(uint64_t v) {
#ifdef __POPCNT__
  return unsigned(__builtin_popcountll(v));
#else
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return unsigned((v * 0x0101010101010101ull) >> 56);
#endif
}
inline unsigned parity64(uint64_t v) {
  v ^= v >> 32;
  v ^= v >> 16;
  v ^= v >> 8;
  v ^= v >> 4;
  return (0x6996u >> (v & 0xF)) & 1u;
}

inline bool anticommute(uint64_t x1, uint64_t z1, uint64_t x2, uint64_t z2) {
  return parity64((x1 & z2) ^ (z1 & x2));
}

/// i^e of sigma(a) sigma(b) = i^e sigma(a ^ b), e mod 4.
inline unsigned productPhase(uint64_t xa, uint64_t za, uint64_t xb,
                             uint64_t zb) {
  unsigned e = popcount64(xa & za) + popcount64(xb & zb) +
               2 * parity64(za & xb) + 4 * 64 -
               popcount64((xa ^ xb) & (za ^ zb));
  return e & 3u;
}

/// For anticommuting a, b: sigma(a) sigma(b) = i * s * sigma(a ^ b); returns s.
inline double imagSign(uint64_t xa, uint64_t za, uint64_t xb, uint64_t zb) {
  return productPhase(xa, za, xb, zb) == 1 ? 1.0 : -1.0; // e is 1 or 3
}

/// Open-addressing map word -> double, cleared in O(touched). Words of at
/// most 31 qubits are packed into one 64-bit key (x | z << 32; all ones is
/// then free to mark empty slots), so that a slot is 16 bytes and the
/// ~10^4 words of one g1 of a 12-qubit molecule stay in the L2 cache; wider
/// words use two keys. Linear probing, load factor <= 0.7.
template <bool Packed> class WordAccumulator {
public:
  WordAccumulator() { resize(1 << 12); }

  void add(uint64_t x, uint64_t z, double v) {
    if (10 * (used.size() + 1) > 7 * cap)
      grow();
    Key k = makeKey(x, z);
    size_t i = hash(k);
    for (;;) {
      Entry &e = table[i];
      if (e.key == kEmpty) {
        e.key = k;
        e.v = v;
        used.push_back(uint32_t(i));
        return;
      }
      if (e.key == k) {
        e.v += v;
        return;
      }
      i = (i + 1) & (cap - 1);
    }
  }
  double absSum() const {
    double s = 0;
    for (uint32_t i : used)
      s += std::fabs(table[i].v);
    return s;
  }
  void clear() {
    for (uint32_t i : used)
      table[i].key = kEmpty;
    used.clear();
  }

private:
  struct Wide {
    uint64_t x, z;
    bool operator==(const Wide &o) const { return x == o.x && z == o.z; }
  };
  using Key = std::conditional_t<Packed, uint64_t, Wide>;
  static constexpr Key kEmpty = [] {
    if constexpr (Packed)
      return ~uint64_t(0);
    else
      return Wide{~uint64_t(0), ~uint64_t(0)}; // > 62 qubits: never a word
  }();
  struct Entry {
    Key key;
    double v;
  };
  static Key makeKey(uint64_t x, uint64_t z) {
    if constexpr (Packed)
      return x | (z << 32);
    else
      return Wide{x, z};
  }
  size_t hash(const Key &k) const {
    uint64_t h;
    if constexpr (Packed)
      h = k * 0x9E3779B97F4A7C15ull;
    else
      h = (k.x ^ (k.z * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull;
    return size_t(h >> (64 - logCap));
  }
  void resize(size_t n) {
    cap = n;
    logCap = 0;
    while ((size_t(1) << logCap) < n)
      ++logCap;
    table.assign(n, Entry{kEmpty, 0.0});
  }
  void grow() {
    std::vector<Entry> old;
    for (uint32_t i : used)
      old.push_back(table[i]);
    resize(cap * 2);
    used.clear();
    for (const Entry &e : old) {
      if constexpr (Packed)
        add(e.key & 0xFFFFFFFFull, e.key >> 32, e.v);
      else
        add(e.key.x, e.key.z, e.v);
    }
  }

  size_t cap = 0;
  unsigned logCap = 0;
  std::vector<Entry> table;
  std::vector<uint32_t> used;
};

/// The three sums of TrotterCommutators for the non-identity terms.
template <bool Packed>
void commutatorSums(const std::vector<Term> &terms, unsigned order,
                    TrotterCommutators &out) {
  const size_t n = terms.size();
  WordAccumulator<Packed> acc;
  // C_g1 = [B_g1, H_g1] with B_g1 = sum_{g2>g1} H_g2, as i * r * sigma.
  std::vector<Term> comm, anti, other;
  std::vector<uint32_t> hits(n);
  comm.reserve(n);
  anti.reserve(n);
  other.reserve(n);
  for (size_t g1 = 0; g1 < n; ++g1) {
    const Term &a = terms[g1];
    comm.clear();
    anti.clear();
    other.clear();
    acc.clear();
    for (size_t k = g1 + 1; k < n; ++k) {
      const Term &b = terms[k];
      if (!anticommute(b.x, b.z, a.x, a.z)) {
        other.push_back(b);
        continue;
      }
      // [b sigma_b, a sigma_a] = 2ab sigma_b sigma_a = 2ab i s sigma(b ^ a).
      double r = 2.0 * b.c * a.c * imagSign(b.x, b.z, a.x, a.z);
      comm.push_back({b.x ^ a.x, b.z ^ a.z, r});
      anti.push_back(b);
      acc.add(b.x ^ a.x, b.z ^ a.z, r);
    }
    out.alpha1 += acc.absSum();
    if (order < 2 || comm.empty())
      continue;
    // [H_g1, [H_g1, B]] = 4 a^2 sum_{k anticommuting} b_k sigma_k.
    acc.clear();
    for (const Term &b : anti)
      acc.add(b.x, b.z, b.c);
    out.selfNested += 4.0 * a.c * a.c * acc.absSum();
    // [B, C] = sum_m sum_c b_m i r_c [sigma_m, sigma_c]
    //        = sum 2 b_m r_c i (i s) sigma(m ^ c) = -2 s b_m r_c sigma(m ^ c),
    // over m > g1 and the k behind each c = (k ^ g1). For m, k both
    // anticommuting with H_g1 the pair contributes iff m and k commute, and
    // then (m, k) and (k, m) give the same word with the same value: such
    // pairs are visited once (m after k) and counted twice; m == k lands on
    // the word of H_g1 itself. Candidates are filtered without branches
    // first (the outcome of the test is unpredictable), then accumulated.
    acc.clear();
    for (size_t i = 0; i < comm.size(); ++i) {
      const Term &cc = comm[i];
      const Term &k = anti[i];
      acc.add(a.x, a.z, -2.0 * imagSign(k.x, k.z, cc.x, cc.z) * k.c * cc.c);
      size_t nh = 0;
      for (size_t j = i + 1; j < anti.size(); ++j) {
        hits[nh] = uint32_t(j);
        nh += !anticommute(anti[j].x, anti[j].z, k.x, k.z);
      }
      for (size_t q = 0; q < nh; ++q) {
        const Term &b = anti[hits[q]];
        acc.add(b.x ^ cc.x, b.z ^ cc.z,
                -4.0 * imagSign(b.x, b.z, cc.x, cc.z) * b.c * cc.c);
      }
      nh = 0;
      for (size_t j = 0; j < other.size(); ++j) {
        hits[nh] = uint32_t(j);
        nh += anticommute(other[j].x, other[j].z, cc.x, cc.z);
      }
      for (size_t q = 0; q < nh; ++q) {
        const Term &b = other[hits[q]];
        acc.add(b.x ^ cc.x, b.z ^ cc.z,
                -2.0 * imagSign(b.x, b.z, cc.x, cc.z) * b.c * cc.c);
      }
    }
    out.nested += acc.absSum();
  }
}

constexpr double kPi = 3.14159265358979323846;

Error checkOrder(unsigned order) {
  if (order != 1 && order != 2)
    return createStringError("Trotter order must be 1 or 2, got " + Twine(order));
  return Error::success();
}

Error checkParameters(const QPEParameters &p) {
  if (!(p.baseTime > 0) || !std::isfinite(p.baseTime))
    return createStringError("QPE base time must be positive and finite, got " +
                      formatReal(p.baseTime));
  if (!(p.resolution > 0) || !std::isfinite(p.resolution))
    return createStringError("QPE resolution must be positive and finite, got " +
                      formatReal(p.resolution));
  if (p.nEst < 1 || p.nEst > kMaxEstimationQubits)
    return createStringError("n_est = " + Twine(p.nEst) + ", supported are 1.." +
                      Twine(kMaxEstimationQubits));
  return Error::success();
}

uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
uint64_t saturatingShl(uint64_t a, unsigned k) {
  return (k >= 64 || a > (UINT64_MAX >> k)) ? UINT64_MAX : a << k;
}

/// Fills the per-wire error fields of \p plan from plan.steps.
void evaluatePlan(const TrotterCommutators &c, const QPEParameters &p,
                  TrotterPlan &plan) {
  unsigned order = plan.order;
  plan.wireTime.clear();
  plan.operatorError.clear();
  plan.energyError.clear();
  plan.maxEnergyError = 0;
  plan.totalSteps = 0;
  double total = 0;
  for (unsigned k = 0; k < p.nEst; ++k) {
    double tk = std::ldexp(p.baseTime, int(k));
    uint64_t n = plan.steps[k];
    plan.wireTime.push_back(tk);
    double opErr, dE;
    if (plan.power == TrotterPower::Time) {
      opErr = trotterErrorBound(c, order, tk, n);
      dE = eigenphaseErrorBound(opErr) / tk;
      plan.totalSteps = saturatingAdd(plan.totalSteps, n);
    } else {
      // V = S(t/n)^n; wire k applies V^(2^k), whose eigenphases are exactly
      // 2^k times those of V: the energy error is that of V alone.
      double eps = trotterErrorBound(c, order, p.baseTime, n);
      opErr = std::min(2.0, std::ldexp(eps, int(k)));
      dE = eigenphaseErrorBound(eps) / p.baseTime;
      plan.totalSteps = saturatingAdd(plan.totalSteps, saturatingShl(n, k));
    }
    plan.operatorError.push_back(opErr);
    plan.energyError.push_back(dE);
    plan.maxEnergyError = std::max(plan.maxEnergyError, dE);
    total += opErr;
  }
  plan.outcomeDistanceBound = std::min(1.0, total);
}

/// Smallest n >= 1 with eigenphaseErrorBound(n * step(t/n)) / t <= target.
Expected<uint64_t> smallestSteps(const TrotterCommutators &c, unsigned order,
                                 double t, double target, unsigned wire) {
  auto ok = [&](uint64_t n) {
    return eigenphaseErrorBound(trotterErrorBound(c, order, t, n)) / t <= target;
  };
  if (ok(1))
    return uint64_t(1);
  // eps ~ C t^(p+1) / n^p with C = alpha/2 (p = 1), alpha (p = 2); eps/t <=
  // target is necessary (2 asin(eps/2) >= eps), so n >= t (C / target)^(1/p).
  double C = order == 1 ? c.alpha1 / 2 : c.alpha2();
  double guess = t * std::pow(C / target, 1.0 / order);
  if (!(guess < double(kMaxTrotterSteps)))
    return createStringError("the Trotter error bound needs about " + formatReal(guess) +
                      " steps on estimation wire " + Twine(wire) +
                      ", above the limit of 2^40; use a coarser resolution, a "
                      "larger error fraction or order 2");
  uint64_t lo = std::max<uint64_t>(1, uint64_t(guess)); // may be ok already
  if (ok(lo))
    lo = std::max<uint64_t>(1, lo / 2);
  while (ok(lo) && lo > 1)
    lo /= 2;
  // Now !ok(lo) (or lo == 1 and !ok(1)); find hi with ok(hi).
  uint64_t hi = lo;
  while (!ok(hi)) {
    if (hi >= kMaxTrotterSteps)
      return createStringError("the Trotter error bound needs more than 2^40 steps on "
                        "estimation wire " + Twine(wire));
    lo = hi;
    hi = std::min(kMaxTrotterSteps, hi * 2);
  }
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    (ok(mid) ? hi : lo) = mid;
  }
  return hi;
}

} // namespace

Expected<TrotterCommutators> trotterCommutators(const QubitHamiltonian &h,
                                                unsigned order) {
  if (Error e = checkOrder(order))
    return std::move(e);
  std::vector<Term> terms;
  terms.reserve(h.terms.size());
  for (const PauliTerm &t : h.terms) {
    if (Error e = checkPauliWord(t.word, h.numQubits))
      return createStringError("trotterCommutators(" + h.name + "): " +
                        toString(std::move(e)));
    if (!std::isfinite(t.coeff))
      return createStringError("trotterCommutators(" + h.name +
                        "): non-finite coefficient of " + t.word);
    PauliMask m = toMask(t.word);
    if (m.x == 0 && m.z == 0)
      continue; // identity: commutes with everything, factors out exactly
    terms.push_back({m.x, m.z, t.coeff});
  }
  TrotterCommutators out;
  out.numTerms = unsigned(terms.size());
  out.hasOrder2 = order == 2;

  if (terms.size() > kMaxCommutatorTerms) {
    // ||[A,B]|| <= 2 ||A|| ||B|| with ||H_g|| = |c_g| and ||sum_{g'>g}|| <=
    // S_g = sum_{g'>g} |c_g'|: one pass from the back.
    out.triangle = true;
    double suffix = 0;
    for (size_t i = terms.size(); i-- > 0;) {
      double c = std::fabs(terms[i].c);
      out.alpha1 += 2 * c * suffix;
      if (order == 2) {
        out.nested += 4 * c * suffix * suffix;
        out.selfNested += 4 * c * c * suffix;
      }
      suffix += c;
    }
  } else if (h.numQubits <= 31) {
    commutatorSums<true>(terms, order, out);
  } else {
    commutatorSums<false>(terms, order, out);
  }
  if (!std::isfinite(out.alpha1) || !std::isfinite(out.nested) ||
      !std::isfinite(out.selfNested))
    return createStringError("trotterCommutators(" + h.name +
                      "): the commutator norms overflow (coefficients too "
                      "large)");
  return out;
}

double trotterStepBound(const TrotterCommutators &c, unsigned order, double dt) {
  dt = std::fabs(dt);
  if (order == 1)
    return dt * dt / 2.0 * c.alpha1;
  return dt * dt * dt * c.alpha2();
}

double trotterErrorBound(const TrotterCommutators &c, unsigned order, double t,
                         uint64_t steps) {
  if (steps == 0)
    return 2.0;
  double dt = t / double(steps);
  double e = double(steps) * trotterStepBound(c, order, dt);
  return std::isnan(e) ? 2.0 : std::min(2.0, e);
}

double eigenphaseErrorBound(double operatorError) {
  if (!(operatorError < 2.0))
    return kPi;
  return 2.0 * std::asin(std::max(0.0, operatorError) / 2.0);
}

Expected<TrotterPlan> chooseTrotterSteps(const TrotterCommutators &c,
                                         const QPEParameters &p, unsigned order,
                                         TrotterPower power, double fraction) {
  if (Error e = checkOrder(order))
    return std::move(e);
  if (order == 2 && !c.hasOrder2)
    return createStringError("chooseTrotterSteps: the commutators were computed for "
                      "order 1 only");
  if (!(fraction > 0 && fraction <= 1))
    return createStringError("Trotter error fraction must be in (0, 1], got " +
                      formatReal(fraction));
  if (Error e = checkParameters(p))
    return std::move(e);
  TrotterPlan plan;
  plan.order = order;
  plan.power = power;
  plan.resolution = p.resolution;
  plan.fraction = fraction;
  plan.targetEnergyError = fraction * p.resolution;
  plan.alpha = order == 1 ? c.alpha1 : c.alpha2();
  plan.steps.assign(p.nEst, 1);
  if (power == TrotterPower::Time) {
    for (unsigned k = 0; k < p.nEst; ++k) {
      auto n = smallestSteps(c, order, std::ldexp(p.baseTime, int(k)),
                             plan.targetEnergyError, k);
      if (!n)
        return n.takeError();
      plan.steps[k] = *n;
    }
  } else {
    auto n = smallestSteps(c, order, p.baseTime, plan.targetEnergyError,
                           p.nEst - 1);
    if (!n)
      return n.takeError();
    plan.steps.assign(p.nEst, *n);
  }
  evaluatePlan(c, p, plan);
  return plan;
}

Expected<TrotterPlan> chooseTrotterSteps(const QubitHamiltonian &h,
                                         const QPEParameters &p, unsigned order,
                                         TrotterPower power, double fraction) {
  auto c = trotterCommutators(h, order);
  if (!c)
    return c.takeError();
  return chooseTrotterSteps(*c, p, order, power, fraction);
}

Expected<TrotterPlan> trotterPlanForSteps(const TrotterCommutators &c,
                                          const QPEParameters &p,
                                          unsigned order, TrotterPower power,
                                          const std::vector<uint64_t> &steps) {
  if (Error e = checkOrder(order))
    return std::move(e);
  if (order == 2 && !c.hasOrder2)
    return createStringError("trotterPlanForSteps: the commutators were computed for "
                      "order 1 only");
  if (Error e = checkParameters(p))
    return std::move(e);
  if (steps.size() != p.nEst)
    return createStringError("trotterPlanForSteps: " + Twine(steps.size()) +
                      " step counts for " + Twine(p.nEst) +
                      " estimation wires");
  for (uint64_t n : steps)
    if (n < 1)
      return createStringError("n_trotter must be >= 1");
  TrotterPlan plan;
  plan.order = order;
  plan.power = power;
  plan.resolution = p.resolution;
  plan.alpha = order == 1 ? c.alpha1 : c.alpha2();
  plan.steps = steps;
  evaluatePlan(c, p, plan);
  return plan;
}

Expected<TrotterPlan> trotterPlanForSteps(const TrotterCommutators &c,
                                          const QPEParameters &p,
                                          unsigned order, TrotterPower power,
                                          uint64_t nTrotter) {
  if (nTrotter < 1)
    return createStringError("n_trotter must be >= 1");
  if (Error e = checkParameters(p))
    return std::move(e);
  return trotterPlanForSteps(c, p, order, power,
                             std::vector<uint64_t>(p.nEst, nTrotter));
}

Expected<TrotterPlan> trotterPlanForSteps(const QubitHamiltonian &h,
                                          const QPEParameters &p,
                                          unsigned order, TrotterPower power,
                                          uint64_t nTrotter) {
  auto c = trotterCommutators(h, order);
  if (!c)
    return c.takeError();
  return trotterPlanForSteps(*c, p, order, power, nTrotter);
}

} // namespace q2::qpe
