//===- ReportView.h - A profile as people read it ---------------*- C++ -*-===//
//
// One view model of a q2.profile/3 report (schema q2.view/1, JSON) and its
// renderings: the terminal table of the `q2-profile` pass and of
// `q2-profile show` (header, stage table, a pass tree nested as MLIR nests
// the passes, top-N lists), the data of the HTML report (ReportHTML.h) and
// of the plots. Built from the report's JSON document rather than the typed
// records, so keys this build's field lists do not know (the exact-heap
// fields, when a newer writer made the report) are shown when present and
// "—" when absent; reports are validated by readReport before they get here
// (loadReportDocument).
//
// Units as everywhere (docs/report.md): MB = 1e6 bytes, kB = 1e3 bytes.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PROFILING_REPORTVIEW_H
#define Q2_PROFILING_REPORTVIEW_H

#include "q2/Profiling/Report.h"
#include "q2/Support/JSON.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <optional>
#include <string>

namespace q2::profiling::view {

inline constexpr const char *kViewSchema = "q2.view/1";

/// Reads `path` with readReport (so it is refused exactly as every other
/// reader refuses it) and returns its JSON document as written, keeping the
/// keys the typed records drop.
llvm::Expected<json::Value> loadReportDocument(llvm::StringRef path);
/// The JSON document of an in-memory report (the pass's own table).
json::Value documentOf(const ProfileReport &report);

struct ViewOptions {
  /// The memory timeline is reduced to at most this many points (each kept
  /// point is the highest sample of its slice, and the peak is always kept).
  size_t maxTimelinePoints = 2000;
};

/// The view model of one report document: header, totals, stages, passes
/// (flat, with IR growth), the merged pass tree and the memory timeline.
/// `label` names it (its file, usually).
json::Value buildView(const json::Value &report, llvm::StringRef label,
                      const ViewOptions &options = {});

/// What --top ranks by.
enum class TopMetric { Wall, HeapPeak, IRGrowth };
std::optional<TopMetric> parseTopMetric(llvm::StringRef s);
llvm::StringRef toString(TopMetric m);

struct TextOptions {
  unsigned width = 100;  ///< columns; names are shortened to fit
  bool header = true;    ///< what was profiled, when, where; totals
  bool stages = true;    ///< the stage table
  bool tree = true;      ///< the pass tree (or the flat list)
  bool flat = false;     ///< passes merged per stage, by wall, not a tree
  size_t top = 0;        ///< > 0: only the top N passes by `topBy`
  TopMetric topBy = TopMetric::Wall;
  /// A tree node with more children than this shows the `fold` largest (by
  /// wall, in run order) and sums the rest in one "... N more" line; a flat
  /// list likewise. 0 shows everything.
  size_t fold = 15;
};

/// The report as text (q2-profile show): header, stage table, pass tree or
/// flat/top list, as `options` asks.
std::string formatView(const json::Value &view, const TextOptions &options);
/// The pass tree alone, with a one-line title (the q2-profile pass's table).
std::string formatPassTreeTable(const json::Value &view,
                                const TextOptions &options);

} // namespace q2::profiling::view

#endif // Q2_PROFILING_REPORTVIEW_H
