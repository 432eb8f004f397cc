//===- Compare.h - Two profiles side by side, as a regression gate -*- C++ -*-===//
//
// `q2-profile compare A B` and Python's q2.compare(a, b). Each side is one
// q2.profile/3 report, a set of repeated reports (a directory of *.json, or
// paths joined by ','), or a sweep directory (OUT/points/*/result.json).
// Reports are read with the one reader (profiling::readReport); nothing else
// parses them.
//
// Rows: per stage, per pass (executions of one pass in one stage summed:
// a func.func pass over all functions), and a total, each for wall, CPU,
// peak RSS, heap, IR bytes and IR lines; for sweeps, per point as well.
// Verdict (docs/compare.md): a row's change counts when B's median is worse
// than A's by more than the metric's threshold (and, for times, by more than
// an absolute floor) and, when both sides have at least two runs, the
// ranges [min, max] of the two sides do not overlap: the change exceeds the
// spread of both sides.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_ORCHESTRATOR_COMPARE_H
#define Q2_ORCHESTRATOR_COMPARE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace q2::orch {

inline constexpr const char *kCompareSchema = "q2.compare/1";

/// The metrics, in table order: wall_s, cpu_s, peak_rss_bytes, heap_bytes,
/// ir_bytes, ir_lines.
const std::vector<std::string> &compareMetrics();

struct CompareOptions {
  /// Relative threshold per metric, percent (defaults: wall_s 10, cpu_s 10,
  /// peak_rss_bytes 5, heap_bytes 10, ir_bytes 1, ir_lines 1).
  std::map<std::string, double> thresholdPct;
  /// Time changes smaller than this never count (s).
  double minTimeS = 0.002;
  /// Pass rows count for the verdict too (default: stages and total only).
  bool gatePasses = false;
  /// Compare reports of different programs (parameters or input differ).
  bool allowDifferentProgram = false;
  CompareOptions();
};

/// Parses "wall_s=5,peak_rss_bytes=2" (short names wall, cpu, peak, heap,
/// ir, lines also accepted) into `Options.thresholdPct`.
llvm::Error parseThresholds(llvm::StringRef spec, CompareOptions &options);

struct CompareRow {
  std::string point; ///< sweep point key, "" for reports
  std::string kind;  ///< "stage", "pass" or "total"
  std::string name;  ///< stage name, "stage / pass", or "compile"
  std::string metric;
  std::vector<double> a, b; ///< one value per run (empty: absent)
  std::optional<double> aMedian, bMedian, delta, relPct;
  /// "regression", "improvement", "same" (within threshold), "noise"
  /// (beyond the threshold but within the spread), "only_a", "only_b".
  std::string verdict;
  bool gated = false; ///< counts for the exit status
};

struct CompareSide {
  std::string spec;                 ///< as given
  std::string kind;                 ///< "reports" or "sweep"
  std::vector<std::string> files;   ///< reports / result.json files read
  size_t runs = 0;                  ///< reports per point
};

struct CompareResult {
  std::string schema = kCompareSchema;
  CompareSide a, b;
  std::string rule;
  std::map<std::string, double> thresholdPct;
  double minTimeS = 0;
  /// Differences that do not stop the comparison: options, points or
  /// stages present on one side only, single runs.
  std::vector<std::string> warnings;
  /// "key: A -> B" for every option that differs.
  std::vector<std::string> optionDifferences;
  std::vector<CompareRow> rows;
  size_t regressions = 0, improvements = 0;
  bool regression() const { return regressions > 0; }
};

/// Reads both sides and compares them. Errors (exit status 2): unreadable
/// or non-q2.profile/3 inputs, failed runs, a side mixing programs or
/// options, a report against a sweep, different tools, different programs
/// (unless allowed).
llvm::Expected<CompareResult> compareProfiles(llvm::StringRef a,
                                              llvm::StringRef b,
                                              const CompareOptions &options);

/// The terminal table.
std::string formatCompareTable(const CompareResult &r, bool allRows = false);
/// The JSON form (schema q2.compare/1; Indent < 0: one line).
std::string toJSONText(const CompareResult &r, int indent = 2);

} // namespace q2::orch

#endif // Q2_ORCHESTRATOR_COMPARE_H
