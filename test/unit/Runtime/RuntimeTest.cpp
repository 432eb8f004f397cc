//===- RuntimeTest.cpp - simulator runtime vs. dense Eigen reference ------===//
//
// Every kernel is checked against operators built independently here from
// Kronecker products of 2x2 textbook matrices (qubit k = bit k, so qubit n-1
// is the leftmost factor), on random normalized states.
//
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "RuntimeInternal.h"
#include "DenseReference.h"
#include "q2/Runtime/QuantumRuntime.h"

#include <Eigen/Dense>
#include <gtest/gtest.h>
#include <unsupported/Eigen/KroneckerProduct>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace q2::denseref;
namespace rt = q2::runtime;

namespace {

/// k distinct random qubits of n.
std::vector<int> pick(int n, int k, std::mt19937_64 &gen) {
  std::vector<int> all(n);
  for (int i = 0; i < n; ++i)
    all[i] = i;
  std::shuffle(all.begin(), all.end(), gen);
  all.resize(k);
  return all;
}

std::vector<Q2Qubit *> handles(Q2Register *r, const std::vector<int> &idx) {
  std::vector<Q2Qubit *> h;
  for (int i : idx)
    h.push_back(q2_rt_qubit(r, i));
  return h;
}

/// Every test starts and ends without a pending error.
class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override { q2_rt_clear_error(); }
  void TearDown() override {
    EXPECT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
    q2_rt_clear_error();
  }
};

/// Runs the body once per available kernel table (generic, AVX2).
class KernelTest : public RuntimeTest,
                   public ::testing::WithParamInterface<bool> {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (GetParam() && !rt::avx2Kernels())
      GTEST_SKIP() << "no AVX2 on this CPU";
    ASSERT_TRUE(rt::selectKernels(GetParam()));
    prevFusion = rt::setFusionEnabled(false); // test the kernels themselves
  }
  void TearDown() override {
    RuntimeTest::TearDown();
    rt::selectKernels(rt::avx2Kernels() != nullptr);
    rt::setFusionEnabled(prevFusion);
  }
  bool prevFusion = true;
};

std::string gateLabel(int g) {
  static const char *n[] = {"I", "H", "X", "Y", "Z", "S", "T", "RX", "RY",
                            "RZ", "PS", "CNOT", "CZ", "SWAP"};
  return n[g];
}

} // namespace

//===-- gates vs dense ----------------------------------------------------===//
TEST_P(KernelTest, NamedGatesMatchDense) {
  std::mt19937_64 gen(1234);
  std::uniform_real_distribution<double> angle(-2 * M_PI, 2 * M_PI);
  int checked = 0;
  for (int g = Q2_GATE_IDENTITY; g <= Q2_GATE_SWAP; ++g)
    for (int n = 3; n <= 6; ++n)
      for (int nc = 0; nc <= 2; ++nc)
        for (int adj = 0; adj <= 1; ++adj)
          for (int rep = 0; rep < 3; ++rep) {
            int nt = g >= Q2_GATE_CNOT ? 2 : 1;
            if (nt + nc > n)
              continue;
            std::vector<int> q = pick(n, nt + nc, gen);
            std::vector<int> t(q.begin(), q.begin() + nt),
                c(q.begin() + nt, q.end());
            double th = angle(gen);
            VectorXcd psi = randomState(n, gen);
            MatrixXcd u = gateOperator(g, th, t, n);
            if (adj)
              u = u.adjoint().eval();
            VectorXcd want = controlled(u, c, n) * psi;

            Q2Register *r = q2_rt_alloc(n);
            ASSERT_NE(r, nullptr);
            load(r, psi);
            auto th_ = handles(r, t), ch = handles(r, c);
            q2_rt_gate(g, th, th_.data(), nt, ch.data(), nc, adj);
            ASSERT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
            EXPECT_EQ(q2_rt_gate_count(r), 1);
            double err = (fetch(r) - want).cwiseAbs().maxCoeff();
            EXPECT_LT(err, 1e-12) << gateLabel(g) << " n=" << n << " nc=" << nc
                                  << " adj=" << adj << " t0=" << t[0];
            q2_rt_dealloc(r);
            ++checked;
          }
  EXPECT_GT(checked, 14 * 4 * 3 * 2);
}

/// Random Pauli word of length n over IXYZ, with some forced shapes.
std::string randomWord(int n, int kind, std::mt19937_64 &gen) {
  const char *letters = kind == 0 ? "I" : kind == 1 ? "IZ" : "IXYZ";
  int nl = int(std::strlen(letters));
  std::string w;
  for (int i = 0; i < n; ++i)
    w += letters[gen() % nl];
  if (kind == 2 && w.find_first_of("XY") == std::string::npos)
    w[gen() % n] = "XY"[gen() % 2];
  return w;
}

