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

/// The last IR measured and its structural fingerprint: measuring the same
/// op again while it is unchanged (a pass that changed nothing, a stage end
/// right after its last pass was measured) costs a hash instead of a print.
/// Shared by the pass instrumentation and the driver; one thread at a time.
class IRMetricsCache {
public:
  explicit IRMetricsCache(IRMetricsOptions options = {});
  ~IRMetricsCache();
  IRMetrics measure(mlir::Operation *op);
  /// The last metrics measured of `op`, without checking that it is
  /// unchanged: for a caller that knows nothing has run since (a stage end
  /// right after its last module pass was measured).
  std::optional<IRMetrics> lastOf(mlir::Operation *op) const {
    if (target != op || !print)
      return std::nullopt;
    return metrics;
  }
  const IRMetricsOptions &options() const { return opts; }

private:
  IRMetricsOptions opts;
  mlir::Operation *target = nullptr;
  struct Print;
  std::unique_ptr<Print> print;
  IRMetrics metrics;
};

} // namespace q2::profiling

#endif // Q2_PROFILING_MLIR_IRMETRICS_H
