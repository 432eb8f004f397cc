//===- QPEDialect.h - the qpe dialect: program metadata ---------*- C++ -*-===//
//
// `#qpe.metadata<...>`: QPEMetadata as an MLIR attribute, under the module
// attribute name `qpe.metadata` (kMetadataAttrName).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_DIALECT_QPE_IR_QPEDIALECT_H
#define Q2_DIALECT_QPE_IR_QPEDIALECT_H

#include "q2/QPE/QPEMetadata.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/Hashing.h"

namespace q2::qpe {
/// Name of the module attribute holding the MetadataAttr.
inline constexpr const char *kMetadataAttrName = "qpe.metadata";

/// The attribute's body `key = value, ...` (QPEMetadata.def's keys).
void printMetadataFields(mlir::AsmPrinter &printer, const QPEMetadata &md);
mlir::FailureOr<QPEMetadata> parseMetadataFields(mlir::AsmParser &parser);
/// For the attribute storage (consistent with operator==).
llvm::hash_code hash_value(const QPEMetadata &md);
} // namespace q2::qpe

#include "q2/Dialect/QPE/IR/QPEDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "q2/Dialect/QPE/IR/QPEAttrs.h.inc"

namespace q2::qpe {
/// Reads the `qpe.metadata` attribute (verified when the module was
/// parsed); the error says when the module is not a QPE program.
llvm::Expected<QPEMetadata> readQPEMetadata(mlir::ModuleOp module);
} // namespace q2::qpe

#endif // Q2_DIALECT_QPE_IR_QPEDIALECT_H