TEST_P(KernelTest, PauliRotationsMatchDense) {
  std::mt19937_64 gen(99);
  std::uniform_real_distribution<double> angle(-2 * M_PI, 2 * M_PI);
  for (int n = 3; n <= 6; ++n)
    for (int nc = 0; nc <= 2; ++nc)
      for (int kind = 0; kind < 3; ++kind) // identity, Z-only, mixed
        for (int rep = 0; rep < 6; ++rep) {
          int nt = 1 + int(gen() % (n - nc));
          std::vector<int> q = pick(n, nt + nc, gen);
          std::vector<int> t(q.begin(), q.begin() + nt),
              c(q.begin() + nt, q.end());
          std::string w = randomWord(nt, kind, gen);
          double th = angle(gen);
          MatrixXcd rot = pauliRotation(w, t, th, n);
          VectorXcd psi = randomState(n, gen);
          VectorXcd want = controlled(rot, c, n) * psi;

          Q2Register *r = q2_rt_alloc(n);
          load(r, psi);
          auto th_ = handles(r, t), ch = handles(r, c);
          q2_rt_pauli_rot(th, w.data(), th_.data(), nt, ch.data(), nc);
          ASSERT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
          double err = (fetch(r) - want).cwiseAbs().maxCoeff();
          EXPECT_LT(err, 1e-12) << w << " n=" << n << " nc=" << nc;
          q2_rt_dealloc(r);
        }
}

/// Larger states (runs longer than a cache block, many runs) against a
/// straightforward per-amplitude evaluation of P|x> = i^ny (-1)^|x&zm| |x^xm>.
TEST_P(KernelTest, LargeStatePauliAndGateMatchNaive) {
  std::mt19937_64 gen(7);
  const int n = 15;
  for (int rep = 0; rep < 12; ++rep) {
    int nt = 1 + int(gen() % 4), nc = int(gen() % 3);
    std::vector<int> q = pick(n, nt + nc, gen);
    if (rep % 3 == 0) // force high targets: long contiguous runs
      for (int i = 0; i < nt + nc; ++i)
        q[i] = n - 1 - i;
    std::vector<int> t(q.begin(), q.begin() + nt), c(q.begin() + nt, q.end());
    std::string w = randomWord(nt, 1 + rep % 2, gen);
    double th = 0.3 + rep;
    VectorXcd psi = randomState(n, gen);

    uint64_t xm = 0, zm = 0, cm = 0;
    int ny = 0;
    for (int i = 0; i < nt; ++i) {
      uint64_t b = uint64_t(1) << t[i];
      if (w[i] == 'X' || w[i] == 'Y') xm |= b;
      if (w[i] == 'Z' || w[i] == 'Y') zm |= b;
      ny += w[i] == 'Y';
    }
    for (int ci : c)
      cm |= uint64_t(1) << ci;
    VectorXcd ppsi = VectorXcd::Zero(psi.size());
    for (uint64_t x = 0; x < uint64_t(psi.size()); ++x)
      ppsi[x ^ xm] += std::pow(I1, ny) *
                      (__builtin_popcountll(x & zm) % 2 ? -1.0 : 1.0) * psi[x];
    VectorXcd want = psi;
    for (uint64_t x = 0; x < uint64_t(psi.size()); ++x)
      if ((x & cm) == cm)
        want[x] = std::cos(th / 2) * psi[x] - I1 * std::sin(th / 2) * ppsi[x];

    Q2Register *r = q2_rt_alloc(n);
    load(r, psi);
    auto th_ = handles(r, t), ch = handles(r, c);
    q2_rt_pauli_rot(th, w.data(), th_.data(), nt, ch.data(), nc);
    EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-12) << w;

    // And a controlled RY on the first target, naive pair update.
    VectorXcd cur = fetch(r), want2 = cur;
    uint64_t tb = uint64_t(1) << t[0];
    double cc = std::cos(th / 2), ss = std::sin(th / 2);
    for (uint64_t x = 0; x < uint64_t(cur.size()); ++x)
      if ((x & cm) == cm && !(x & tb)) {
        want2[x] = cc * cur[x] - ss * cur[x | tb];
        want2[x | tb] = ss * cur[x] + cc * cur[x | tb];
      }
    q2_rt_gate(Q2_GATE_RY, th, th_.data(), 1, ch.data(), nc, 0);
    EXPECT_LT((fetch(r) - want2).cwiseAbs().maxCoeff(), 1e-12);
    q2_rt_dealloc(r);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, KernelTest, ::testing::Values(false, true),
                         [](const auto &info) {
                           return info.param ? "avx2" : "generic";
                         });

