//===- Ops.cpp - decoded gate calls (Op) ----------------------------------===//
//
// A gate or rotation call decoded into the kernel call that applies it:
// building, comparing, applying and replaying Ops, and moving them into a
// block's local qubit numbering.
//
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "RuntimeInternal.h"

#include <cstring>

using namespace q2::runtime;

namespace {
/// Gathers the bits of x under mask into the low bits (software pext).
uint64_t extractBits(uint64_t x, uint64_t mask) {
  uint64_t r = 0;
  int b = 0;
  for (uint64_t m = mask; m; m &= m - 1, ++b)
    if (x & m & (~m + 1))
      r |= uint64_t(1) << b;
  return r;
}
} // namespace

void q2::runtime::setEffectiveControls(Op &op) {
  // Index-set bits fixed to 1; a swap's flipped bits take both values.
  op.ones = op.setMask & op.setValue & ~(op.kind == kOpSwap ? op.a : 0);
}

Op q2::runtime::rotationOp(uint64_t xm, uint64_t zm, int ny, uint64_t cm,
                           double c, double s) {
  Op op;
  op.gate = kGatePauli;
  op.ctrl = cm;
  op.touch = xm | zm | cm;
  if (xm == 0 && zm == 0) {
    // Identity word: a phase, global only without controls.
    op.kind = kOpScale;
    op.setMask = op.setValue = cm;
    op.m[0] = {c, -s};
  } else if (xm == 0) {
    op.kind = kOpDiag;
    op.setMask = op.setValue = cm;
    op.b = zm;
    op.m[0] = {c, s};
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
    op.kind = kOpPairs;
    op.setMask = cm | pivot;
    op.setValue = cm;
    op.a = xm;
    op.b = zm;
    op.m[0] = {c, (ny & 1) ? -1.0 : 1.0};
    op.m[1] = kk;
  }
  return op;
}

bool q2::runtime::sameOp(const Op &x, const Op &y) {
  auto bits = [](double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
  };
  if (x.kind != y.kind || x.gate != y.gate || x.adjoint != y.adjoint ||
      x.ctrl != y.ctrl || x.ones != y.ones || x.touch != y.touch || x.setMask != y.setMask ||
      x.setValue != y.setValue || x.a != y.a || x.b != y.b ||
      bits(x.param) != bits(y.param) || x.count != y.count || x.len != y.len)
    return false;
  for (int i = 0; i < 4; ++i)
    if (bits(x.m[i].re) != bits(y.m[i].re) || bits(x.m[i].im) != bits(y.m[i].im))
      return false;
  return true;
}

void q2::runtime::applyOp(double *v, int n, const Op &op) {
  const KernelTable &k = kernels();
  IndexSet set = makeIndexSet(op.setMask, op.setValue);
  switch (op.kind) {
  case kOp2x2:
    k.apply2x2(v, n, set, op.a, op.m);
    break;
  case kOpScale:
    k.scale(v, n, set, op.m[0]);
    break;
  case kOpSwap:
    k.swapFlip(v, n, set, op.a);
    break;
  case kOpPairs:
    k.pauliPairs(v, n, set, op.a, op.b, op.m[0].re, op.m[1], op.m[0].im);
    break;
  case kOpDiag:
    k.pauliDiag(v, n, set, op.b, op.m[0].re, op.m[0].im);
    break;
  default:
    break;
  }
}

void q2::runtime::replayOps(double *v, int n, const Op *ops, size_t len,
                            int64_t count) {
  for (int64_t r = 0; r < count; ++r)
    for (size_t i = 0; i < len; ++i) {
      const Op &op = ops[i];
      if (op.kind == kOpNest) {
        replayOps(v, n, ops + i + 1, size_t(op.len), op.count);
        i += size_t(op.len);
      } else {
        applyOp(v, n, op);
      }
    }
}

Op q2::runtime::translateOp(const Op &op, uint64_t common, uint64_t targets) {
  Op l = op;
  auto tr = [&](uint64_t x) { return extractBits(x & ~common, targets); };
  l.ctrl = tr(op.ctrl);
  l.ones = tr(op.ones);
  l.touch = tr(op.touch);
  l.setMask = tr(op.setMask);
  l.setValue = tr(op.setValue);
  if (op.kind != kOpNest) {
    l.a = tr(op.a);
    l.b = tr(op.b);
  }
  return l;
}

uint64_t q2::runtime::extractBitsOf(uint64_t x, uint64_t mask) {
  return extractBits(x, mask);
}
