//===- RuntimeSharedTest.cpp - the C ABI through libq2_runtime.so ---------===//
// Links only the shared library (as JIT-compiled code resolves it): a small
// circuit against amplitudes worked out by hand.
#include "q2/Runtime/QuantumRuntime.h"

#include <gtest/gtest.h>

#include <cmath>

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
