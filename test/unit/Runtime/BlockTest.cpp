//===- BlockTest.cpp - powered blocks and handle checks vs. dense Eigen ---===//
//
// Every block result is checked against an operator built here, independently
// of the runtime: each gate is a full 2^n x 2^n matrix from Kronecker
// products of textbook 2x2 matrices (controls as I - P + P U), the block is
// their product, and count repetitions are count matrix-vector products.
// Each method (replay, slice replay, dense) is forced in turn, and the cost
// model's own choice is checked too.
//
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "RuntimeInternal.h"
#include "DenseReference.h"
#include "q2/Runtime/QuantumRuntime.h"

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <gtest/gtest.h>
#include <unsupported/Eigen/KroneckerProduct>

#include <algorithm>
#include <array>
#include <memory>
#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace q2::denseref;
namespace rt = q2::runtime;

namespace {

/// One call of a block: a named gate or a Pauli rotation.
struct RefGate {
  bool isPauli = false;
  int gate = Q2_GATE_H;
  double param = 0;
  int adjoint = 0;
  std::string word;
  std::vector<int> targets, ctrls;
};

MatrixXcd refMatrix(const RefGate &g, int n) {
  MatrixXcd u = g.isPauli ? pauliRotation(g.word, g.targets, g.param, n)
                          : gateOperator(g.gate, g.param, g.targets, n);
  if (g.adjoint && !g.isPauli)
    u = u.adjoint().eval();
  return controlled(u, g.ctrls, n);
}

RefGate namedGate(int gate, std::vector<int> targets, double param = 0,
                  int adjoint = 0, std::vector<int> ctrls = {}) {
  RefGate g;
  g.gate = gate;
  g.targets = std::move(targets);
  g.param = param;
  g.adjoint = adjoint;
  g.ctrls = std::move(ctrls);
  return g;
}

void issue(Q2Register *r, const RefGate &g) {
  std::vector<Q2Qubit *> t, c;
  for (int q : g.targets)
    t.push_back(q2_rt_qubit(r, q));
  for (int q : g.ctrls)
    c.push_back(q2_rt_qubit(r, q));
  if (g.isPauli)
    q2_rt_pauli_rot(g.param, g.word.data(), t.data(), int64_t(t.size()),
                    c.data(), int64_t(c.size()));
  else
    q2_rt_gate(g.gate, g.param, t.data(), int64_t(t.size()), c.data(),
               int64_t(c.size()), g.adjoint);
}

/// A random block on qubits `free`, every gate also controlled by `common`.
std::vector<RefGate> randomBlock(const std::vector<int> &free,
                                 const std::vector<int> &common, int numGates,
                                 std::mt19937_64 &gen) {
  std::uniform_real_distribution<double> angle(-M_PI, M_PI);
  std::vector<RefGate> out;
  for (int i = 0; i < numGates; ++i) {
    RefGate g;
    std::vector<int> q = free;
    std::shuffle(q.begin(), q.end(), gen);
    int maxExtra = std::min<int>(2, int(q.size()) - 2);
    int extra = maxExtra > 0 ? int(gen() % (maxExtra + 1)) : 0;
    g.isPauli = gen() % 2;
    if (g.isPauli) {
      int nt = 1 + int(gen() % std::min<size_t>(4, q.size() - extra));
      g.targets.assign(q.begin(), q.begin() + nt);
      for (int k = 0; k < nt; ++k)
        g.word += "IXYZ"[gen() % 4];
      if (gen() % 3 == 0) // Z-only words take the diagonal kernel
        for (char &ch : g.word)
          ch = "IZ"[gen() % 2];
      g.param = angle(gen);
      g.ctrls.assign(q.begin() + nt, q.begin() + nt + extra);
    } else {
      g.gate = 1 + int(gen() % 13); // H .. SWAP
      int nt = g.gate >= Q2_GATE_CNOT ? 2 : 1;
      g.targets.assign(q.begin(), q.begin() + nt);
      g.param = angle(gen);
      g.adjoint = int(gen() % 2);
      g.ctrls.assign(q.begin() + nt,
                     q.begin() + nt + std::min<int>(extra, int(q.size()) - nt));
    }
    for (int c : common)
      g.ctrls.push_back(c);
    out.push_back(g);
  }
  return out;
}

MatrixXcd blockMatrix(const std::vector<RefGate> &gates, int n) {
  MatrixXcd b = MatrixXcd::Identity(int64_t(1) << n, int64_t(1) << n);
  // The same product, with each gate's operator (at most 2^targets
  // non-zeros per column) as a sparse view: a dense 2^n GEMM per gate made
  // the 9-qubit tests the slowest of the suite.
  for (const RefGate &g : gates)
    b = (Eigen::SparseMatrix<cd>(refMatrix(g, n).sparseView()) * b).eval();
  return b;
}

VectorXcd power(const MatrixXcd &b, int64_t count, VectorXcd v) {
  for (int64_t i = 0; i < count; ++i)
    v = (b * v).eval();
  return v;
}

std::vector<Q2BlockStat> readStats() {
  std::vector<Q2BlockStat> s(size_t(q2_rt_block_stats(nullptr, 0)));
  q2_rt_block_stats(s.data(), int64_t(s.size()));
  return s;
}

/// Restores every global knob the tests turn.
class BlockTest : public ::testing::Test {
protected:
  void SetUp() override {
    q2_rt_clear_error();
    q2_rt_reset_block_stats();
    prevMode = q2_rt_set_block_mode(1);
    prevForced = rt::setForcedBlockMethod(-1);
    prevFusion = rt::setFusionEnabled(true);
    prevFold = rt::setCliffordFolding(true);
    prevThreads = q2_rt_get_num_threads();
  }
  void TearDown() override {
    EXPECT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
    q2_rt_clear_error();
    q2_rt_set_block_mode(prevMode);
    rt::setForcedBlockMethod(prevForced);
    rt::setFusionEnabled(prevFusion);
    rt::setCliffordFolding(prevFold);
    q2_rt_set_num_threads(prevThreads);
    q2_rt_set_block_memory_limit(0);
    rt::setSliceBufferBits(13);
    rt::setBlockParallelWork(500e3);
  }
  int prevMode = 1, prevForced = -1, prevThreads = 0;
  bool prevFusion = true, prevFold = true;
};

/// method: -1 cost model, 0/1/2 forced; mode 0 = replay everything.
VectorXcd runBlock(int n, const VectorXcd &psi,
                   const std::vector<RefGate> &gates, int64_t count) {
  Q2Register *r = q2_rt_alloc(n);
  load(r, psi);
  q2_rt_block_begin(count);
  for (const RefGate &g : gates)
    issue(r, g);
  q2_rt_block_end();
  VectorXcd v = fetch(r);
  q2_rt_dealloc(r);
  return v;
}

} // namespace

//===-- exactness ---------------------------------------------------------===//
TEST_F(BlockTest, RandomBlocksAllMethodsMatchDense) {
  std::mt19937_64 gen(2025);
  const int n = 7;
  const int64_t counts[] = {0, 1, 2, 3, 5, 7, 64, 1000};
  int checked = 0;
  for (int numCommon = 0; numCommon <= 2; ++numCommon)
    for (int rep = 0; rep < 2; ++rep) {
      std::vector<int> all = {0, 1, 2, 3, 4, 5, 6};
      std::shuffle(all.begin(), all.end(), gen);
      std::vector<int> common(all.begin(), all.begin() + numCommon);
      // Leave one qubit untouched by the block now and then (a slice bit).
      std::vector<int> free(all.begin() + numCommon,
                            all.end() - (rep == 0 ? 1 : 0));
      auto gates = randomBlock(free, common, 12 + int(gen() % 10), gen);
      MatrixXcd b = blockMatrix(gates, n);
      VectorXcd psi = randomState(n, gen);
      for (int64_t count : counts) {
        VectorXcd want = power(b, count, psi);
        for (int method = -1; method <= 2; ++method) {
          SCOPED_TRACE("common=" + std::to_string(numCommon) + " count=" +
                       std::to_string(count) + " method=" +
                       std::to_string(method));
          rt::setForcedBlockMethod(method);
          VectorXcd got = runBlock(n, psi, gates, count);
          ASSERT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
          EXPECT_LT((got - want).cwiseAbs().maxCoeff(), 1e-10);
          ++checked;
        }
        // Mode 0: everything replayed gate by gate.
        q2_rt_set_block_mode(0);
        EXPECT_LT((runBlock(n, psi, gates, count) - want).cwiseAbs().maxCoeff(),
                  1e-10);
        q2_rt_set_block_mode(2);
        rt::setForcedBlockMethod(-1);
        EXPECT_LT((runBlock(n, psi, gates, count) - want).cwiseAbs().maxCoeff(),
                  1e-10);
        q2_rt_set_block_mode(1);
      }
    }
  EXPECT_EQ(checked, 3 * 2 * 8 * 4);
}

