//===- QuantumTypes.h - quantum dialect types -------------------*- C++ -*-===//
#ifndef Q2_DIALECT_QUANTUM_IR_QUANTUMTYPES_H
#define Q2_DIALECT_QUANTUM_IR_QUANTUMTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "q2/Dialect/Quantum/IR/QuantumOpsTypes.h.inc"

#endif
