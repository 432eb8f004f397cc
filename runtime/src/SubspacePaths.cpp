//===- SubspacePaths.cpp - probabilities of a deferred register -----------===//
//
// q2_rt_probs of a deferred register takes the cheapest path its tape
// allows (docs/runtime-blocks.md, "Beyond the state vector"):
//   eigenphases     the probed qubits (estimation wires) are put in |+> by
//                   an H and afterwards only control powers U^N_k of one
//                   unitary U on the other (system) qubits, then see gates
//                   among themselves only. With U = Q diag(e^{i theta}) Q^+
//                   on the system's live subspace and w = |Q^+ psi0|^2, the
//                   wires of eigenvector j hold the product state
//                   (x)_k (|0> + e^{i N_k theta_j}|1>)/sqrt 2, so
//                   P(m) = sum_j w_j |<m| G |wires_j>|^2: G (the inverse
//                   QFT) evaluated in closed form once checked against the
//                   recorded gates, else applied to each product state.
//                   The estimation register is never held.
//   live subspace   the whole program on the 2^dim amplitudes of the
//                   register's live affine subspace (the ordinary kernels
//                   and block engine, on Ops rewritten in its coordinates).
//   state vector    materialise and replay (what the program needs when
//                   neither applies).
//
//===----------------------------------------------------------------------===//
#include "BlockEngine.h"
#include "Subspace.h"
#include "q2/Runtime/Limits.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

using namespace q2::runtime;
using namespace q2::runtime::subspace;
using blocks::cd;
using blocks::MatrixXcd;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

/// An item of the tape (its blocks' Clifford frames are folded already).
struct Item {
  const Op *ops = nullptr;
  size_t len = 0;
  int64_t count = -1;
  int64_t recorded = 1;
  bool isBlock() const { return count >= 0; }
};

std::vector<Item> tapeItems(const Tape &t) {
  std::vector<Item> out(t.items.size());
  for (size_t i = 0; i < t.items.size(); ++i) {
    const TapeItem &ti = t.items[i];
    out[i] = {t.ops.data() + ti.begin, ti.len, ti.count, ti.recorded};
  }
  return out;
}

/// Whether a basis state x is in op's index set or is the partner of one.
bool fires(const Op &op, uint64_t x) {
  return (x & op.setMask) == op.setValue ||
         ((x ^ op.a) & op.setMask) == op.setValue;
}

/// Consumes the leading calls that keep the state one basis state (the
/// Hartree-Fock X gates, phases: global on a basis state, so they do not
/// change probabilities); returns the first item not consumed.
size_t basisPrefix(const std::vector<Item> &items, uint64_t &x) {
  x = 0;
  size_t i = 0;
  for (; i < items.size(); ++i) {
    const Item &it = items[i];
    if (it.isBlock())
      break;
    const Op &op = it.ops[0];
    if (op.kind == kOpSwap) {
      if (fires(op, x))
        x ^= op.a;
    } else if (op.kind != kOpScale && op.kind != kOpDiag) {
      break;
    }
  }
  return i;
}

/// Outcome index (first probed qubit = MSB) of each value of a register
/// whose bit j is the j-th lowest probed qubit.
std::vector<uint64_t> outcomeMap(const int64_t *idx, int64_t num) {
  std::vector<int64_t> sorted(idx, idx + num);
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> outBit(static_cast<size_t>(num)); // local bit j -> outcome bit
  for (int64_t i = 0; i < num; ++i) {
    int64_t j = std::lower_bound(sorted.begin(), sorted.end(), idx[i]) -
                sorted.begin();
    outBit[size_t(j)] = int(num - 1 - i);
  }
  std::vector<uint64_t> map(size_t(1) << num);
  for (uint64_t v = 0; v < map.size(); ++v) {
    uint64_t o = 0;
    for (int64_t j = 0; j < num; ++j)
      if ((v >> j) & 1)
        o |= uint64_t(1) << outBit[size_t(j)];
    map[v] = o;
  }
  return map;
}

