//===- QuantumRuntime.cpp - the C ABI of the simulator runtime -------------===//
//
// Validation, error slot and gate decoding; the numerical work is in the
// kernels (Kernels.h). Nothing here may throw through the C ABI: every entry
// point catches and turns exceptions into the pending error.
//
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace q2::runtime;

namespace {

//===-- error slot --------------------------------------------------------===//
thread_local std::string errorMessage;
thread_local bool errorPending = false;

__attribute__((format(printf, 1, 2))) void setError(const char *fmt, ...) {
  if (errorPending) // keep the first error: later ones are consequences
    return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  errorMessage = buf;
  errorPending = true;
}

void setInternalError(const char *fn, const char *what) {
  setError("%s: internal error: %s", fn, what);
}

#define Q2_TRY try {
#define Q2_CATCH(fn, ret)                                                      \
  }                                                                            \
  catch (const std::exception &e) {                                            \
    setInternalError(fn, e.what());                                            \
    return ret;                                                                \
  }                                                                            \
  catch (...) {                                                                \
    setInternalError(fn, "unknown exception");                                 \
    return ret;                                                                \
  }

//===-- limits ------------------------------------------------------------===//
// An index must fit in uint64_t and 16 * 2^n bytes in (almost) any size_t.
constexpr int64_t kHardMaxQubits = 59;
std::atomic<int64_t> maxQubits{0}; // 0: default
std::mutex rngMutex;
std::mt19937_64 rng(0x5eed);

/// Decimal 16 * 2^n, exact for any n (no overflow).
std::string bytesFor(int64_t n) {
  if (n < 0 || n > 120)
    return "2^" + std::to_string(n + 4);
  unsigned __int128 b = (unsigned __int128)16 << n;
  std::string s;
  do {
    s.insert(s.begin(), char('0' + int(b % 10)));
    b /= 10;
  } while (b);
  return s;
}

int64_t effectiveMaxQubits() {
  int64_t m = maxQubits.load();
  return m > 0 ? m : defaultMaxQubits();
}

//===-- operand checks ----------------------------------------------------===//
/// Checks a qubit list and folds it into `reg` and a bit mask. Returns false
/// (with the error set) on NULL handles, mixed registers or repeated qubits.
bool collect(const char *fn, const char *what, Q2Qubit *const *qs, int64_t num,
             Q2Register *&reg, uint64_t &seen, uint64_t &mask) {
  mask = 0;
  if (num < 0) {
    setError("%s: negative number of %s (%lld)", fn, what, (long long)num);
    return false;
  }
  if (num > 0 && !qs) {
    setError("%s: %lld %s but the array is NULL", fn, (long long)num, what);
    return false;
  }
  for (int64_t i = 0; i < num; ++i) {
    Q2Qubit *q = qs[i];
    if (!q) {
      setError("%s: %s[%lld] is a NULL qubit", fn, what, (long long)i);
      return false;
    }
    if (!reg)
      reg = q->reg;
    else if (q->reg != reg) {
      setError("%s: %s[%lld] (qubit %lld) belongs to another register", fn,
               what, (long long)i, (long long)q->index);
      return false;
    }
    if (q->index < 0 || q->index >= reg->numQubits) {
      setError("%s: %s[%lld] has index %lld, register has %lld qubits", fn,
               what, (long long)i, (long long)q->index,
               (long long)reg->numQubits);
      return false;
    }
    uint64_t bit = uint64_t(1) << q->index;
    if (seen & bit) {
      setError("%s: qubit %lld is used twice in one operation", fn,
               (long long)q->index);
      return false;
    }
    seen |= bit;
    mask |= bit;
  }
  return true;
}

double *data(Q2Register *r) { return reinterpret_cast<double *>(r->amps.data()); }
int nq(const Q2Register *r) { return int(r->numQubits); }

const char *gateName(int32_t g) {
  static const char *names[] = {"IDENTITY", "H",  "X",  "Y",          "Z",
                                "S",        "T",  "RX", "RY",         "RZ",
                                "PHASESHIFT", "CNOT", "CZ", "SWAP"};
  return g >= 0 && g <= 13 ? names[g] : "?";
}

