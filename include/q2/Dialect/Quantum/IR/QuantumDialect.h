//===- QuantumDialect.h - quantum dialect -----------------------*- C++ -*-===//
#ifndef Q2_DIALECT_QUANTUM_IR_QUANTUMDIALECT_H
#define Q2_DIALECT_QUANTUM_IR_QUANTUMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "q2/Dialect/Quantum/IR/QuantumOpsDialect.h.inc"

#endif
