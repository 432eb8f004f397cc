//===- SubspaceTest.cpp - deferred registers vs. dense Eigen --------------===//
//
// QPE-shaped circuits issued through the C ABI on deferred registers
// (q2_rt_set_subspace_mode(2)) and checked against a dense simulation built
// here from Kronecker products (DenseReference.h), independently of the
// runtime: the eigenphase path (powers of one U, the inverse QFT in closed
// form or applied per eigenvector), the live-subspace path (powers of
// different unitaries), and the state-vector fallback (a program whose live
// subspace is the whole register, measure, state_data), plus the limit
// errors.
//
//===----------------------------------------------------------------------===//
#include "DenseReference.h"
#include "q2/Runtime/QuantumRuntime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace q2::denseref;

namespace {

/// One call: a named gate or a Pauli rotation, as the ABI takes it and as
/// a dense operator.
struct Call {
  bool isPauli = false;
  int gate = Q2_GATE_H;
  double param = 0;
  std::string word;
  std::vector<int> targets, ctrls;
};

Call gateCall(int g, std::vector<int> t, double p = 0, std::vector<int> c = {}) {
  Call x;
  x.gate = g;
  x.targets = std::move(t);
  x.param = p;
  x.ctrls = std::move(c);
  return x;
}

Call rotCall(std::string w, std::vector<int> t, double p, std::vector<int> c) {
  Call x;
  x.isPauli = true;
  x.word = std::move(w);
  x.targets = std::move(t);
  x.param = p;
  x.ctrls = std::move(c);
  return x;
}

MatrixXcd denseOf(const Call &c, int n) {
  MatrixXcd u = c.isPauli ? pauliRotation(c.word, c.targets, c.param, n)
                          : gateOperator(c.gate, c.param, c.targets, n);
  return controlled(u, c.ctrls, n);
}

void issue(Q2Register *r, const Call &c) {
  std::vector<Q2Qubit *> t, ct;
  for (int q : c.targets)
    t.push_back(q2_rt_qubit(r, q));
  for (int q : c.ctrls)
    ct.push_back(q2_rt_qubit(r, q));
  if (c.isPauli)
    q2_rt_pauli_rot(c.param, c.word.data(), t.data(), int64_t(t.size()),
                    ct.data(), int64_t(ct.size()));
  else
    q2_rt_gate(c.gate, c.param, t.data(), int64_t(t.size()), ct.data(),
               int64_t(ct.size()), 0);
}

/// A program: plain calls and powered blocks, in order.
struct Step {
  std::vector<Call> calls;
  int64_t count = -1; // < 0: plain calls
};

struct Program {
  int n = 0;
  std::vector<Step> steps;
  std::vector<int> probed;
};

/// Marginal probabilities of `probed` (first = MSB) of the dense state.
std::vector<double> denseProbs(const Program &p) {
  VectorXcd v = VectorXcd::Zero(int64_t(1) << p.n);
  v[0] = 1;
  for (const Step &s : p.steps) {
    std::vector<MatrixXcd> ops;
    for (const Call &c : s.calls)
      ops.push_back(denseOf(c, p.n));
    for (int64_t r = 0; r < (s.count < 0 ? 1 : s.count); ++r)
      for (const MatrixXcd &u : ops)
        v = (u * v).eval();
  }
  std::vector<double> out(size_t(1) << p.probed.size(), 0.0);
  for (int64_t y = 0; y < v.size(); ++y) {
    uint64_t o = 0;
    for (size_t i = 0; i < p.probed.size(); ++i)
      if ((y >> p.probed[i]) & 1)
        o |= uint64_t(1) << (p.probed.size() - 1 - i);
    out[o] += std::norm(v[y]);
  }
  return out;
}

/// Issues the program's calls and blocks on r.
void issueProgram(Q2Register *r, const Program &p) {
  for (const Step &s : p.steps) {
    if (s.count >= 0)
      q2_rt_block_begin(s.count);
    for (const Call &c : s.calls)
      issue(r, c);
    if (s.count >= 0)
      q2_rt_block_end();
  }
}

/// Runs the program on one register through the ABI; the probabilities and
/// the path the runtime took (-1: no deferred register was resolved).
std::vector<double> runtimeProbs(const Program &p, int *path = nullptr,
                                 std::string *note = nullptr,
                                 std::string *error = nullptr) {
  q2_rt_reset_path_stats();
  Q2Register *r = q2_rt_alloc(p.n);
  issueProgram(r, p);
  std::vector<Q2Qubit *> q;
  for (int x : p.probed)
    q.push_back(q2_rt_qubit(r, x));
  std::vector<double> out(size_t(1) << p.probed.size(), -1.0);
  q2_rt_probs(q.data(), int64_t(q.size()), out.data());
  std::string e = takeError();
  if (error)
    *error = e;
  else
    EXPECT_EQ(e, "");
  q2_rt_dealloc(r);
  Q2PathStat st;
  if (path)
    *path = q2_rt_path_stats(&st) ? st.path : -1;
  if (note && q2_rt_path_stats(&st))
    *note = st.note;
  return out;
}

/// A Jordan-Wigner-like Trotter step on system qubits 0..ns-1 controlled by
/// `ctrl`: hopping pairs XZ..ZX / YZ..ZY (the flips stay in the span of
/// q_i ^ q_j for i, j of one parity, so the live subspace is smaller than
/// the register), ZZ and Z terms, and the identity term as a PhaseShift on
/// the control; `scale` multiplies every angle (power = time), `symmetric`
/// appends the mirror (order 2).
std::vector<Call> trotterStep(int ns, int ctrl, double scale, bool symmetric,
                              std::mt19937_64 &gen) {
  std::uniform_real_distribution<double> u(-0.6, 0.6);
  std::vector<Call> half;
  std::vector<int> all;
  for (int q = 0; q < ns; ++q)
    all.push_back(q);
  for (int i = 0; i + 2 < ns; ++i) {
    int j = i + 2; // same "spin": even with even, odd with odd
    for (char p : {'X', 'Y'}) {
      std::string w(size_t(ns), 'I');
      w[size_t(i)] = p;
      w[size_t(j)] = p;
      w[size_t(i + 1)] = 'Z';
      half.push_back(rotCall(w, all, scale * u(gen), {ctrl}));
    }
  }
  for (int i = 0; i + 1 < ns; ++i) {
    std::string w(size_t(ns), 'I');
    w[size_t(i)] = w[size_t(i + 1)] = 'Z';
    half.push_back(rotCall(w, all, scale * u(gen), {ctrl}));
  }
  for (int i = 0; i < ns; ++i) {
    std::string w(size_t(ns), 'I');
    w[size_t(i)] = 'Z';
    half.push_back(rotCall(w, all, scale * u(gen), {ctrl}));
  }
  std::vector<Call> step = half;
  step.push_back(gateCall(Q2_GATE_PHASESHIFT, {ctrl}, scale * u(gen)));
  if (symmetric)
    for (auto it = half.rbegin(); it != half.rend(); ++it)
      step.push_back(*it);
  return step;
}

/// The textbook QPE program as q2-qpe builds it: HF X gates, H and powers
/// per wire (wire k = qubit ns + k), inverse QFT, probs of the wires.
Program qpeProgram(int ns, int ne, bool timePower, bool symmetric,
                   int64_t steps, uint64_t seed) {
  Program p;
  p.n = ns + ne;
  std::vector<Call> hf;
  for (int q = 0; q < ns; q += 3)
    hf.push_back(gateCall(Q2_GATE_X, {q}));
  p.steps.push_back({hf, -1});
  for (int k = 0; k < ne; ++k) {
    int w = ns + k;
    p.steps.push_back({{gateCall(Q2_GATE_H, {w})}, -1});
    std::mt19937_64 gen(seed); // the same step on every wire...
    double scale = timePower ? std::ldexp(1.0, k) : 1.0; // ...or scaled
    p.steps.push_back({trotterStep(ns, w, scale, symmetric, gen),
                       timePower ? steps : (steps << k)});
  }
  std::vector<Call> qft;
  for (int j = ne - 1; j >= 0; --j) {
    for (int m = j + 1; m < ne; ++m)
      qft.push_back(gateCall(Q2_GATE_PHASESHIFT, {ns + j},
                             -M_PI / std::ldexp(1.0, m - j), {ns + m}));
    qft.push_back(gateCall(Q2_GATE_H, {ns + j}));
  }
  p.steps.push_back({qft, -1});
  for (int k = 0; k < ne; ++k)
    p.probed.push_back(ns + k);
  return p;
}

struct SubspaceMode {
  int32_t prev;
  explicit SubspaceMode(int32_t m) : prev(q2_rt_set_subspace_mode(m)) {}
  ~SubspaceMode() { q2_rt_set_subspace_mode(prev); }
};

void expectClose(const std::vector<double> &got, const std::vector<double> &ref,
                 double tol) {
  ASSERT_EQ(got.size(), ref.size());
  double sum = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    EXPECT_NEAR(got[i], ref[i], tol) << "outcome " << i;
    sum += got[i];
  }
  EXPECT_NEAR(sum, 1.0, 1e-10);
}