/// exp(-i theta/2 P) on the state right away (c = cos, s = sin of theta/2).
void applyRotation(Q2Register *reg, uint64_t xm, uint64_t zm, int ny,
                   uint64_t cm, double c, double s) {
  auto &k = kernels();
  if (xm == 0 && zm == 0) {
    // Identity word: a phase, global only without controls.
    k.scale(data(reg), nq(reg), makeIndexSet(cm, cm), {c, -s});
  } else if (xm == 0) {
    k.pauliDiag(data(reg), nq(reg), makeIndexSet(cm, cm), zm, c, s);
  } else {
    // P = i^ny X^xm Z^zm, so exp(-i t/2 P) mixes y with y^xm by k = -i s i^ny.
    Cplx kk;
    switch (ny & 3) {
    case 0: kk = {0, -s}; break;
    case 1: kk = {s, 0}; break;
    case 2: kk = {0, s}; break;
    default: kk = {-s, 0}; break;
    }
    uint64_t pivot = uint64_t(1) << (63 - __builtin_clzll(xm));
    k.pauliPairs(data(reg), nq(reg), makeIndexSet(cm | pivot, cm), xm, zm, c,
                 kk, (ny & 1) ? -1.0 : 1.0);
  }
}

//===-- rotation fusion ---------------------------------------------------===//
bool initialFusion() {
  const char *env = std::getenv("Q2_RT_FUSION");
  return !(env && env[0] == '0');
}
std::atomic<bool> fusionOn{initialFusion()};
// Below this the per-rotation 4^m matrix update costs about what a direct
// sweep of the state does.
std::atomic<int64_t> fusionMinQubits{10};

/// Gathers the bits of x under mask into the low bits (software pext).
uint64_t extractBits(uint64_t x, uint64_t mask) {
  uint64_t r = 0;
  int b = 0;
  for (uint64_t m = mask; m; m &= m - 1, ++b)
    if (x & m & (~m + 1))
      r |= uint64_t(1) << b;
  return r;
}

using cd = std::complex<double>;

/// Re-expresses the fused matrix on a wider target set (identity on the
/// added qubits).
void widen(Q2Fusion &f, uint64_t newMask) {
  uint64_t dim = uint64_t(1) << __builtin_popcountll(f.targetMask);
  uint64_t dim2 = uint64_t(1) << __builtin_popcountll(newMask);
  uint64_t oldLocal = extractBits(f.targetMask, newMask);
  uint64_t addedLocal = (dim2 - 1) & ~oldLocal;
  f.scratch.assign(dim2 * dim2, cd(0, 0));
  for (uint64_t r = 0; r < dim2; ++r)
    for (uint64_t c = 0; c < dim2; ++c)
      if (((r ^ c) & addedLocal) == 0)
        f.scratch[r * dim2 + c] =
            f.matrix[extractBits(r, oldLocal) * dim + extractBits(c, oldLocal)];
  f.matrix.swap(f.scratch);
  f.targetMask = newMask;
}

/// M <- exp(-i theta/2 P) M; P = i^ny X^xl Z^zl in local bits, so row r of
/// P M is i^ny (-1)^|src & zl| row src, src = r ^ xl.
void fuseRotation(Q2Fusion &f, uint64_t xl, uint64_t zl, int ny, double c,
                  double s) {
  uint64_t dim = uint64_t(1) << __builtin_popcountll(f.targetMask);
  static const cd iPow[4] = {cd(1, 0), cd(0, 1), cd(-1, 0), cd(0, -1)};
  cd k = cd(0, -s) * iPow[ny & 3];
  f.scratch.assign(f.matrix.begin(), f.matrix.end());
  for (uint64_t r = 0; r < dim; ++r) {
    uint64_t src = r ^ xl;
    cd coef = __builtin_parityll(src & zl) ? -k : k;
    cd *out = &f.matrix[r * dim];
    const cd *a = &f.scratch[r * dim], *b = &f.scratch[src * dim];
    for (uint64_t col = 0; col < dim; ++col)
      out[col] = c * a[col] + coef * b[col];
  }
}