//===-- probabilities -----------------------------------------------------===//
TEST_F(RuntimeTest, ProbsMatchDenseMarginal) {
  std::mt19937_64 gen(5);
  for (int n = 1; n <= 7; ++n)
    for (int rep = 0; rep < 5; ++rep) {
      int k = 1 + int(gen() % n);
      std::vector<int> q = pick(n, k, gen);
      VectorXcd psi = randomState(n, gen);
      // Dense marginal: outcome digits read qubit q[0] first (MSB).
      std::vector<double> want(size_t(1) << k, 0.0);
      for (uint64_t x = 0; x < uint64_t(psi.size()); ++x) {
        uint64_t idx = 0;
        for (int i = 0; i < k; ++i)
          idx = 2 * idx + ((x >> q[i]) & 1);
        want[idx] += std::norm(psi[x]);
      }
      Q2Register *r = q2_rt_alloc(n);
      load(r, psi);
      auto h = handles(r, q);
      std::vector<double> got(want.size(), -1.0);
      q2_rt_probs(h.data(), k, got.data());
      double sum = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_NEAR(got[i], want[i], 1e-14) << "n=" << n << " i=" << i;
        sum += got[i];
      }
      EXPECT_NEAR(sum, 1.0, 1e-10);
      q2_rt_dealloc(r);
    }
}

TEST_F(RuntimeTest, ProbsOrderingFirstListedIsMSB) {
  Q2Register *r = q2_rt_alloc(3);
  Q2Qubit *q0 = q2_rt_qubit(r, 0), *q2 = q2_rt_qubit(r, 2);
  q2_rt_gate(Q2_GATE_X, 0, &q0, 1, nullptr, 0, 0); // |001>: qubit 0 set
  Q2Qubit *order[2] = {q0, q2};
  double p[4];
  q2_rt_probs(order, 2, p);
  EXPECT_DOUBLE_EQ(p[2], 1.0); // q0 = 1 is the MSB: outcome 0b10
  EXPECT_DOUBLE_EQ(p[0] + p[1] + p[3], 0.0);
  q2_rt_dealloc(r);
}

TEST_F(RuntimeTest, ProbSumAfterRandomCircuit) {
  std::mt19937_64 gen(17);
  const int n = 9;
  Q2Register *r = q2_rt_alloc(n);
  for (int i = 0; i < 300; ++i) {
    int g = 1 + int(gen() % 13), nt = g >= Q2_GATE_CNOT ? 2 : 1;
    auto q = handles(r, pick(n, nt + 1, gen));
    q2_rt_gate(g, 0.1 * i, q.data(), nt, q.data() + nt, int(gen() % 2), i % 2);
  }
  std::vector<Q2Qubit *> all = handles(r, pick(n, n, gen));
  std::vector<double> p(size_t(1) << n);
  q2_rt_probs(all.data(), n, p.data());
  double s = 0;
  for (double x : p)
    s += x;
  EXPECT_NEAR(s, 1.0, 1e-10);
  EXPECT_EQ(q2_rt_gate_count(r), 300);
  q2_rt_dealloc(r);
}

//===-- measurement -------------------------------------------------------===//
TEST_F(RuntimeTest, MeasurementStatistics) {
  const double th = 1.1, p1 = std::pow(std::sin(th / 2), 2);
  q2_rt_seed(42);
  const int shots = 4000;
  int ones = 0;
  Q2Register *r = q2_rt_alloc(3);
  Q2Qubit *q = q2_rt_qubit(r, 1);
  for (int s = 0; s < shots; ++s) {
    // Back to |000>: measure-reset via X if needed is itself a test of collapse.
    q2_rt_gate(Q2_GATE_RY, th, &q, 1, nullptr, 0, 0);
    int m = q2_rt_measure(q);
    ASSERT_TRUE(m == 0 || m == 1);
    ones += m;
    if (m)
      q2_rt_gate(Q2_GATE_X, 0, &q, 1, nullptr, 0, 0);
    EXPECT_NEAR(std::abs(fetch(r)[0]), 1.0, 1e-12);
  }
  double sigma = std::sqrt(shots * p1 * (1 - p1));
  EXPECT_NEAR(ones, shots * p1, 5 * sigma);
  q2_rt_dealloc(r);
}

