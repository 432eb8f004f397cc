//===- Compare.cpp - Two profiles side by side, as a regression gate ------===//
//
// Reading is the profiling library's (readReport, readPointRecord through
// loadResults); this file only lines rows up and applies the rule in
// Compare.h.
//
//===----------------------------------------------------------------------===//
#include "q2/Orchestrator/Compare.h"
#include "q2/Orchestrator/Sweep.h"
#include "q2/Profiling/Report.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

using namespace q2::orch;
namespace prof = q2::profiling;
using llvm::createStringError;
using llvm::Expected;
using llvm::StringRef;

namespace {

bool isTime(StringRef metric) { return metric.ends_with("_s"); }

/// One row's values in one report.
struct RowValues {
  std::string kind, name;
  std::map<std::string, double> metrics;
};

/// Rows of one report, in report order.
struct ReportRows {
  std::vector<std::string> order;
  std::map<std::string, RowValues> rows;
  RowValues &get(const std::string &key, StringRef kind, StringRef name) {
    auto [it, inserted] = rows.try_emplace(key);
    if (inserted) {
      order.push_back(key);
      it->second.kind = kind.str();
      it->second.name = name.str();
    }
    return it->second;
  }
};

/// Adds IR size to a row (summed over a pass's executions); an object's
/// '\n' count is no line count.
void addIR(RowValues &v, const prof::IRMetrics &ir) {
  v.metrics["ir_bytes"] += double(ir.bytes);
  if (ir.kind != "object")
    v.metrics["ir_lines"] += double(ir.lines);
}

ReportRows rowsOf(const prof::ProfileReport &r) {
  ReportRows out;
  const auto &stages = r.phaseB.stages;
  std::map<std::string, int> seen;
  std::vector<std::string> stageName(stages.size());
  for (size_t i = 0; i < stages.size(); ++i) {
    const prof::StageRecord &s = stages[i];
    int n = ++seen[s.name];
    // A stage name given twice (canonicalize in two places of a pipeline)
    // is told apart by its occurrence.
    std::string name = n == 1 ? s.name : s.name + "#" + std::to_string(n);
    stageName[i] = name;
    RowValues &v = out.get("stage:" + name, "stage", name);
    v.metrics["wall_s"] = s.wallS;
    v.metrics["cpu_s"] = s.cpuS;
    v.metrics["peak_rss_bytes"] = double(s.peakRSS);
    v.metrics["heap_bytes"] = double(s.end.heap.inUse);
    if (s.ir)
      addIR(v, *s.ir);
  }
  // Passes, by the stage they ran in (the stage's occurrence name).
  for (size_t i = 0; i < stages.size(); ++i) {
    const prof::StageRecord &s = stages[i];
    for (uint64_t p = s.firstPass;
         p < s.endPass && p < r.phaseB.passes.size(); ++p) {
      const prof::PassRecord &pass = r.phaseB.passes[p];
      if (pass.isAdaptor)
        continue;
      std::string name = stageName[i] + " / " + pass.label();
      RowValues &v = out.get("pass:" + name, "pass", name);
      v.metrics["wall_s"] += pass.wallS;
      v.metrics["cpu_s"] += pass.cpuS;
      double &rss = v.metrics["peak_rss_bytes"];
      rss = std::max(rss, double(pass.rssAfter));
      if (pass.irAfter)
        addIR(v, *pass.irAfter);
    }
  }
  RowValues &t = out.get("total:compile", "total", "compile");
  t.metrics["wall_s"] = r.compileSeconds();
  double cpu = 0;
  const prof::StageRecord *last = nullptr;
  for (const prof::StageRecord &s : stages)
    if (s.kind == prof::StageKind::Compile) {
      cpu += s.cpuS;
      last = &s;
    }
  t.metrics["cpu_s"] = cpu;
  t.metrics["peak_rss_bytes"] = double(r.compilePeakRSS());
  if (last) {
    t.metrics["heap_bytes"] = double(last->end.heap.inUse);
    // The product: the IR (or object) after the last compile stage.
    for (auto it = stages.rbegin(); it != stages.rend(); ++it)
      if (it->kind == prof::StageKind::Compile && it->ir) {
        addIR(t, *it->ir);
        break;
      }
  }
  return out;
}

std::string optionText(const prof::OptionValue &v) {
  return std::visit(
      [](const auto &x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>)
          return x ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>)
          return x;
        else
          return llvm::formatv("{0}", x).str();
      },
      v);
}

