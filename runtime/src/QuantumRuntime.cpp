//===- QuantumRuntime.cpp - the C ABI of the simulator runtime -------------===//
//
// The q2_rt_* entry points of registers, gates, measurement and settings:
// operand validation, the error slot, the register-size limit, and decoding
// each call into an Op. Handles are in Handles.cpp, Ops in Ops.cpp, fusion
// in Fusion.cpp, the numerical work in the kernels (Kernels.h), blocks in
// Blocks.cpp.
// Nothing here may throw through the C ABI: every entry point catches and
// turns exceptions into the pending error.
//
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "RuntimeInternal.h"
#include "Subspace.h"
#include "q2/Runtime/Limits.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <random>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace {
/// Large states in 2 MiB pages (transparent huge pages, where the kernel
/// offers them on request): the first touch of a 1 GiB state is 512 page
/// faults instead of 262,144. On the 2-core VM each 4 KiB fault cost tens of
/// microseconds, and the first gates of a 12 + 14-qubit call spent ~10 s in
/// them (perf: exc_page_fault under swapFlip). Advice only: ignored when
/// unsupported.
void adviseHugePages(void *p, size_t bytes) {
  constexpr size_t kHuge = size_t(2) << 20;
  if (bytes < 8 * kHuge)
    return;
  uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (hi > lo)
    (void)madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_HUGEPAGE);
}
} // namespace

using namespace q2::runtime;

namespace {

//===-- error slot --------------------------------------------------------===//
thread_local std::string errorMessage;
thread_local bool errorIsPending = false;

void setInternalError(const char *fn, const char *what) {
  setError("%s: internal error: %s", fn, what);
}

#define Q2_TRY try {
#define Q2_CATCH(fn, ret)                                                      \
  }                                                                            \
  catch (const std::bad_alloc &) {                                             \
    setInternalError(fn, "out of memory");                                     \
    return ret;                                                                \
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
// The rule is q2/Runtime/Limits.h's (the hosts check it before loading).
constexpr int64_t kHardMaxQubits = limits::kHardMaxQubits;
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


//===-- operand checks ----------------------------------------------------===//
/// Checks a qubit list and folds it into `reg`, a bit mask and the indices
/// (idx may be null). Returns false (with the error set) on NULL or invalid
/// handles, mixed registers or repeated qubits.
bool collect(const char *fn, const char *what, Q2Qubit *const *qs, int64_t num,
             Register *&reg, uint64_t &seen, uint64_t &mask,
             int64_t *idx = nullptr) {
  mask = 0;
  if (num < 0) {
    setError("%s: negative number of %s (%lld)", fn, what, (long long)num);
    return false;
  }
  if (num > 0 && !qs) {
    setError("%s: %lld %s but the array is NULL", fn, (long long)num, what);
    return false;
  }
  if (num > 64) {
    setError("%s: %lld %s, more than any register has qubits", fn,
             (long long)num, what);
    return false;
  }
  for (int64_t i = 0; i < num; ++i) {
    Q2Qubit *q = qs[i];
    if (!q) {
      setError("%s: %s[%lld] is a NULL qubit", fn, what, (long long)i);
      return false;
    }
    HandleStatus st;
    int64_t index = 0;
    Register *r = lookupQubit(q, &index, &st);
    if (!r) {
      setError("%s: %s[%lld] is not a valid qubit handle (%s)", fn, what,
               (long long)i, handleStatusText(st));
      return false;
    }
    if (!reg)
      reg = r;
    else if (r != reg) {
      setError("%s: %s[%lld] (qubit %lld) belongs to another register", fn,
               what, (long long)i, (long long)index);
      return false;
    }
    uint64_t bit = uint64_t(1) << index;
    if (seen & bit) {
      setError("%s: qubit %lld is used twice in one operation", fn,
               (long long)index);
      return false;
    }
    seen |= bit;
    mask |= bit;
    if (idx)
      idx[i] = index;
  }
  return true;
}

/// The register behind a handle, or NULL with an error naming fn.
Register *checkRegister(const char *fn, const Q2Register *h) {
  HandleStatus st;
  Register *r = lookupRegister(h, &st);
  if (!r)
    setError("%s: %s", fn,
             st == HandleStatus::Null
                 ? "NULL register"
                 : (std::string("invalid register handle (") +
                    handleStatusText(st) + ")")
                       .c_str());
  return r;
}

int nq(const Register *r) { return int(r->numQubits); }

const char *gateName(int32_t g) {
  static const char *names[] = {"IDENTITY", "H",  "X",  "Y",          "Z",
                                "S",        "T",  "RX", "RY",         "RZ",
                                "PHASESHIFT", "CNOT", "CZ", "SWAP"};
  return g >= 0 && g <= 13 ? names[g] : "?";
}
} // namespace

