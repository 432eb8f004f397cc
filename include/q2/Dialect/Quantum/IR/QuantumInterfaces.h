//===- QuantumInterfaces.h - the QuantumGate interface ----------*- C++ -*-===//
#ifndef Q2_DIALECT_QUANTUM_IR_QUANTUMINTERFACES_H
#define Q2_DIALECT_QUANTUM_IR_QUANTUMINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace q2::quantum {
class QuantumGate;
namespace detail {
/// The rules every gate shares: one result per qubit operand (targets, then
/// controls) and no qubit value used twice.
mlir::LogicalResult verifyGate(mlir::Operation *op);
} // namespace detail
} // namespace q2::quantum

#include "q2/Dialect/Quantum/IR/QuantumInterfaces.h.inc"

#endif