TEST_F(RuntimeTest, MeasurementCollapse) {
  std::mt19937_64 gen(3);
  for (int rep = 0; rep < 20; ++rep) {
    const int n = 4;
    VectorXcd psi = randomState(n, gen);
    Q2Register *r = q2_rt_alloc(n);
    load(r, psi);
    int t = rep % n;
    Q2Qubit *q = q2_rt_qubit(r, t);
    int m = q2_rt_measure(q);
    ASSERT_TRUE(m == 0 || m == 1);
    MatrixXcd proj = embed({{t, m ? P1 : P0}}, n);
    VectorXcd want = (proj * psi).normalized();
    EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_EQ(q2_rt_measure(q), m); // repeated measurement agrees
    q2_rt_dealloc(r);
  }
  // Bell pair: outcomes agree; same seed, same outcomes.
  std::vector<int> first;
  for (int pass = 0; pass < 2; ++pass) {
    q2_rt_seed(1000);
    std::vector<int> seq;
    for (int i = 0; i < 30; ++i) {
      Q2Register *r = q2_rt_alloc(2);
      Q2Qubit *a = q2_rt_qubit(r, 0), *b = q2_rt_qubit(r, 1);
      Q2Qubit *ab[2] = {a, b};
      q2_rt_gate(Q2_GATE_H, 0, &a, 1, nullptr, 0, 0);
      q2_rt_gate(Q2_GATE_CNOT, 0, ab, 2, nullptr, 0, 0);
      int ma = q2_rt_measure(a), mb = q2_rt_measure(b);
      EXPECT_EQ(ma, mb);
      seq.push_back(ma);
      q2_rt_dealloc(r);
    }
    if (pass == 0)
      first = seq;
    else
      EXPECT_EQ(seq, first);
  }
  EXPECT_NE(std::count(first.begin(), first.end(), 1), 0);
  EXPECT_NE(std::count(first.begin(), first.end(), 0), 0);
}

