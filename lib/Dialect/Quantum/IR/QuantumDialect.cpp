//===- QuantumDialect.cpp - quantum dialect -------------------------------===//
#include "q2/Dialect/Quantum/IR/QuantumDialect.h"
#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/Dialect/Quantum/IR/QuantumTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace q2::quantum;

#include "q2/Dialect/Quantum/IR/QuantumOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "q2/Dialect/Quantum/IR/QuantumOpsTypes.cpp.inc"

void QuantumDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "q2/Dialect/Quantum/IR/QuantumOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "q2/Dialect/Quantum/IR/QuantumOpsTypes.cpp.inc"
      >();
}