TEST(Subspace, EigenphasePathMatchesDense) {
  SubspaceMode mode(2);
  for (bool symmetric : {false, true}) {
    Program p = qpeProgram(5, 3, /*timePower=*/false, symmetric, 3, 7);
    int path = -1;
    std::string note;
    std::vector<double> got = runtimeProbs(p, &path, &note);
    EXPECT_EQ(path, Q2_PATH_EIGENPHASES) << note;
    EXPECT_NE(note.find("closed form"), std::string::npos) << note;
    expectClose(got, denseProbs(p), 1e-10);
  }
}

TEST(Subspace, EigenphasePathWithAnotherSuffix) {
  // A suffix that is not the inverse QFT: applied per eigenvector.
  SubspaceMode mode(2);
  Program p = qpeProgram(4, 3, false, true, 2, 11);
  p.steps.push_back({{gateCall(Q2_GATE_RY, {5}, 0.3, {4}),
                      gateCall(Q2_GATE_SWAP, {4, 6})},
                     -1});
  int path = -1;
  std::string note;
  std::vector<double> got = runtimeProbs(p, &path, &note);
  EXPECT_EQ(path, Q2_PATH_EIGENPHASES) << note;
  EXPECT_NE(note.find("each eigenvector"), std::string::npos) << note;
  expectClose(got, denseProbs(p), 1e-10);
  // Probed in another order, and a subset: the outcome bits follow.
  Program q = p;
  q.probed = {6, 4};
  got = runtimeProbs(q, &path, &note);
  expectClose(got, denseProbs(q), 1e-10);
  // (qubit 5, not probed, is a system qubit here: the live-subspace path)
  EXPECT_EQ(path, Q2_PATH_LIVE_SUBSPACE) << note;
}