//===-- threading ---------------------------------------------------------===//
/// The same random circuit single-threaded and (threshold forced to 0) on 4
/// threads gives bit-identical states: chunks touch disjoint amplitudes.
TEST_F(RuntimeTest, MultiThreadedMatchesSingleThreaded) {
  const int n = 12;
  const int64_t threshold0 = rt::getParallelThreshold();
  auto runCircuit = [&](int threads, int64_t threshold, bool fusion = false) {
    bool prevF = rt::setFusionEnabled(fusion);
    int prevP = rt::setFusionPolicy(fusion ? 1 : 0); // dense whenever fused
    int prevT = q2_rt_set_num_threads(threads);
    int64_t prevTh = rt::setParallelThreshold(threshold);
    std::mt19937_64 gen(2024);
    Q2Register *r = q2_rt_alloc(n);
    load(r, randomState(n, gen));
    for (int i = 0; i < 200; ++i) {
      if (i % 3 == 0) {
        int nt = 1 + int(gen() % 4);
        auto q = handles(r, pick(n, nt + 2, gen));
        std::string w = randomWord(nt, 1 + i % 2, gen);
        q2_rt_pauli_rot(0.37 * i, w.data(), q.data(), nt, q.data() + nt,
                        int(gen() % 3));
      } else {
        int g = 1 + int(gen() % 13), nt = g >= Q2_GATE_CNOT ? 2 : 1;
        auto q = handles(r, pick(n, nt + 2, gen));
        q2_rt_gate(g, 0.1 * i, q.data(), nt, q.data() + nt, int(gen() % 3),
                   i % 2);
      }
    }
    Q2Qubit *q5 = q2_rt_qubit(r, 5);
    q2_rt_seed(77);
    int m = q2_rt_measure(q5);
    VectorXcd v = fetch(r);
    q2_rt_dealloc(r);
    q2_rt_set_num_threads(prevT);
    rt::setParallelThreshold(prevTh);
    rt::setFusionEnabled(prevF);
    rt::setFusionPolicy(prevP);
    return std::make_pair(v, m);
  };
  auto [single, m1] = runCircuit(1, int64_t(1) << 14);
  auto [multi, m4] = runCircuit(4, 0);
  EXPECT_EQ(m1, m4);
  EXPECT_LT((single - multi).cwiseAbs().maxCoeff(), 1e-13);
  // Fused blocks (applied by the threaded dense sweep) agree too.
  auto [fusedMulti, mf] = runCircuit(4, 0, /*fusion=*/true);
  EXPECT_EQ(m1, mf);
  EXPECT_LT((single - fusedMulti).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_EQ(rt::getParallelThreshold(), threshold0); // restored
}

TEST_F(RuntimeTest, ThreadingThresholdAndCount) {
  int prev = q2_rt_set_num_threads(3);
  EXPECT_EQ(q2_rt_set_num_threads(0), 3);
  EXPECT_GE(rt::getNumThreads(), 1); // 0 = hardware concurrency
  q2_rt_set_num_threads(4);
  int64_t th = rt::setParallelThreshold(int64_t(1) << 14);
  EXPECT_EQ(rt::parallelChunks(int64_t(1) << 14, 100), 1); // not above
  EXPECT_EQ(rt::parallelChunks(int64_t(1) << 15, 100), 4);
  EXPECT_EQ(rt::parallelChunks(int64_t(1) << 15, 2), 2);
  rt::setParallelThreshold(th);
  q2_rt_set_num_threads(prev);
}

//===-- errors ------------------------------------------------------------===//
TEST_F(RuntimeTest, AllocErrors) {
  EXPECT_EQ(q2_rt_alloc(0), nullptr);
  EXPECT_NE(takeError().find("at least 1 qubit"), std::string::npos);
  EXPECT_EQ(q2_rt_alloc(-3), nullptr);
  EXPECT_NE(takeError().find("got -3"), std::string::npos);

  EXPECT_EQ(q2_rt_alloc(60), nullptr);
  std::string e = takeError();
  EXPECT_NE(e.find("q2_rt_alloc: 60 qubits need 18446744073709551616 bytes"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("80% of physical memory"), std::string::npos) << e;
  EXPECT_EQ(q2_rt_alloc(1000), nullptr);
  EXPECT_NE(takeError().find("1000 qubits need 2^1004 bytes"), std::string::npos);

  int64_t def = q2_rt_set_max_qubits(10);
  EXPECT_EQ(def, rt::defaultMaxQubits());
  EXPECT_GE(def, 20);
  EXPECT_EQ(q2_rt_alloc(11), nullptr);
  e = takeError();
  EXPECT_NE(e.find("11 qubits need 32768 bytes"), std::string::npos) << e;
  EXPECT_NE(e.find("limit is 10 qubits (16384 bytes, set by q2_rt_set_max_qubits)"),
            std::string::npos)
      << e;
  Q2Register *ok = q2_rt_alloc(10);
  EXPECT_NE(ok, nullptr);
  q2_rt_dealloc(ok);

  // Allowed by the limit, impossible to allocate: 2^49 bytes. A state
  // vector fails at once (mode 0); by default the register is deferred
  // (docs/runtime-abi.md) and fails when its state is needed.
  EXPECT_EQ(q2_rt_set_max_qubits(50), 10);
  int32_t prevMode = q2_rt_set_subspace_mode(0);
  EXPECT_EQ(q2_rt_alloc(45), nullptr);
  e = takeError();
  EXPECT_NE(e.find("45 qubits need 562949953421312 bytes: allocation failed"),
            std::string::npos)
      << e;
  q2_rt_set_subspace_mode(1);
  Q2Register *deferred = q2_rt_alloc(45);
  ASSERT_NE(deferred, nullptr);
  EXPECT_EQ(q2_rt_state_data(deferred), nullptr);
  e = takeError();
  EXPECT_NE(e.find("q2_rt_state_data: 45 qubits need 562949953421312 bytes: "
                   "allocation failed"),
            std::string::npos)
      << e;
  q2_rt_dealloc(deferred);
  q2_rt_set_subspace_mode(prevMode);
  EXPECT_EQ(q2_rt_set_max_qubits(0), 50);
  EXPECT_EQ(q2_rt_set_max_qubits(0), def);
  q2_rt_dealloc(nullptr); // ignored
}

TEST_F(RuntimeTest, OperandErrors) {
  Q2Register *r = q2_rt_alloc(3), *other = q2_rt_alloc(2);
  Q2Qubit *q0 = q2_rt_qubit(r, 0), *q1 = q2_rt_qubit(r, 1);
  Q2Qubit *o0 = q2_rt_qubit(other, 0);

  EXPECT_EQ(q2_rt_qubit(r, 3), nullptr);
  EXPECT_NE(takeError().find("qubit index 3 out of range [0, 3)"), std::string::npos);
  EXPECT_EQ(q2_rt_qubit(r, -1), nullptr);
  EXPECT_NE(takeError().find("out of range"), std::string::npos);
  EXPECT_EQ(q2_rt_qubit(nullptr, 0), nullptr);
  EXPECT_NE(takeError().find("NULL register"), std::string::npos);

  Q2Qubit *nul = nullptr;
  q2_rt_gate(Q2_GATE_H, 0, &nul, 1, nullptr, 0, 0);
  EXPECT_NE(takeError().find("targets[0] is a NULL qubit"), std::string::npos);
  q2_rt_gate(Q2_GATE_H, 0, nullptr, 1, nullptr, 0, 0);
  EXPECT_NE(takeError().find("array is NULL"), std::string::npos);
  q2_rt_gate(Q2_GATE_H, 0, &q0, 1, &q0, 1, 0);
  EXPECT_NE(takeError().find("qubit 0 is used twice"), std::string::npos);
  Q2Qubit *same[2] = {q1, q1};
  q2_rt_gate(Q2_GATE_SWAP, 0, same, 2, nullptr, 0, 0);
  EXPECT_NE(takeError().find("qubit 1 is used twice"), std::string::npos);
  q2_rt_gate(Q2_GATE_CNOT, 0, &q0, 1, nullptr, 0, 0);
  EXPECT_NE(takeError().find("CNOT takes 2 target(s), got 1"), std::string::npos);
  Q2Qubit *two[2] = {q0, q1};
  q2_rt_gate(Q2_GATE_H, 0, two, 2, nullptr, 0, 0);
  EXPECT_NE(takeError().find("H takes 1 target(s), got 2"), std::string::npos);
  q2_rt_gate(99, 0, &q0, 1, nullptr, 0, 0);
  EXPECT_NE(takeError().find("unknown gate 99"), std::string::npos);
  q2_rt_gate(Q2_GATE_H, 0, &q0, 1, &o0, 1, 0);
  EXPECT_NE(takeError().find("belongs to another register"), std::string::npos);
  q2_rt_gate(Q2_GATE_H, 0, &q0, 1, &q1, -1, 0);
  EXPECT_NE(takeError().find("negative number of ctrls"), std::string::npos);

  q2_rt_pauli_rot(0.1, "XQ", two, 2, nullptr, 0);
  EXPECT_NE(takeError().find("bad Pauli letter 'Q' (0x51) at position 1"),
            std::string::npos);
  q2_rt_pauli_rot(0.1, "xz", two, 2, nullptr, 0); // lower case is rejected
  EXPECT_NE(takeError().find("bad Pauli letter 'x'"), std::string::npos);
  q2_rt_pauli_rot(0.1, nullptr, two, 2, nullptr, 0);
  EXPECT_NE(takeError().find("NULL Pauli word"), std::string::npos);
  q2_rt_pauli_rot(0.1, "ZZ", two, 2, &q1, 1);
  EXPECT_NE(takeError().find("qubit 1 is used twice"), std::string::npos);

  EXPECT_EQ(q2_rt_measure(nullptr), -1);
  EXPECT_NE(takeError().find("q2_rt_measure: qubit[0] is a NULL qubit"),
            std::string::npos);
  double p[4];
  q2_rt_probs(two, 2, nullptr);
  EXPECT_NE(takeError().find("NULL output buffer"), std::string::npos);
  q2_rt_probs(same, 2, p);
  EXPECT_NE(takeError().find("used twice"), std::string::npos);

  // None of the failed calls touched the state or the count.
  EXPECT_EQ(q2_rt_gate_count(r), 0);
  EXPECT_EQ(fetch(r)[0], cd(1, 0));
  q2_rt_dealloc(r);
  q2_rt_dealloc(other);
}

TEST_F(RuntimeTest, PendingErrorMakesStateCallsNoOps) {
  Q2Register *r = q2_rt_alloc(2);
  Q2Qubit *q0 = q2_rt_qubit(r, 0), *q1 = q2_rt_qubit(r, 1);
  EXPECT_EQ(q2_rt_qubit(r, 7), nullptr); // first error
  const char *first = q2_rt_last_error();
  ASSERT_NE(first, nullptr);
  std::string firstMsg = first;

  q2_rt_gate(Q2_GATE_X, 0, &q0, 1, nullptr, 0, 0);
  q2_rt_pauli_rot(1.0, "X", &q1, 1, nullptr, 0);
  q2_rt_gate(Q2_GATE_CNOT, 0, &q0, 1, nullptr, 0, 0); // would be a new error
  EXPECT_EQ(q2_rt_measure(q0), -1);
  double p[2] = {-1, -1};
  q2_rt_probs(&q0, 1, p);
  EXPECT_EQ(p[0], -1.0); // untouched
  EXPECT_EQ(q2_rt_alloc(2), nullptr);
  EXPECT_EQ(q2_rt_qubit(r, 0), nullptr);
  EXPECT_EQ(std::string(q2_rt_last_error()), firstMsg); // first error kept
  EXPECT_EQ(q2_rt_gate_count(r), 0);
  EXPECT_EQ(fetch(r)[0], cd(1, 0));

  q2_rt_clear_error();
  EXPECT_EQ(q2_rt_last_error(), nullptr);
  q2_rt_gate(Q2_GATE_X, 0, &q0, 1, nullptr, 0, 0);
  EXPECT_EQ(q2_rt_gate_count(r), 1);
  EXPECT_EQ(fetch(r)[1], cd(1, 0));
  q2_rt_dealloc(r);
}

TEST_F(RuntimeTest, ErrorSlotIsThreadLocal) {
  EXPECT_EQ(q2_rt_alloc(0), nullptr);
  ASSERT_NE(q2_rt_last_error(), nullptr);
  bool otherSawError = true;
  std::thread([&] {
    otherSawError = q2_rt_last_error() != nullptr;
    Q2Register *r = q2_rt_alloc(2); // not blocked by this thread's error
    otherSawError |= r == nullptr;
    q2_rt_dealloc(r);
  }).join();
  EXPECT_FALSE(otherSawError);
  q2_rt_clear_error();
}

TEST_F(RuntimeTest, DefaultMaxQubitsFromPhysicalMemory) {
  long double phys = (long double)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGE_SIZE);
  int64_t n = rt::defaultMaxQubits();
  EXPECT_LE(std::ldexp(16.0L, int(n)), 0.8L * phys);
  EXPECT_GT(std::ldexp(16.0L, int(n + 1)), 0.8L * phys);
}

//===-- rotation fusion ---------------------------------------------------===//
namespace {
/// Turns fusion on for registers of any size (or off) for one scope; on,
/// every group of two or more Ops is applied densely (policy 1), so the
/// dense path is what the tests check.
struct FusionScope {
  bool prevOn;
  int64_t prevMin;
  int prevPolicy;
  explicit FusionScope(bool on, int policy = 1) {
    prevOn = rt::setFusionEnabled(on);
    prevMin = rt::setFusionMinQubits(1);
    prevPolicy = rt::setFusionPolicy(policy);
  }
  ~FusionScope() {
    rt::setFusionEnabled(prevOn);
    rt::setFusionMinQubits(prevMin);
    rt::setFusionPolicy(prevPolicy);
  }
};
} // namespace

/// A sequence that exercises joining, widening, control changes, identity
/// words, too-wide words and interleaved named gates, against the dense
/// product of the same operators.
TEST_F(RuntimeTest, FusedSequenceMatchesDense) {
  FusionScope fuse(true);
  std::mt19937_64 gen(11);
  const int n = 6;
  for (int rep = 0; rep < 8; ++rep) {
    VectorXcd psi = randomState(n, gen), want = psi;
    Q2Register *r = q2_rt_alloc(n);
    load(r, psi);
    std::vector<int> ctrls = {5};
    for (int step = 0; step < 60; ++step) {
      if (step % 17 == 16) { // switch controls now and then
        ctrls = step % 2 ? std::vector<int>{} : std::vector<int>{4, 5};
      }
      if (step % 23 == 22) { // a named gate in between
        int t = int(gen() % 4);
        want = embed({{t, gateMatrix(Q2_GATE_H, 0)}}, n) * want;
        Q2Qubit *q = q2_rt_qubit(r, t);
        q2_rt_gate(Q2_GATE_H, 0, &q, 1, nullptr, 0, 0);
        continue;
      }
      // Targets from qubits 0..3 (fusable) or, rarely, 5 letters (not).
      int nt = step % 29 == 28 ? 5 : 1 + int(gen() % 3);
      std::vector<int> t;
      if (nt == 5) {
        t = {0, 1, 2, 3, 4};
        ctrls.clear();
      } else {
        t = pick(4, nt, gen);
      }
      std::string w = randomWord(nt, step % 7 == 0 ? 0 : 2, gen);
      double th = 0.05 + 0.1 * step;
      MatrixXcd rot = pauliRotation(w, t, th, n);
      want = controlled(rot, ctrls, n) * want;
      auto th_ = handles(r, t), ch = handles(r, ctrls);
      q2_rt_pauli_rot(th, w.data(), th_.data(), nt, ch.data(),
                      int64_t(ctrls.size()));
    }
    ASSERT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
    EXPECT_LT((fetch(r) - want).cwiseAbs().maxCoeff(), 1e-12);
    q2_rt_dealloc(r);
  }
}

namespace {
struct H2Term {
  std::string word;
  double coeff;
};
/// The 14 non-identity terms of the shipped H2 Hamiltonian (a tiny reader:
/// lines like ["XXYY", -0.0453...]).
std::vector<H2Term> h2Terms() {
  const char *src = std::getenv("Q2_SOURCE_DIR");
  std::string path = std::string(src ? src : ".") +
                     "/examples/hamiltonians/h2_0.7414_jw_published.json";
  FILE *f = std::fopen(path.c_str(), "r");
  std::vector<H2Term> terms;
  if (!f)
    return terms;
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    char w[16];
    double c;
    if (std::sscanf(line, " [\"%15[IXYZ]\" , %lf", w, &c) == 2 &&
        std::string(w).find_first_not_of('I') != std::string::npos)
      terms.push_back({w, c});
  }
  std::fclose(f);
  return terms;
}

/// The benchmark's H2 QPE workload (smaller n_est); probabilities and state.
std::pair<std::vector<double>, VectorXcd>
runH2(const std::vector<H2Term> &terms, int nEst, bool estLow) {
  const int nSys = 4;
  Q2Register *r = q2_rt_alloc(nEst + nSys);
  std::vector<Q2Qubit *> est, sys;
  for (int i = 0; i < nEst; ++i)
    est.push_back(q2_rt_qubit(r, estLow ? i : nSys + i));
  for (int i = 0; i < nSys; ++i)
    sys.push_back(q2_rt_qubit(r, estLow ? nEst + i : i));
  for (Q2Qubit *q : est)
    q2_rt_gate(Q2_GATE_H, 0, &q, 1, nullptr, 0, 0);
  for (int k = 0; k < nEst; ++k)
    for (int rep = 0; rep < (1 << k); ++rep)
      for (const H2Term &t : terms)
        q2_rt_pauli_rot(2 * t.coeff * 0.1, t.word.data(), sys.data(), nSys,
                        &est[k], 1);
  std::vector<double> probs(size_t(1) << nEst);
  q2_rt_probs(est.data(), nEst, probs.data());
  VectorXcd v = fetch(r);
  q2_rt_dealloc(r);
  return {probs, v};
}
} // namespace