/// Slice replay with several groups and batches, split over threads, and
/// dense panels / GEMM panels split too (parallel work threshold 0).
TEST_F(BlockTest, ThreadedSlicesAndPanelsMatchDense) {
  std::mt19937_64 gen(77);
  const int n = 8;
  q2_rt_set_num_threads(2);
  rt::setBlockParallelWork(0);
  std::vector<int> free = {0, 2, 3, 5, 6}, common = {7};
  auto gates = randomBlock(free, common, 25, gen);
  MatrixXcd b = blockMatrix(gates, n);
  VectorXcd psi = randomState(n, gen);
  for (int bits : {5, 6, 8, 13}) { // buffer = m, m+1, ... qubits
    rt::setSliceBufferBits(bits);
    for (int method : {1, 2})
      for (int64_t count : {1, 3, 10}) {
        rt::setForcedBlockMethod(method);
        VectorXcd got = runBlock(n, psi, gates, count);
        EXPECT_LT((got - power(b, count, psi)).cwiseAbs().maxCoeff(), 1e-10)
            << "bits=" << bits << " method=" << method << " count=" << count;
      }
  }
}

TEST_F(BlockTest, NestedBlocksMatchDense) {
  std::mt19937_64 gen(31);
  const int n = 6;
  // outer(c1) { A; inner(c2) { B; innermost(c3) { C } }; D }, the inner
  // levels with an extra common control of their own.
  std::vector<int> common = {5};
  auto A = randomBlock({0, 1, 2, 3}, common, 5, gen);
  auto B = randomBlock({0, 1, 2}, {5, 4}, 4, gen);
  auto C = randomBlock({1, 2, 3}, {5}, 3, gen);
  auto D = randomBlock({0, 2, 3, 4}, common, 5, gen);
  auto mpow = [](const MatrixXcd &m, int64_t k) {
    MatrixXcd r = MatrixXcd::Identity(m.rows(), m.cols());
    for (int64_t i = 0; i < k; ++i)
      r = (m * r).eval();
    return r;
  };
  VectorXcd psi = randomState(n, gen);
  for (auto [c1, c2, c3] : std::vector<std::array<int64_t, 3>>{
           {1, 1, 1}, {3, 2, 5}, {7, 0, 3}, {2, 64, 1}, {5, 3, 0}}) {
    MatrixXcd innermost = mpow(blockMatrix(C, n), c3);
    MatrixXcd inner = mpow(innermost * blockMatrix(B, n), c2);
    MatrixXcd outer = blockMatrix(D, n) * inner * blockMatrix(A, n);
    VectorXcd want = power(outer, c1, psi);
    for (int mode : {0, 1, 2})
      for (int method = -1; method <= 2; ++method) {
        if (mode == 0 && method >= 0)
          continue;
        q2_rt_set_block_mode(mode);
        rt::setForcedBlockMethod(method);
        Q2Register *r = q2_rt_alloc(n);
        load(r, psi);
        q2_rt_block_begin(c1);
        for (auto &g : A)
          issue(r, g);
        q2_rt_block_begin(c2);
        for (auto &g : B)
          issue(r, g);
        q2_rt_block_begin(c3);
        for (auto &g : C)
          issue(r, g);
        q2_rt_block_end();
        q2_rt_block_end();
        for (auto &g : D)
          issue(r, g);
        q2_rt_block_end();
        ASSERT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
        EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-10)
            << "counts " << c1 << "," << c2 << "," << c3 << " mode " << mode
            << " method " << method;
        q2_rt_dealloc(r);
      }
  }
  q2_rt_set_block_mode(1);
}

/// QPE-like: the same block controlled by different estimation qubits with
/// count 2^k reuses the cached powers (stats say so) and stays exact; a block
/// that differs only in one angle is not taken from the cache.
TEST_F(BlockTest, CacheReuseAcrossControlsAndNotAcrossParameters) {
  std::mt19937_64 gen(5);
  const int nSys = 4, nEst = 3, n = nSys + nEst;
  std::vector<int> sys = {0, 1, 2, 3};
  auto body = randomBlock(sys, {}, 15, gen);
  q2_rt_set_block_mode(2);
  VectorXcd psi = randomState(n, gen), want = psi;
  Q2Register *r = q2_rt_alloc(n);
  load(r, psi);
  for (int k = 0; k < nEst; ++k) {
    auto gates = body;
    for (auto &g : gates)
      g.ctrls.push_back(nSys + k);
    want = power(blockMatrix(gates, n), int64_t(3) << k, want);
    q2_rt_block_begin(int64_t(3) << k);
    for (auto &g : gates)
      issue(r, g);
    q2_rt_block_end();
  }
  EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-10);
  auto st = readStats();
  ASSERT_EQ(st.size(), size_t(nEst)); // counts differ: one entry each
  for (int k = 0; k < nEst; ++k) {
    EXPECT_EQ(st[k].method, 2);
    EXPECT_EQ(st[k].num_qubits, nSys);
    EXPECT_EQ(st[k].num_controls, 1);
    EXPECT_EQ(st[k].count, int64_t(3) << k);
    EXPECT_EQ(st[k].num_gates, 15);
    EXPECT_EQ(st[k].occurrences, 1);
    EXPECT_EQ(st[k].reused, k == 0 ? 0 : 1) << k;
  }
  // Same count on the last wire again: U^12 itself comes from the cache.
  q2_rt_reset_block_stats();
  {
    auto gates = body;
    for (auto &g : gates)
      g.ctrls.push_back(nSys);
    want = power(blockMatrix(gates, n), 12, want);
    q2_rt_block_begin(12);
    for (auto &g : gates)
      issue(r, g);
    q2_rt_block_end();
    EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_EQ(readStats().at(0).reused, 1);
  }
  // One angle changed by one ulp: a different block, not reused.
  q2_rt_reset_block_stats();
  {
    auto gates = body;
    for (auto &g : gates)
      g.ctrls.push_back(nSys + 1);
    size_t i = 0;
    while (gates[i].isPauli == false && gates[i].gate < Q2_GATE_RX)
      ++i;
    gates[i].param = std::nextafter(gates[i].param, 10.0);
    want = power(blockMatrix(gates, n), 6, want);
    q2_rt_block_begin(6);
    for (auto &g : gates)
      issue(r, g);
    q2_rt_block_end();
    EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_EQ(readStats().at(0).reused, 0);
  }
  // A genuinely different angle.
  q2_rt_reset_block_stats();
  {
    auto gates = body;
    for (auto &g : gates) {
      g.ctrls.push_back(nSys + 2);
      if (g.isPauli)
        g.param *= 1.5;
    }
    want = power(blockMatrix(gates, n), 3, want);
    q2_rt_block_begin(3);
    for (auto &g : gates)
      issue(r, g);
    q2_rt_block_end();
    EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_EQ(readStats().at(0).reused, 0);
  }
  q2_rt_dealloc(r);
}

/// Decomposed Pauli rotations control only their RZ: the estimation wire is
/// then one of the block's qubits, not a common control. The same gates on
/// the next wire (another qubit set, the same local structure) reuse U and
/// its powers, and stay exact.
TEST_F(BlockTest, CacheReuseAcrossQubitSetsWithTheSameLocalShape) {
  std::mt19937_64 gen(17);
  const int nSys = 3, nEst = 3, n = nSys + nEst;
  auto body = randomBlock({0, 1, 2}, {}, 12, gen);
  q2_rt_set_block_mode(2);
  VectorXcd psi = randomState(n, gen), want = psi;
  Q2Register *r = q2_rt_alloc(n);
  load(r, psi);
  for (int k = 0; k < nEst; ++k) {
    auto gates = body;
    for (size_t i = 0; i < gates.size(); i += 3) // some gates only
      gates[i].ctrls.push_back(nSys + k);
    want = power(blockMatrix(gates, n), int64_t(5) << k, want);
    q2_rt_block_begin(int64_t(5) << k);
    for (auto &g : gates)
      issue(r, g);
    q2_rt_block_end();
  }
  EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-10);
  auto st = readStats();
  ASSERT_EQ(st.size(), size_t(nEst));
  for (int k = 0; k < nEst; ++k) {
    EXPECT_EQ(st[k].method, 2);
    EXPECT_EQ(st[k].num_qubits, nSys + 1);
    EXPECT_EQ(st[k].num_controls, 0);
    EXPECT_EQ(st[k].reused, k == 0 ? 0 : 1) << k;
  }
  q2_rt_dealloc(r);
  q2_rt_set_block_mode(1);
}

/// A decomposed Pauli rotation as the compiler emits it: basis change
/// (H / RX(pi/2)), a CNOT chain, RZ controlled by the estimation wire, the
/// chain back, the basis change undone in the same order.
std::vector<RefGate> decomposedRotation(const std::string &word,
                                        const std::vector<int> &qubits,
                                        double theta, int ctrl) {
  std::vector<RefGate> out;
  auto basis = [&](bool undo) {
    for (size_t i = 0; i < word.size(); ++i) {
      RefGate g;
      g.targets = {qubits[i]};
      if (word[i] == 'X')
        g.gate = Q2_GATE_H;
      else if (word[i] == 'Y') {
        g.gate = Q2_GATE_RX;
        g.param = undo ? -M_PI / 2 : M_PI / 2;
      } else
        continue;
      out.push_back(g);
    }
  };
  auto cnot = [&](int a, int b) {
    RefGate g;
    g.gate = Q2_GATE_X;
    g.targets = {b};
    g.ctrls = {a};
    out.push_back(g);
  };
  basis(false);
  for (size_t k = 0; k + 1 < qubits.size(); ++k)
    cnot(qubits[k], qubits[k + 1]);
  RefGate rz;
  rz.gate = Q2_GATE_RZ;
  rz.param = theta;
  rz.targets = {qubits.back()};
  rz.ctrls = {ctrl};
  out.push_back(rz);
  for (size_t k = qubits.size() - 1; k-- > 0;)
    cnot(qubits[k], qubits[k + 1]);
  basis(true);
  return out;
}