//===-- shared helpers ----------------------------------------------------===//
bool q2::runtime::errorPending() { return errorIsPending; }

void q2::runtime::setError(const char *fmt, ...) {
  if (errorIsPending) // keep the first error: later ones are consequences
    return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  errorMessage = buf;
  errorIsPending = true;
}
int64_t q2::runtime::defaultMaxQubits() { return limits::defaultMaxQubits(); }

int64_t q2::runtime::effectiveMaxQubits() {
  int64_t m = maxQubits.load();
  return m > 0 ? m : defaultMaxQubits();
}

bool q2::runtime::allocateState(Register *reg, const char *fn) {
  int64_t n = reg->numQubits;
  try {
    reg->amps.resize(Eigen::Index(1) << n);
    adviseHugePages(reg->amps.data(), size_t(reg->amps.size()) * 16);
    reg->amps.setZero();
  } catch (const std::bad_alloc &) {
    Eigen::VectorXcd().swap(reg->amps);
    setError("%s: %lld qubits need %s bytes: allocation failed", fn,
             (long long)n, bytesFor(n).c_str());
    return false;
  }
  reg->amps[0] = 1.0;
  return true;
}

namespace {
/// The marginal probabilities of qubits idx[0, num) (first = MSB) of a
/// state vector into out.
void stateProbs(Register *reg, const int64_t *idx, int64_t num, double *out) {
  flushFusion(reg);
  // Outcome index of amplitude y, by bytes: first listed qubit = MSB.
  int n = nq(reg), numBytes = (n + 7) / 8;
  uint64_t tab[8][256] = {};
  for (int64_t i = 0; i < num; ++i) {
    int q = int(idx[i]);
    uint64_t outBit = uint64_t(1) << (num - 1 - i);
    for (int b = 0; b < 256; ++b)
      if ((b >> (q % 8)) & 1)
        tab[q / 8][b] |= outBit;
  }
  uint64_t numOut = uint64_t(1) << num;
  std::fill(out, out + numOut, 0.0);
  const double *v = data(reg);
  uint64_t amps = uint64_t(1) << n;
  for (uint64_t y = 0; y < amps; ++y) {
    uint64_t o = 0;
    for (int c = 0; c < numBytes; ++c)
      o |= tab[c][(y >> (8 * c)) & 255];
    out[o] += v[2 * y] * v[2 * y] + v[2 * y + 1] * v[2 * y + 1];
  }
}
} // namespace

double q2::runtime::physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0)
    return 0;
  return double(pages) * double(page);
}