void setPathStat(int path, const Register *reg, int64_t live, int64_t dim,
                 double secs, double eigSecs, double bytes,
                 const std::string &note) {
  Q2PathStat &p = pathStat();
  std::memset(&p, 0, sizeof p);
  p.path = path;
  p.num_qubits = int32_t(reg->numQubits);
  p.live_qubits = live;
  p.subspace_dim = dim;
  p.seconds = secs;
  p.eigen_seconds = eigSecs;
  p.bytes = int64_t(bytes);
  std::snprintf(p.note, sizeof p.note, "%s", note.c_str());
}

//===----------------------------------------------------------------------===//
// The eigenphase path
//===----------------------------------------------------------------------===//

struct QPEShape {
  uint64_t est = 0;                 // probed qubits
  std::vector<int> wires;           // probed qubits, ascending
  std::vector<int> coord;           // per wire: its coordinate, -1 constant
  std::vector<char> prepared;       // per wire: an H put it in |+>
  std::vector<int64_t> power;       // per wire: N_k
  uint64_t sysCoords = 0;           // coordinates of the system subspace
  std::vector<size_t> prefix;       // system items before the first power
  std::vector<size_t> controlled;   // items that are powers of U
  std::vector<int> controlWire;     // their wire (index into wires)
  std::vector<const Op *> suffix;   // gates among the wires only
  std::vector<Op> local;            // U's Ops on the system coordinates
};