TEST(Subspace, LiveSubspacePathForPowersOfDifferentUnitaries) {
  SubspaceMode mode(2);
  Program p = qpeProgram(5, 3, /*timePower=*/true, true, 2, 5);
  int path = -1;
  std::string note;
  std::vector<double> got = runtimeProbs(p, &path, &note);
  EXPECT_EQ(path, Q2_PATH_LIVE_SUBSPACE) << note;
  EXPECT_NE(note.find("different unitaries"), std::string::npos) << note;
  expectClose(got, denseProbs(p), 1e-10);
  Q2PathStat st;
  ASSERT_TRUE(q2_rt_path_stats(&st));
  // 3 wires + the span of the hopping flips (q_i ^ q_i+2): 3 + 3 of 8.
  EXPECT_EQ(st.live_qubits, 6);
}

TEST(Subspace, StateVectorFallback) {
  SubspaceMode mode(2);
  // An H on every system qubit: the live subspace is the whole register;
  // an X between the powers: not the eigenphase path either.
  Program p = qpeProgram(3, 3, false, true, 2, 3);
  std::vector<Call> hs;
  for (int q = 0; q < 3; ++q)
    hs.push_back(gateCall(Q2_GATE_H, {q}));
  p.steps.insert(p.steps.begin() + 1, Step{hs, -1});
  p.steps.insert(p.steps.begin() + 4, Step{{gateCall(Q2_GATE_X, {1})}, -1});
  int path = -1;
  std::string note;
  std::vector<double> got = runtimeProbs(p, &path, &note);
  EXPECT_EQ(path, Q2_PATH_STATE_VECTOR) << note;
  EXPECT_NE(note.find("between the controlled powers"), std::string::npos)
      << note;
  EXPECT_NE(note.find("whole register"), std::string::npos) << note;
  expectClose(got, denseProbs(p), 1e-10);
}

