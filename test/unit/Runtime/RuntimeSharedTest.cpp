//===- RuntimeSharedTest.cpp - the C ABI through libq2_runtime.so ---------===//
// Links only the shared library (as JIT-compiled code resolves it): a small
// circuit against amplitudes worked out by hand.
#include "q2/Runtime/QuantumRuntime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

TEST(RuntimeShared, BellStateThroughSharedLibrary) {
  q2_rt_clear_error();
  Q2Register *r = q2_rt_alloc(3);
  ASSERT_NE(r, nullptr);
  Q2Qubit *a = q2_rt_qubit(r, 0), *b = q2_rt_qubit(r, 2);
  Q2Qubit *ab[2] = {a, b};
  q2_rt_gate(Q2_GATE_H, 0, &a, 1, nullptr, 0, 0);
  q2_rt_gate(Q2_GATE_CNOT, 0, ab, 2, nullptr, 0, 0);
  // exp(-i pi/4 ZZ) on (|000> + |101>)/sqrt2: both have even parity.
  q2_rt_pauli_rot(M_PI / 2, "ZZ", ab, 2, nullptr, 0);
  ASSERT_EQ(q2_rt_last_error(), nullptr);
  const double *v = q2_rt_state_data(r);
  const double h = std::sqrt(0.5) * std::sqrt(0.5); // 1/sqrt2 * e^{-i pi/4}
  EXPECT_NEAR(v[0], h, 1e-15);
  EXPECT_NEAR(v[1], -h, 1e-15);
  EXPECT_NEAR(v[2 * 5], h, 1e-15);
  EXPECT_NEAR(v[2 * 5 + 1], -h, 1e-15);
  double p[4];
  q2_rt_probs(ab, 2, p);
  EXPECT_NEAR(p[0], 0.5, 1e-15);
  EXPECT_NEAR(p[3], 0.5, 1e-15);
  EXPECT_EQ(q2_rt_gate_count(r), 3);
  q2_rt_dealloc(r);
}

/// The block ABI and the new controls are exported: a controlled-X block
/// powered 3 times (= one X) and 4 times (= identity), checked by hand.
TEST(RuntimeShared, BlocksAndHandleChecksThroughSharedLibrary) {
  q2_rt_clear_error();
  q2_rt_reset_block_stats();
  int32_t prevThreads = q2_rt_get_num_threads();
  EXPECT_GE(prevThreads, 1);
  Q2Register *r = q2_rt_alloc(2);
  Q2Qubit *a = q2_rt_qubit(r, 0), *b = q2_rt_qubit(r, 1);
  q2_rt_gate(Q2_GATE_X, 0, &b, 1, nullptr, 0, 0); // |10>
  for (int32_t mode = 0; mode <= 2; ++mode) {
    int32_t prev = q2_rt_set_block_mode(mode);
    q2_rt_block_begin(3);
    q2_rt_gate(Q2_GATE_X, 0, &a, 1, &b, 1, 0);
    q2_rt_block_end();
    q2_rt_set_block_mode(prev);
    ASSERT_EQ(q2_rt_last_error(), nullptr) << q2_rt_last_error();
    double p[4];
    Q2Qubit *ba[2] = {b, a};
    q2_rt_probs(ba, 2, p);
    EXPECT_NEAR(p[mode % 2 == 0 ? 3 : 2], 1.0, 1e-15) << mode; // toggles
  }
  // Mode 0 replays; mode 1 picks (replay here: one gate on 2 qubits, so it
  // shares mode 0's entry); mode 2 is dense.
  Q2BlockStat st[4];
  int64_t n = q2_rt_block_stats(st, 4);
  ASSERT_GE(n, 2);
  ASSERT_LE(n, 3);
  int64_t total = 0;
  bool dense = false;
  for (int64_t i = 0; i < n; ++i) {
    total += st[i].occurrences;
    dense |= st[i].method == 2;
    EXPECT_EQ(st[i].count, 3);
    EXPECT_EQ(st[i].num_qubits, 1);
    EXPECT_EQ(st[i].num_controls, 1);
  }
  EXPECT_EQ(total, 3);
  EXPECT_TRUE(dense);
  q2_rt_reset_block_stats();
  EXPECT_GT(q2_rt_set_block_memory_limit(1 << 20), 0);
  EXPECT_EQ(q2_rt_set_block_memory_limit(0), 1 << 20);
  q2_rt_dealloc(r);
  q2_rt_dealloc(r); // double free: an error, not a crash
  ASSERT_NE(q2_rt_last_error(), nullptr);
  EXPECT_NE(std::string(q2_rt_last_error()).find("invalid register handle"),
            std::string::npos);
  q2_rt_clear_error();
}