/// Whether the items (after the basis prefix) have the QPE shape; fills s.
bool qpeShape(const std::vector<Item> &items, size_t first, const Affine &a,
              const int64_t *idx, int64_t num, QPEShape &s, std::string &why) {
  char buf[200];
  for (int64_t i = 0; i < num; ++i)
    s.est |= uint64_t(1) << idx[i];
  for (uint64_t b = s.est; b; b &= b - 1)
    s.wires.push_back(__builtin_ctzll(b));
  size_t nw = s.wires.size();
  s.coord.assign(nw, -1);
  s.prepared.assign(nw, 0);
  s.power.assign(nw, 0);
  std::vector<int> wireOf(64, -1);
  uint64_t estCoords = 0;
  for (size_t k = 0; k < nw; ++k) {
    int q = s.wires[k];
    wireOf[size_t(q)] = int(k);
    uint64_t r = a.row(q);
    if (r == 0)
      continue;
    int i = __builtin_ctzll(r);
    if (__builtin_popcountll(r) != 1 || a.basis()[size_t(i)] != (uint64_t(1) << q)) {
      std::snprintf(buf, sizeof buf,
                    "qubit %d, probed, is flipped together with other qubits",
                    q);
      why = buf;
      return false;
    }
    s.coord[k] = i;
    estCoords |= r;
  }
  s.sysCoords = blocks::lowBits(a.dim()) & ~estCoords;
  enum { kFresh = 0, kPrepared = 1, kClosed = 2 };
  std::vector<int> state(nw, kFresh);
  std::vector<size_t> system; // system items after the first power
  for (size_t i = first; i < items.size(); ++i) {
    const Item &it = items[i];
    if (it.count == 0)
      continue;
    uint64_t touch = 0;
    bool nested = false;
    for (size_t j = 0; j < it.len; ++j) {
      nested |= it.ops[j].kind == kOpNest;
      touch |= it.ops[j].touch;
    }
    uint64_t t = touch & s.est;
    if (t == 0) {
      (s.controlled.empty() ? s.prefix : system).push_back(i);
      continue;
    }
    int k = __builtin_popcountll(t) == 1 ? wireOf[size_t(__builtin_ctzll(t))] : -1;
    if (!it.isBlock() && (touch & ~s.est) == 0) {
      const Op &op = it.ops[0];
      bool aq = k >= 0 && ((a.offset >> s.wires[size_t(k)]) & 1);
      if (k >= 0 && state[size_t(k)] == kFresh && op.kind == kOp2x2 &&
          op.gate == Q2_GATE_H && op.ctrl == 0 && !aq && s.coord[size_t(k)] >= 0) {
        state[size_t(k)] = kPrepared;
        s.prepared[size_t(k)] = 1;
        continue;
      }
      for (uint64_t b = t; b; b &= b - 1)
        state[size_t(wireOf[size_t(__builtin_ctzll(b))])] = kClosed;
      s.suffix.push_back(&op);
      continue;
    }
    // Touches the system and the wires: a power controlled by one wire.
    bool controlledByK = k >= 0 && !nested;
    for (size_t j = 0; controlledByK && j < it.len; ++j)
      controlledByK = (it.ops[j].ones & t) != 0;
    if (!controlledByK) {
      std::snprintf(buf, sizeof buf,
                    "a %s on the system qubits is not controlled by exactly "
                    "one probed qubit",
                    it.isBlock() ? (nested ? "nested powered block" : "powered block")
                                 : "gate");
      why = buf;
      return false;
    }
    int q = s.wires[size_t(k)];
    if (state[size_t(k)] != kPrepared) {
      if (state[size_t(k)] == kFresh && !((a.offset >> q) & 1))
        continue; // controlled by a wire still |0>: never applied
      std::snprintf(buf, sizeof buf,
                    "qubit %d controls a power after other gates acted on it",
                    q);
      why = buf;
      return false;
    }
    std::vector<Op> coords, local;
    if (!translate(it.ops, it.len, a, coords)) {
      why = "a controlled power has a control that is a parity of the "
            "subspace's coordinates";
      return false;
    }
    uint64_t common = uint64_t(1) << s.coord[size_t(k)];
    for (const Op &op : coords)
      local.push_back(translateOp(op, common, s.sysCoords));
    if (s.controlled.empty()) {
      s.local = std::move(local);
    } else {
      bool same = local.size() == s.local.size();
      for (size_t j = 0; same && j < local.size(); ++j)
        same = sameOp(local[j], s.local[j]);
      if (!same) {
        why = "the controlled powers are of different unitaries (e.g. power "
              "= time, or per-wire Trotter steps): their eigenvectors differ";
        return false;
      }
    }
    s.controlled.push_back(i);
    s.controlWire.push_back(k);
    s.power[size_t(k)] += it.isBlock() ? it.count : 1;
  }
  if (s.controlled.empty()) {
    why = "no powers controlled by the probed qubits";
    return false;
  }
  for (size_t i : system)
    if (i < s.controlled.back()) {
      why = "gates on the system qubits between the controlled powers";
      return false;
    }
  return true;
}

/// Applies the suffix (gates among the wires, in wire-local bits) to
/// `cols` product states held as the columns of buf (nw + b qubits).
void applySuffix(double *buf, int nb, const std::vector<Op> &g) {
  for (const Op &op : g)
    applyOp(buf, nb, op);
}

/// The product state of the wires for phases alpha (prepared wires) and
/// constant bits (the others), into col (2^nw amplitudes).
void productState(const QPEShape &s, const std::vector<double> &alpha,
                  uint64_t constBits, cd *col) {
  size_t nw = s.wires.size();
  uint64_t dim = uint64_t(1) << nw;
  std::fill(col, col + dim, cd(0, 0));
  col[constBits] = 1;
  uint64_t len = 1; // amplitudes filled over the prepared bits so far
  std::vector<uint64_t> pos{constBits};
  for (size_t k = 0; k < nw; ++k) {
    if (!s.prepared[k])
      continue;
    cd e = std::polar(M_SQRT1_2, alpha[k]);
    uint64_t bit = uint64_t(1) << k;
    for (uint64_t i = 0; i < len; ++i) {
      uint64_t p = pos[i];
      col[p | bit] = col[p] * e;
      col[p] *= M_SQRT1_2;
      pos.push_back(p | bit);
    }
    len *= 2;
  }
}

