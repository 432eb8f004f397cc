//===- BlockShape.cpp - controls, targets and cosets of a block -----------===//
//
// What a recorded block is, from its Ops only: the controls C common to it
// (also those only one Op carries, when the rest cancels where the control
// is 0), the targets T, the invariant cosets of U, and which of them the
// state has amplitude on; the block in local indices and its cache key.
//
//===----------------------------------------------------------------------===//
#include "BlockEngine.h"

#include <cstring>

using namespace q2::runtime;
using namespace q2::runtime::blocks;

namespace q2::runtime::blocks {
void addFlips(const Op *ops, size_t len, Cosets &c) {
  for (size_t i = 0; i < len && c.d < c.m; ++i) {
    const Op &op = ops[i];
    switch (op.kind) {
    case kOp2x2: {
      bool diagonal = op.m[1].re == 0 && op.m[1].im == 0 && op.m[2].re == 0 &&
                      op.m[2].im == 0;
      if (!diagonal)
        c.add(op.a);
      break;
    }
    case kOpSwap:
    case kOpPairs:
      c.add(op.a);
      break;
    case kOpNest:
      addFlips(ops + i + 1, size_t(op.len), c);
      i += size_t(op.len);
      break;
    default: // kOpScale, kOpDiag: phases
      break;
    }
  }
}
} // namespace q2::runtime::blocks

namespace {

/// Whether y undoes x (same kernel on the same amplitudes, inverse numbers).
bool undoes(const Op &x, const Op &y) {
  if (x.kind != y.kind || x.kind == kOpNest || x.setMask != y.setMask ||
      x.setValue != y.setValue || x.a != y.a || x.b != y.b)
    return false;
  auto near = [](double p, double q) { return std::abs(p - q) <= 1e-13; };
  auto conjEq = [&](const Cplx &p, const Cplx &q) { // p == conj(q)
    return near(p.re, q.re) && near(p.im, -q.im);
  };
  switch (x.kind) {
  case kOp2x2: // y = x^dagger
    return conjEq(y.m[0], x.m[0]) && conjEq(y.m[1], x.m[2]) &&
           conjEq(y.m[2], x.m[1]) && conjEq(y.m[3], x.m[3]);
  case kOpScale: { // y * x = 1
    double re = x.m[0].re * y.m[0].re - x.m[0].im * y.m[0].im;
    double im = x.m[0].re * y.m[0].im + x.m[0].im * y.m[0].re;
    return near(re, 1) && near(im, 0);
  }
  case kOpSwap:
    return true;
  case kOpPairs: // the rotation by -theta: same cosine, opposite sine
    return near(x.m[0].re, y.m[0].re) && near(x.m[0].im, y.m[0].im) &&
           near(x.m[1].re, -y.m[1].re) && near(x.m[1].im, -y.m[1].im);
  case kOpDiag:
    return near(x.m[0].re, y.m[0].re) && near(x.m[0].im, -y.m[0].im);
  default:
    return false;
  }
}

/// A sufficient condition for x y = y x: disjoint qubits, or the same
/// one-qubit matrix on the same target under other controls (the CNOTs of a
/// ladder onto one qubit), or two diagonal Ops.
bool commutes(const Op &x, const Op &y) {
  if (!(x.touch & y.touch))
    return true;
  bool diagX = x.kind == kOpDiag || x.kind == kOpScale;
  bool diagY = y.kind == kOpDiag || y.kind == kOpScale;
  if (diagX && diagY)
    return true;
  if (x.kind == kOp2x2 && y.kind == kOp2x2 && x.a == y.a &&
      !(x.ctrl & x.a) && !(y.ctrl & y.a) && !(x.ctrl & y.a) &&
      !(y.ctrl & x.a))
    return std::memcmp(x.m, y.m, sizeof x.m) == 0;
  return false;
}

/// Whether qubit bit `c` is a control of the block as a whole: every Op
/// either acts only where c = 1 (c in its effective controls) or leaves c
/// alone, and the Ops of the second kind reduce to nothing (an Op cancels
/// the nearest earlier one it undoes when only Ops it commutes with lie
/// between them). Then the block is the identity where c = 0. This is what
/// a decomposed, controlled Pauli rotation looks like: basis change and
/// CNOT ladder (uncontrolled), a controlled RZ, the mirror ladder and the
/// basis change undone in the same order.
bool blockControlledBy(const Op *ops, size_t len, uint64_t c,
                       std::vector<const Op *> &stack) {
  constexpr size_t kMaxLookBack = 64;
  stack.clear();
  for (size_t i = 0; i < len; ++i) {
    const Op &op = ops[i];
    if (op.ones & c)
      continue;
    if (op.touch & c)
      return false;
    bool cancelled = false;
    for (size_t d = 0; d < stack.size() && d < kMaxLookBack; ++d) {
      size_t j = stack.size() - 1 - d;
      if (undoes(*stack[j], op)) {
        stack.erase(stack.begin() + std::ptrdiff_t(j));
        cancelled = true;
        break;
      }
      if (!commutes(*stack[j], op))
        break;
    }
    if (!cancelled)
      stack.push_back(&op);
  }
  return stack.empty();
}
} // namespace

