//===- SizePrinter.h - Bytes and lines of an op's print, without printing -===//
//
// Internal to IRMetrics.cpp. Counts what MLIR's OperationPrinter would write
// for an op, running the ops' own custom printers against an OpAsmPrinter
// that counts: punctuation and keywords go to a counting stream, SSA and
// block names come from MLIR's own numbering (an AsmState of the op), and
// the text of each uniqued type and attribute is printed once by MLIR and
// its length remembered. Most of the cost of printing is types rendered
// again at every use (an `!llvm.struct<...>` through temporary strings);
// here a use costs a hash lookup.
//
// Everything not replicated exactly (generic op form, unregistered ops,
// shadowed region arguments, affine maps of SSA ids, floats, resources, any
// flag other than the cache's) makes count() return false, and the caller
// prints the op with MLIR's printer instead.
//
//===----------------------------------------------------------------------===//

#ifndef Q2_LIB_PROFILING_MLIR_SIZEPRINTER_H
#define Q2_LIB_PROFILING_MLIR_SIZEPRINTER_H

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectInterface.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <functional>
#include <memory>

namespace mlir {
class Operation;
class MLIRContext;
} // namespace mlir

namespace q2::profiling::detail {

/// Printed length (bytes, '\n's) of uniqued types and attributes of one
/// context with one set of flags; kept across prints.
class PrintedSizeMemo {
public:
  PrintedSizeMemo(mlir::MLIRContext *ctx, const mlir::OpPrintingFlags &flags);
  ~PrintedSizeMemo();
  struct Size {
    uint32_t bytes = 0, newlines = 0;
    /// The module printer would print it (or part of it) as an alias.
    bool aliased = false;
  };
  /// Set by the owner: whether a type / attribute is aliased at module
  /// level (asked once per uniqued value).
  std::function<bool(mlir::Type)> typeAliased;
  std::function<bool(mlir::Attribute)> attrAliased;
  Size of(mlir::Type t);
  Size of(mlir::Attribute a, bool elideType);
  mlir::DialectInterfaceCollection<mlir::OpAsmDialectInterface> &interfaces() {
    return *asmInterfaces;
  }
  /// Length of each value's name as an operand (`%x`, `%x#1`) in the
  /// AsmState of the current count (kept here so that its buckets are).
  llvm::DenseMap<const void *, uint32_t> valueNames;

private:
  std::unique_ptr<mlir::AsmState> state; ///< no aliases, the cache's flags
  std::unique_ptr<
      mlir::DialectInterfaceCollection<mlir::OpAsmDialectInterface>>
      asmInterfaces;
  llvm::DenseMap<const void *, Size> types, attrs, attrsNoType;
};

/// Bytes and '\n's of `op->print(os, state)` for `op` nested in a module and
/// `state` an AsmState of `op` with `flags` (local scope). False when the
/// op uses something not replicated here (nothing is counted then).
/// `aliased`: a type or attribute the module printer would see in `op` (what
/// is printed, and all block argument types) is aliased at module level.
bool countPrintedSize(mlir::Operation *op, mlir::AsmState &state,
                      const mlir::OpPrintingFlags &flags,
                      PrintedSizeMemo &memo, uint64_t &bytes,
                      uint64_t &newlines, bool &aliased);

/// Whether countPrintedSize can ever succeed with these flags.
bool sizePrinterSupports(const mlir::OpPrintingFlags &flags);

} // namespace q2::profiling::detail

#endif // Q2_LIB_PROFILING_MLIR_SIZEPRINTER_H
