//===- IRMetrics.h - Size of IR in bytes, lines and operations --*- C++ -*-===//
//
// IR size as a user sees it: the bytes and lines of its textual form, counted
// by printing into a stream that only counts (no string is materialized), and
// the number of operations (instructions for LLVM IR) with a histogram by
// dialect (opcode for LLVM IR). Object code is measured as a byte buffer.
//
//===----------------------------------------------------------------------===//

#ifndef Q2_PROFILING_MLIR_IRMETRICS_H
#define Q2_PROFILING_MLIR_IRMETRICS_H

#include "q2/Profiling/Records.h"

#include "mlir/IR/OperationSupport.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir {
class Operation;
} // namespace mlir

namespace q2::profiling {

/// A raw_ostream that discards its data and counts bytes and '\n's. Its
/// counts equal the size / `wc -l` of a file the same writes would produce.
class CountingOStream : public llvm::raw_ostream {
public:
  /// `forward` (optional) also receives every byte: counting while writing
  /// a file costs no second print and no copy of the text.
  explicit CountingOStream(llvm::raw_ostream *forward = nullptr);
  ~CountingOStream() override;
  /// Totals so far (flushes the internal buffer first).
  uint64_t bytes();
  uint64_t lines();

private:
  void write_impl(const char *ptr, size_t size) override;
  uint64_t current_pos() const override { return nBytes; }
  llvm::raw_ostream *forward;
  uint64_t nBytes = 0;
  uint64_t nLines = 0;
};

struct IRMetricsOptions {
  /// Must match the flags used when the IR is written to a file for the byte
  /// counts to agree with that file.
  mlir::OpPrintingFlags flags;
  /// mlir-opt (and `--ir-dir`) ends the file with '\n' after the op.
  bool trailingNewline = true;
  /// Count ops / build the histogram (a walk, cheap next to printing).
  bool countOps = true;
  /// Print at all; off gives only op counts (for cheap per-pass metrics).
  bool print = true;
  /// When printing, also write the text here (e.g. the --ir-dir file).
  llvm::raw_ostream *alsoWriteTo = nullptr;
};

/// Metrics of `op` as `op->print(os, flags)` (+ '\n') would write it.
IRMetrics measureIR(mlir::Operation *op, const IRMetricsOptions &options = {});
/// The same when the caller already has the printed text (e.g. the file it
/// writes): bytes/lines are counted in `printed`, ops in `op`.
IRMetrics measureIRFromText(mlir::Operation *op, llvm::StringRef printed,
                    const IRMetricsOptions &options = {});

/// Metrics of `module` as `module.print(os, nullptr)` writes it (what
/// `os << module` and llvm-dis produce); the text also goes to
/// `alsoWriteTo` if given.
IRMetrics measureIR(const llvm::Module &module, bool countOps = true,
                    llvm::raw_ostream *alsoWriteTo = nullptr);

/// Metrics of an in-memory buffer (e.g. object code): bytes and '\n' count.
IRMetrics measureBuffer(llvm::StringRef data, llvm::StringRef kind = "object");

/// Metrics of a file on disk; kind given by the caller.
llvm::Expected<IRMetrics> measureFile(llvm::StringRef path,
                                      llvm::StringRef kind = "object");

/// IR metrics that re-print only what changed. The printed size of an
/// operation changes only when the operation does, so the cache keeps the
/// figures of every top-level op of a module (each function, global, ...)
/// with a structural hash of it (a walk, far cheaper than printing; unlike
/// mlir::OperationFingerPrint it also covers op names, the block an op is in
/// and block argument types). Measuring the module hashes its top-level ops,
/// measures again only those whose hash changed (each in its own scope,
/// which is also how the module printer numbers an isolated op's values;
/// counted by running the ops' printers against a counting printer, or
/// printed where that is not possible, see docs/profiling-api.md) and adds up:
/// module header and footer + each op's bytes + 2 spaces of indentation per
/// line. The figures are exactly those of printing the whole module with the
/// cache's flags (what measureIR gives); where that cannot be guaranteed
/// (attribute/type aliases or dialect resources printed at module level, a
/// top-level op with results or operands or not isolated from above, debug
/// info or other flags that print differently per op, flags that verify
/// before printing) the module is printed whole instead, and its figures are
/// reused while no top-level op changed.
/// One thread at a time.
class IRMetricsCache {
public:
  explicit IRMetricsCache(IRMetricsOptions options = {});
  ~IRMetricsCache();
  /// What measureIR(op, options()) gives.
  IRMetrics measure(mlir::Operation *op);
  /// What measureIR(op, options() + useLocalScope()) gives (a nested op, e.g.
  /// the function a pass ran on): re-printed only when `op` changed.
  IRMetrics measureLocal(mlir::Operation *op);
  /// measure(top) right after a pass that ran on `changed`, nested in `top`.
  /// A pass may only change the op it runs on, so only the top-level op
  /// containing `changed` is hashed again, if the other ops' figures are
  /// current: since the last measure(top) only passes have run, each
  /// followed by this call. invalidateNested() says when that stops being
  /// true; otherwise this is measure(top).
  IRMetrics measureAfterPassOn(mlir::Operation *top, mlir::Operation *changed);
  /// Code other than passes may have changed the IR since the last measure:
  /// the next measureAfterPassOn() hashes every top-level op.
  void invalidateNested();
  /// The last metrics measured of `op` by measure(), without checking that
  /// it is unchanged: for a caller that knows nothing has run since (a stage
  /// end right after its last module pass was measured).
  std::optional<IRMetrics> lastOf(mlir::Operation *op) const;
  const IRMetricsOptions &options() const { return opts; }

  /// What the cache did (tests and benchmarks).
  struct Stats {
    uint64_t unchanged = 0;  ///< measures answered without printing
    uint64_t opPrints = 0;   ///< ops printed on their own
    uint64_t sizeCounts = 0; ///< ops counted by the size printer
    uint64_t sizeMismatches = 0; ///< Q2_IR_METRICS_VERIFY: counts != print
    uint64_t fullPrints = 0; ///< whole-module prints (fallback)
  };
  const Stats &stats() const;

private:
  IRMetricsOptions opts;
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace q2::profiling

#endif // Q2_PROFILING_MLIR_IRMETRICS_H