TEST(Subspace, StateDataMaterialisesTheTape) {
  SubspaceMode mode(2);
  Program p = qpeProgram(3, 2, false, false, 2, 9);
  Q2Register *r = q2_rt_alloc(p.n);
  issueProgram(r, p);
  VectorXcd got = fetch(r);
  EXPECT_EQ(takeError(), "");
  VectorXcd v = VectorXcd::Zero(int64_t(1) << p.n);
  v[0] = 1;
  for (const Step &s : p.steps)
    for (int64_t k = 0; k < (s.count < 0 ? 1 : s.count); ++k)
      for (const Call &c : s.calls)
        v = (denseOf(c, p.n) * v).eval();
  EXPECT_LT((got - v).norm(), 1e-10);
  q2_rt_dealloc(r);
}

TEST(Subspace, ModeZeroKeepsTheStateVector) {
  SubspaceMode mode(0);
  Program p = qpeProgram(3, 2, false, true, 2, 1);
  int path = 0;
  std::vector<double> got = runtimeProbs(p, &path);
  EXPECT_EQ(path, -1); // no deferred register
  expectClose(got, denseProbs(p), 1e-10);
  EXPECT_EQ(q2_rt_set_subspace_mode(7), 0);
  EXPECT_NE(takeError().find("unknown mode 7"), std::string::npos);
}

TEST(Subspace, LimitErrorNamesTheLiveSubspace) {
  SubspaceMode mode(2);
  int64_t prevMax = q2_rt_set_max_qubits(5);
  // Above the state-vector limit; the eigenphase path runs it.
  Program p = qpeProgram(4, 3, false, true, 2, 2);
  int path = -1;
  std::vector<double> got = runtimeProbs(p, &path);
  EXPECT_EQ(path, Q2_PATH_EIGENPHASES);
  expectClose(got, denseProbs(p), 1e-10);
  // Powers of different unitaries: the live-subspace register of 2^(3+2)
  // amplitudes fits the 5-qubit limit...
  p = qpeProgram(4, 3, true, true, 2, 2);
  got = runtimeProbs(p, &path);
  EXPECT_EQ(path, Q2_PATH_LIVE_SUBSPACE);
  expectClose(got, denseProbs(p), 1e-10);
  // ...but not a 4-qubit one: the error says why, with the subspace.
  q2_rt_set_max_qubits(4);
  std::string error;
  runtimeProbs(p, &path, nullptr, &error);
  EXPECT_NE(error.find("the 7-qubit register does not fit"), std::string::npos)
      << error;
  EXPECT_NE(error.find("live subspace has 2^5 states"), std::string::npos)
      << error;
  q2_rt_set_max_qubits(prevMax);
}

} // namespace