/// Only the RZs carry the estimation wire as a control, yet the block is
/// the identity where the wire is 0: the runtime finds that (the other
/// gates cancel), builds U on the system qubits only (m = 4, + 1 control)
/// and stays exact; with one gate that does not cancel it must not.
TEST_F(BlockTest, ControlOfADecomposedBlockIsFound) {
  const int nSys = 4, nEst = 2, n = nSys + nEst;
  std::mt19937_64 gen(23);
  std::uniform_real_distribution<double> ang(-1.5, 1.5);
  auto block = [&](int wire) {
    std::vector<RefGate> gates;
    for (const char *w : {"XXYY", "XYYX", "ZZ", "YZ", "Z"}) {
      std::vector<int> q;
      for (int i = 0; i < int(std::strlen(w)); ++i)
        q.push_back(i);
      auto r = decomposedRotation(w, q, ang(gen), wire);
      gates.insert(gates.end(), r.begin(), r.end());
    }
    return gates;
  };
  q2_rt_set_block_mode(2);
  // Without folding the control search finds the wire; with it the folded
  // rotations carry it themselves. Same shape either way.
  for (bool fold : {false, true})
  for (bool spoil : {false, true}) {
    SCOPED_TRACE(fold ? "folded" : "not folded");
    bool prevFold = rt::setCliffordFolding(fold);
    VectorXcd psi = randomState(n, gen), want = psi;
    Q2Register *r = q2_rt_alloc(n);
    load(r, psi);
    q2_rt_reset_block_stats();
    auto gates = block(nSys);
    if (spoil) { // an H that nothing undoes
      RefGate h;
      h.gate = Q2_GATE_H;
      h.targets = {1};
      gates.insert(gates.begin() + 3, h);
    }
    want = power(blockMatrix(gates, n), 7, want);
    q2_rt_block_begin(7);
    for (auto &g : gates)
      issue(r, g);
    q2_rt_block_end();
    ASSERT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
    EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-10) << spoil;
    auto st = readStats();
    ASSERT_EQ(st.size(), 1u);
    EXPECT_EQ(st[0].num_controls, spoil ? 0 : 1) << spoil;
    EXPECT_EQ(st[0].num_qubits, spoil ? nSys + 1 : nSys) << spoil;
    // Five decomposed words fold to five rotations; a spoiled frame keeps
    // its gates.
    EXPECT_EQ(st[0].num_ops, fold && !spoil ? 5 : st[0].num_gates) << spoil;
    q2_rt_dealloc(r);
    rt::setCliffordFolding(prevFold);
  }
  q2_rt_set_block_mode(1);
}

/// Pauli-frame folding (CliffordFold.cpp) against dense matrices of the
/// recorded gates: every Clifford the fold knows (H, X, Y, Z, S, S-dagger,
/// CNOT in both spellings, CZ in both spellings, SWAP, RX/RY at +-pi/2 and
/// +-pi, adjoint flags), rotations of every kind with and without controls,
/// Ops that stop a frame (T, a controlled H, a rotation controlled inside
/// the frame, a nested block), frames that end as the identity, as a
/// multiple of it (X Y Z = i I) and as neither. All methods, several counts.
TEST_F(BlockTest, CliffordFramesFoldExactly) {
  std::mt19937_64 gen(8128);
  const int nSys = 5, n = nSys + 2, wire = nSys, wire2 = nSys + 1;
  std::uniform_real_distribution<double> ang(-M_PI, M_PI);
  auto randomClifford = [&]() {
    int a = int(gen() % nSys), b = (a + 1 + int(gen() % (nSys - 1))) % nSys;
    const double q[] = {M_PI / 2, -M_PI / 2, M_PI, -M_PI};
    switch (gen() % 12) {
    case 0: return namedGate(Q2_GATE_H, {a});
    case 1: return namedGate(Q2_GATE_X, {a});
    case 2: return namedGate(Q2_GATE_Y, {a});
    case 3: return namedGate(Q2_GATE_Z, {a});
    case 4: return namedGate(Q2_GATE_S, {a}, 0, int(gen() % 2));
    case 5: return namedGate(Q2_GATE_CNOT, {a, b});
    case 6: return namedGate(Q2_GATE_X, {b}, 0, 0, {a});
    case 7: return namedGate(Q2_GATE_CZ, {a, b});
    case 8: return namedGate(Q2_GATE_Z, {b}, 0, 0, {a});
    case 9: return namedGate(Q2_GATE_SWAP, {a, b});
    case 10: return namedGate(Q2_GATE_RX, {a}, q[gen() % 4], int(gen() % 2));
    default: return namedGate(Q2_GATE_RY, {a}, q[gen() % 4], int(gen() % 2));
    }
  };
  auto randomRotation = [&](int ctrl) {
    std::vector<int> c = {ctrl};
    if (gen() % 2) {
      RefGate p;
      p.isPauli = true;
      int w = 1 + int(gen() % 3);
      std::vector<int> q = {0, 1, 2, 3, 4};
      std::shuffle(q.begin(), q.end(), gen);
      p.targets.assign(q.begin(), q.begin() + w);
      for (int k = 0; k < w; ++k)
        p.word += "XYZ"[gen() % 3];
      p.param = ang(gen);
      p.ctrls = c;
      return p;
    }
    int g = Q2_GATE_RX + int(gen() % 3);
    return namedGate(g, {int(gen() % nSys)}, ang(gen), int(gen() % 2), c);
  };
  // A frame, rotations through it, the frame undone gate by gate (mirror =
  // adjoints in reverse order), as the compiler's decomposition leaves it.
  auto mirrored = [&](int numCliffords, int numRotations, int ctrl) {
    std::vector<RefGate> f, out;
    for (int i = 0; i < numCliffords; ++i)
      f.push_back(randomClifford());
    out = f;
    for (int i = 0; i < numRotations; ++i)
      out.push_back(randomRotation(ctrl));
    for (auto it = f.rbegin(); it != f.rend(); ++it) {
      RefGate g = *it;
      if (g.gate == Q2_GATE_S || g.gate == Q2_GATE_RX || g.gate == Q2_GATE_RY)
        g.adjoint ^= 1;
      out.push_back(g);
    }
    return out;
  };
  struct Case {
    std::string name;
    std::vector<RefGate> gates;
    bool folds;
  };
  std::vector<Case> cases;
  {
    Case c{"decomposed words", {}, true};
    for (const char *w : {"XXYY", "YZZX", "ZZ", "Y", "XZY"}) {
      std::vector<int> q;
      for (int i = 0; i < int(std::strlen(w)); ++i)
        q.push_back((i * 2 + 1) % nSys);
      auto r = decomposedRotation(w, q, ang(gen), wire);
      c.gates.insert(c.gates.end(), r.begin(), r.end());
    }
    cases.push_back(c);
  }
  for (int k = 0; k < 6; ++k)
    cases.push_back({"mirrored frame " + std::to_string(k),
                     mirrored(4 + k * 3, 1 + k, k % 2 ? wire : wire2), true});
  {
    Case c{"phase frame", {}, true}; // Z, Y, X on one qubit: X Y Z = i I
    c.gates = {namedGate(Q2_GATE_Z, {2}), randomRotation(wire), namedGate(Q2_GATE_Y, {2}),
               randomRotation(wire), namedGate(Q2_GATE_X, {2})};
    cases.push_back(c);
  }
  {
    Case c{"open frame", {}, false}; // Cliffords that are not undone
    for (int i = 0; i < 12; ++i)
      c.gates.push_back(i % 3 == 2 ? randomRotation(wire) : randomClifford());
    cases.push_back(c);
  }
  {
    Case c{"stops", {}, true}; // Ops that cannot pass, between folded frames
    auto a = mirrored(5, 3, wire), b = mirrored(6, 2, wire);
    c.gates = a;
    c.gates.push_back(namedGate(Q2_GATE_T, {1}, 0, 1));
    c.gates.push_back(namedGate(Q2_GATE_H, {3}, 0, 0, {wire}));
    auto mid = mirrored(3, 0, wire);     // frame open across the next Op:
    mid.insert(mid.begin() + 3, namedGate(Q2_GATE_RZ, {0}, 0.7, 0, {1})); // stops
    c.gates.insert(c.gates.end(), mid.begin(), mid.end());
    c.gates.insert(c.gates.end(), b.begin(), b.end());
    cases.push_back(c);
  }
  const int64_t counts[] = {0, 1, 3, 6};
  // Frame phases measured sparsely (default) and densely (limit 1 state).
  for (size_t sparse : {size_t(4096), size_t(1)})
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name + (sparse == 1 ? " (dense phase)" : ""));
    size_t prevSparse = rt::setCliffordFoldSparseLimit(sparse);
    MatrixXcd b = blockMatrix(c.gates, n);
    VectorXcd psi = randomState(n, gen);
    for (int64_t count : counts) {
      VectorXcd want = power(b, count, psi);
      for (int method = -1; method <= 2; ++method) {
        SCOPED_TRACE("count=" + std::to_string(count) +
                     " method=" + std::to_string(method));
        rt::setForcedBlockMethod(method);
        q2_rt_reset_block_stats();
        VectorXcd got = runBlock(n, psi, c.gates, count);
        ASSERT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
        EXPECT_LT((got - want).cwiseAbs().maxCoeff(), 1e-10);
        auto st = readStats();
        ASSERT_EQ(st.size(), 1u);
        EXPECT_EQ(st[0].num_gates, int64_t(c.gates.size()));
        if (count > 0) {
          if (c.folds)
            EXPECT_LT(st[0].num_ops, st[0].num_gates);
          else
            EXPECT_EQ(st[0].num_ops, st[0].num_gates);
        }
      }
    }
    rt::setCliffordFoldSparseLimit(prevSparse);
  }
  rt::setForcedBlockMethod(-1);
}

