//===- Report.h - The typed profile report and its JSON form ----*- C++ -*-===//
//
// ProfileReport is what `q2-opt --report` writes (schema q2.profile/3,
// docs/report.md) and what q2-profile, the sweeps and the Python module read
// back: one type, one writer, one reader. Stages are tagged input / compile /
// run, so "compile time" is the sum of the compile stages, never of every
// stage.
//
// Also here: the q2-snapshot report (q2.snapshots/1) and the text tables the
// driver prints.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PROFILING_REPORT_H
#define Q2_PROFILING_REPORT_H

#include "q2/Profiling/Records.h"
#include "q2/Support/RawJSON.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace q2::profiling {

/// /3 embeds the program's metadata as "parameters" under its own keys
/// (QPEMetadata.def: n_system, n_est, words, ...); /2 named some of them
/// differently (n_system_qubits, n_estimation_wires) and had no words or
/// coefficients. /2 reports are still read (renamed as read; those two
/// absent).
inline constexpr const char *kReportSchema = "q2.profile/3";
inline constexpr const char *kReportSchemaV2 = "q2.profile/2";
inline constexpr const char *kSnapshotSchema = "q2.snapshots/1";

/// A scalar option value as it appears in the report.
using OptionValue = std::variant<bool, int64_t, double, std::string>;

struct CacheRecord {
  std::string path;
  std::string status; ///< "hit", "miss" or "corrupt" (then recompiled)
};

/// Phase A run inside q2-opt (a Hamiltonian input): the Hamiltonian read
/// and mapped to qubits, then the stage-0 program planned and built, as
/// q2-qpe does. Its two stages ("Hamiltonian", "Program", kind input) are
/// in phase_b.stages before "Input"; this is their summary.
struct PhaseARecord {
  std::string format; ///< "fcidump", "json" or "openfermion"
  uint64_t nQubits = 0, nElectrons = 0;
  uint64_t nTerms = 0; ///< Pauli terms of the qubit Hamiltonian
  /// The request (what was asked; what was built is `parameters`).
  std::optional<uint64_t> nEst;     ///< null: from the resolution
  std::optional<uint64_t> nTrotter; ///< null: auto
  double resolution = 0;            ///< Ha, the target
  std::string mode;
  /// Wall seconds of the two stages and of both; CPU seconds of both.
  double hamiltonianS = 0, programS = 0, wallS = 0, cpuS = 0;
  uint64_t peakRSS = 0;      ///< the higher stage peak
  uint64_t programBytes = 0; ///< the program text handed to Input
};

/// How the runtime applied one kind of powered block (quantum.power) in one
/// call (docs/execution.md).
struct BlockRecord {
  int64_t numQubits = 0;   ///< m: qubits besides the common controls
  int64_t numControls = 0; ///< controls common to every gate of the block
  int64_t count = 0;       ///< N: repetitions
  int64_t numGates = 0;    ///< gates recorded
  /// Operations applied per repetition after the runtime's Clifford folding
  /// (a decomposed rotation counts 1); absent in reports before it.
  std::optional<int64_t> numOps;
  int64_t occurrences = 0; ///< blocks of this kind in the call
  std::string method;      ///< "replay", "slice_replay" or "dense"
  int64_t reused = 0;      ///< occurrences that took U^k from the cache
  double seconds = 0;      ///< wall time, all occurrences
  /// Dense 2^m x 2^m products computed, all occurrences (where dense time
  /// goes); absent in reports before it.
  std::optional<int64_t> products;
  /// Dense: the matrices' size, 2^m or 2^d when the runtime proved U block
  /// diagonal on invariant cosets of 2^d states; and how many cosets the
  /// state had amplitude on. Absent for the other methods and in reports
  /// before it.
  std::optional<int64_t> denseDim;
  std::optional<int64_t> cosets;
  /// Where the block ran: "state_vector", "live_subspace" or "eigenphases"
  /// (docs/runtime-blocks.md), and the subspace's dimension (states of the
  /// restricted register, or of the system's live subspace for
  /// eigenphases). Absent on the state vector and in reports before them.
  std::optional<std::string> path;
  std::optional<int64_t> subspaceDim;
};

/// How the runtime resolved the register of a call (a deferred register,
/// docs/runtime-blocks.md "Beyond the state vector").
struct PathRecord {
  std::string path;        ///< "state_vector", "live_subspace", "eigenphases"
  int64_t qubits = 0;      ///< the register's qubits
  int64_t liveQubits = 0;  ///< dimension of its live affine subspace
  int64_t subspaceDim = 0; ///< eigenphases: system states; else amplitudes
  double seconds = 0;      ///< wall time of the resolution
  double eigenSeconds = 0; ///< eigenphases: U and its eigenvectors
  double bytes = 0;        ///< the path's amplitudes and matrices
  std::string note;        ///< why this path
};

/// One coefficient set run in Phase C.
struct PhaseCSetRecord {
  std::string label;
  double probSum = 0;
  uint64_t argmax = 0;
  double phase = 0;
  double energy = 0;
  /// The error estimate of `energy` (all Ha but peak_mass; docs/report.md).
  double resolution = 0;
  std::optional<double> trotterBound; ///< for this set's coefficients
  double peakMass = 0;   ///< probability of outcomes argmax-1..argmax+1
  double peakEnergy = 0; ///< probability-weighted energy over the peak
  /// The sector's exact ground energy (the default coefficients only) and
  /// (energy - exact) / resolution.
  std::optional<double> exactEnergy, errorResolutions;
  StatsRecord callS; ///< seconds per call
  std::vector<double> probabilities;
  /// The powered blocks of the last call.
  std::vector<BlockRecord> blocks;
  /// The runtime's path for the last call's register (absent when it was a
  /// state vector from the start, and in reports before it).
  std::optional<PathRecord> execution;
  /// Peak RSS of the process over this set's calls (VmHWM reset before
  /// them where the kernel allows, else the lifetime peak so far).
  std::optional<uint64_t> peakRSS;
  /// Set when the result is suspect (prob_sum off 1 by more than 1e-6).
  std::optional<std::string> warning;
};

