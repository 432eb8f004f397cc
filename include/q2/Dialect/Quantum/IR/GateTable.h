//===- GateTable.h - the named gates of quantum.custom ----------*- C++ -*-===//
//
// One table shared by the verifier, the transforms and the lowering, so a
// gate is known in exactly one place (the lowering maps its name to the
// runtime ABI's id: the dialect knows nothing of the runtime).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_DIALECT_QUANTUM_IR_GATETABLE_H
#define Q2_DIALECT_QUANTUM_IR_GATETABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace q2::quantum {

struct GateInfo {
  llvm::StringLiteral name;
  unsigned numTargets;
  unsigned numParams;
  /// G == G^dagger (so G·G = I).
  bool selfInverse;
  /// Rotation whose adjoint is the same gate with -theta, and whose
  /// consecutive applications add angles.
  bool additiveRotation;
};

llvm::ArrayRef<GateInfo> getGateTable();
std::optional<GateInfo> lookupGate(llvm::StringRef name);

} // namespace q2::quantum

#endif