/// The dense apply skips slices that are all zero (QPE's later wires are
/// still |0>): states whose spectator qubits are 0 on some branches, one
/// amplitude of a slice non-zero, and everything zero.
TEST_F(BlockTest, DenseApplySkipsZeroSlicesExactly) {
  std::mt19937_64 gen(31);
  const int n = 8; // block on 0..3 under control 4; spectators 5, 6, 7
  auto gates = randomBlock({0, 1, 2, 3}, {4}, 20, gen);
  MatrixXcd b = blockMatrix(gates, n);
  rt::setForcedBlockMethod(2);
  for (int variant = 0; variant < 4; ++variant) {
    VectorXcd psi = randomState(n, gen);
    for (int64_t y = 0; y < psi.size(); ++y) {
      bool zero = variant == 0 ? (y >> 6) != 0          // qubits 6, 7 = 0
                  : variant == 1 ? ((y >> 5) & 1) == 1  // qubit 5 = 1
                  : variant == 2 ? (y & 15) != 3        // one amp per slice
                                 : true;                // all zero
      if (zero)
        psi[y] = 0;
    }
    if (variant != 3)
      psi.normalize();
    for (int64_t count : {1, 5}) {
      VectorXcd got = runBlock(n, psi, gates, count);
      EXPECT_LT((got - power(b, count, psi)).cwiseAbs().maxCoeff(), 1e-12)
          << "variant " << variant << " count " << count;
    }
  }
  rt::setForcedBlockMethod(-1);
}

/// A nested block inside a frame stops it; the nested body is left alone
/// and the whole stays exact.
TEST_F(BlockTest, CliffordFoldAroundNestedBlock) {
  std::mt19937_64 gen(5);
  const int n = 5, wire = 4;
  auto gates = decomposedRotation("XYZ", {0, 1, 2}, 0.4, wire);
  auto inner = decomposedRotation("ZX", {1, 3}, -0.9, wire);
  VectorXcd psi = randomState(n, gen);
  MatrixXcd in = blockMatrix(inner, n);
  MatrixXcd inner3 = in * in * in;
  // gates[0..3) | nested(inner x3) | gates[3..) — the nest sits inside the
  // first frame (after the basis change), so that frame cannot fold.
  std::vector<RefGate> before(gates.begin(), gates.begin() + 3),
      after(gates.begin() + 3, gates.end());
  MatrixXcd whole =
      blockMatrix(after, n) * inner3 * blockMatrix(before, n);
  for (int method = -1; method <= 2; ++method) {
    rt::setForcedBlockMethod(method);
    Q2Register *r = q2_rt_alloc(n);
    load(r, psi);
    q2_rt_block_begin(2);
    for (auto &g : before)
      issue(r, g);
    q2_rt_block_begin(3);
    for (auto &g : inner)
      issue(r, g);
    q2_rt_block_end();
    for (auto &g : after)
      issue(r, g);
    q2_rt_block_end();
    ASSERT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
    EXPECT_LT((fetch(r) - whole * (whole * psi)).cwiseAbs().maxCoeff(), 1e-10)
        << method;
    q2_rt_dealloc(r);
  }
  rt::setForcedBlockMethod(-1);
}

/// A memory limit below 3 matrices refuses dense even in mode 2 (on the
/// whole space: the random block's flips may leave smaller cosets, whose
/// matrices would fit).
TEST_F(BlockTest, MemoryLimitRefusesDense) {
  struct NoCosets {
    int prev = rt::setCosetMinQubits(64);
    ~NoCosets() { rt::setCosetMinQubits(prev); }
  } noCosets;
  std::mt19937_64 gen(8);
  const int n = 7;
  auto gates = randomBlock({0, 1, 2, 3, 4, 5}, {6}, 10, gen);
  VectorXcd psi = randomState(n, gen);
  VectorXcd want = power(blockMatrix(gates, n), 9, psi);
  q2_rt_set_block_mode(2);
  int64_t def = q2_rt_set_block_memory_limit(3 * 16 * 4096 - 1); // m = 6
  EXPECT_GE(def, int64_t(1) << 20);
  EXPECT_LT((runBlock(n, psi, gates, 9) - want).cwiseAbs().maxCoeff(), 1e-10);
  auto st = readStats();
  ASSERT_EQ(st.size(), 1u);
  EXPECT_NE(st[0].method, 2);
  EXPECT_EQ(q2_rt_set_block_memory_limit(3 * 16 * 4096), 3 * 16 * 4096 - 1);
  q2_rt_reset_block_stats();
  EXPECT_LT((runBlock(n, psi, gates, 9) - want).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_EQ(readStats().at(0).method, 2);
  EXPECT_EQ(q2_rt_set_block_memory_limit(0), 3 * 16 * 4096);
}

/// Runs one random 5-qubit controlled block (m = 5) at each count in turn
/// on one register, densely, with room for `matrices` matrices in the
/// cache (which lives as long as the register); after each count the state
/// must equal the dense powers applied so far.
static void runCountsOnOneRegister(uint64_t seed, int64_t matrices,
                                   const std::vector<int64_t> &counts) {
  std::mt19937_64 gen(seed);
  const int n = 7, m = 5;
  auto gates = randomBlock({0, 1, 2, 3, 4}, {5}, 12, gen);
  MatrixXcd b = blockMatrix(gates, n);
  VectorXcd psi = randomState(n, gen), want = psi;
  q2_rt_set_block_mode(2);
  q2_rt_set_block_memory_limit(matrices * (int64_t(16) << (2 * m)));
  Q2Register *r = q2_rt_alloc(n);
  load(r, psi);
  for (int64_t count : counts) {
    q2_rt_block_begin(count);
    for (const RefGate &g : gates)
      issue(r, g);
    q2_rt_block_end();
    want = power(b, count, want);
    EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-9) << count;
  }
  q2_rt_dealloc(r);
}

/// QPE's wires run U^(c 2^k), k = 0, 1, ...: with room for only four
/// matrices, the cache must keep the newest power, so every wire after the
/// first costs one squaring (it used to keep the oldest, and wire k redid
/// the squarings from them), and the state still matches dense powers.
TEST_F(BlockTest, CachedPowersFollowTheWiresWithinTheBudget) {
  const int wires = 10;
  std::vector<int64_t> counts;
  for (int k = 0; k < wires; ++k)
    counts.push_back(int64_t(3) << k);
  runCountsOnOneRegister(31, 4, counts);
  auto st = readStats();
  ASSERT_EQ(st.size(), size_t(wires));
  for (int k = 0; k < wires; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(st[size_t(k)].count, counts[size_t(k)]);
    EXPECT_EQ(st[size_t(k)].method, 2);
    // U^3 = U^2 U; then one squaring of the previous wire's power.
    EXPECT_EQ(st[size_t(k)].products, k == 0 ? 2 : 1);
    EXPECT_EQ(st[size_t(k)].reused, k == 0 ? 0 : 1);
  }
}

/// Counts that no cached power divides by a power of two take the binary
/// method from the cached powers of two; a three-matrix budget keeps
/// evicting, and once larger powers are cached (after 3200) the stores of
/// smaller ones fail (uncached temporaries). The state must follow the
/// dense powers count after count on one register. (The binary method used
/// to start from the largest cached U^(2^a) and drop count's bits below a:
/// U^77 after U^32 was cached came out as U^64.)
TEST_F(BlockTest, BinaryPowersWithAFullCacheMatchDense) {
  runCountsOnOneRegister(37, 3, {50, 77, 100, 205, 1000, 409, 3200, 819});
  auto st = readStats();
  EXPECT_EQ(st.size(), 8u);
  for (const Q2BlockStat &x : st)
    EXPECT_EQ(x.method, 2) << x.count;
}

