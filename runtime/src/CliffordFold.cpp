//===- CliffordFold.cpp - Pauli-frame folding of recorded blocks ----------===//
//
// A decomposed Pauli rotation is B† L† RZ L B: Clifford gates (basis change
// B, CNOT ladder L) around one controlled RZ. Replayed as recorded it costs
// 2w+1 kernel passes for a weight-w word; the same block with the Cliffords
// pushed through is one Pauli rotation. This file does that push for a
// whole recorded block:
//
//   R F = F (F† R F),  F† exp(-ia P) F = exp(-ia F† P F)
//
// Walking the Ops in order, the uncontrolled Cliffords so far (the frame F)
// are kept as a tableau, P -> F† P F on the qubits F touches, and every
// Pauli rotation (RX/RY/RZ, q2_rt_pauli_rot, controls outside F) becomes the
// rotation of its conjugated word. At the end, or before an Op that cannot
// pass through F, the frame's own gates follow the rotations: they are
// dropped when F is the identity (checked on the tableau, its global phase
// by applying the gates to |0>), which is what every decomposed QPE step
// gives. The result is exact up to rounding (tests compare with dense
// matrices of the recorded gates).
//
//===----------------------------------------------------------------------===//
#include "RuntimeInternal.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

using namespace q2::runtime;

namespace {
bool initialFolding() {
  const char *env = std::getenv("Q2_RT_CLIFFORD_FOLD");
  return !(env && env[0] == '0');
}
std::atomic<bool> foldingOn{initialFolding()};

// The global phase of an identity frame is measured on a 2^s vector; larger
// frames keep their gates (correct, just not folded).
constexpr int kMaxPhaseQubits = 20;

/// i^r X^x Z^z over qubit bits.
struct Pauli {
  uint64_t x = 0, z = 0;
  unsigned r = 0;
};
Pauli mul(const Pauli &a, const Pauli &b) {
  // Z^za X^xb = (-1)^|za & xb| X^xb Z^za
  return {a.x ^ b.x, a.z ^ b.z,
          (a.r + b.r + 2u * unsigned(__builtin_popcountll(a.z & b.x))) & 3u};
}
Pauli px(uint64_t q, unsigned r = 0) { return {q, 0, r}; }
Pauli pz(uint64_t q, unsigned r = 0) { return {0, q, r}; }
Pauli py(uint64_t q, bool minus = false) { return {q, q, minus ? 3u : 1u}; }

/// What an uncontrolled Clifford Op is, and on which qubits.
enum CliffordKind { kNone, kH, kX, kY, kZ, kS, kSdg, kRXp, kRXm, kRYp, kRYm,
                    kCNOT, kCZ, kSWAP };
struct Clifford {
  CliffordKind kind = kNone;
  uint64_t q0 = 0, q1 = 0; // target / control, target (two-qubit)
};

Clifford classify(const Op &op) {
  Clifford c;
  int nc = __builtin_popcountll(op.ctrl);
  uint64_t t = op.touch & ~op.ctrl;
  double th = op.adjoint ? -op.param : op.param;
  auto angle = [&](CliffordKind plus, CliffordKind minus, CliffordKind pi) {
    if (th == M_PI_2)
      c.kind = plus;
    else if (th == -M_PI_2)
      c.kind = minus;
    else if (th == M_PI || th == -M_PI)
      c.kind = pi;
  };
  if (op.kind == kOpNest)
    return c;
  c.q0 = t;
  switch (op.gate) {
  case Q2_GATE_H: if (nc == 0) c.kind = kH; break;
  case Q2_GATE_Y: if (nc == 0) c.kind = kY; break;
  case Q2_GATE_S: if (nc == 0) c.kind = op.adjoint ? kSdg : kS; break;
  case Q2_GATE_RX: if (nc == 0) angle(kRXp, kRXm, kX); break;
  case Q2_GATE_RY: if (nc == 0) angle(kRYp, kRYm, kY); break;
  case Q2_GATE_X:
    if (nc == 0) {
      c.kind = kX;
    } else if (nc == 1) { // a CNOT written as a controlled X
      c.kind = kCNOT;
      c.q0 = op.ctrl;
      c.q1 = t;
    }
    break;
  case Q2_GATE_Z:
    if (nc <= 1) {
      c.kind = nc ? kCZ : kZ;
      c.q0 = nc ? op.ctrl : t;
      c.q1 = nc ? t : 0;
    }
    break;
  case Q2_GATE_CNOT:
    if (nc == 0) {
      c.kind = kCNOT;
      c.q0 = op.setValue; // the gate's first target is the control
      c.q1 = op.a;
    }
    break;
  case Q2_GATE_CZ:
  case Q2_GATE_SWAP:
    if (nc == 0) {
      c.kind = op.gate == Q2_GATE_CZ ? kCZ : kSWAP;
      c.q0 = t & (~t + 1);
      c.q1 = t & ~c.q0;
    }
    break;
  default:
    break;
  }
  if (c.kind != kNone && (__builtin_popcountll(c.q0) != 1 ||
                          __builtin_popcountll(c.q1) > 1))
    c.kind = kNone; // not the shape the rules below assume
  return c;
}

/// A Pauli rotation exp(-i a P) (cos a = c, sin a = s) under controls.
struct Rotation {
  Pauli p;
  uint64_t ctrl = 0;
  double c = 1, s = 0;
};
bool asRotation(const Op &op, Rotation &r) {
  // q2_rt_pauli_rot records adjoint 0, so th is its theta too.
  double th = op.adjoint ? -op.param : op.param;
  uint64_t t = op.touch & ~op.ctrl;
  r.ctrl = op.ctrl;
  r.c = std::cos(th / 2);
  r.s = std::sin(th / 2);
  switch (op.gate) {
  case kGatePauli:
    if (op.kind == kOpPairs)
      r.p = {op.a, op.b, unsigned(__builtin_popcountll(op.a & op.b)) & 3u};
    else if (op.kind == kOpDiag)
      r.p = pz(op.b);
    else
      return false; // identity word: a phase on the controls
    return true;
  case Q2_GATE_RX: r.p = px(t); return true;
  case Q2_GATE_RY: r.p = py(t); return true;
  case Q2_GATE_RZ: r.p = pz(t); return true;
  default:
    return false;
  }
}

/// P -> F† P F for the uncontrolled Cliffords F applied so far.
struct Frame {
  uint64_t support = 0;
  Pauli imgX[64], imgZ[64];