namespace q2::runtime::blocks {

Cosets cosetsOf(const std::vector<Op> &local, int m) {
  Cosets c;
  c.m = m;
  addFlips(local.data(), local.size(), c);
  if (c.d == m)
    return Cosets::full(m);
  return c;
}

/// Applications of ops[0, len) per execution, nested counts expanded.
double applications(const Op *ops, size_t len) {
  double a = 0;
  for (size_t i = 0; i < len; ++i) {
    if (ops[i].kind == kOpNest) {
      a += double(ops[i].count) * applications(ops + i + 1, size_t(ops[i].len));
      i += size_t(ops[i].len);
    } else {
      a += 1;
    }
  }
  return a;
}

Shape shapeOf(const Op *ops, size_t len) {
  Shape s;
  uint64_t c = ~uint64_t(0), t = 0, anyOnes = 0;
  bool nested = false;
  for (size_t i = 0; i < len; ++i) {
    if (ops[i].kind == kOpNest) {
      nested = true;
      continue;
    }
    ++s.calls;
    s.any = true;
    c &= ops[i].ones;
    t |= ops[i].touch;
    anyOnes |= ops[i].ones;
  }
  s.C = s.any ? c : 0;
  // Controls of the block as a whole that not every Op carries (only the RZ
  // of a decomposed rotation is controlled): U is then built on fewer
  // qubits and applied controlled. Not looked for across nested blocks.
  if (s.any && !nested && len <= kMaxControlSearchOps) {
    std::vector<const Op *> stack;
    for (uint64_t cand = anyOnes & ~s.C; cand; cand &= cand - 1) {
      uint64_t bit = cand & (~cand + 1);
      if (blockControlledBy(ops, len, bit, stack))
        s.C |= bit;
    }
  }
  s.T = t & ~s.C;
  s.m = __builtin_popcountll(s.T);
  s.apps = applications(ops, len);
  return s;
}

void translateAll(const Op *ops, size_t len, uint64_t C, uint64_t T,
                  std::vector<Op> &out) {
  out.clear();
  out.reserve(len);
  for (size_t i = 0; i < len; ++i)
    out.push_back(translateOp(ops[i], C, T));
}

/// The cache key is the block in local indices only: U does not depend on
/// which qubits T the block acts on (a QPE block whose control wire moves
/// from one estimation wire to the next, as in decomposed Pauli rotations
/// where only the RZ is controlled, reuses U and its powers).
uint64_t hashOps(const std::vector<Op> &ops, uint64_t) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](uint64_t x) {
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0x100000001b3ull;
  };
  auto bits = [](double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
  };
  for (const Op &op : ops) {
    mix(uint64_t(op.kind) | uint64_t(op.gate) << 8 | uint64_t(op.adjoint) << 16);
    mix(op.ctrl);
    mix(op.ones);
    mix(op.touch);
    mix(op.setMask);
    mix(op.setValue);
    mix(op.a);
    mix(op.b);
    mix(bits(op.param));
    for (const Cplx &z : op.m) {
      mix(bits(z.re));
      mix(bits(z.im));
    }
    mix(uint64_t(op.count));
    mix(uint64_t(op.len));
  }
  return h;
}

/// The cosets of cs on which the C = 1 subspace of reg has a non-zero
/// amplitude (their representatives, into reps). False when there are more
/// than kMaxCosets of them (dense then works on the whole space).
bool liveCosets(Register *reg, const Shape &s, const Cosets &cs,
                std::vector<uint64_t> &reps) {
  int n = int(reg->numQubits), m = s.m;
  uint64_t dim = uint64_t(1) << m;
  std::vector<uint64_t> repOf(dim), off(dim);
  std::map<uint64_t, int> index;
  std::vector<int> idx(dim);
  for (uint64_t l = 0; l < dim; ++l) {
    off[l] = depositBits(l, s.T);
    uint64_t r = cs.rep(l);
    auto it = index.emplace(r, int(index.size())).first;
    idx[l] = it->second;
    repOf[l] = r;
  }
  size_t total = index.size();
  std::vector<char> live(total, 0);
  size_t found = 0;
  uint64_t O = lowBits(n) & ~(s.T | s.C);
  uint64_t K = uint64_t(1) << __builtin_popcountll(O);
  const cd *amp = reinterpret_cast<const cd *>(data(reg));
  reps.clear();
  for (uint64_t k = 0; k < K && found < total; ++k) {
    const cd *src = amp + (depositBits(k, O) | s.C);
    for (uint64_t l = 0; l < dim; ++l)
      if (src[off[l]] != cd(0, 0) && !live[size_t(idx[l])]) {
        live[size_t(idx[l])] = 1;
        reps.push_back(repOf[l]);
        if (++found == total)
          break;
      }
  }
  if (reps.empty())
    reps.push_back(0); // an all-zero subspace: one (cheap) coset
  std::sort(reps.begin(), reps.end());
  return reps.size() <= kMaxCosets;
}

} // namespace q2::runtime::blocks