/// Joins a rotation to the register's pending block if it fits (same
/// controls, at most kMaxFusedQubits qubits in all); false: apply directly.
bool tryFuse(Q2Register *reg, uint64_t xm, uint64_t zm, int ny, uint64_t cm,
             double c, double s) {
  if (!fusionOn.load(std::memory_order_relaxed) ||
      reg->numQubits < fusionMinQubits.load(std::memory_order_relaxed))
    return false;
  uint64_t tm = xm | zm;
  const int maxQ = Q2Fusion::kMaxFusedQubits;
  if (__builtin_popcountll(tm) > maxQ)
    return false;
  Q2Fusion &f = reg->fusion;
  if (f.active && (f.ctrlMask != cm ||
                   __builtin_popcountll(f.targetMask | tm) > maxQ))
    flushFusion(reg);
  if (!f.active) {
    if (!tm) // an identity word alone is a cheap direct phase
      return false;
    uint64_t dim = uint64_t(1) << __builtin_popcountll(tm);
    f.matrix.assign(dim * dim, cd(0, 0));
    for (uint64_t i = 0; i < dim; ++i)
      f.matrix[i * dim + i] = 1.0;
    f.targetMask = tm;
    f.ctrlMask = cm;
    f.numFused = 0;
    f.firstXm = xm;
    f.firstZm = zm;
    f.firstNy = ny;
    f.firstCos = c;
    f.firstSin = s;
    f.active = true;
  } else if (tm & ~f.targetMask) {
    widen(f, f.targetMask | tm);
  }
  fuseRotation(f, extractBits(xm, f.targetMask), extractBits(zm, f.targetMask),
               ny, c, s);
  ++f.numFused;
  return true;
}

void apply2x2(Q2Register *r, uint64_t cm, uint64_t t, const Cplx m[4]) {
  kernels().apply2x2(data(r), nq(r), makeIndexSet(cm | t, cm), t, m);
}
void phaseOnOne(Q2Register *r, uint64_t cm, uint64_t t, Cplx z) {
  kernels().scale(data(r), nq(r), makeIndexSet(cm | t, cm | t), z);
}

} // namespace

void q2::runtime::flushFusion(Q2Register *reg) {
  if (!reg || !reg->fusion.active)
    return;
  Q2Fusion &f = reg->fusion;
  f.active = false;
  if (f.numFused == 1)
    applyRotation(reg, f.firstXm, f.firstZm, f.firstNy, f.ctrlMask, f.firstCos,
                  f.firstSin);
  else
    kernels().applyDense(data(reg), nq(reg), f.targetMask, f.ctrlMask,
                         reinterpret_cast<const Cplx *>(f.matrix.data()));
}
bool q2::runtime::getFusionEnabled() { return fusionOn.load(); }
bool q2::runtime::setFusionEnabled(bool on) { return fusionOn.exchange(on); }
int64_t q2::runtime::getFusionMinQubits() { return fusionMinQubits.load(); }
int64_t q2::runtime::setFusionMinQubits(int64_t n) {
  return fusionMinQubits.exchange(n);
}

int64_t q2::runtime::defaultMaxQubits() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0)
    return 30;
  long double budget = 0.8L * (long double)pages * (long double)page;
  int64_t n = 0;
  while (n < kHardMaxQubits && std::ldexp(16.0L, int(n + 1)) <= budget)
    ++n;
  return n;
}