/// The inverse QFT in closed form: wires w_0 .. w_{n-1} (ascending qubit
/// order, or descending) in the product state with phases alpha_k give
/// P(M) = prod_k cos^2((sign alpha_k - 2 pi 2^k M / 2^n) / 2), wire w_k
/// holding bit n-1-k of M (the textbook circuit: sign +1, wire k controls
/// U^(2^k)). `tw` holds e^{-2 pi i r / 2^n}.
struct ClosedQFT {
  int n = 0;
  bool descending = false;
  double sign = 1;
  std::vector<cd> tw;
  std::vector<uint64_t> localOf; // M -> wire-local register value
  ClosedQFT(int n, bool descending, double sign)
      : n(n), descending(descending), sign(sign) {
    uint64_t N = uint64_t(1) << n;
    tw.resize(N);
    for (uint64_t r = 0; r < N; ++r)
      tw[r] = std::polar(1.0, -2 * M_PI * double(r) / double(N));
    localOf.resize(N);
    for (uint64_t M = 0; M < N; ++M) {
      uint64_t v = 0;
      for (int k = 0; k < n; ++k)
        if ((M >> (n - 1 - k)) & 1)
          v |= uint64_t(1) << (descending ? n - 1 - k : k);
      localOf[M] = v;
    }
  }
  /// acc[M] += weight * P(M) for the wire-local phases; a and b are scratch.
  /// Factor k depends on M mod 2^(n-k): the product is built from the last
  /// wire (period 2) to the first (period 2^n), 2^(n+1) products in all.
  void add(const std::vector<double> &alphaLocal, double weight, double *acc,
           std::vector<double> &a, std::vector<double> &b) const {
    uint64_t mask = (uint64_t(1) << n) - 1;
    a.assign(1, 1.0);
    for (int k = n - 1; k >= 0; --k) {
      cd e = std::polar(1.0, sign * alphaLocal[size_t(descending ? n - 1 - k : k)]);
      uint64_t period = uint64_t(1) << (n - k), half = period / 2;
      b.resize(period);
      for (uint64_t r = 0; r < period; ++r)
        b[r] = a[r & (half - 1)] * 0.5 * (1.0 + (e * tw[(r << k) & mask]).real());
      a.swap(b);
    }
    for (uint64_t M = 0; M <= mask; ++M)
      acc[M] += weight * a[M];
  }
};