/// What a report is of: its program (parameters, else the input path).
std::string programOf(const prof::ProfileReport &r) {
  if (r.parameters)
    return "parameters " + r.parameters->text;
  return "input '" + r.input + "'";
}

struct LoadedSide {
  CompareSide side;
  /// Point key ("" for plain reports) -> the runs.
  std::map<std::string, std::vector<prof::ProfileReport>> points;
  std::vector<std::string> warnings;
};

llvm::Error addReport(LoadedSide &s, StringRef path, StringRef point = "") {
  auto r = prof::readReport(path);
  if (!r)
    return r.takeError();
  if (r->error)
    return createStringError(path + ": the profiled run failed (" +
                             *r->error + "); compare finished runs only");
  s.side.files.push_back(path.str());
  s.points[point.str()].push_back(std::move(*r));
  return llvm::Error::success();
}

Expected<LoadedSide> loadSide(StringRef spec, StringRef which) {
  LoadedSide s;
  s.side.spec = spec.str();
  auto fail = [&](const llvm::Twine &msg) -> llvm::Error {
    return createStringError(which + " ('" + spec + "'): " + msg);
  };
  if (spec.contains(',')) {
    s.side.kind = "reports";
    llvm::SmallVector<StringRef> parts;
    spec.split(parts, ',', -1, false);
    for (StringRef p : parts)
      if (llvm::Error e = addReport(s, p))
        return std::move(e);
  } else if (llvm::sys::fs::is_directory(spec)) {
    llvm::SmallString<256> points(spec);
    llvm::sys::path::append(points, "points");
    if (llvm::sys::fs::is_directory(points)) {
      s.side.kind = "sweep";
      auto results = loadResults({spec.str()});
      if (!results)
        return results.takeError();
      for (PointRecord &p : *results) {
        if (p.status != "ok" || !p.report) {
          s.warnings.push_back(which.str() + ": point " + p.key + " " +
                               p.status + " (" + p.reason +
                               "): not compared");
          continue;
        }
        s.side.files.push_back(p.key);
        s.points[p.key].push_back(std::move(*p.report));
      }
    } else {
      s.side.kind = "reports";
      std::vector<std::string> files;
      std::error_code ec;
      for (llvm::sys::fs::directory_iterator it(spec, ec), end;
           it != end && !ec; it.increment(ec))
        if (StringRef(it->path()).ends_with(".json"))
          files.push_back(it->path());
      if (ec)
        return fail(ec.message());
      std::sort(files.begin(), files.end());
      for (const std::string &f : files)
        if (llvm::Error e = addReport(s, f))
          return std::move(e);
    }
  } else {
    s.side.kind = "reports";
    if (llvm::Error e = addReport(s, spec))
      return std::move(e);
  }
  if (s.points.empty())
    return fail("no report to compare");
  // The runs of one point must be runs of one thing.
  size_t runs = 0;
  for (auto &[key, reports] : s.points) {
    runs = std::max(runs, reports.size());
    const prof::ProfileReport &first = reports.front();
    for (const prof::ProfileReport &r : reports) {
      if (r.tool != first.tool || programOf(r) != programOf(first))
        return fail("the reports are of different programs or tools (" +
                    first.tool + " " + programOf(first) + " vs " + r.tool +
                    " " + programOf(r) + "); repeated runs must be of one");
      if (r.options != first.options)
        return fail("the reports were made with different options; "
                    "repeated runs must use the same");
    }
  }
  s.side.runs = runs;
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void decide(CompareRow &row, const CompareOptions &o) {
  if (row.a.empty() || row.b.empty()) {
    row.verdict = row.a.empty() ? "only_b" : "only_a";
    return;
  }
  double a = median(row.a), b = median(row.b);
  row.aMedian = a;
  row.bMedian = b;
  row.delta = b - a;
  if (a != 0)
    row.relPct = (b - a) / std::fabs(a) * 100;
  double thr = o.thresholdPct.count(row.metric)
                   ? o.thresholdPct.at(row.metric)
                   : 0;
  bool beyond = row.relPct ? std::fabs(*row.relPct) > thr : b != a;
  if (isTime(row.metric) && std::fabs(b - a) < o.minTimeS)
    beyond = false;
  if (!beyond) {
    row.verdict = "same";
    return;
  }
  if (row.a.size() >= 2 && row.b.size() >= 2) {
    auto [aMin, aMax] = std::minmax_element(row.a.begin(), row.a.end());
    auto [bMin, bMax] = std::minmax_element(row.b.begin(), row.b.end());
    if (*bMin <= *aMax && *aMin <= *bMax) {
      row.verdict = "noise";
      return;
    }
  }
  row.verdict = b > a ? "regression" : "improvement";
}

const std::map<std::string, std::string> &shortNames() {
  static const std::map<std::string, std::string> m = {
      {"wall", "wall_s"},         {"time", "wall_s"},
      {"cpu", "cpu_s"},           {"peak", "peak_rss_bytes"},
      {"rss", "peak_rss_bytes"},  {"peak_rss", "peak_rss_bytes"},
      {"heap", "heap_bytes"},     {"ir", "ir_bytes"},
      {"lines", "ir_lines"}};
  return m;
}

} // namespace

