//===- Records.h - What a profiled run records (plain data) -----*- C++ -*-===//
//
// The typed records of a profiling session: IR sizes, timeline samples,
// pass and stage records. Plain data (no MLIR, no JSON); the report module
// (Report.h) serializes them with one field list per type.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PROFILING_RECORDS_H
#define Q2_PROFILING_RECORDS_H

#include "q2/Profiling/Memory.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace q2::profiling {

/// Size of a program representation as a user sees it.
struct IRMetrics {
  std::string kind;   ///< "mlir", "llvm-ir" or "object"
  uint64_t bytes = 0; ///< bytes of the printed form (file size)
  uint64_t lines = 0; ///< '\n' characters (what `wc -l` reports)
  uint64_t ops = 0;   ///< operations incl. the root / LLVM instructions
  /// MLIR: ops per dialect namespace; LLVM IR: instructions per opcode.
  std::map<std::string, uint64_t> histogram;
};

/// One timeline point.
struct TimelineSample {
  double t = 0;      ///< seconds since the profiling epoch
  uint64_t rss = 0;  ///< bytes
  std::string stage; ///< "" when none was set
  std::string pass;  ///< "" when no pass was running
  int64_t passRecord = -1;
  /// For a sample taken between passes: the stage's pass that finished
  /// last (its allocations are still held), filled when a report is built.
  std::string lastPass;
  int64_t lastPassRecord = -1;
};

/// The highest sample, plus the smaps_rollup taken closest below it.
struct TimelinePeak {
  TimelineSample sample;
  std::optional<SmapsRollup> smaps;
  uint64_t smapsAtRSS = 0; ///< RSS of the sample that triggered the capture
  double smapsT = 0;
};

/// What a TimelineSampler saw.
struct TimelineRecord {
  int intervalMs = 0;
  std::string sampler;     ///< "signal" or "thread"
  std::string samplerNote; ///< why the thread was used, dropped samples ...
  uint64_t sampleCount = 0;
  std::optional<TimelinePeak> peak; ///< none without samples
  std::optional<std::string> error; ///< sampling stopped by itself
  std::vector<TimelineSample> samples;
};

/// The live heap over one pass or stage (docs/report.md "Heap"). Exact:
/// requested bytes counted at every allocation and free by the allocator
/// interposer, process-wide (with several threads, what all of them hold).
/// Not exact (no interposer): `before`/`after` are glibc's heap in use
/// (mallinfo2) at the boundaries, `peak` the highest such reading, and
/// nothing is known of allocations.
struct HeapFigures {
  uint64_t before = 0, after = 0; ///< live bytes at begin / end
  uint64_t allocated = 0;         ///< bytes allocated in between
  uint64_t allocCount = 0;        ///< allocations in between
  uint64_t peak = 0;              ///< highest live bytes in between
  bool exact = false;
};

/// One execution of one pass (or of a non-MLIR step such as LLVM code
/// generation) on one operation.
struct PassRecord {
  int64_t index = 0;
  int64_t parent = -1;    ///< enclosing record (pipeline adaptor), or -1
  unsigned depth = 0;     ///< 0 for passes of the top-level pipeline
  int thread = 0;         ///< 0 = first thread seen, 1, 2 ... worker threads
  /// As --mlir-timing prints it: Pass::getName() ("Inliner"), for an
  /// adaptor its pipeline ("'func.func' Pipeline").
  std::string name;
  std::string argument;   ///< command-line argument ("canonicalize"), or ""
  std::string opName;     ///< op it ran on ("builtin.module", "func.func")
  std::string opSymbol;   ///< sym_name of that op, if it has one
  std::string stage;      ///< stage open when it started, or ""
  bool isAdaptor = false; ///< an op-to-op pipeline adaptor (a nested pipeline)
  bool failed = false;
  bool finished = false;
  double startS = 0, endS = 0; ///< epoch seconds (raw span, for traces)
  /// Wall / process CPU of the pass, minus time the profiler itself spent
  /// inside it (e.g. printing IR for nested passes' metrics).
  double wallS = 0, cpuS = 0;
  double selfWallS = 0;                 ///< wallS minus nested passes' wallS
  double profilerS = 0;                 ///< profiler time excluded from wallS
  uint64_t rssBefore = 0, rssAfter = 0; ///< bytes (statm)
  int64_t rssDelta = 0;
  HeapFigures heap; ///< nested passes' allocations included
  std::optional<IRMetrics> irAfter; ///< with per-pass IR metrics
  /// The label used for the timeline ("argument", or the name without one).
  std::string label() const { return argument.empty() ? name : argument; }
};

/// What a stage is: parsing the input, a compile stage, or a Phase C step.
enum class StageKind { Input, Compile, Run };
llvm::StringRef toString(StageKind k);
std::optional<StageKind> parseEnum(llvm::StringRef s, StageKind *);

/// One stage between beginStage() and endStage().
struct StageRecord {
  std::string name;
  StageKind kind = StageKind::Compile;
  int64_t index = 0;
  MemorySnapshot begin, end;
  double wallS = 0, cpuS = 0;
  /// Whether the kernel accepted the VmHWM reset at the stage start.
  bool peakResetAccepted = false;
  std::string peakResetError;
  /// The stage's peak RSS and where it comes from: "kernel_hwm" (VmHWM after
  /// a successful reset) or "sampled" (max of the timeline samples in the
  /// stage and the two boundary snapshots).
  uint64_t peakRSS = 0;
  std::string peakSource;
  uint64_t sampledPeakRSS = 0;
  std::optional<TimelineSample> sampledPeak; ///< when a timeline runs
  /// Passes started in this stage: [firstPass, endPass) of the passes.
  uint64_t firstPass = 0, endPass = 0;
  /// The profiler's time for the stage: snapshots at its boundaries, pass
  /// hooks and per-pass IR metrics, the IR metrics of its output.
  double profilerS = 0;
  HeapFigures heap;
  /// Set by the caller after the stage (IR after the stage).
  std::optional<IRMetrics> ir;
};

/// Where a session's live heap peaked.
struct HeapPeakRecord {
  /// The highest live heap while the session recorded, and the innermost
  /// pass record (label and index) and the stage running when it was
  /// reached ("" / -1 when none was).
  uint64_t peak = 0;
  std::string pass;
  int64_t passRecord = -1;
  std::string stage;
  /// The process's highest live heap since it started (not exact: the
  /// highest reading at any boundary).
  uint64_t lifetimePeak = 0;
  bool exact = false;
};

/// Everything a ProfilingSession recorded.
struct SessionRecord {
  std::vector<StageRecord> stages;
  std::vector<PassRecord> passes;
  std::vector<MemorySnapshot> snapshots;
  std::optional<TimelineRecord> timeline;
  std::vector<std::string> warnings;
  uint64_t lifetimePeakRSS = 0;
  /// Time the process spent measuring: snapshots, pass hooks, IR metrics
  /// (per pass and after each stage). Writing the report is not in it.
  double profilerOverheadS = 0;
  HeapPeakRecord heap;
};

/// Summary statistics of repeated measurements (Stats::record()).
struct StatsRecord {
  uint64_t count = 0;
  double total = 0, mean = 0, min = 0, median = 0, max = 0, stddev = 0;
};

} // namespace q2::profiling

#endif // Q2_PROFILING_RECORDS_H