struct PhaseCRecord {
  std::string runtime;
  uint64_t callsPerSet = 0;
  int64_t threads = 0; ///< threads the runtime's kernels use
  std::vector<PhaseCSetRecord> sets;
  std::optional<std::string> error;
  /// Phase C did not run: the program's register does not fit and the run
  /// was implied by profiling, not asked for (--run N). Then `reason` says
  /// why, with the qubits, the bytes the state would need and the limit
  /// (qubits); runtime is empty and sets is empty.
  bool skipped = false;
  std::optional<std::string> reason;
  std::optional<int64_t> qubits, limit;
  std::optional<double> bytesNeeded;
};

struct ProfileReport {
  std::string schema = kReportSchema;
  std::string tool = "q2-opt";
  std::string input;
  /// The first error diagnostic, when the run failed.
  std::optional<std::string> error;
  /// The program's metadata as a JSON object (the .q2.qpe section's fields,
  /// plus the derived ir_scale); absent when the input is not a QPE
  /// program. The QPE model owns its keys (qpe::toJSON writes it,
  /// qpe::fromJSON reads it typed); the profiling core only carries it.
  std::optional<json::RawObject> parameters;
  /// Every pipeline option plus the driver's own (profile_passes, ...).
  std::map<std::string, OptionValue> options;
  std::optional<CacheRecord> cache;
  std::optional<PhaseARecord> phaseA; ///< a Hamiltonian input only
  /// The profiling session: input, compile and run stages, passes, timeline.
  SessionRecord phaseB;
  std::optional<PhaseCRecord> phaseC;
  uint64_t lifetimePeakRSS = 0;

  /// Wall seconds of the compile stages (stages 1-6), the figure a sweep
  /// reports as compile time.
  double compileSeconds() const;
  /// Highest per-stage peak RSS among the compile stages.
  uint64_t compilePeakRSS() const;
};

/// Writes `report` atomically (q2::writeFileAtomically).
llvm::Error writeReport(llvm::StringRef path, const ProfileReport &report);
/// Reads a report; errors name the file and the key (e.g. a missing
/// "phase_b.stages[2].wall_s", a string where a number belongs, 1e400).
llvm::Expected<ProfileReport> readReport(llvm::StringRef path);

/// A record of the q2.snapshots/1 file the q2-snapshot pass appends to.
struct SnapshotEntry {
  uint64_t index = 0;
  MemorySnapshot snapshot;
  std::optional<IRMetrics> ir;     ///< the MLIR module the pass ran on
  std::optional<IRMetrics> llvmIR; ///< q2-qpe-pipeline after stage 5
  std::optional<IRMetrics> object; ///< q2-qpe-pipeline after stage 6
};
struct SnapshotFile {
  std::string schema = kSnapshotSchema;
  std::vector<SnapshotEntry> snapshots;
};

/// Appends `entry` (its index is set here) to the snapshot file `path`,
/// creating it if missing. Concurrent appenders (threads or processes) are
/// serialized by a lock on "<path>.lock". Refuses, without touching it, an
/// existing file that is not a q2.snapshots/1 report.
llvm::Error appendSnapshot(llvm::StringRef path, SnapshotEntry entry);
llvm::Expected<SnapshotFile> readSnapshotFile(llvm::StringRef path);

/// JSON text of any record type above (and of ProcStatus, MemorySnapshot,
/// StageRecord, PassRecord, TimelineRecord, SessionRecord, IRMetrics,
/// StatsRecord), as written into reports; e.g. for logs or Python's
/// to_dict().
template <class T> std::string toJSONText(const T &record, int indent = -1);
/// Parses what toJSONText wrote (`source` names it in errors).
template <class T>
llvm::Expected<T> fromJSONText(llvm::StringRef text,
                               llvm::StringRef source = "<json>");

/// A fixed-width table, one row per stage: wall, CPU, RSS after, stage peak
/// (with "hwm" or "smp" for its source), live heap after and its peak in the
/// stage, and, for stages whose
/// `ir` is set, IR KB, lines, ops and amplification (IR bytes / IR bytes of
/// the previous stage that has IR).
std::string formatStageTable(llvm::ArrayRef<StageRecord> stages);

/// The `top` most expensive non-adaptor passes by wall time: pass, op, stage,
/// wall ms, CPU ms, RSS delta MB, live-heap delta and peak MB, and (if
/// measured) IR KB after. Ties keep
/// the run order, so the table does not depend on timing noise beyond the
/// times themselves.
std::string formatPassTable(llvm::ArrayRef<PassRecord> passes, size_t top = 20);

/// The same columns for the `top` passes that held the most heap at their
/// peak above what was live when they began (heap peak - heap before):
/// where memory goes, whatever the pass's time.
std::string formatHeapPassTable(llvm::ArrayRef<PassRecord> passes,
                                size_t top = 5);

/// One line: the heap peak, the pass and stage it was reached in, the
/// lifetime heap peak, and whether the heap was counted exactly.
std::string formatHeapPeak(const HeapPeakRecord &heap);

} // namespace q2::profiling

#endif // Q2_PROFILING_REPORT_H