const std::vector<std::string> &q2::orch::compareMetrics() {
  static const std::vector<std::string> m = {
      "wall_s", "cpu_s", "peak_rss_bytes", "heap_bytes", "ir_bytes",
      "ir_lines"};
  return m;
}

CompareOptions::CompareOptions()
    : thresholdPct{{"wall_s", 10},    {"cpu_s", 10},   {"peak_rss_bytes", 5},
                   {"heap_bytes", 10}, {"ir_bytes", 1}, {"ir_lines", 1}} {}

llvm::Error q2::orch::parseThresholds(StringRef spec, CompareOptions &o) {
  llvm::SmallVector<StringRef> parts;
  spec.split(parts, ',', -1, false);
  for (StringRef p : parts) {
    auto [key, value] = p.split('=');
    key = key.trim();
    value = value.trim();
    value.consume_back("%");
    std::string metric = key.str();
    if (auto it = shortNames().find(metric); it != shortNames().end())
      metric = it->second;
    if (!llvm::is_contained(compareMetrics(), metric))
      return createStringError(
          "--threshold: unknown metric '" + key +
          "' (metrics: wall_s cpu_s peak_rss_bytes heap_bytes ir_bytes "
          "ir_lines, or wall cpu peak heap ir lines)");
    double d;
    if (value.getAsDouble(d) || !std::isfinite(d) || d < 0)
      return createStringError("--threshold: '" + p +
                               "': expected METRIC=PERCENT, a number >= 0");
    o.thresholdPct[metric] = d;
  }
  return llvm::Error::success();
}

