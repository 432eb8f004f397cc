//===- ReportHTML.h - One self-contained HTML page of profiles --*- C++ -*-===//
//
// `q2-profile html`, `q2-opt --html` and Python's q2.show/_repr_html_ write
// the same page: the view models (ReportView.h) of one or more reports,
// optionally a comparison (q2.compare/1) and a sweep's points, embedded as
// JSON next to plotly.js and the page's own script and style, all inline.
// The page opens offline; nothing is fetched at build or view time.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PROFILING_REPORTHTML_H
#define Q2_PROFILING_REPORTHTML_H

#include "q2/Support/JSON.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace q2::profiling::html {

struct PageInputs {
  std::string title;
  /// buildView() of each report, in the order given.
  std::vector<json::Value> views;
  /// compareProfiles() of the first two (q2.compare/1), when asked.
  std::optional<json::Value> compare;
  /// A sweep: {"dirs": [...], "points": [{key, molecule, mode, n_est,
  /// n_trotter, x, status, reason, compile_s, peak_rss_mb, stages: {name:
  /// wall_s}}]}.
  std::optional<json::Value> sweep;
};

/// Whether this build embeds plotly.js (python3-plotly at configure time).
bool available();
/// The page's HTML text.
llvm::Expected<std::string> renderPage(const PageInputs &inputs);
/// Writes the page atomically.
llvm::Error writePage(llvm::StringRef path, const PageInputs &inputs);

} // namespace q2::profiling::html

#endif // Q2_PROFILING_REPORTHTML_H