TEST_F(RuntimeTest, FusedH2WorkloadMatchesUnfused) {
  std::vector<H2Term> terms = h2Terms();
  ASSERT_EQ(terms.size(), 14u) << "Q2_SOURCE_DIR not set or file changed";
  for (bool avx2 : {false, true}) {
    for (bool estLow : {true, false}) {
      if (!rt::selectKernels(avx2))
        continue; // no AVX2 on this CPU
      SCOPED_TRACE(avx2 ? "avx2" : "generic");
      std::pair<std::vector<double>, VectorXcd> fused, plain;
      {
        FusionScope s(true);
        fused = runH2(terms, 8, estLow);
      }
      {
        FusionScope s(false);
        plain = runH2(terms, 8, estLow);
      }
      double maxDiff = 0, sum = 0;
      for (size_t i = 0; i < plain.first.size(); ++i) {
        maxDiff = std::max(maxDiff, std::abs(fused.first[i] - plain.first[i]));
        sum += fused.first[i];
      }
      EXPECT_LT(maxDiff, 1e-10);
      EXPECT_NEAR(sum, 1.0, 1e-10);
      EXPECT_LT((fused.second - plain.second).cwiseAbs().maxCoeff(), 1e-10);
    }
  }
  rt::selectKernels(rt::avx2Kernels() != nullptr);
}