Expected<CompareResult> q2::orch::compareProfiles(StringRef aSpec,
                                                  StringRef bSpec,
                                                  const CompareOptions &o) {
  auto a = loadSide(aSpec, "A");
  if (!a)
    return a.takeError();
  auto b = loadSide(bSpec, "B");
  if (!b)
    return b.takeError();
  if (a->side.kind != b->side.kind)
    return createStringError("cannot compare a " + a->side.kind + " (A) with a " +
                             b->side.kind + " (B)");
  CompareResult r;
  r.a = a->side;
  r.b = b->side;
  r.thresholdPct = o.thresholdPct;
  r.minTimeS = o.minTimeS;
  r.rule = llvm::formatv(
      "a change counts when median(B) differs from median(A) by more than "
      "the metric's threshold (% of median(A); times also by >= {0} ms) "
      "and, with >= 2 runs on both sides, the ranges [min, max] of A and B "
      "do not overlap (the change exceeds the spread of both sides); "
      "larger is worse for every metric",
      o.minTimeS * 1e3);
  r.warnings = a->warnings;
  r.warnings.insert(r.warnings.end(), b->warnings.begin(), b->warnings.end());
  if (a->side.runs < 2 || b->side.runs < 2)
    r.warnings.push_back(
        "single run on a side: no noise estimate, thresholds only (give "
        "repeated reports for a noise-aware verdict)");

  // Every point of either side, A's order first.
  std::vector<std::string> points;
  for (auto &kv : a->points)
    points.push_back(kv.first);
  for (auto &kv : b->points)
    if (!a->points.count(kv.first))
      points.push_back(kv.first);

  bool optionsChecked = false;
  for (const std::string &point : points) {
    auto aIt = a->points.find(point), bIt = b->points.find(point);
    if (aIt == a->points.end() || bIt == b->points.end()) {
      r.warnings.push_back("point " + point + " only in " +
                           (aIt == a->points.end() ? "B" : "A") +
                           ": not compared");
      continue;
    }
    const prof::ProfileReport &ra = aIt->second.front();
    const prof::ProfileReport &rb = bIt->second.front();
    if (ra.tool != rb.tool)
      return createStringError("A is a " + ra.tool + " report, B a " +
                               rb.tool + " report: not comparable");
    if (programOf(ra) != programOf(rb)) {
      std::string msg = (point.empty() ? "" : "point " + point + ": ") +
                        "A and B profile different programs (A: " +
                        programOf(ra) + "; B: " + programOf(rb) + ")";
      if (!o.allowDifferentProgram)
        return createStringError(msg +
                                 "; --allow-different-program compares "
                                 "them anyway");
      r.warnings.push_back(msg);
    }
    if (!optionsChecked) {
      optionsChecked = true;
      std::set<std::string> keys;
      for (auto &kv : ra.options)
        keys.insert(kv.first);
      for (auto &kv : rb.options)
        keys.insert(kv.first);
      for (const std::string &k : keys) {
        auto oa = ra.options.find(k), ob = rb.options.find(k);
        std::string va = oa == ra.options.end() ? "(absent)"
                                                : optionText(oa->second);
        std::string vb = ob == rb.options.end() ? "(absent)"
                                                : optionText(ob->second);
        if (va != vb)
          r.optionDifferences.push_back(k + ": " + va + " -> " + vb);
      }
    }

    std::vector<ReportRows> rowsA, rowsB;
    for (const auto &rep : aIt->second)
      rowsA.push_back(rowsOf(rep));
    for (const auto &rep : bIt->second)
      rowsB.push_back(rowsOf(rep));
    // Row order: A's first run, then anything new in the others.
    std::vector<std::string> order;
    std::set<std::string> have;
    std::map<std::string, std::pair<std::string, std::string>> kindName;
    for (auto *side : {&rowsA, &rowsB})
      for (const ReportRows &rr : *side)
        for (const std::string &k : rr.order)
          if (have.insert(k).second) {
            order.push_back(k);
            kindName[k] = {rr.rows.at(k).kind, rr.rows.at(k).name};
          }
    // Totals last.
    std::stable_partition(order.begin(), order.end(), [](const std::string &k) {
      return !StringRef(k).starts_with("total:");
    });
    for (const std::string &k : order) {
      bool onlyOneSide = false;
      for (const std::string &m : compareMetrics()) {
        CompareRow row;
        row.point = point;
        row.kind = kindName[k].first;
        row.name = kindName[k].second;
        row.metric = m;
        bool inA = false, inB = false;
        for (const ReportRows &rr : rowsA)
          if (auto it = rr.rows.find(k); it != rr.rows.end()) {
            inA = true;
            if (auto v = it->second.metrics.find(m);
                v != it->second.metrics.end())
              row.a.push_back(v->second);
          }
        for (const ReportRows &rr : rowsB)
          if (auto it = rr.rows.find(k); it != rr.rows.end()) {
            inB = true;
            if (auto v = it->second.metrics.find(m);
                v != it->second.metrics.end())
              row.b.push_back(v->second);
          }
        if (row.a.empty() && row.b.empty())
          continue; // a metric neither side has (IR with ir-metrics=false)
        if (inA && inB && (row.a.empty() || row.b.empty()))
          continue; // measured on one side only: nothing to compare
        onlyOneSide |= !(inA && inB);
        decide(row, o);
        row.gated = row.kind != "pass" || o.gatePasses;
        if (row.gated && row.verdict == "regression")
          ++r.regressions;
        if (row.gated && row.verdict == "improvement")
          ++r.improvements;
        r.rows.push_back(std::move(row));
      }
      if (onlyOneSide && kindName[k].first != "pass")
        r.warnings.push_back((point.empty() ? "" : "point " + point + ": ") +
                             kindName[k].first + " '" + kindName[k].second +
                             "' is on one side only");
    }
  }
  return r;
}

namespace {

std::string fmtValue(StringRef metric, double v) {
  if (isTime(metric))
    return llvm::formatv("{0:F2} ms", v * 1e3).str();
  if (metric == "ir_bytes")
    return llvm::formatv("{0:F1} KB", v / 1024).str();
  if (metric.ends_with("_bytes"))
    return llvm::formatv("{0:F1} MB", v / (1024.0 * 1024)).str();
  return llvm::formatv("{0:F0}", v).str();
}

std::string fmtDelta(StringRef metric, double v) {
  std::string s = fmtValue(metric, std::fabs(v));
  return (v > 0 ? "+" : v < 0 ? "-" : " ") + s;
}

std::string sideText(const CompareSide &s) {
  return llvm::formatv("{0} ({1}, {2} run{3}{4})", s.spec, s.kind, s.runs,
                       s.runs == 1 ? "" : "s",
                       s.kind == "sweep"
                           ? llvm::formatv(", {0} points", s.files.size()).str()
                           : "")
      .str();
}

} // namespace

