//===- SubspaceAffine.cpp - the live affine subspace and its coordinates --===//
//
// A deferred register's states stay on offset + span(flips of its Ops);
// an Op is rewritten in the coordinates of that span (bit i of the compact
// index = the coefficient of basis vector i), so the ordinary kernels run
// on 2^dim amplitudes instead of 2^n: a Pauli word's X part becomes the
// coordinates of its flip, its Z part the parities of the basis vectors
// under it (with the offset's sign), a control on a pivot qubit a condition
// on that coordinate.
//
//===----------------------------------------------------------------------===//
#include "Subspace.h"

using namespace q2::runtime;
using namespace q2::runtime::subspace;

namespace {
inline uint64_t highestBit(uint64_t x) {
  return uint64_t(1) << (63 - __builtin_clzll(x));
}
inline bool parity(uint64_t x) { return __builtin_popcountll(x) & 1; }

/// Parities of the basis vectors under mask zm (the Z part of a word in
/// coordinates).
uint64_t parities(const Affine &a, uint64_t zm) {
  uint64_t r = 0;
  const std::vector<uint64_t> &b = a.basis();
  for (size_t i = 0; i < b.size(); ++i)
    if (parity(b[i] & zm))
      r |= uint64_t(1) << i;
  return r;
}

enum class Result { Ok, Drop, Fail };

Result translateOne(const Op &op, const Affine &a, Op &o) {
  // Conditions: each effective control bit must be one coordinate (its
  // pivot) or constant on the subspace.
  uint64_t condMask = 0, condValue = 0;
  for (uint64_t bits = op.ones; bits; bits &= bits - 1) {
    int q = __builtin_ctzll(bits);
    uint64_t r = a.row(q);
    bool aq = (a.offset >> q) & 1;
    if (r == 0) {
      if (!aq)
        return Result::Drop; // the control is 0 on every live state
      continue;
    }
    if (__builtin_popcountll(r) != 1)
      return Result::Fail;
    condMask |= r;
    if (!aq)
      condValue |= r; // bit q = aq ^ c_i must be 1
  }
  o = op;
  o.setMask = condMask;
  o.setValue = condValue;
  uint64_t touch = condMask;
  switch (op.kind) {
  case kOpScale:
    break;
  case kOpDiag: {
    uint64_t zm = parities(a, op.b);
    double s = parity(a.offset & op.b) ? -op.m[0].im : op.m[0].im;
    if (zm == 0) { // a constant phase c - i s on the subspace
      o.kind = kOpScale;
      o.m[0] = {op.m[0].re, -s};
      o.b = 0;
      break;
    }
    o.b = zm;
    o.m[0].im = s;
    touch |= zm;
    break;
  }
  case kOpPairs: {
    if (!a.inSpan(op.a))
      return Result::Fail;
    uint64_t xm = a.coords(op.a), zm = parities(a, op.b);
    if (parity(a.offset & op.b)) // sigma(x) = -sigma'(c)
      o.m[1] = {-op.m[1].re, -op.m[1].im};
    o.a = xm;
    o.b = zm;
    o.setMask |= highestBit(xm);
    touch |= xm | zm;
    break;
  }
  case kOp2x2: {
    int t = __builtin_ctzll(op.a);
    uint64_t r = a.row(t);
    bool at = (a.offset >> t) & 1;
    bool diagonal = op.m[1].re == 0 && op.m[1].im == 0 && op.m[2].re == 0 &&
                    op.m[2].im == 0;
    if (r == 0 && diagonal) { // the target is constant: a phase
      o.kind = kOpScale;
      o.m[0] = at ? op.m[3] : op.m[0];
      o.a = 0;
      break;
    }
    if (__builtin_popcountll(r) != 1 || (!diagonal && !a.inSpan(op.a)))
      return Result::Fail;
    o.a = r;
    if (at) { // the coordinate is 1 where the qubit is 0: X m X
      o.m[0] = op.m[3];
      o.m[1] = op.m[2];
      o.m[2] = op.m[1];
      o.m[3] = op.m[0];
    }
    o.setMask |= r;
    touch |= r;
    break;
  }
  case kOpSwap: {
    // Every bit of the index set is a condition: besides the controls it
    // picks which pairs swap (a SWAP only exchanges 01 and 10).
    if (!a.inSpan(op.a))
      return Result::Fail;
    uint64_t m = 0, v = 0;
    for (uint64_t bits = op.setMask; bits; bits &= bits - 1) {
      int q = __builtin_ctzll(bits);
      uint64_t r = a.row(q);
      bool aq = (a.offset >> q) & 1, want = (op.setValue >> q) & 1;
      if (r == 0) {
        if (aq != want)
          return Result::Drop;
        continue;
      }
      if (__builtin_popcountll(r) != 1)
        return Result::Fail;
      m |= r;
      if (aq != want)
        v |= r;
    }
    uint64_t f = a.coords(op.a);
    o.setMask = m;
    o.setValue = v;
    o.a = f;
    touch = m | f;
    break;
  }
  default:
    return Result::Fail;
  }
  o.ctrl = condMask & condValue;
  o.touch = touch;
  setEffectiveControls(o);
  return Result::Ok;
}

bool translateRange(const Op *ops, size_t len, const Affine &a,
                    std::vector<Op> &out) {
  for (size_t i = 0; i < len; ++i) {
    const Op &op = ops[i];
    if (op.kind == kOpNest) {
      size_t at = out.size();
      out.push_back(op);
      if (!translateRange(ops + i + 1, size_t(op.len), a, out))
        return false;
      out[at].len = int64_t(out.size() - at - 1);
      if (out[at].len == 0)
        out.pop_back();
      i += size_t(op.len);
      continue;
    }
    Op o;
    switch (translateOne(op, a, o)) {
    case Result::Ok:
      out.push_back(o);
      break;
    case Result::Drop:
      break;
    case Result::Fail:
      return false;
    }
  }
  return true;
}
} // namespace

namespace q2::runtime::subspace {

uint64_t Affine::coords(uint64_t v) const {
  uint64_t c = 0;
  const std::vector<uint64_t> &b = basis();
  for (size_t i = 0; i < b.size(); ++i)
    if (v & highestBit(b[i]))
      c |= uint64_t(1) << i;
  return c;
}

bool Affine::inSpan(uint64_t v) const {
  uint64_t x = v;
  for (uint64_t b : basis())
    if (x & highestBit(b))
      x ^= b;
  return x == 0;
}

uint64_t Affine::row(int q) const {
  uint64_t r = 0;
  const std::vector<uint64_t> &b = basis();
  for (size_t i = 0; i < b.size(); ++i)
    if ((b[i] >> q) & 1)
      r |= uint64_t(1) << i;
  return r;
}

uint64_t Affine::state(uint64_t c) const {
  uint64_t x = offset;
  const std::vector<uint64_t> &b = basis();
  for (size_t i = 0; c; ++i, c >>= 1)
    if (c & 1)
      x ^= b[i];
  return x;
}

bool translate(const Op *ops, size_t len, const Affine &a,
               std::vector<Op> &out) {
  out.clear();
  return translateRange(ops, len, a, out);
}

} // namespace q2::runtime::subspace
