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
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace mlir {
class Operation;
class MLIRContext;
} // namespace mlir

namespace q2::profiling::detail {

/// Printed length (bytes, '\n's) of uniqued types and attributes of one
/// context with one set of flags; kept across prints.
class PrintedSizeMemo {
public:
  /// `flags`: an op's own print (local scope); `moduleFlags`: the module's,
  /// whose aliases the alias forms are printed with.
  PrintedSizeMemo(mlir::MLIRContext *ctx, const mlir::OpPrintingFlags &flags,
                  const mlir::OpPrintingFlags &moduleFlags);
  ~PrintedSizeMemo();
  struct Size {
    uint32_t bytes = 0, newlines = 0;
    /// The module printer would print it (or part of it) as an alias.
    bool aliased = false;
    /// For an aliased value: how its text changes when printed with the
    /// module's aliases (`#map` for `affine_map<...>`), and whether that is
    /// known (aliased sub-elements of an aliased value are not replicated).
    bool aliasKnown = false;
    int32_t aliasDeltaBytes = 0, aliasDeltaNewlines = 0;
  };
  /// An alias the module printer defines at the top of the file.
  struct AliasDef {
    uint32_t bytes = 0, newlines = 0; ///< of `#name = ...\n`
    std::string name;                 ///< `#map`, `!t`
  };
  /// Set by the owner: whether a type / attribute is aliased at module
  /// level, itself or in a sub-element (asked once per uniqued value) ...
  std::function<bool(mlir::Type)> typeAliased;
  std::function<bool(mlir::Attribute)> attrAliased;
  /// ... and whether it has an alias of its own.
  std::function<bool(mlir::Type)> typeHasAlias;
  std::function<bool(mlir::Attribute)> attrHasAlias;
  Size of(mlir::Type t);
  Size of(mlir::Attribute a, bool elideType);
  /// The aliases of the values of(...) returned since the last clear (each
  /// once, in first-use order), and how often each is printed.
  llvm::SmallVector<const void *, 4> usedAliases;
  llvm::SmallVector<uint32_t, 4> usedAliasCounts;
  /// Off while values are only seen (as the module's alias initializer
  /// sees them: in the order of first use), not printed.
  bool countUses = true;
  void clearUsedAliases();
  const AliasDef &aliasDef(const void *symbol) const {
    return aliasDefs.find(symbol)->second;
  }
  mlir::DialectInterfaceCollection<mlir::OpAsmDialectInterface> &interfaces() {
    return *asmInterfaces;
  }
  /// Length of each value's name as an operand (`%x`, `%x#1`) in the
  /// AsmState of the current count (kept here so that its buckets are).
  llvm::DenseMap<const void *, uint32_t> valueNames;

private:
  void noteUse(const void *key);
  /// Fills the alias fields of `size` for the aliased `x`.
  template <typename T> void aliasForm(T x, Size &size);
  template <typename T>
  bool collectAliases(T x, llvm::SmallVectorImpl<const void *> &out);
  template <typename T> void defineAlias(T symbol);
  std::unique_ptr<mlir::AsmState> state; ///< no aliases, the cache's flags
  mlir::OpPrintingFlags moduleFlags;
  llvm::DenseMap<const void *, llvm::SmallVector<const void *, 1>> aliasesOf;
  llvm::DenseMap<const void *, AliasDef> aliasDefs;
  llvm::DenseMap<const void *, unsigned> usedIndex; ///< in usedAliases
  std::unique_ptr<
      mlir::DialectInterfaceCollection<mlir::OpAsmDialectInterface>>
      asmInterfaces;
  llvm::DenseMap<const void *, Size> types, attrs, attrsNoType;
};

/// What countPrintedSize counted.
struct PrintedSize {
  uint64_t bytes = 0, newlines = 0;
  /// A type or attribute the module printer would see in the op (what is
  /// printed, and all block argument types) is aliased at module level.
  bool aliased = false;
  /// With the module's aliases: the text's size (when `aliasKnown`) and the
  /// aliases it needs defined (memo.aliasDef), in first-use order, with how
  /// often the text uses each. The size is with every alias named as it is
  /// alone (`#map`); the module may number some (aliasSuffixLengths).
  bool aliasKnown = true;
  int64_t aliasDeltaBytes = 0, aliasDeltaNewlines = 0;
  llvm::SmallVector<const void *, 4> aliases;
  llvm::SmallVector<uint32_t, 4> aliasUses;
};

/// How much longer each of `names` (alias names as printed alone, `#map`,
/// `!llvm_ptr`; in first-use order in the text) is printed when all of them
/// are aliases of one printed text: MLIR's AliasInitializer orders aliases
/// by kind (types first) and name, stably, and numbers a repeated name
/// (`#map`, `#map1`, `#map2`). For aliases without nested aliases (all of one
/// depth). False where MLIR's versions number differently (a repeated name
/// that ends with a digit, or a numbered name that is another alias's
/// name): not replicated.
bool aliasSuffixLengths(llvm::ArrayRef<llvm::StringRef> names,
                        llvm::SmallVectorImpl<unsigned> &lengths);

/// Bytes and '\n's of `op->print(os, state)` for `op` nested in a module (or
/// a top-level op without values, as printed without what the top level
/// adds) and `state` an AsmState of `op` with `flags` (local scope), and how the text
/// changes inside a module printed with aliases. False when the op uses
/// something not replicated here (nothing is counted then).
bool countPrintedSize(mlir::Operation *op, mlir::AsmState &state,
                      const mlir::OpPrintingFlags &flags,
                      PrintedSizeMemo &memo, PrintedSize &out);

/// Whether countPrintedSize can ever succeed with these flags.
bool sizePrinterSupports(const mlir::OpPrintingFlags &flags);

} // namespace q2::profiling::detail

#endif // Q2_LIB_PROFILING_MLIR_SIZEPRINTER_H
