//===- QuantumAttrs.h - quantum dialect attributes --------------*- C++ -*-===//
#ifndef Q2_DIALECT_QUANTUM_IR_QUANTUMATTRS_H
#define Q2_DIALECT_QUANTUM_IR_QUANTUMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/APFloat.h"

namespace q2::quantum {
// Parameter parsers/printers of the attributes (QuantumAttrs.td).
mlir::FailureOr<llvm::APFloat> parseF64(mlir::AsmParser &parser);
mlir::FailureOr<bool> parseBool(mlir::AsmParser &parser);
mlir::FailureOr<mlir::DenseF64ArrayAttr> parseF64Array(mlir::AsmParser &parser);
void printF64Array(mlir::AsmPrinter &printer, mlir::DenseF64ArrayAttr values);

/// Name of the module attribute holding the QPEAttr.
inline constexpr const char *kQPEAttrName = "quantum.qpe";
} // namespace q2::quantum

#define GET_ATTRDEF_CLASSES
#include "q2/Dialect/Quantum/IR/QuantumAttrs.h.inc"

#endif