std::string q2::orch::formatCompareTable(const CompareResult &r, bool all) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "A: " << sideText(r.a) << "\nB: " << sideText(r.b) << "\n";
  for (const std::string &d : r.optionDifferences)
    os << "options differ: " << d << "\n";
  for (const std::string &w : r.warnings)
    os << "warning: " << w << "\n";
  os << llvm::formatv("{0,-52} {1,-15} {2,12} {3,12} {4,12} {5,8}  {6}\n",
                      "row", "metric", "A", "B", "change", "rel", "verdict");
  std::string lastPoint = "\x01", lastName;
  for (const CompareRow &row : r.rows) {
    // Passes within their thresholds are left out unless asked for.
    if (!all && row.kind == "pass" && row.verdict == "same")
      continue;
    if (row.point != lastPoint) {
      if (!row.point.empty())
        os << "== point " << row.point << "\n";
      lastPoint = row.point;
    }
    std::string name = row.name == lastName ? "" : row.name;
    lastName = row.name;
    if (name.size() > 52)
      name = "..." + name.substr(name.size() - 49);
    auto v = [&](const std::optional<double> &x) {
      return x ? fmtValue(row.metric, *x) : std::string("-");
    };
    std::string verdict = row.verdict;
    if (!row.gated && (verdict == "regression" || verdict == "improvement"))
      verdict += " (not gated)";
    if (row.a.empty() || row.b.empty()) {
      os << llvm::formatv("{0,-52} {1,-15} {2,12} {3,12} {4,12} {5,8}  {6}\n",
                          name, row.metric,
                          row.a.empty() ? "-" : fmtValue(row.metric, median(row.a)),
                          row.b.empty() ? "-" : fmtValue(row.metric, median(row.b)),
                          "", "", verdict);
      continue;
    }
    os << llvm::formatv(
        "{0,-52} {1,-15} {2,12} {3,12} {4,12} {5,8}  {6}\n", name, row.metric,
        v(row.aMedian), v(row.bMedian), fmtDelta(row.metric, *row.delta),
        row.relPct ? llvm::formatv("{0}{1:F1}%", *row.relPct > 0 ? "+" : "",
                                   *row.relPct)
                         .str()
                   : std::string("-"),
        verdict == "same" ? "" : verdict);
  }
  os << "rule: " << r.rule << "\n";
  os << "thresholds:";
  for (const std::string &m : compareMetrics())
    os << " " << m << "=" << llvm::format("%g", r.thresholdPct.at(m))
       << "%";
  os << "\n";
  os << llvm::formatv("verdict: {0} ({1} regression{2}, {3} improvement{4} "
                      "among the gated rows)\n",
                      r.regression() ? "REGRESSION" : "no regression",
                      r.regressions, r.regressions == 1 ? "" : "s",
                      r.improvements, r.improvements == 1 ? "" : "s");
  return out;
}

std::string q2::orch::toJSONText(const CompareResult &r, int indent) {
  using nlohmann::json;
  auto side = [](const CompareSide &s) {
    return json{{"spec", s.spec}, {"kind", s.kind}, {"files", s.files},
                {"runs", s.runs}};
  };
  auto opt = [](const std::optional<double> &x) {
    return x ? json(*x) : json(nullptr);
  };
  json rows = json::array();
  for (const CompareRow &row : r.rows)
    rows.push_back({{"point", row.point},
                    {"kind", row.kind},
                    {"name", row.name},
                    {"metric", row.metric},
                    {"a", opt(row.aMedian ? row.aMedian
                                          : row.a.empty()
                                              ? std::nullopt
                                              : std::optional<double>(
                                                    median(row.a)))},
                    {"b", opt(row.bMedian ? row.bMedian
                                          : row.b.empty()
                                              ? std::nullopt
                                              : std::optional<double>(
                                                    median(row.b)))},
                    {"a_runs", row.a},
                    {"b_runs", row.b},
                    {"delta", opt(row.delta)},
                    {"rel_pct", opt(row.relPct)},
                    {"verdict", row.verdict},
                    {"gated", row.gated}});
  json j = {{"schema", r.schema},
            {"a", side(r.a)},
            {"b", side(r.b)},
            {"rule", r.rule},
            {"threshold_pct", r.thresholdPct},
            {"min_time_s", r.minTimeS},
            {"option_differences", r.optionDifferences},
            {"warnings", r.warnings},
            {"regressions", r.regressions},
            {"improvements", r.improvements},
            {"verdict", r.regression() ? "regression" : "no regression"},
            {"rows", rows}};
  return j.dump(indent);
}