/// Fusion pending before a block is applied first; the block's gates are not
/// fused (they are recorded).
TEST_F(BlockTest, PendingFusionIsFlushedBeforeTheBlock) {
  int64_t prevMin = rt::setFusionMinQubits(1);
  int prevPolicy = rt::setFusionPolicy(1);
  std::mt19937_64 gen(12);
  const int n = 5;
  auto pre = randomBlock({0, 1, 2}, {}, 4, gen);
  auto gates = randomBlock({0, 1, 2, 3}, {4}, 8, gen);
  VectorXcd psi = randomState(n, gen);
  VectorXcd want = power(blockMatrix(gates, n), 4, blockMatrix(pre, n) * psi);
  for (int method = 0; method <= 2; ++method) {
    rt::setForcedBlockMethod(method);
    Q2Register *r = q2_rt_alloc(n);
    load(r, psi);
    for (auto &g : pre)
      issue(r, g);
    q2_rt_block_begin(4);
    for (auto &g : gates)
      issue(r, g);
    q2_rt_block_end();
    EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-10) << method;
    EXPECT_EQ(q2_rt_gate_count(r), int64_t(pre.size() + gates.size()));
    q2_rt_dealloc(r);
  }
  rt::setFusionMinQubits(prevMin);
  rt::setFusionPolicy(prevPolicy);
}

TEST_F(BlockTest, EmptyAndIdentityBlocks) {
  Q2Register *r = q2_rt_alloc(3);
  Q2Qubit *q0 = q2_rt_qubit(r, 0), *q2 = q2_rt_qubit(r, 2);
  q2_rt_gate(Q2_GATE_H, 0, &q0, 1, nullptr, 0, 0);
  VectorXcd before = fetch(r);
  q2_rt_block_begin(5); // nothing recorded
  q2_rt_block_end();
  q2_rt_block_begin(3); // identity gates only
  q2_rt_gate(Q2_GATE_IDENTITY, 0, &q0, 1, nullptr, 0, 0);
  q2_rt_block_end();
  EXPECT_LT((fetch(r) - before).cwiseAbs().maxCoeff(), 1e-15);
  // A controlled identity word: a relative phase on the control's subspace,
  // powered: exp(-i 0.3/2)^4 where q2 = 1.
  q2_rt_gate(Q2_GATE_H, 0, &q2, 1, nullptr, 0, 0);
  VectorXcd v = fetch(r);
  q2_rt_block_begin(4);
  q2_rt_pauli_rot(0.3, "", nullptr, 0, &q2, 1);
  q2_rt_block_end();
  VectorXcd got = fetch(r);
  for (int i = 0; i < 8; ++i) {
    cd f = (i & 4) ? std::exp(-I1 * 0.6) : cd(1, 0);
    EXPECT_LT(std::abs(got[i] - f * v[i]), 1e-14) << i;
  }
  q2_rt_dealloc(r);
}

//===-- errors ------------------------------------------------------------===//
TEST_F(BlockTest, RecordingErrors) {
  Q2Register *r = q2_rt_alloc(3), *other = q2_rt_alloc(2);
  Q2Qubit *q0 = q2_rt_qubit(r, 0), *o0 = q2_rt_qubit(other, 0);
  double p[2];

  q2_rt_block_begin(2);
  q2_rt_gate(Q2_GATE_X, 0, &q0, 1, nullptr, 0, 0);
  q2_rt_probs(&q0, 1, p);
  EXPECT_NE(takeError().find("q2_rt_probs: not allowed while a block is being "
                             "recorded"),
            std::string::npos);
  // clear_error dropped the recording: the X was never applied.
  EXPECT_EQ(fetch(r)[0], cd(1, 0));

  q2_rt_block_begin(1);
  EXPECT_EQ(q2_rt_measure(q0), -1);
  EXPECT_NE(takeError().find("q2_rt_measure: not allowed"), std::string::npos);
  q2_rt_block_begin(1);
  EXPECT_EQ(q2_rt_alloc(2), nullptr);
  EXPECT_NE(takeError().find("q2_rt_alloc: not allowed"), std::string::npos);

  q2_rt_block_end();
  EXPECT_NE(takeError().find("q2_rt_block_end: no open block"),
            std::string::npos);

  q2_rt_block_begin(-1);
  EXPECT_NE(takeError().find("q2_rt_block_begin: negative count -1"),
            std::string::npos);

  for (int i = 0; i < 17; ++i)
    q2_rt_block_begin(1);
  EXPECT_NE(takeError().find("nested deeper than 16 levels"), std::string::npos);
  // 16 levels are fine.
  for (int i = 0; i < 16; ++i)
    q2_rt_block_begin(1);
  q2_rt_gate(Q2_GATE_X, 0, &q0, 1, nullptr, 0, 0);
  for (int i = 0; i < 16; ++i)
    q2_rt_block_end();
  EXPECT_EQ(q2_rt_last_error(), nullptr);
  EXPECT_EQ(fetch(r)[1], cd(1, 0));

  // Gates on two registers in one block.
  int64_t otherCount = q2_rt_gate_count(other);
  q2_rt_block_begin(1);
  q2_rt_gate(Q2_GATE_X, 0, &q0, 1, nullptr, 0, 0);
  q2_rt_gate(Q2_GATE_X, 0, &o0, 1, nullptr, 0, 0);
  EXPECT_EQ(q2_rt_gate_count(other), otherCount); // refused: not counted
  EXPECT_NE(q2_rt_last_error(), nullptr);
  q2_rt_block_end(); // balanced while the error is pending: no-op
  EXPECT_NE(takeError().find("all gates of a block must act on one register"),
            std::string::npos);
  EXPECT_EQ(fetch(r)[1], cd(1, 0)); // unchanged

  // An error inside a recording (bad gate) drops the block at its end.
  q2_rt_block_begin(1);
  q2_rt_gate(Q2_GATE_X, 0, &q0, 1, nullptr, 0, 0);
  q2_rt_gate(99, 0, &q0, 1, nullptr, 0, 0);
  q2_rt_block_end();
  EXPECT_NE(takeError().find("unknown gate 99"), std::string::npos);
  EXPECT_EQ(fetch(r)[1], cd(1, 0));
  EXPECT_FALSE(rt::recording());

  // Dealloc inside a recording: an error, the recording is dropped, the
  // register freed (no leak).
  Q2Register *tmp = q2_rt_alloc(2);
  q2_rt_block_begin(1);
  q2_rt_dealloc(tmp);
  EXPECT_NE(takeError().find("q2_rt_dealloc: not allowed"), std::string::npos);
  EXPECT_FALSE(rt::recording());
  EXPECT_EQ(q2_rt_num_qubits(tmp), 0);
  EXPECT_NE(takeError().find("invalid register handle"), std::string::npos);

  EXPECT_EQ(q2_rt_set_block_mode(7), 1);
  EXPECT_NE(takeError().find("mode 7 is not 0, 1 or 2"), std::string::npos);

  // Recording keeps working afterwards.
  q2_rt_block_begin(3);
  q2_rt_gate(Q2_GATE_X, 0, &q0, 1, nullptr, 0, 0);
  q2_rt_block_end();
  EXPECT_EQ(fetch(r)[0], cd(1, 0));
  q2_rt_dealloc(r);
  q2_rt_dealloc(other);
}

TEST_F(BlockTest, StatsStayBounded) {
  Q2Register *r = q2_rt_alloc(3);
  Q2Qubit *q[3] = {q2_rt_qubit(r, 0), q2_rt_qubit(r, 1), q2_rt_qubit(r, 2)};
  for (int i = 0; i < 1000; ++i) {
    q2_rt_block_begin(i); // 1000 distinct counts
    q2_rt_gate(Q2_GATE_RX, 0.1, &q[i % 3], 1, nullptr, 0, 0);
    q2_rt_block_end();
  }
  auto st = readStats();
  ASSERT_EQ(st.size(), 256u);
  EXPECT_EQ(st.back().num_qubits, -1); // the overflow entry
  int64_t total = 0;
  for (auto &s : st)
    total += s.occurrences;
  EXPECT_EQ(total, 1000);
  q2_rt_reset_block_stats();
  EXPECT_EQ(q2_rt_block_stats(nullptr, 0), 0);
  // Identical blocks fold into one entry.
  for (int i = 0; i < 10; ++i) {
    q2_rt_block_begin(4);
    q2_rt_gate(Q2_GATE_RX, 0.1, &q[0], 1, &q[1], 1, 0);
    q2_rt_gate(Q2_GATE_H, 0, &q[2], 1, &q[1], 1, 0);
    q2_rt_block_end();
  }
  st = readStats();
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0].occurrences, 10);
  EXPECT_EQ(st[0].num_qubits, 2);
  EXPECT_EQ(st[0].num_controls, 1);
  EXPECT_EQ(st[0].num_gates, 2);
  EXPECT_GE(st[0].seconds, 0.0);
  Q2BlockStat one;
  EXPECT_EQ(q2_rt_block_stats(&one, 1), 1);
  EXPECT_EQ(one.count, 4);
  q2_rt_dealloc(r);
}

