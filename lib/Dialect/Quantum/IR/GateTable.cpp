//===- GateTable.cpp - the named gates of quantum.custom ------------------===//
#include "q2/Dialect/Quantum/IR/GateTable.h"
#include "q2/Runtime/QuantumRuntime.h"

using namespace q2::quantum;

static const GateInfo kGates[] = {
    // name, targets, params, runtime id, self-inverse, additive rotation
    {"Identity", 1, 0, Q2_GATE_IDENTITY, true, false},
    {"H", 1, 0, Q2_GATE_H, true, false},
    {"X", 1, 0, Q2_GATE_X, true, false},
    {"Y", 1, 0, Q2_GATE_Y, true, false},
    {"Z", 1, 0, Q2_GATE_Z, true, false},
    {"S", 1, 0, Q2_GATE_S, false, false},
    {"T", 1, 0, Q2_GATE_T, false, false},
    {"RX", 1, 1, Q2_GATE_RX, false, true},
    {"RY", 1, 1, Q2_GATE_RY, false, true},
    {"RZ", 1, 1, Q2_GATE_RZ, false, true},
    {"PhaseShift", 1, 1, Q2_GATE_PHASESHIFT, false, true},
    {"CNOT", 2, 0, Q2_GATE_CNOT, true, false},
    {"CZ", 2, 0, Q2_GATE_CZ, true, false},
    {"SWAP", 2, 0, Q2_GATE_SWAP, true, false},
};

llvm::ArrayRef<GateInfo> q2::quantum::getGateTable() { return kGates; }

std::optional<GateInfo> q2::quantum::lookupGate(llvm::StringRef name) {
  for (const GateInfo &g : kGates)
    if (g.name == name)
      return g;
  return std::nullopt;
}