bool eigenPath(Register *reg, const std::vector<Item> &items, size_t first,
               const Affine &a, const int64_t *idx, int64_t num, double *out,
               std::chrono::steady_clock::time_point t0, std::string &why) {
  QPEShape s;
  if (!qpeShape(items, first, a, idx, num, s, why))
    return false;
  int dS = __builtin_popcountll(s.sysCoords);
  int64_t D = int64_t(1) << dS;
  if (auto refusal = limits::eigenphaseRefusal(dS, int64_t(s.wires.size()))) {
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "the system register's live subspace has 2^%d = %lld "
                  "states: %s",
                  dS, (long long)D, refusal->c_str());
    why = buf;
    return false;
  }
  size_t nw = s.wires.size();
  statPath = Q2_PATH_EIGENPHASES;
  statDim = D;
  // U on the system coordinates, and its eigenvectors.
  notifyStage(Q2_PATH_EIGENPHASES, "building U on the live subspace", D);
  MatrixXcd U;
  {
    BlockCache scratch;
    blocks::buildUnitary(scratch, s.local, blocks::Cosets::full(dS), 0, 2, U);
  }
  notifyStage(Q2_PATH_EIGENPHASES, "eigenvectors of U", D);
  MatrixXcd Q;
  std::vector<double> theta;
  if (!unitaryEigen(U, Q, theta, why))
    return false;
  double eigSecs = since(t0);
  // The start state on the system coordinates and its overlaps.
  Eigen::VectorXcd psi = Eigen::VectorXcd::Zero(D);
  psi[0] = 1;
  for (size_t i : s.prefix) {
    const Item &it = items[i];
    std::vector<Op> coords, local;
    if (!translate(it.ops, it.len, a, coords)) {
      why = "a gate before the powers is controlled by a parity of the "
            "subspace's coordinates";
      return false;
    }
    for (const Op &op : coords)
      local.push_back(translateOp(op, 0, s.sysCoords));
    replayOps(reinterpret_cast<double *>(psi.data()), dS, local.data(),
              local.size(), it.isBlock() ? it.count : 1);
  }
  Eigen::VectorXd w = (Q.adjoint() * psi).cwiseAbs2();
  U.resize(0, 0);
  Q.resize(0, 0);
  // Report the powers: the first carries U and its eigenvectors.
  for (size_t c = 0; c < s.controlled.size(); ++c) {
    const Item &it = items[s.controlled[c]];
    double secs = c == 0 ? eigSecs : 0.0;
    blocks::addBlockStat(dS, 1, it.isBlock() ? it.count : 1,
                         it.recorded, int64_t(s.local.size()),
                         Q2_METHOD_EIGENPHASES, c > 0, secs, 0, D, 1);
    blocks::notifyProgress(Q2_METHOD_EIGENPHASES, secs);
  }
  notifyStage(Q2_PATH_EIGENPHASES, "output distribution", D);
  // The suffix in wire-local bits, the wires' constant bits.
  std::vector<Op> g;
  for (const Op *op : s.suffix)
    g.push_back(translateOp(*op, 0, s.est));
  uint64_t constBits = 0;
  for (size_t k = 0; k < nw; ++k)
    if (!s.prepared[k] && ((a.offset >> s.wires[k]) & 1))
      constBits |= uint64_t(1) << k;
  uint64_t N = uint64_t(1) << nw;
  std::vector<uint64_t> map = outcomeMap(idx, num);
  auto phases = [&](double th, std::vector<double> &alpha) {
    alpha.resize(nw);
    for (size_t k = 0; k < nw; ++k) {
      long double x = (long double)s.power[k] * (long double)th;
      alpha[k] = double(std::fmod(x, 2.0L * (long double)M_PI));
    }
  };
  // Closed form of the suffix, when it is the inverse QFT in one of the
  // two wire orders: checked on random phases against the recorded gates.
  bool allPrepared =
      std::all_of(s.prepared.begin(), s.prepared.end(), [](char p) { return p; });
  std::unique_ptr<ClosedQFT> closed;
  if (allPrepared && nw <= 24) {
    std::mt19937_64 rng(0x51ab);
    std::uniform_real_distribution<double> u(-M_PI, M_PI);
    std::vector<cd> col(N);
    std::vector<double> alpha(nw), P, sa, sb;
    for (int variant = 0; variant < 4 && !closed; ++variant) {
      auto cand = std::make_unique<ClosedQFT>(int(nw), variant & 1,
                                              variant & 2 ? -1.0 : 1.0);
      bool ok = true;
      for (int trial = 0; trial < 2 && ok; ++trial) {
        for (double &x : alpha)
          x = u(rng);
        productState(s, alpha, 0, col.data());
        applySuffix(reinterpret_cast<double *>(col.data()), int(nw), g);
        P.assign(N, 0.0);
        cand->add(alpha, 1.0, P.data(), sa, sb);
        for (uint64_t M = 0; M < N && ok; ++M)
          ok = std::abs(P[M] - std::norm(col[cand->localOf[M]])) <= 1e-12;
      }
      if (ok)
        closed = std::move(cand);
    }
  }
  std::vector<double> acc(N, 0.0);
  int threads = blocks::threads();
  if (closed) {
    // Per eigenvector 2^(n+1) multiply-adds; split the eigenvectors.
    double work = double(D) * double(N) * 4.0;
    int chunks = blocks::chunksFor(work, uint64_t(D));
    std::vector<std::vector<double>> part(size_t(chunks), std::vector<double>(N, 0.0));
    uint64_t per = (uint64_t(D) + uint64_t(chunks) - 1) / uint64_t(chunks);
    blocks::dynamicFor(chunks, uint64_t(chunks), [&](int, uint64_t ch) {
      std::vector<double> alpha, sa, sb;
      for (uint64_t j = ch * per; j < std::min<uint64_t>(uint64_t(D), (ch + 1) * per); ++j) {
        if (w[Eigen::Index(j)] == 0)
          continue;
        phases(theta[j], alpha);
        closed->add(alpha, w[Eigen::Index(j)], part[ch].data(), sa, sb);
      }
    });
    for (auto &p : part)
      for (uint64_t M = 0; M < N; ++M)
        acc[closed->localOf[M]] += p[M];
  } else {
    // The suffix applied to each eigenvector's product state, batched as
    // spectator bits of one buffer.
    int bb = std::max(0, std::min(8, 16 - int(nw)));
    uint64_t B = uint64_t(1) << bb, batches = (uint64_t(D) + B - 1) / B;
    double work = double(D) * double(N) * double(g.size() + 1);
    int chunks = blocks::chunksFor(work, batches);
    std::vector<std::vector<double>> part(size_t(chunks), std::vector<double>(N, 0.0));
    blocks::dynamicFor(chunks, batches, [&](int wk, uint64_t bi) {
      std::vector<cd> buf(N * B);
      std::vector<double> alpha;
      for (uint64_t c = 0; c < B; ++c) {
        uint64_t j = bi * B + c;
        if (j < uint64_t(D)) {
          phases(theta[j], alpha);
          productState(s, alpha, constBits, buf.data() + c * N);
        } else {
          std::fill(buf.begin() + std::ptrdiff_t(c * N),
                    buf.begin() + std::ptrdiff_t((c + 1) * N), cd(0, 0));
        }
      }
      applySuffix(reinterpret_cast<double *>(buf.data()), int(nw) + bb, g);
      for (uint64_t c = 0; c < B; ++c) {
        uint64_t j = bi * B + c;
        if (j >= uint64_t(D))
          break;
        double wj = w[Eigen::Index(j)];
        for (uint64_t v = 0; v < N; ++v)
          part[size_t(wk)][v] += wj * std::norm(buf[c * N + v]);
      }
    });
    for (auto &p : part)
      for (uint64_t v = 0; v < N; ++v)
        acc[v] += p[v];
  }
  std::fill(out, out + (uint64_t(1) << num), 0.0);
  for (uint64_t v = 0; v < N; ++v)
    out[map[v]] += acc[v];
  (void)threads;
  char note[256];
  std::snprintf(note, sizeof note,
                "%zu estimation wire(s) controlling powers of one U on the "
                "system's live subspace of 2^%d states (%zu Ops); suffix %s",
                nw, dS, s.local.size(),
                closed ? "= inverse QFT, in closed form"
                       : "applied to each eigenvector's product state");
  double bytes = 16.0 * double(D) * double(D) * 4 + 8.0 * double(N) * 4;
  setPathStat(Q2_PATH_EIGENPHASES, reg, a.dim(), D, since(t0), eigSecs, bytes,
              note);
  return true;
}

