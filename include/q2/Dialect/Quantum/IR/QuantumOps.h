//===- QuantumOps.h - quantum dialect operations ----------------*- C++ -*-===//
#ifndef Q2_DIALECT_QUANTUM_IR_QUANTUMOPS_H
#define Q2_DIALECT_QUANTUM_IR_QUANTUMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "q2/Dialect/Quantum/IR/QuantumDialect.h"
#include "q2/Dialect/Quantum/IR/QuantumInterfaces.h"
#include "q2/Dialect/Quantum/IR/QuantumTypes.h"

namespace q2::quantum {
/// Side-effect resource of register allocation and measurement.
struct RegisterResource
    : public mlir::SideEffects::Resource::Base<RegisterResource> {
  llvm::StringRef getName() final { return "quantum::Register"; }
};
} // namespace q2::quantum

#define GET_OP_CLASSES
#include "q2/Dialect/Quantum/IR/QuantumOps.h.inc"

#endif