/// Fused work is applied before anything observes or changes the state.
TEST_F(RuntimeTest, FusionFlushesBeforeObservation) {
  FusionScope fuse(true);
  Q2Register *r = q2_rt_alloc(2);
  Q2Qubit *q0 = q2_rt_qubit(r, 0);
  q2_rt_pauli_rot(M_PI, "X", &q0, 1, nullptr, 0); // -i X: |00> -> -i|01>
  EXPECT_TRUE(rt::lookupRegister(r)->fusion.active);
  double p[2];
  q2_rt_probs(&q0, 1, p); // flushes
  EXPECT_FALSE(rt::lookupRegister(r)->fusion.active);
  EXPECT_NEAR(p[1], 1.0, 1e-15);
  q2_rt_pauli_rot(M_PI, "X", &q0, 1, nullptr, 0); // back to -|00>
  EXPECT_EQ(q2_rt_measure(q0), 0);
  q2_rt_pauli_rot(M_PI, "X", &q0, 1, nullptr, 0);
  q2_rt_gate(Q2_GATE_X, 0, &q0, 1, nullptr, 0, 0); // flush, then X: i|00>
  EXPECT_NEAR(q2_rt_state_data(r)[1], 1.0, 1e-15);
  q2_rt_pauli_rot(M_PI, "X", &q0, 1, nullptr, 0);
  EXPECT_NEAR(q2_rt_state_data(r)[2], 1.0, 1e-15); // state_data flushes: |01>
  EXPECT_EQ(q2_rt_gate_count(r), 5);
  q2_rt_dealloc(r);
}