// Only the C ABI is exported from libq2_runtime.so.
#pragma GCC visibility push(default)
extern "C" {

Q2Register *q2_rt_alloc(int64_t num_qubits) {
  if (errorIsPending)
    return nullptr;
  Q2_TRY
  if (recording()) {
    setError("q2_rt_alloc: not allowed while a block is being recorded "
             "(between q2_rt_block_begin and q2_rt_block_end)");
    return nullptr;
  }
  int64_t limit = effectiveMaxQubits();
  bool explicitLimit = maxQubits.load() > 0;
  if (num_qubits <= 0) {
    setError("q2_rt_alloc: a register needs at least 1 qubit (got %lld)",
             (long long)num_qubits);
    return nullptr;
  }
  // A deferred register holds no amplitudes (Subspace.h): only the hard
  // limit applies until its state is needed.
  bool deferred = subspace::defers(num_qubits) && num_qubits <= kHardMaxQubits;
  if (!deferred && (num_qubits > limit || num_qubits > kHardMaxQubits)) {
    int64_t shown = std::min(limit, kHardMaxQubits);
    setError("q2_rt_alloc: %lld qubits need %s bytes (2^%lld amplitudes x 16 "
             "bytes); the limit is %lld qubits (%s bytes, %s)",
             (long long)num_qubits, bytesFor(num_qubits).c_str(),
             (long long)num_qubits, (long long)shown, bytesFor(shown).c_str(),
             explicitLimit ? "set by q2_rt_set_max_qubits"
                           : "80% of physical memory");
    return nullptr;
  }
  auto reg = std::unique_ptr<Register>(new (std::nothrow) Register);
  if (!reg) {
    setError("q2_rt_alloc: out of memory for the register header");
    return nullptr;
  }
  reg->numQubits = num_qubits;
  reg->fusion.ops.reserve(Fusion::kMaxOps);
  if (deferred) {
    reg->deferred = true;
    reg->tape.reset(new subspace::Tape);
  } else if (!allocateState(reg.get(), "q2_rt_alloc")) {
    return nullptr;
  }
  if (!registerRegister(reg.get())) {
    setError("q2_rt_alloc: too many live registers (%u)", 1u << kHandleSlotBits);
    return nullptr;
  }
  return reinterpret_cast<Q2Register *>(uintptr_t(reg.release()->handle));
  Q2_CATCH("q2_rt_alloc", nullptr)
}

void q2_rt_dealloc(Q2Register *h) {
  // Works while an error is pending (no leak); NULL is ignored.
  if (!h)
    return;
  HandleStatus st;
  Register *reg = lookupRegister(h, &st);
  if (!reg) {
    setError("q2_rt_dealloc: invalid register handle (%s)",
             handleStatusText(st));
    return;
  }
  if (recording()) {
    setError("q2_rt_dealloc: not allowed while a block is being recorded "
             "(between q2_rt_block_begin and q2_rt_block_end); the recording "
             "is dropped and the register freed");
    resetRecording();
  }
  unregisterRegister(reg);
  delete reg;
}

Q2Qubit *q2_rt_qubit(Q2Register *h, int64_t index) {
  if (errorIsPending)
    return nullptr;
  Register *reg = checkRegister("q2_rt_qubit", h);
  if (!reg)
    return nullptr;
  if (index < 0 || index >= reg->numQubits) {
    setError("q2_rt_qubit: qubit index %lld out of range [0, %lld)",
             (long long)index, (long long)reg->numQubits);
    return nullptr;
  }
  return reinterpret_cast<Q2Qubit *>(
      uintptr_t(reg->handle | 2 | (uint64_t(index) << 2)));
}

void q2_rt_gate(int32_t gate, double param, Q2Qubit *const *targets,
                int64_t num_targets, Q2Qubit *const *ctrls, int64_t num_ctrls,
                int32_t adjoint) {
  if (errorIsPending)
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
  Register *reg = nullptr;
  uint64_t seen = 0, tm = 0, cm = 0;
  int64_t ti[2] = {0, 0};
  if (!collect("q2_rt_gate", "targets", targets, num_targets, reg, seen, tm,
               ti) ||
      !collect("q2_rt_gate", "ctrls", ctrls, num_ctrls, reg, seen, cm))
    return;
  uint64_t t0 = uint64_t(1) << ti[0];
  uint64_t t1 = want == 2 ? uint64_t(1) << ti[1] : 0;
  double sign = adjoint ? -1.0 : 1.0; // adjoint of a rotation: -theta
  const double r = M_SQRT1_2;
  Op op;
  op.gate = uint8_t(gate);
  op.adjoint = adjoint ? 1 : 0;
  op.param = param;
  op.ctrl = cm;
  op.touch = cm | tm;
  auto twoByTwo = [&](Cplx a, Cplx b, Cplx c, Cplx d) {
    op.kind = kOp2x2;
    op.setMask = cm | t0;
    op.setValue = cm;
    op.a = t0;
    op.m[0] = a;
    op.m[1] = b;
    op.m[2] = c;
    op.m[3] = d;
  };
  auto phaseOnOne = [&](uint64_t c, uint64_t t, Cplx z) {
    op.kind = kOpScale;
    op.setMask = op.setValue = c | t;
    op.m[0] = z;
  };
  auto swapFlip = [&](uint64_t mask, uint64_t value, uint64_t flip) {
    op.kind = kOpSwap;
    op.setMask = mask;
    op.setValue = value;
    op.a = flip;
  };
  switch (gate) {
  case Q2_GATE_IDENTITY:
    ++reg->gateCount;
    return;
  case Q2_GATE_H:
    twoByTwo({r, 0}, {r, 0}, {r, 0}, {-r, 0});
    break;
  case Q2_GATE_X:
    swapFlip(cm | t0, cm, t0);
    break;
  case Q2_GATE_Y:
    twoByTwo({0, 0}, {0, -1}, {0, 1}, {0, 0});
    break;
  case Q2_GATE_Z:
    phaseOnOne(cm, t0, {-1, 0});
    break;
  case Q2_GATE_S:
    phaseOnOne(cm, t0, {0, sign});
    break;
  case Q2_GATE_T:
    phaseOnOne(cm, t0, {r, sign * r});
    break;
  case Q2_GATE_RX: {
    double c = std::cos(param / 2), s = sign * std::sin(param / 2);
    twoByTwo({c, 0}, {0, -s}, {0, -s}, {c, 0});
    break;
  }
  case Q2_GATE_RY: {
    double c = std::cos(param / 2), s = sign * std::sin(param / 2);
    twoByTwo({c, 0}, {-s, 0}, {s, 0}, {c, 0});
    break;
  }
  case Q2_GATE_RZ:
    // exp(-i theta/2 Z) is a Z-only Pauli rotation: one diagonal pass.
    op.kind = kOpDiag;
    op.setMask = op.setValue = cm;
    op.b = t0;
    op.m[0] = {std::cos(param / 2), sign * std::sin(param / 2)};
    break;
  case Q2_GATE_PHASESHIFT:
    phaseOnOne(cm, t0, {std::cos(param), sign * std::sin(param)});
    break;
  case Q2_GATE_CNOT:
    swapFlip(cm | t0 | t1, cm | t0, t1);
    break;
  case Q2_GATE_CZ:
    phaseOnOne(cm | t0, t1, {-1, 0});
    break;
  case Q2_GATE_SWAP:
    swapFlip(cm | t0 | t1, cm | t0, t0 | t1);
    break;
  }
  setEffectiveControls(op);
  if (!recordOp("q2_rt_gate", reg, op))
    applyCall(reg, op);
  if (!errorIsPending) // a call the recording refused is not counted
    ++reg->gateCount;
  Q2_CATCH("q2_rt_gate", )
}

void q2_rt_pauli_rot(double theta, const char *pauli, Q2Qubit *const *targets,
                     int64_t num_targets, Q2Qubit *const *ctrls,
                     int64_t num_ctrls) {
  if (errorIsPending)
    return;
  Q2_TRY
  if (num_targets > 0 && !pauli) {
    setError("q2_rt_pauli_rot: NULL Pauli word for %lld targets",
             (long long)num_targets);
    return;
  }
  Register *reg = nullptr;
  uint64_t seen = 0, tm = 0, cm = 0;
  int64_t ti[64];
  if (!collect("q2_rt_pauli_rot", "targets", targets, num_targets, reg, seen,
               tm, ti) ||
      !collect("q2_rt_pauli_rot", "ctrls", ctrls, num_ctrls, reg, seen, cm))
    return;
  uint64_t xm = 0, zm = 0;
  int ny = 0;
  for (int64_t i = 0; i < num_targets; ++i) {
    uint64_t bit = uint64_t(1) << ti[i];
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
  Op op = rotationOp(xm, zm, ny, cm, std::cos(theta / 2), std::sin(theta / 2));
  op.param = theta;
  setEffectiveControls(op);
  if (!recordOp("q2_rt_pauli_rot", reg, op))
    applyCall(reg, op);
  if (!errorIsPending)
    ++reg->gateCount;
  Q2_CATCH("q2_rt_pauli_rot", )
}

int32_t q2_rt_measure(Q2Qubit *qubit) {
  if (errorIsPending)
    return -1;
  Q2_TRY
  if (recording()) {
    setError("q2_rt_measure: not allowed while a block is being recorded "
             "(between q2_rt_block_begin and q2_rt_block_end)");
    return -1;
  }
  Register *reg = nullptr;
  uint64_t seen = 0, tm = 0;
  Q2Qubit *const qs[1] = {qubit};
  if (!collect("q2_rt_measure", "qubit", qs, 1, reg, seen, tm))
    return -1;
  if (!subspace::materialize(reg, "q2_rt_measure",
                             "q2_rt_measure needs the state vector"))
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
  if (errorIsPending)
    return;
  Q2_TRY
  if (recording()) {
    setError("q2_rt_probs: not allowed while a block is being recorded "
             "(between q2_rt_block_begin and q2_rt_block_end)");
    return;
  }
  if (num < 0 || num > 59) {
    setError("q2_rt_probs: %lld qubits requested; the output count 2^num "
             "needs 0 <= num <= 59 (and at most the register's qubits)",
             (long long)num);
    return;
  }
  Register *reg = nullptr;
  uint64_t seen = 0, mask = 0;
  int64_t idx[64];
  if (!collect("q2_rt_probs", "qubits", qubits, num, reg, seen, mask, idx))
    return;
  if (!out) {
    setError("q2_rt_probs: NULL output buffer");
    return;
  }
  if (!reg) { // no qubits: the empty marginal is the total probability 1
    out[0] = 1.0;
    return;
  }
  if (reg->deferred) {
    subspace::probs(reg, idx, num, out);
    if (!reg->deferred && !errorPending()) // materialised: read the state
      stateProbs(reg, idx, num, out);
    return;
  }
  stateProbs(reg, idx, num, out);
  Q2_CATCH("q2_rt_probs", )
}

void q2_rt_param_out_of_range(int64_t index, int64_t num_params) {
  setError("quantum.gate_table: parameter index %lld is out of range for "
           "%lld parameter(s)",
           (long long)index, (long long)num_params);
}

const char *q2_rt_last_error(void) {
  return errorIsPending ? errorMessage.c_str() : nullptr;
}

void q2_rt_clear_error(void) {
  errorIsPending = false;
  errorMessage.clear();
  resetRecording(); // a recording cut short by the error is dropped
}

int64_t q2_rt_set_max_qubits(int64_t max_qubits) {
  int64_t prev = maxQubits.exchange(max_qubits > 0 ? max_qubits : 0);
  return prev > 0 ? prev : defaultMaxQubits();
}

int32_t q2_rt_set_num_threads(int32_t num_threads) {
  return setNumThreads(num_threads);
}

int32_t q2_rt_get_num_threads(void) { return getNumThreads(); }

void q2_rt_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(rngMutex);
  rng.seed(seed);
}

int64_t q2_rt_num_qubits(const Q2Register *h) {
  if (!h)
    return 0;
  Register *reg = checkRegister("q2_rt_num_qubits", h);
  return reg ? reg->numQubits : 0;
}

double *q2_rt_state_data(Q2Register *h) {
  if (!h)
    return nullptr;
  Register *reg = checkRegister("q2_rt_state_data", h);
  if (!reg)
    return nullptr;
  try {
    if (!subspace::materialize(reg, "q2_rt_state_data",
                               "q2_rt_state_data needs the state vector"))
      return nullptr;
    flushFusion(reg); // the amplitudes must be current when looked at
  } catch (...) {
    setInternalError("q2_rt_state_data", "flushing fused rotations failed");
  }
  return data(reg);
}

int64_t q2_rt_gate_count(const Q2Register *h) {
  if (!h)
    return 0;
  Register *reg = checkRegister("q2_rt_gate_count", h);
  return reg ? reg->gateCount : 0;
}

} // extern "C"
#pragma GCC visibility pop