//===-- invalid handles ---------------------------------------------------===//
TEST_F(BlockTest, InvalidHandlesAreErrorsNotCrashes) {
  Q2Register *r = q2_rt_alloc(3);
  Q2Qubit *q0 = q2_rt_qubit(r, 0);
  q2_rt_dealloc(r);

  // Double dealloc.
  q2_rt_dealloc(r);
  EXPECT_NE(takeError().find("q2_rt_dealloc: invalid register handle (its "
                             "register was deallocated)"),
            std::string::npos);
  // Use after dealloc: gate, rotation, measure, probs, qubit, state.
  q2_rt_gate(Q2_GATE_H, 0, &q0, 1, nullptr, 0, 0);
  EXPECT_NE(takeError().find("q2_rt_gate: targets[0] is not a valid qubit "
                             "handle (its register was deallocated)"),
            std::string::npos);
  q2_rt_pauli_rot(0.1, "X", &q0, 1, nullptr, 0);
  EXPECT_NE(takeError().find("not a valid qubit handle"), std::string::npos);
  EXPECT_EQ(q2_rt_measure(q0), -1);
  EXPECT_NE(takeError().find("q2_rt_measure"), std::string::npos);
  double p[2] = {-1, -1};
  q2_rt_probs(&q0, 1, p);
  EXPECT_NE(takeError().find("q2_rt_probs: qubits[0] is not a valid qubit"),
            std::string::npos);
  EXPECT_EQ(p[0], -1.0);
  EXPECT_EQ(q2_rt_qubit(r, 0), nullptr);
  EXPECT_NE(takeError().find("q2_rt_qubit: invalid register handle"),
            std::string::npos);
  EXPECT_EQ(q2_rt_state_data(r), nullptr);
  EXPECT_NE(takeError().find("q2_rt_state_data: invalid register handle"),
            std::string::npos);
  EXPECT_EQ(q2_rt_gate_count(r), 0);
  EXPECT_NE(takeError().find("invalid register handle"), std::string::npos);

  // A new register (possibly the same memory and slot) does not revive the
  // old handles.
  Q2Register *r2 = q2_rt_alloc(3);
  q2_rt_gate(Q2_GATE_X, 0, &q0, 1, nullptr, 0, 0);
  EXPECT_NE(takeError().find("its register was deallocated"), std::string::npos);
  q2_rt_dealloc(r);
  EXPECT_NE(takeError().find("invalid register handle"), std::string::npos);
  EXPECT_EQ(fetch(r2)[0], cd(1, 0)); // r2 untouched, still alive

  // Foreign pointers: a stack address, a heap object, garbage with the tag
  // bit, a register handle used as a qubit and the reverse.
  int local = 0;
  Q2Qubit *foreign = reinterpret_cast<Q2Qubit *>(&local);
  q2_rt_gate(Q2_GATE_H, 0, &foreign, 1, nullptr, 0, 0);
  EXPECT_NE(takeError().find("not a handle given out by this runtime"),
            std::string::npos);
  auto heap = std::make_unique<double[]>(4);
  q2_rt_dealloc(reinterpret_cast<Q2Register *>(heap.get()));
  EXPECT_NE(takeError().find("q2_rt_dealloc: invalid register handle (not a "
                             "handle given out"),
            std::string::npos);
  Q2Qubit *garbage = reinterpret_cast<Q2Qubit *>(uintptr_t(0xdeadbeefdeadbeefull));
  q2_rt_pauli_rot(0.1, "Z", &garbage, 1, nullptr, 0);
  EXPECT_NE(takeError().find("not a valid qubit handle"), std::string::npos);
  Q2Qubit *regAsQubit = reinterpret_cast<Q2Qubit *>(r2);
  q2_rt_gate(Q2_GATE_H, 0, &regAsQubit, 1, nullptr, 0, 0);
  EXPECT_NE(takeError().find("a register handle where a qubit is expected"),
            std::string::npos);
  Q2Qubit *good = q2_rt_qubit(r2, 1);
  EXPECT_EQ(q2_rt_num_qubits(reinterpret_cast<Q2Register *>(good)), 0);
  EXPECT_NE(takeError().find("q2_rt_num_qubits: invalid register handle"),
            std::string::npos);
  EXPECT_EQ(q2_rt_qubit(reinterpret_cast<Q2Register *>(&local), 0), nullptr);
  EXPECT_NE(takeError().find("invalid register handle"), std::string::npos);

  // probs: insane output counts are refused before anything is written.
  double big[4] = {-1, -1, -1, -1};
  q2_rt_probs(&good, int64_t(1) << 40, big);
  EXPECT_NE(takeError().find("q2_rt_probs: 1099511627776 qubits requested"),
            std::string::npos);
  q2_rt_probs(&good, -2, big);
  EXPECT_NE(takeError().find("-2 qubits requested"), std::string::npos);
  EXPECT_EQ(big[0], -1.0);

  // Everything still works on the live register.
  q2_rt_gate(Q2_GATE_X, 0, &good, 1, nullptr, 0, 0);
  q2_rt_probs(&good, 1, big);
  EXPECT_EQ(big[1], 1.0);
  EXPECT_EQ(q2_rt_last_error(), nullptr);
  q2_rt_dealloc(r2);
}

TEST_F(BlockTest, ManyRegistersReuseSlotsSafely) {
  std::vector<Q2Register *> live;
  std::vector<Q2Qubit *> stale;
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 20; ++i)
      live.push_back(q2_rt_alloc(1 + i % 3));
    for (Q2Register *h : live)
      stale.push_back(q2_rt_qubit(h, 0));
    for (Q2Register *h : live)
      q2_rt_dealloc(h);
    live.clear();
  }
  EXPECT_EQ(q2_rt_last_error(), nullptr);
  Q2Register *r = q2_rt_alloc(2);
  for (Q2Qubit *q : stale) {
    q2_rt_gate(Q2_GATE_X, 0, &q, 1, nullptr, 0, 0);
    ASSERT_NE(takeError().find("its register was deallocated"),
              std::string::npos);
  }
  EXPECT_EQ(fetch(r)[0], cd(1, 0));
  q2_rt_dealloc(r);
}

TEST_F(BlockTest, NumThreadsGetterFollowsSetter) {
  q2_rt_set_num_threads(1);
  EXPECT_EQ(q2_rt_get_num_threads(), 1);
  EXPECT_EQ(q2_rt_set_num_threads(0), 1);
  EXPECT_GE(q2_rt_get_num_threads(), 1);
  EXPECT_EQ(q2_rt_get_num_threads(), rt::getNumThreads());
}

/// The compiler's Trotter step: rotations controlled by the estimation wire
/// and the identity term as an UNcontrolled PhaseShift on the wire itself.
/// The wire is still the block's common (effective) control.
TEST_F(BlockTest, PhaseOnTheControlWireCountsAsControl) {
  std::mt19937_64 gen(44);
  const int nSys = 4, n = nSys + 2, wire = nSys + 1;
  auto gates = randomBlock({0, 1, 2, 3}, {wire}, 10, gen);
  RefGate ps;
  ps.gate = Q2_GATE_PHASESHIFT;
  ps.param = -0.37;
  ps.targets = {wire};
  gates.insert(gates.begin() + 3, ps);
  VectorXcd psi = randomState(n, gen);
  VectorXcd want = power(blockMatrix(gates, n), 20, psi);
  for (int method = -1; method <= 2; ++method) {
    q2_rt_reset_block_stats();
    rt::setForcedBlockMethod(method);
    EXPECT_LT((runBlock(n, psi, gates, 20) - want).cwiseAbs().maxCoeff(), 1e-10)
        << method;
    auto st = readStats();
    ASSERT_EQ(st.size(), 1u);
    EXPECT_EQ(st[0].num_controls, 1);
    EXPECT_EQ(st[0].num_qubits, nSys);
  }
}

/// Fusion of mixed named gates and rotations under one control (the
/// decomposed Pauli rotation: basis changes, CNOT ladder, RZ, ladder back),
/// forced dense, against the dense product.
TEST_F(BlockTest, FusedDecomposedRotationsMatchDense) {
  int64_t prevMin = rt::setFusionMinQubits(1);
  std::mt19937_64 gen(91);
  const int n = 7, ctrl = 6;
  std::vector<RefGate> seq;
  auto named = [&](int g, std::vector<int> t, double p = 0, int adj = 0) {
    seq.push_back(namedGate(g, std::move(t), p, adj, {ctrl}));
  };
  for (int rep = 0; rep < 6; ++rep) {
    // exp(-i th/2 X0 Y2 Z3) decomposed.
    double th = 0.3 + 0.2 * rep;
    named(Q2_GATE_H, {0});
    named(Q2_GATE_RX, {2}, M_PI / 2);
    named(Q2_GATE_CNOT, {0, 2});
    named(Q2_GATE_CNOT, {2, 3});
    named(Q2_GATE_RZ, {3}, th);
    named(Q2_GATE_CNOT, {2, 3});
    named(Q2_GATE_CNOT, {0, 2});
    named(Q2_GATE_RX, {2}, -M_PI / 2);
    named(Q2_GATE_H, {0});
    named(Q2_GATE_S, {1}, 0, rep % 2);
    RefGate ps; // identity term: phase on the control itself
    ps.gate = Q2_GATE_PHASESHIFT;
    ps.param = 0.1 * rep;
    ps.targets = {ctrl};
    seq.push_back(ps);
    auto extra = randomBlock({0, 1, 2, 3}, {ctrl}, 3, gen);
    seq.insert(seq.end(), extra.begin(), extra.end());
  }
  VectorXcd psi = randomState(n, gen);
  VectorXcd want = blockMatrix(seq, n) * psi;
  for (int policy : {1, 0, -1}) {
    int prevPolicy = rt::setFusionPolicy(policy);
    Q2Register *r = q2_rt_alloc(n);
    load(r, psi);
    for (auto &g : seq)
      issue(r, g);
    EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-12) << policy;
    q2_rt_dealloc(r);
    rt::setFusionPolicy(prevPolicy);
  }
  rt::setFusionMinQubits(prevMin);
}

