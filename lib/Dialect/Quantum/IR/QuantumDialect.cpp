//===- QuantumDialect.cpp - quantum dialect -------------------------------===//
#include "q2/Dialect/Quantum/IR/QuantumDialect.h"
#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/Dialect/Quantum/IR/QuantumTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

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

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

Attribute QuantumDialect::parseAttribute(DialectAsmParser &parser,
                                         Type) const {
  StringRef name;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&name))
    return {};
  if (name == "qpe")
    parser.emitError(loc, "'#quantum.qpe' is now '#qpe.metadata', under the "
                          "module attribute 'qpe.metadata' (same keys; "
                          "regenerate the program with q2-qpe or rename both)");
  else
    parser.emitError(loc, "the quantum dialect has no attribute '")
        << name << "'";
  return {};
}

void QuantumDialect::printAttribute(Attribute, DialectAsmPrinter &) const {
  llvm_unreachable("the quantum dialect has no attributes");
}