//===----------------------------------------------------------------------===//
// The live-subspace register
//===----------------------------------------------------------------------===//

bool liveSubspacePath(Register *reg, const std::vector<Item> &items,
                      size_t first, const Affine &a, const int64_t *idx,
                      int64_t num, double *out,
                      std::chrono::steady_clock::time_point t0,
                      const std::string &whyNotEigen, std::string &why) {
  int dL = a.dim();
  std::vector<std::vector<Op>> ops(items.size());
  for (size_t i = first; i < items.size(); ++i)
    if (!translate(items[i].ops, items[i].len, a, ops[i])) {
      why = "a gate is controlled by a qubit that is a parity of the live "
            "subspace's coordinates";
      return false;
    }
  if (dL > effectiveMaxQubits()) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "its live subspace has 2^%d states, above the limit of "
                  "2^%lld",
                  dL, (long long)effectiveMaxQubits());
    why = buf;
    return false;
  }
  Register comp;
  comp.numQubits = dL;
  if (!allocateState(&comp, "q2_rt_probs"))
    return true; // the error is set
  statPath = Q2_PATH_LIVE_SUBSPACE;
  statDim = int64_t(1) << dL;
  notifyStage(Q2_PATH_LIVE_SUBSPACE, "the program on the live subspace",
              statDim);
  for (size_t i = first; i < items.size() && !errorPending(); ++i) {
    if (ops[i].empty())
      continue;
    if (items[i].isBlock())
      executeBlock(&comp, ops[i].data(), ops[i].size(), items[i].count,
                   items[i].recorded);
    else
      applyOrFuse(&comp, ops[i][0]);
  }
  if (errorPending())
    return true;
  flushFusion(&comp);
  // Outcome bits are linear in the coordinates: per byte of the compact
  // index a table of their contribution.
  uint64_t base = 0;
  std::vector<uint64_t> rows(static_cast<size_t>(num));
  for (int64_t i = 0; i < num; ++i) {
    rows[size_t(i)] = a.row(int(idx[i]));
    if ((a.offset >> idx[i]) & 1)
      base |= uint64_t(1) << (num - 1 - i);
  }
  int numBytes = (dL + 7) / 8;
  std::vector<std::array<uint64_t, 256>> tab(size_t(std::max(numBytes, 1)));
  for (int byte = 0; byte < numBytes; ++byte)
    for (int v = 0; v < 256; ++v) {
      uint64_t o = 0, c = uint64_t(v) << (8 * byte);
      for (int64_t i = 0; i < num; ++i)
        if (__builtin_popcountll(c & rows[size_t(i)]) & 1)
          o |= uint64_t(1) << (num - 1 - i);
      tab[size_t(byte)][size_t(v)] = o;
    }
  std::fill(out, out + (uint64_t(1) << num), 0.0);
  const double *v = data(&comp);
  uint64_t amps = uint64_t(1) << dL;
  for (uint64_t c = 0; c < amps; ++c) {
    uint64_t o = base;
    for (int byte = 0; byte < numBytes; ++byte)
      o ^= tab[size_t(byte)][(c >> (8 * byte)) & 255];
    out[o] += v[2 * c] * v[2 * c] + v[2 * c + 1] * v[2 * c + 1];
  }
  char note[256];
  std::snprintf(note, sizeof note,
                "the register on its live subspace of 2^%d states (of 2^%lld); "
                "not the eigenphase path: %s",
                dL, (long long)reg->numQubits, whyNotEigen.c_str());
  setPathStat(Q2_PATH_LIVE_SUBSPACE, reg, dL, statDim, since(t0), 0,
              16.0 * double(amps), note);
  return true;
}

} // namespace

namespace q2::runtime::subspace {

void probs(Register *reg, const int64_t *idx, int64_t num, double *out) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<Item> items = tapeItems(*reg->tape);
  Affine a;
  size_t first = basisPrefix(items, a.offset);
  for (size_t i = first; i < items.size(); ++i)
    if (items[i].count != 0)
      blocks::addFlips(items[i].ops, items[i].len, a.span);
  std::string whyNotEigen, why;
  struct Restore { // block stats after this are the state vector's again
    ~Restore() {
      statPath = Q2_PATH_STATE_VECTOR;
      statDim = 0;
    }
  } restore;
  if (eigenPath(reg, items, first, a, idx, num, out, t0, whyNotEigen))
    return;
  if (errorPending())
    return;
  if (a.dim() < reg->numQubits) {
    if (liveSubspacePath(reg, items, first, a, idx, num, out, t0, whyNotEigen,
                         why))
      return;
  } else {
    why = "its live subspace is the whole register";
  }
  materialize(reg, "q2_rt_probs",
              "not the eigenphase path: " + whyNotEigen +
                  "; not the live-subspace path: " + why);
}

} // namespace q2::runtime::subspace