  Pauli image(const Pauli &p) const {
    Pauli out{0, 0, p.r};
    for (uint64_t b = p.x; b; b &= b - 1) {
      int i = __builtin_ctzll(b);
      out = mul(out, (support >> i) & 1 ? imgX[i] : px(uint64_t(1) << i));
    }
    for (uint64_t b = p.z; b; b &= b - 1) {
      int i = __builtin_ctzll(b);
      out = mul(out, (support >> i) & 1 ? imgZ[i] : pz(uint64_t(1) << i));
    }
    return out;
  }
  bool identity() const {
    for (uint64_t b = support; b; b &= b - 1) {
      int i = __builtin_ctzll(b);
      uint64_t q = uint64_t(1) << i;
      if (imgX[i].x != q || imgX[i].z || imgX[i].r || imgZ[i].x ||
          imgZ[i].z != q || imgZ[i].r)
        return false;
    }
    return true;
  }
  /// F <- G F: the new image of P is the old image of G† P G.
  void apply(const Clifford &g) {
    uint64_t a = g.q0, b = g.q1;
    for (uint64_t q = (a | b) & ~support; q; q &= q - 1) {
      int i = __builtin_ctzll(q);
      imgX[i] = px(uint64_t(1) << i);
      imgZ[i] = pz(uint64_t(1) << i);
    }
    support |= a | b;
    Pauli xa, za, xb, zb; // G† X_a G, G† Z_a G (and for b)
    switch (g.kind) {
    case kH: xa = pz(a); za = px(a); break;
    case kX: xa = px(a); za = pz(a, 2); break;
    case kY: xa = px(a, 2); za = pz(a, 2); break;
    case kZ: xa = px(a, 2); za = pz(a); break;
    case kS: xa = py(a, true); za = pz(a); break;
    case kSdg: xa = py(a); za = pz(a); break;
    case kRXp: xa = px(a); za = py(a); break;
    case kRXm: xa = px(a); za = py(a, true); break;
    case kRYp: xa = pz(a); za = px(a, 2); break;
    case kRYm: xa = pz(a, 2); za = px(a); break;
    case kCNOT: // control a, target b
      xa = px(a | b); za = pz(a); xb = px(b); zb = pz(a | b); break;
    case kCZ:
      xa = {a, b, 0}; za = pz(a); xb = {b, a, 0}; zb = pz(b); break;
    case kSWAP: xa = px(b); za = pz(b); xb = px(a); zb = pz(a); break;
    case kNone: return;
    }
    int ia = __builtin_ctzll(a);
    Pauli nxa = image(xa), nza = image(za);
    if (b) {
      int ib = __builtin_ctzll(b);
      Pauli nxb = image(xb), nzb = image(zb);
      imgX[ib] = nxb;
      imgZ[ib] = nzb;
    }
    imgX[ia] = nxa;
    imgZ[ia] = nza;
  }
};

/// The frame's gates on |0..0>, as a sparse vector (a decomposed rotation
/// spreads it over 2^(X and Y factors) states at most, then undoes that);
/// false when it grows past maxSparse states.
std::atomic<size_t> maxSparse{4096};
bool sparseOnZero(const Op *ops, const std::vector<size_t> &idx, Cplx &amp0) {
  std::unordered_map<uint64_t, Cplx> v{{0, Cplx{1, 0}}}, next;
  auto mulc = [](Cplx x, Cplx y) {
    return Cplx{x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
  };
  auto add = [&](uint64_t y, Cplx a) {
    Cplx &t = next[y];
    t.re += a.re;
    t.im += a.im;
  };
  for (size_t i : idx) {
    const Op &op = ops[i];
    next.clear();
    for (const auto &[y, a] : v) {
      bool in = (y & op.setMask) == op.setValue;
      switch (op.kind) {
      case kOpScale:
        add(y, in ? mulc(a, op.m[0]) : a);
        break;
      case kOpSwap: // pairs y, y ^ flip: one of them is in the set
        add(in || ((y ^ op.a) & op.setMask) == op.setValue ? y ^ op.a : y, a);
        break;
      case kOp2x2: {
        uint64_t y0 = y & ~op.a;
        if ((y0 & op.setMask) != op.setValue) {
          add(y, a);
          break;
        }
        bool one = y & op.a; // column 'one' of the 2x2 matrix
        add(y0, mulc(op.m[one ? 1 : 0], a));
        add(y0 | op.a, mulc(op.m[one ? 3 : 2], a));
        break;
      }
      default:
        return false;
      }
    }
    v.clear();
    for (const auto &[y, a] : next)
      if (a.re * a.re + a.im * a.im > 1e-24)
        v.emplace(y, a);
    if (v.size() > maxSparse.load(std::memory_order_relaxed))
      return false;
  }
  auto it = v.find(0);
  amp0 = it == v.end() ? Cplx{0, 0} : it->second;
  return true;
}

/// The global phase of the frame's gates when they multiply to a multiple
/// of the identity: their action on |0..0> (sparse, else dense on the
/// qubits they touch). The gates the fold knows generate phases that are
/// 8th roots of unity; the measured value (rounding of thousands of gates)
/// is snapped to the root. Returns the root's index k (phase e^{i pi k/4}),
/// or -1.
int framePhase(const Op *ops, const std::vector<size_t> &idx,
               uint64_t support) {
  Cplx a0;
  if (!sparseOnZero(ops, idx, a0)) {
    int s = __builtin_popcountll(support);
    if (s > kMaxPhaseQubits)
      return -1;
    std::vector<double> v(size_t(2) << s, 0.0);
    v[0] = 1.0;
    for (size_t i : idx)
      applyOp(v.data(), s, translateOp(ops[i], 0, support));
    a0 = {v[0], v[1]};
  }
  for (int k = 0; k < 8; ++k)
    if (std::hypot(a0.re - std::cos(M_PI / 4 * k),
                   a0.im - std::sin(M_PI / 4 * k)) < 1e-6)
      return k;
  return -1;
}
} // namespace

bool q2::runtime::foldCliffords(const Op *ops, size_t len,
                                std::vector<Op> &out) {
  if (!foldingOn.load(std::memory_order_relaxed))
    return false;
  out.clear();
  Frame frame;
  std::vector<size_t> gates; // the frame's Ops, in order
  size_t folded = 0;
  auto flush = [&] {
    if (gates.empty())
      return;
    int k = frame.identity() ? framePhase(ops, gates, frame.support) : -1;
    if (k >= 0) {
      if (k != 0) {
        Op g; // a global phase: scale with an empty index set
        g.kind = kOpScale;
        const double r = M_SQRT1_2;
        const Cplx roots[8] = {{1, 0},  {r, r},   {0, 1},  {-r, r},
                               {-1, 0}, {-r, -r}, {0, -1}, {r, -r}};
        g.m[0] = roots[k];
        out.push_back(g);
      }
      folded += gates.size();
    } else {
      for (size_t i : gates)
        out.push_back(ops[i]);
    }
    gates.clear();
    frame.support = 0;
  };
  for (size_t i = 0; i < len; ++i) {
    const Op &op = ops[i];
    if (op.kind == kOpNest) { // nested blocks are not looked into
      flush();
      out.insert(out.end(), ops + i, ops + i + 1 + size_t(op.len));
      i += size_t(op.len);
      continue;
    }
    Clifford g = classify(op);
    if (g.kind != kNone) {
      frame.apply(g);
      gates.push_back(i);
      continue;
    }
    if (!(op.touch & frame.support)) { // commutes with the frame
      out.push_back(op);
      continue;
    }
    Rotation r;
    if (!(op.ctrl & frame.support) && asRotation(op, r)) {
      Pauli q = frame.image(r.p);
      int ny = __builtin_popcountll(q.x & q.z);
      // q = i^q.r X^x Z^z = +-(i^ny X^x Z^z): the sign flips the angle.
      double sign = ((q.r - unsigned(ny)) & 3u) == 2 ? -1.0 : 1.0;
      Op rot = rotationOp(q.x, q.z, ny, r.ctrl, r.c, sign * r.s);
      rot.param = op.param; // hash only
      rot.adjoint = op.adjoint;
      setEffectiveControls(rot);
      out.push_back(rot);
      continue;
    }
    flush(); // op does not pass through the frame
    out.push_back(op);
  }
  flush();
  return folded > 0;
}

bool q2::runtime::setCliffordFolding(bool on) { return foldingOn.exchange(on); }
size_t q2::runtime::setCliffordFoldSparseLimit(size_t states) {
  return maxSparse.exchange(states);
}
