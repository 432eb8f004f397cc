//===- GateTable.cpp - the named gates of quantum.custom ------------------===//
#include "q2/Dialect/Quantum/IR/GateTable.h"

using namespace q2::quantum;

static const GateInfo kGates[] = {
    // name, targets, params, self-inverse, additive rotation
    {"Identity", 1, 0, true, false},
    {"H", 1, 0, true, false},
    {"X", 1, 0, true, false},
    {"Y", 1, 0, true, false},
    {"Z", 1, 0, true, false},
    {"S", 1, 0, false, false},
    {"T", 1, 0, false, false},
    {"RX", 1, 1, false, true},
    {"RY", 1, 1, false, true},
    {"RZ", 1, 1, false, true},
    {"PhaseShift", 1, 1, false, true},
    {"CNOT", 2, 0, true, false},
    {"CZ", 2, 0, true, false},
    {"SWAP", 2, 0, true, false},
};

llvm::ArrayRef<GateInfo> q2::quantum::getGateTable() { return kGates; }

std::optional<GateInfo> q2::quantum::lookupGate(llvm::StringRef name) {
  for (const GateInfo &g : kGates)
    if (g.name == name)
      return g;
  return std::nullopt;
}