/// The fused dense sweep (both kernel tables) on random target/control
/// masks, including targets on the lowest qubits (tiled path) and group
/// counts that leave a partial tile, against a per-amplitude evaluation.
TEST_F(BlockTest, ApplyDenseKernelMatchesNaive) {
  std::mt19937_64 gen(4242);
  for (bool avx2 : {false, true}) {
    if (avx2 && !rt::avx2Kernels())
      continue;
    const rt::KernelTable &k = avx2 ? *rt::avx2Kernels() : rt::genericKernels();
    for (int rep = 0; rep < 40; ++rep) {
      int n = 3 + int(gen() % 10), m = 1 + int(gen() % std::min(6, n - 1));
      int nc = int(gen() % std::min(3, n - m + 1));
      std::vector<int> all(n);
      for (int i = 0; i < n; ++i)
        all[i] = i;
      std::shuffle(all.begin(), all.end(), gen);
      if (rep % 2 == 0) // targets on the lowest qubits
        std::sort(all.begin(), all.end());
      uint64_t tm = 0, cm = 0;
      for (int i = 0; i < m; ++i)
        tm |= uint64_t(1) << all[i];
      for (int i = m; i < m + nc; ++i)
        cm |= uint64_t(1) << all[i];
      uint64_t dim = uint64_t(1) << m;
      std::normal_distribution<double> d;
      std::vector<rt::Cplx> mtx(dim * dim);
      for (auto &z : mtx)
        z = {d(gen), d(gen)};
      for (uint64_t i = 0; i < dim * dim; i += 3) // zero entries are skipped
        mtx[i] = {0, 0};
      VectorXcd psi = randomState(n, gen), want = psi;
      for (uint64_t y = 0; y < uint64_t(psi.size()); ++y) {
        if ((y & cm) != cm)
          continue;
        uint64_t r = rt::extractBitsOf(y, tm), base = y & ~tm;
        cd acc = 0;
        for (uint64_t l = 0; l < dim; ++l) {
          uint64_t src = base;
          for (int b = 0, t = 0; t < n; ++t)
            if (tm >> t & 1)
              src |= ((l >> b++) & 1) << t;
          acc += cd(mtx[r * dim + l].re, mtx[r * dim + l].im) * psi[int64_t(src)];
        }
        want[int64_t(y)] = acc;
      }
      VectorXcd got = psi;
      k.applyDense(reinterpret_cast<double *>(got.data()), n, tm, cm, mtx.data());
      EXPECT_LT((got - want).cwiseAbs().maxCoeff(), 1e-12)
          << k.name << " n=" << n << " tm=" << tm << " cm=" << cm;
    }
  }
}

/// Dense blocks through both GEMM builds (AVX2+FMA Eigen and baseline), with
/// panels and products split over 2 threads, against the dense reference.
TEST_F(BlockTest, DenseThroughBothGemmBuilds) {
  std::mt19937_64 gen(314);
  const int n = 8;
  q2_rt_set_num_threads(2);
  rt::setBlockParallelWork(0);
  rt::setForcedBlockMethod(rt::kDense);
  auto gates = randomBlock({0, 1, 2, 4, 5, 6}, {7}, 20, gen); // m = 6
  VectorXcd psi = randomState(n, gen);
  MatrixXcd b = blockMatrix(gates, n);
  for (bool avx2 : {true, false}) {
    bool prev = rt::setGemmAVX2(avx2);
    for (int64_t count : {1, 6, 13}) {
      EXPECT_LT((runBlock(n, psi, gates, count) - power(b, count, psi))
                    .cwiseAbs()
                    .maxCoeff(),
                1e-10)
          << "avx2=" << avx2 << " count=" << count;
    }
    rt::setGemmAVX2(prev);
  }
}

/// Every weak or unique symbol that the AVX2 translation unit defines must
/// live in its renamed Eigen namespace: otherwise the linker could merge an
/// AVX2-compiled copy of a template (std::...) with the baseline one and
/// hand AVX2 code to callers on CPUs without it.
TEST_F(BlockTest, DenseAVX2Symbols) {
#ifndef Q2_RUNTIME_STATIC_LIB
  GTEST_SKIP() << "static library path not known";
#else
  std::string cmd = std::string("nm -C --defined-only '") +
                    Q2_RUNTIME_STATIC_LIB + "' 2>/dev/null";
  FILE *p = popen(cmd.c_str(), "r");
  if (!p)
    GTEST_SKIP() << "cannot run nm";
  char line[4096];
  bool inFile = false, sawFile = false, sawGemm = false;
  std::vector<std::string> bad;
  while (std::fgets(line, sizeof line, p)) {
    std::string l(line);
    if (!l.empty() && l.back() == '\n')
      l.pop_back();
    if (l.size() > 1 && l.back() == ':') { // archive member header
      inFile = l.find("DenseAVX2") != std::string::npos;
      sawFile |= inFile;
      continue;
    }
    if (!inFile || l.size() < 20)
      continue;
    char kind = l[17];
    std::string name = l.substr(19);
    sawGemm |= name.find("q2::runtime::avx2::gemm") != std::string::npos;
    bool mergeable = kind == 'W' || kind == 'w' || kind == 'V' ||
                     kind == 'v' || kind == 'u';
    if (mergeable && name.find("q2_eigen_avx2") == std::string::npos &&
        name != "DW.ref.__gxx_personality_v0")
      bad.push_back(l);
  }
  int rc = pclose(p);
  if (rc != 0 && !sawFile)
    GTEST_SKIP() << "nm not available";
  if (!sawFile)
    GTEST_SKIP() << "DenseAVX2 not built (no -mavx2 support)";
  EXPECT_TRUE(sawGemm);
  for (const std::string &b : bad)
    ADD_FAILURE() << "mergeable symbol outside the renamed namespace: " << b;
#endif
}

//===-- invariant cosets ----------------------------------------------------===//
namespace {
/// A Jordan-Wigner-like block on qubits 0..6 of two "spins" {0,1,2,3} and
/// {4,5,6}: rotations whose X/Y part flips an even number of qubits of one
/// spin (XX, YY, XY, XZZY, ... and a swap), diagonal gates (RZ, S, T,
/// PhaseShift, CZ, Z words). The flips span even-weight masks of each spin:
/// d = 3 + 2 = 5 of m = 7, four cosets of 32 states.
std::vector<RefGate> parityBlock(std::mt19937_64 &gen, int wire) {
  std::uniform_real_distribution<double> angle(-M_PI, M_PI);
  const std::vector<std::vector<int>> spins = {{0, 1, 2, 3}, {4, 5, 6}};
  std::vector<RefGate> out;
  for (int i = 0; i < 24; ++i) {
    RefGate g;
    const std::vector<int> &sp = spins[gen() % 2];
    std::vector<int> q = sp;
    std::shuffle(q.begin(), q.end(), gen);
    switch (i % 6) {
    case 0: case 1: case 2: { // even X/Y weight on one spin, Z's elsewhere
      g.isPauli = true;
      g.targets = {q[0], q[1]};
      g.word = {"XY"[gen() % 2], "XY"[gen() % 2]};
      if (q.size() > 2 && gen() % 2) {
        g.targets.push_back(q[2]);
        g.word += 'Z';
      }
      g.param = angle(gen);
      break;
    }
    case 3: // diagonal Pauli word across both spins
      g.isPauli = true;
      g.targets = {int(gen() % 4), 4 + int(gen() % 3)};
      g.word = "ZZ";
      g.param = angle(gen);
      break;
    case 4: { // diagonal named gates (2x2 kernel with zero off-diagonal)
      int kinds[] = {Q2_GATE_RZ, Q2_GATE_S, Q2_GATE_T, Q2_GATE_PHASESHIFT,
                     Q2_GATE_CZ};
      g.gate = kinds[gen() % 5];
      g.targets = g.gate == Q2_GATE_CZ ? std::vector<int>{q[0], q[1]}
                                       : std::vector<int>{q[0]};
      g.param = angle(gen);
      break;
    }
    default: // a swap inside one spin flips two of its qubits
      g.gate = Q2_GATE_SWAP;
      g.targets = {q[0], q[1]};
      break;
    }
    if (wire >= 0)
      g.ctrls.push_back(wire);
    out.push_back(g);
  }
  return out;
}

/// A state on the given cosets only (parities of the two spins).
VectorXcd stateOnCosets(int n, const std::vector<std::pair<int, int>> &par,
                        std::mt19937_64 &gen) {
  VectorXcd v = randomState(n, gen);
  for (int64_t x = 0; x < v.size(); ++x) {
    int a = __builtin_popcountll(x & 0xF) & 1, b = __builtin_popcountll(x & 0x70) & 1;
    if (std::find(par.begin(), par.end(), std::make_pair(a, b)) == par.end())
      v[x] = 0;
  }
  return v / v.norm();
}

/// Restores the coset threshold.
struct CosetMin {
  int prev;
  explicit CosetMin(int m) : prev(rt::setCosetMinQubits(m)) {}
  ~CosetMin() { rt::setCosetMinQubits(prev); }
};
} // namespace

