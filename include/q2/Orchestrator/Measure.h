//===- Measure.h - Budgeted, isolated execution of one command --*- C++ -*-===//
//
// `measure` runs one command (argv, no shell) in its own process group, polls
// the command and all its current descendants, and kills the whole tree when
// a wall-clock or a tree-RSS budget is exceeded. It leaves an evidence
// directory: record.json (schema q2.measure/1), stdout.txt, stderr.txt.
//
// Plain data only: the JSON form of MeasureRecord is written and read by one
// field list inside the library (toJSONText / readMeasureRecord).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_ORCHESTRATOR_MEASURE_H
#define Q2_ORCHESTRATOR_MEASURE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace q2::orch {

/// The budgets and the polling of one measured process tree: what
/// MeasureOptions and each phase of a sweep point (SweepSpec::phase) share.
/// 0 = no budget.
struct MeasureBudget {
  double wallBudgetS = 0;
  /// Budget on the summed RSS of the tree, in decimal MB (1e6 bytes).
  double rssBudgetMB = 0;
  /// Poll interval, between kMinPollS and kMaxPollS and at most the wall
  /// budget (checkPollInterval).
  double pollS = 0.010;
  /// Time between SIGTERM and SIGKILL when the tree has to be stopped.
  double killGraceS = 1.0;
};

struct MeasureOptions : MeasureBudget {
  /// The command; argv[0] is looked up in PATH when it has no '/'.
  std::vector<std::string> argv;
  /// Evidence directory; must not exist (it is created by measure()).
  std::string outDir;
  /// Working directory of the command; empty = inherit.
  std::string cwd;
  /// Variables added to (or overriding) the inherited environment.
  std::vector<std::pair<std::string, std::string>> env;
  /// When set and becoming true, the tree is stopped (reason `cancelled`).
  const std::atomic<bool> *cancel = nullptr;
  /// When set and non-zero at the cancel: the signal that asked for it,
  /// recorded as `cancelled_by` (e.g. "SIGTERM").
  const std::atomic<int> *cancelSignal = nullptr;
  /// Keep the peaks so far in outDir/live.json (kLiveRecordFile, written
  /// atomically about once a second while the command runs, removed when
  /// record.json is written): what survives when the measuring process
  /// itself is killed, e.g. a Slurm task over its --mem.
  bool liveRecord = false;
  /// Where procfs is mounted (tests point it elsewhere to check the
  /// refusal on systems without /proc).
  std::string procRoot = "/proc";
};

/// Bounds of MeasureOptions::pollS: 1 ms .. 1 s. A longer interval would
/// let the wall and RSS budgets overrun by that much (--poll-ms 1e9 would
/// disable them); a shorter one only burns CPU walking /proc.
inline constexpr double kMinPollS = 0.001;
inline constexpr double kMaxPollS = 1.0;
/// Refuses a poll interval outside [kMinPollS, kMaxPollS] or longer than the
/// wall budget (ignored when the budget is not a positive number). The
/// message gives the interval in ms.
llvm::Error checkPollInterval(double pollS, double wallBudgetS);

enum class StopReason { Exit, Signal, WallBudget, RssBudget, Cancelled };
/// "exit", "signal", "wall_budget", "rss_budget", "cancelled".
const char *stopReasonName(StopReason r);

struct MeasureRecord {
  std::vector<std::string> command;
  std::string cwd;
  std::vector<std::pair<std::string, std::string>> env;
  StopReason reason = StopReason::Exit;
  /// Exit status when the command exited; -1 when it died from a signal.
  int exitCode = -1;
  /// Terminating signal (0 = none) and its name ("SIGSEGV").
  int signal = 0;
  std::string signalName;
  double wallS = 0;
  double peakTreeRssMB = 0;
  unsigned peakTreeProcs = 0;
  /// Largest VmHWM (the kernel's own RSS high-water mark) of any process of
  /// the tree, read at each poll. Unlike the sampled tree sum it also covers
  /// spikes between polls, but per process only (and only for processes
  /// alive at a poll). Not wait4's ru_maxrss: Linux carries the spawning
  /// process's high-water mark over exec, which would report our own RSS.
  double maxVmHwmMB = 0;
  double pollS = 0;
  unsigned polls = 0;
  double wallBudgetS = 0;
  double rssBudgetMB = 0;
  /// Descendants still alive after the command itself ended (killed).
  unsigned strayProcsKilled = 0;
  /// For reason Cancelled: the signal that asked for the cancel ("SIGINT"),
  /// when known.
  std::optional<std::string> cancelledBy;
  std::string stdoutFile = "stdout.txt";
  std::string stderrFile = "stderr.txt";
};

inline constexpr const char *kMeasureSchema = "q2.measure/1";
/// MeasureOptions::liveRecord's file: {"wall_s", "peak_tree_rss_mb",
/// "max_vmhwm_mb", "polls"} so far.
inline constexpr const char *kLiveRecordFile = "live.json";

/// Checks everything that can be checked before creating or starting
/// anything: argv non-empty, no NUL in any argument or variable, finite
/// positive budgets, outDir not existing, cwd a directory, /proc present,
/// the program found.
llvm::Error validateMeasureOptions(const MeasureOptions &opts);

/// Validates, creates Opts.outDir, runs the command and writes
/// outDir/record.json atomically (q2::writeFileAtomically). An error before the command started leaves
/// no directory behind. A command that fails, crashes or is killed is not an
/// error: it is a record.
///
/// Process-wide effects: the calling process becomes a child subreaper
/// (PR_SET_CHILD_SUBREAPER), so orphans of the measured tree are reparented
/// to it; while a single measure() is in progress, children of the caller
/// that it did not spawn itself and that appear after the command started
/// are taken as orphans of the tree. Thread-safe otherwise: a parallel
/// sweep runs one measure() per thread.
llvm::Expected<MeasureRecord> measure(const MeasureOptions &opts);

/// The record as written to record.json (Indent < 0: one line).
std::string toJSONText(const MeasureRecord &r, int indent = 2);
/// Reads a record.json; errors name the file and the key.
llvm::Expected<MeasureRecord> readMeasureRecord(llvm::StringRef path);

/// "SIGSEGV" for SIGSEGV etc.; "SIG<n>" for unnamed ones.
std::string signalName(int sig);
/// The inverse of signalName (0 when it names no signal).
int signalNumber(llvm::StringRef name);

/// Summed RSS (bytes) and process count of the tree rooted at Pid, as seen
/// by one /proc walk. Exposed for tests.
struct TreeSample {
  uint64_t rssBytes = 0;
  std::vector<int> pids;
};
TreeSample sampleProcessTree(int rootPid,
                             const std::string &procRoot = "/proc");

} // namespace q2::orch

#endif // Q2_ORCHESTRATOR_MEASURE_H