// Only the C ABI is exported from libq2_runtime.so.
#pragma GCC visibility push(default)
extern "C" {

Q2Register *q2_rt_alloc(int64_t num_qubits) {
  if (errorPending)
    return nullptr;
  Q2_TRY
  int64_t limit = effectiveMaxQubits();
  bool explicitLimit = maxQubits.load() > 0;
  if (num_qubits <= 0) {
    setError("q2_rt_alloc: a register needs at least 1 qubit (got %lld)",
             (long long)num_qubits);
    return nullptr;
  }
  if (num_qubits > limit || num_qubits > kHardMaxQubits) {
    int64_t shown = std::min(limit, kHardMaxQubits);
    setError("q2_rt_alloc: %lld qubits need %s bytes (2^%lld amplitudes x 16 "
             "bytes); the limit is %lld qubits (%s bytes, %s)",
             (long long)num_qubits, bytesFor(num_qubits).c_str(),
             (long long)num_qubits, (long long)shown, bytesFor(shown).c_str(),
             explicitLimit ? "set by q2_rt_set_max_qubits"
                           : "80% of physical memory");
    return nullptr;
  }
  auto reg = std::unique_ptr<Q2Register>(new (std::nothrow) Q2Register);
  if (!reg) {
    setError("q2_rt_alloc: out of memory for the register header");
    return nullptr;
  }
  try {
    reg->amps.setZero(Eigen::Index(1) << num_qubits);
    reg->qubits.reset(new Q2Qubit[num_qubits]);
  } catch (const std::bad_alloc &) {
    setError("q2_rt_alloc: %lld qubits need %s bytes: allocation failed",
             (long long)num_qubits, bytesFor(num_qubits).c_str());
    return nullptr;
  }
  reg->numQubits = num_qubits;
  reg->amps[0] = 1.0;
  for (int64_t i = 0; i < num_qubits; ++i)
    reg->qubits[i] = {reg.get(), i};
  return reg.release();
  Q2_CATCH("q2_rt_alloc", nullptr)
}

void q2_rt_dealloc(Q2Register *reg) { delete reg; }

Q2Qubit *q2_rt_qubit(Q2Register *reg, int64_t index) {
  if (errorPending)
    return nullptr;
  if (!reg) {
    setError("q2_rt_qubit: NULL register");
    return nullptr;
  }
  if (index < 0 || index >= reg->numQubits) {
    setError("q2_rt_qubit: qubit index %lld out of range [0, %lld)",
             (long long)index, (long long)reg->numQubits);
    return nullptr;
  }
  return &reg->qubits[index];
}

void q2_rt_gate(int32_t gate, double param, Q2Qubit *const *targets,
                int64_t num_targets, Q2Qubit *const *ctrls, int64_t num_ctrls,
                int32_t adjoint) {
  if (errorPending)
    return;
  Q2_TRY
  if (gate < Q2_GATE_IDENTITY || gate > Q2_GATE_SWAP) {
    setError("q2_rt_gate: unknown gate %d", gate);
    return;
  }
  int64_t want = gate >= Q2_GATE_CNOT ? 2 : 1;
  if (num_targets != want) {
    setError("q2_rt_gate: %s takes %lld target(s), got %lld", gateName(gate),
             (long long)want, (long long)num_targets);
    return;
  }
  Q2Register *reg = nullptr;
  uint64_t seen = 0, tm = 0, cm = 0;
  if (!collect("q2_rt_gate", "targets", targets, num_targets, reg, seen, tm) ||
      !collect("q2_rt_gate", "ctrls", ctrls, num_ctrls, reg, seen, cm))
    return;
  if (gate != Q2_GATE_IDENTITY)
    flushFusion(reg); // named gates are applied directly, in order
  uint64_t t0 = uint64_t(1) << targets[0]->index;
  uint64_t t1 = want == 2 ? uint64_t(1) << targets[1]->index : 0;
  double sign = adjoint ? -1.0 : 1.0; // adjoint of a rotation: -theta
  const double r = M_SQRT1_2;
  auto &k = kernels();
  switch (gate) {
  case Q2_GATE_IDENTITY:
    break;
  case Q2_GATE_H: {
    Cplx m[4] = {{r, 0}, {r, 0}, {r, 0}, {-r, 0}};
    apply2x2(reg, cm, t0, m);
    break;
  }
  case Q2_GATE_X:
    k.swapFlip(data(reg), nq(reg), makeIndexSet(cm | t0, cm), t0);
    break;
  case Q2_GATE_Y: {
    Cplx m[4] = {{0, 0}, {0, -1}, {0, 1}, {0, 0}};
    apply2x2(reg, cm, t0, m);
    break;
  }
  case Q2_GATE_Z:
    phaseOnOne(reg, cm, t0, {-1, 0});
    break;
  case Q2_GATE_S:
    phaseOnOne(reg, cm, t0, {0, sign});
    break;
  case Q2_GATE_T:
    phaseOnOne(reg, cm, t0, {r, sign * r});
    break;
  case Q2_GATE_RX: {
    double c = std::cos(param / 2), s = sign * std::sin(param / 2);
    Cplx m[4] = {{c, 0}, {0, -s}, {0, -s}, {c, 0}};
    apply2x2(reg, cm, t0, m);
    break;
  }
  case Q2_GATE_RY: {
    double c = std::cos(param / 2), s = sign * std::sin(param / 2);
    Cplx m[4] = {{c, 0}, {-s, 0}, {s, 0}, {c, 0}};
    apply2x2(reg, cm, t0, m);
    break;
  }
  case Q2_GATE_RZ: {
    // exp(-i theta/2 Z) is a Z-only Pauli rotation: one diagonal pass.
    k.pauliDiag(data(reg), nq(reg), makeIndexSet(cm, cm), t0,
                std::cos(param / 2), sign * std::sin(param / 2));
    break;
  }
  case Q2_GATE_PHASESHIFT:
    phaseOnOne(reg, cm, t0, {std::cos(param), sign * std::sin(param)});
    break;
  case Q2_GATE_CNOT:
    k.swapFlip(data(reg), nq(reg), makeIndexSet(cm | t0 | t1, cm | t0), t1);
    break;
  case Q2_GATE_CZ:
    phaseOnOne(reg, cm | t0, t1, {-1, 0});
    break;
  case Q2_GATE_SWAP:
    k.swapFlip(data(reg), nq(reg), makeIndexSet(cm | t0 | t1, cm | t0),
               t0 | t1);
    break;
  }
  ++reg->gateCount;
  Q2_CATCH("q2_rt_gate", )
}

void q2_rt_pauli_rot(double theta, const char *pauli, Q2Qubit *const *targets,
                     int64_t num_targets, Q2Qubit *const *ctrls,
                     int64_t num_ctrls) {
  if (errorPending)
    return;
  Q2_TRY
  if (num_targets > 0 && !pauli) {
    setError("q2_rt_pauli_rot: NULL Pauli word for %lld targets",
             (long long)num_targets);
    return;
  }
  Q2Register *reg = nullptr;
  uint64_t seen = 0, tm = 0, cm = 0;
  if (!collect("q2_rt_pauli_rot", "targets", targets, num_targets, reg, seen,
               tm) ||
      !collect("q2_rt_pauli_rot", "ctrls", ctrls, num_ctrls, reg, seen, cm))
    return;
  uint64_t xm = 0, zm = 0;
  int ny = 0;
  for (int64_t i = 0; i < num_targets; ++i) {
    uint64_t bit = uint64_t(1) << targets[i]->index;
    switch (pauli[i]) {
    case 'I':
      break;
    case 'X':
      xm |= bit;
      break;
    case 'Y':
      xm |= bit;
      zm |= bit;
      ++ny;
      break;
    case 'Z':
      zm |= bit;
      break;
    default: {
      unsigned char ch = static_cast<unsigned char>(pauli[i]);
      setError("q2_rt_pauli_rot: bad Pauli letter '%c' (0x%02x) at position "
               "%lld; expected one of IXYZ",
               ch >= 32 && ch < 127 ? ch : '?', ch, (long long)i);
      return;
    }
    }
  }
  if (!reg) // no qubits at all: nothing to act on
    return;
  double c = std::cos(theta / 2), s = std::sin(theta / 2);
  if (tryFuse(reg, xm, zm, ny, cm, c, s)) {
    ++reg->gateCount;
    return;
  }
  flushFusion(reg);
  applyRotation(reg, xm, zm, ny, cm, c, s);
  ++reg->gateCount;
  Q2_CATCH("q2_rt_pauli_rot", )
}

int32_t q2_rt_measure(Q2Qubit *qubit) {
  if (errorPending)
    return -1;
  Q2_TRY
  Q2Register *reg = nullptr;
  uint64_t seen = 0, tm = 0;
  Q2Qubit *const qs[1] = {qubit};
  if (!collect("q2_rt_measure", "qubit", qs, 1, reg, seen, tm))
    return -1;
  flushFusion(reg);
  auto &k = kernels();
  double p0 = k.normSq(data(reg), nq(reg), makeIndexSet(tm, 0));
  double p1 = k.normSq(data(reg), nq(reg), makeIndexSet(tm, tm));
  double total = p0 + p1;
  if (!(total > 0) || !std::isfinite(total)) {
    setError("q2_rt_measure: the state has norm %g; cannot measure", total);
    return -1;
  }
  double u;
  {
    std::lock_guard<std::mutex> g(rngMutex);
    u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  }
  int32_t outcome = u * total < p0 ? 0 : 1;
  double keep = outcome ? p1 : p0;
  k.scale(data(reg), nq(reg), makeIndexSet(tm, outcome ? 0 : tm), {0, 0});
  k.scale(data(reg), nq(reg), makeIndexSet(tm, outcome ? tm : 0),
          {1.0 / std::sqrt(keep), 0});
  return outcome;
  Q2_CATCH("q2_rt_measure", -1)
}

void q2_rt_probs(Q2Qubit *const *qubits, int64_t num, double *out) {
  if (errorPending)
    return;
  Q2_TRY
  Q2Register *reg = nullptr;
  uint64_t seen = 0, mask = 0;
  if (!collect("q2_rt_probs", "qubits", qubits, num, reg, seen, mask))
    return;
  flushFusion(reg);
  if (!out) {
    setError("q2_rt_probs: NULL output buffer");
    return;
  }
  if (!reg) { // no qubits: the empty marginal is the total probability 1
    out[0] = 1.0;
    return;
  }
  // Outcome index of amplitude y, by bytes: first listed qubit = MSB.
  int n = nq(reg), numBytes = (n + 7) / 8;
  std::vector<uint64_t> tab(size_t(numBytes) * 256, 0);
  for (int64_t i = 0; i < num; ++i) {
    int q = int(qubits[i]->index);
    uint64_t outBit = uint64_t(1) << (num - 1 - i);
    for (int b = 0; b < 256; ++b)
      if ((b >> (q % 8)) & 1)
        tab[size_t(q / 8) * 256 + b] |= outBit;
  }
  uint64_t numOut = uint64_t(1) << num;
  std::fill(out, out + numOut, 0.0);
  const double *v = data(reg);
  uint64_t amps = uint64_t(1) << n;
  for (uint64_t y = 0; y < amps; ++y) {
    uint64_t idx = 0;
    for (int c = 0; c < numBytes; ++c)
      idx |= tab[size_t(c) * 256 + ((y >> (8 * c)) & 255)];
    out[idx] += v[2 * y] * v[2 * y] + v[2 * y + 1] * v[2 * y + 1];
  }
  Q2_CATCH("q2_rt_probs", )
}

const char *q2_rt_last_error(void) {
  return errorPending ? errorMessage.c_str() : nullptr;
}

void q2_rt_clear_error(void) {
  errorPending = false;
  errorMessage.clear();
}

int64_t q2_rt_set_max_qubits(int64_t max_qubits) {
  int64_t prev = maxQubits.exchange(max_qubits > 0 ? max_qubits : 0);
  return prev > 0 ? prev : defaultMaxQubits();
}

int32_t q2_rt_set_num_threads(int32_t num_threads) {
  return setNumThreads(num_threads);
}

void q2_rt_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(rngMutex);
  rng.seed(seed);
}

int64_t q2_rt_num_qubits(const Q2Register *reg) {
  return reg ? reg->numQubits : 0;
}

double *q2_rt_state_data(Q2Register *reg) {
  if (!reg)
    return nullptr;
  try {
    flushFusion(reg); // the amplitudes must be current when looked at
  } catch (...) {
    setInternalError("q2_rt_state_data", "flushing fused rotations failed");
  }
  return data(reg);
}

int64_t q2_rt_gate_count(const Q2Register *reg) {
  return reg ? reg->gateCount : 0;
}

} // extern "C"
#pragma GCC visibility pop
