//===- RuntimeInternal.h - runtime internals (private) ----------*- C++ -*-===//
//
// The register layout behind the opaque C handles, for the runtime's own
// sources, its unit tests and benchmarks. Not installed, not part of the ABI.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_RUNTIME_RUNTIMEINTERNAL_H
#define Q2_RUNTIME_RUNTIMEINTERNAL_H

#include "q2/Runtime/QuantumRuntime.h"

#include <Eigen/Core>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

struct Q2Qubit {
  Q2Register *reg;
  int64_t index;
};

/// Pending fused work: consecutive Pauli rotations with the same controls on
/// at most kMaxFusedQubits qubits, multiplied into one dense 2^m x 2^m matrix
/// and applied in a single sweep when anything else needs the state.
struct Q2Fusion {
  static constexpr int kMaxFusedQubits = 4;
  bool active = false;
  uint64_t targetMask = 0; // local bit i = i-th lowest qubit of the mask
  uint64_t ctrlMask = 0;
  int64_t numFused = 0;
  // The first rotation, applied directly when it stays alone in its block
  // (one kernel sweep is cheaper than a dense 2^m x 2^m one).
  uint64_t firstXm = 0, firstZm = 0;
  int firstNy = 0;
  double firstCos = 1, firstSin = 0;
  std::vector<std::complex<double>> matrix, scratch; // row major
};

struct Q2Register {
  int64_t numQubits = 0;
  int64_t gateCount = 0;
  /// 2^numQubits amplitudes; qubit k is bit k of the index.
  Eigen::VectorXcd amps;
  std::unique_ptr<Q2Qubit[]> qubits;
  Q2Fusion fusion;
};

namespace q2::runtime {
/// Default of q2_rt_set_max_qubits: largest n with 16 * 2^n bytes <= 80 % of
/// physical memory (sysconf).
int64_t defaultMaxQubits();

/// Rotation fusion (on by default for registers of at least
/// getFusionMinQubits() qubits; env Q2_RT_FUSION=0 turns it off). Setters
/// return the previous value.
bool getFusionEnabled();
bool setFusionEnabled(bool on);
int64_t getFusionMinQubits();
int64_t setFusionMinQubits(int64_t n);
/// Applies pending fused work to the state (no-op when there is none).
void flushFusion(Q2Register *reg);
} // namespace q2::runtime

#endif // Q2_RUNTIME_RUNTIMEINTERNAL_H