/// Dense on invariant cosets: QPE-like wires (the same block controlled by
/// wire k, count 3 * 2^k, 2 wires) on a state living on one, two or all four cosets;
/// exact against the dense reference, and the stats say 32 of 128 states
/// and how many cosets.
TEST_F(BlockTest, CosetBlocksMatchDense) {
  CosetMin cm(0);
  std::mt19937_64 gen(424242);
  const int nSys = 7, nEst = 2, n = nSys + nEst;
  auto body = parityBlock(gen, -1);
  std::vector<MatrixXcd> wires; // the reference block of each wire, once
  for (int k = 0; k < nEst; ++k) {
    auto gates = body;
    for (auto &g : gates)
      g.ctrls.push_back(nSys + k);
    wires.push_back(blockMatrix(gates, n));
  }
  for (auto parities : std::vector<std::vector<std::pair<int, int>>>{
           {{0, 1}}, {{1, 1}, {0, 0}}, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}}) {
    for (int mode : {1, 2}) {
      SCOPED_TRACE("cosets=" + std::to_string(parities.size()) +
                   " mode=" + std::to_string(mode));
      q2_rt_set_block_mode(mode);
      q2_rt_reset_block_stats();
      VectorXcd sys = stateOnCosets(nSys, parities, gen);
      // Estimation wires in |+>: every slice is live.
      VectorXcd psi = Eigen::kroneckerProduct(
                          VectorXcd::Constant(1 << nEst, std::sqrt(1.0 / (1 << nEst))),
                          sys)
                          .eval();
      VectorXcd want = psi;
      Q2Register *r = q2_rt_alloc(n);
      load(r, psi);
      for (int k = 0; k < nEst; ++k) {
        auto gates = body;
        for (auto &g : gates)
          g.ctrls.push_back(nSys + k);
        want = power(wires[size_t(k)], int64_t(3) << k, want);
        q2_rt_block_begin(int64_t(3) << k);
        for (auto &g : gates)
          issue(r, g);
        q2_rt_block_end();
      }
      ASSERT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
      EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-10);
      q2_rt_dealloc(r);
      auto st = readStats();
      ASSERT_EQ(st.size(), size_t(nEst));
      if (mode == 1) // the cost model may prefer replay on 10 qubits
        continue;
      for (int k = 0; k < nEst; ++k) {
        EXPECT_EQ(st[k].method, 2) << k;
        EXPECT_EQ(st[k].num_qubits, nSys) << k;
        EXPECT_EQ(st[k].dense_dim, 32) << k;
        EXPECT_EQ(st[k].cosets, int64_t(parities.size())) << k;
        EXPECT_EQ(st[k].reused, k == 0 ? 0 : 1) << k;
      }
    }
  }
  q2_rt_set_block_mode(1);
}

/// What the flips do not prove is not assumed: RX(t) RX(-t) is the
/// identity, yet it flips its qubit, so with such pairs on qubits 0 and 4
/// the span is everything and dense works on all 128 states (and stays
/// exact); and a block whose
/// state covers more cosets than the runtime takes one by one (only one
/// flip: 64 cosets of 2 states, all live) also uses the whole space.
TEST_F(BlockTest, CosetsOnlyWhereTheFlipsProveThem) {
  CosetMin cm(0);
  std::mt19937_64 gen(99);
  const int n = 8;
  q2_rt_set_block_mode(2);
  auto run = [&](std::vector<RefGate> gates, const VectorXcd &psi,
                 int64_t wantDim, int64_t wantCosets) {
    for (auto &g : gates)
      g.ctrls.push_back(7);
    q2_rt_reset_block_stats();
    VectorXcd want = power(blockMatrix(gates, n), 5, psi);
    VectorXcd got = runBlock(n, psi, gates, 5);
    ASSERT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
    EXPECT_LT((got - want).cwiseAbs().maxCoeff(), 1e-10);
    auto st = readStats();
    ASSERT_EQ(st.size(), 1u);
    EXPECT_EQ(st[0].method, 2);
    EXPECT_EQ(st[0].dense_dim, wantDim);
    EXPECT_EQ(st[0].cosets, wantCosets);
  };
  auto body = parityBlock(gen, -1);
  VectorXcd sys = stateOnCosets(7, {{0, 1}}, gen);
  VectorXcd psi = Eigen::kroneckerProduct(
                      VectorXcd::Constant(2, std::sqrt(0.5)), sys)
                      .eval();
  run(body, psi, 32, 1); // provable: one coset of 32
  auto withPair = body;
  withPair.push_back(namedGate(Q2_GATE_RX, {0}, 0.7));
  withPair.push_back(namedGate(Q2_GATE_RX, {0}, -0.7));
  run(withPair, psi, 64, 1); // spin A no longer provably even: 64 states
  withPair.push_back(namedGate(Q2_GATE_RX, {4}, -0.2));
  withPair.push_back(namedGate(Q2_GATE_RX, {4}, 0.2));
  run(withPair, psi, 128, 1); // not provable from the flips: whole space
  // One flip only (XX on 0,1) and diagonal gates: 64 cosets, all live.
  std::vector<RefGate> oneFlip = {namedGate(Q2_GATE_RZ, {2}, 0.3),
                                  namedGate(Q2_GATE_CZ, {3, 4}),
                                  namedGate(Q2_GATE_T, {5})};
  RefGate xx;
  xx.isPauli = true;
  xx.word = "XX";
  xx.targets = {0, 1};
  xx.param = 0.9;
  oneFlip.push_back(xx);
  oneFlip.push_back(namedGate(Q2_GATE_RZ, {6}, -1.1));
  run(oneFlip, randomState(n, gen), 128, 1);
  // The same block on a state on 2 of its cosets ({x, x ^ 0b11}): 2 x 2
  // matrices, one per coset.
  VectorXcd two = VectorXcd::Zero(1 << n);
  two[(1 << 7) | 0b0000100] = std::sqrt(0.5);
  two[(1 << 7) | 0b0001000] = std::sqrt(0.5);
  run(oneFlip, two, 2, 2);
  q2_rt_set_block_mode(1);
}

/// The progress callback: once per outermost block, counting from 1 after
/// it is set, with the block's method; nested blocks and a removed callback
/// are silent.
TEST_F(BlockTest, ProgressCallbackPerOutermostBlock) {
  struct Seen {
    std::vector<int64_t> done;
    std::vector<int32_t> methods;
  } seen;
  auto fn = [](void *user, int64_t done, double secs, int32_t method) {
    auto *s = static_cast<Seen *>(user);
    s->done.push_back(done);
    s->methods.push_back(method);
    EXPECT_GE(secs, 0.0);
  };
  std::mt19937_64 gen(3);
  const int n = 5;
  auto gates = randomBlock({0, 1, 2, 3}, {4}, 6, gen);
  Q2Register *r = q2_rt_alloc(n);
  auto block = [&](int64_t count, bool nested) {
    q2_rt_block_begin(count);
    for (auto &g : gates)
      issue(r, g);
    if (nested) {
      q2_rt_block_begin(2);
      issue(r, gates[0]);
      q2_rt_block_end();
    }
    q2_rt_block_end();
  };
  block(1, false); // before the callback: not counted
  q2_rt_set_block_progress(fn, &seen);
  rt::setForcedBlockMethod(1);
  block(3, false);
  rt::setForcedBlockMethod(2);
  block(4, true);
  block(5, false);
  q2_rt_set_block_progress(nullptr, nullptr);
  block(6, false);
  q2_rt_dealloc(r);
  EXPECT_EQ(seen.done, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(seen.methods, (std::vector<int32_t>{1, 2, 2}));
}

/// The coset analysis switched off and on between blocks of one register:
/// its cache holds the same Ops as a whole-space entry and as coset
/// entries (both with representative 0), and each lookup must find its own.
TEST_F(BlockTest, CosetAndWholeSpaceEntriesOfOneRegisterStayApart) {
  std::mt19937_64 gen(4711);
  const int nSys = 7, n = nSys + 1;
  auto gates = parityBlock(gen, nSys);
  MatrixXcd b = blockMatrix(gates, n);
  q2_rt_set_block_mode(2);
  VectorXcd sys = stateOnCosets(nSys, {{0, 0}}, gen); // the coset of 0
  VectorXcd psi = Eigen::kroneckerProduct(
                      VectorXcd::Constant(2, std::sqrt(0.5)), sys)
                      .eval();
  VectorXcd want = psi;
  Q2Register *r = q2_rt_alloc(n);
  load(r, psi);
  std::vector<int64_t> dims;
  for (int minQubits : {0, 64, 0, 64}) {
    CosetMin cm(minQubits);
    q2_rt_reset_block_stats();
    want = power(b, 3, want);
    q2_rt_block_begin(3);
    for (auto &g : gates)
      issue(r, g);
    q2_rt_block_end();
    ASSERT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
    EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-10) << minQubits;
    dims.push_back(readStats().at(0).dense_dim);
  }
  q2_rt_dealloc(r);
  ASSERT_EQ(dims.size(), 4u);
  EXPECT_LT(dims[0], 128); // this block's flips span 4 of 7 qubits' masks
  EXPECT_EQ(dims[2], dims[0]);
  EXPECT_EQ(dims[1], 128);
  EXPECT_EQ(dims[3], 128);
  q2_rt_set_block_mode(1);
}
