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

bool isTime(StringRef Metric) { return Metric.ends_with("_s"); }

/// One row's values in one report.
struct RowValues {
  std::string kind, name;
  std::map<std::string, double> metrics;
};

/// Rows of one report, in report order.
struct ReportRows {
  std::vector<std::string> order;
  std::map<std::string, RowValues> rows;
  RowValues &get(const std::string &Key, StringRef Kind, StringRef Name) {
    auto [It, New] = rows.try_emplace(Key);
    if (New) {
      order.push_back(Key);
      It->second.kind = Kind.str();
      It->second.name = Name.str();
    }
    return It->second;
  }
};

/// Adds IR size to a row (summed over a pass's executions); an object's
/// '\n' count is no line count.
void addIR(RowValues &V, const prof::IRMetrics &IR) {
  V.metrics["ir_bytes"] += double(IR.bytes);
  if (IR.kind != "object")
    V.metrics["ir_lines"] += double(IR.lines);
}

ReportRows rowsOf(const prof::ProfileReport &R) {
  ReportRows Out;
  const auto &Stages = R.phaseB.stages;
  std::map<std::string, int> Seen;
  std::vector<std::string> StageName(Stages.size());
  for (size_t I = 0; I < Stages.size(); ++I) {
    const prof::StageRecord &S = Stages[I];
    int N = ++Seen[S.name];
    // A stage name given twice (canonicalize in two places of a pipeline)
    // is told apart by its occurrence.
    std::string Name = N == 1 ? S.name : S.name + "#" + std::to_string(N);
    StageName[I] = Name;
    RowValues &V = Out.get("stage:" + Name, "stage", Name);
    V.metrics["wall_s"] = S.wallS;
    V.metrics["cpu_s"] = S.cpuS;
    V.metrics["peak_rss_bytes"] = double(S.peakRSS);
    V.metrics["heap_bytes"] = double(S.end.heap.inUse);
    if (S.ir)
      addIR(V, *S.ir);
  }
  // Passes, by the stage they ran in (the stage's occurrence name).
  for (size_t I = 0; I < Stages.size(); ++I) {
    const prof::StageRecord &S = Stages[I];
    for (uint64_t P = S.firstPass;
         P < S.endPass && P < R.phaseB.passes.size(); ++P) {
      const prof::PassRecord &Pass = R.phaseB.passes[P];
      if (Pass.isAdaptor)
        continue;
      std::string Name = StageName[I] + " / " + Pass.label();
      RowValues &V = Out.get("pass:" + Name, "pass", Name);
      V.metrics["wall_s"] += Pass.wallS;
      V.metrics["cpu_s"] += Pass.cpuS;
      double &Rss = V.metrics["peak_rss_bytes"];
      Rss = std::max(Rss, double(Pass.rssAfter));
      if (Pass.irAfter)
        addIR(V, *Pass.irAfter);
    }
  }
  RowValues &T = Out.get("total:compile", "total", "compile");
  T.metrics["wall_s"] = R.compileSeconds();
  double Cpu = 0;
  const prof::StageRecord *Last = nullptr;
  for (const prof::StageRecord &S : Stages)
    if (S.kind == prof::StageKind::Compile) {
      Cpu += S.cpuS;
      Last = &S;
    }
  T.metrics["cpu_s"] = Cpu;
  T.metrics["peak_rss_bytes"] = double(R.compilePeakRSS());
  if (Last) {
    T.metrics["heap_bytes"] = double(Last->end.heap.inUse);
    // The product: the IR (or object) after the last compile stage.
    for (auto It = Stages.rbegin(); It != Stages.rend(); ++It)
      if (It->kind == prof::StageKind::Compile && It->ir) {
        addIR(T, *It->ir);
        break;
      }
  }
  return Out;
}

std::string optionText(const prof::OptionValue &V) {
  return std::visit(
      [](const auto &X) -> std::string {
        using T = std::decay_t<decltype(X)>;
        if constexpr (std::is_same_v<T, bool>)
          return X ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>)
          return X;
        else
          return llvm::formatv("{0}", X).str();
      },
      V);
}

/// What a report is of: its program (parameters, else the input path).
std::string programOf(const prof::ProfileReport &R) {
  if (R.parameters)
    return "parameters " + prof::toJSONText(*R.parameters);
  return "input '" + R.input + "'";
}

struct LoadedSide {
  CompareSide side;
  /// Point key ("" for plain reports) -> the runs.
  std::map<std::string, std::vector<prof::ProfileReport>> points;
  std::vector<std::string> warnings;
};

llvm::Error addReport(LoadedSide &S, StringRef Path, StringRef Point = "") {
  auto R = prof::readReport(Path);
  if (!R)
    return R.takeError();
  if (R->error)
    return createStringError(Path + ": the profiled run failed (" +
                             *R->error + "); compare finished runs only");
  S.side.files.push_back(Path.str());
  S.points[Point.str()].push_back(std::move(*R));
  return llvm::Error::success();
}

Expected<LoadedSide> loadSide(StringRef Spec, StringRef Which) {
  LoadedSide S;
  S.side.spec = Spec.str();
  auto Fail = [&](const llvm::Twine &Msg) -> llvm::Error {
    return createStringError(Which + " ('" + Spec + "'): " + Msg);
  };
  if (Spec.contains(',')) {
    S.side.kind = "reports";
    llvm::SmallVector<StringRef> Parts;
    Spec.split(Parts, ',', -1, false);
    for (StringRef P : Parts)
      if (llvm::Error E = addReport(S, P))
        return std::move(E);
  } else if (llvm::sys::fs::is_directory(Spec)) {
    llvm::SmallString<256> Points(Spec);
    llvm::sys::path::append(Points, "points");
    if (llvm::sys::fs::is_directory(Points)) {
      S.side.kind = "sweep";
      auto Results = loadResults({Spec.str()});
      if (!Results)
        return Results.takeError();
      for (PointRecord &P : *Results) {
        if (P.status != "ok" || !P.report) {
          S.warnings.push_back(Which.str() + ": point " + P.key + " " +
                               P.status + " (" + P.reason +
                               "): not compared");
          continue;
        }
        S.side.files.push_back(P.key);
        S.points[P.key].push_back(std::move(*P.report));
      }
    } else {
      S.side.kind = "reports";
      std::vector<std::string> Files;
      std::error_code EC;
      for (llvm::sys::fs::directory_iterator It(Spec, EC), End;
           It != End && !EC; It.increment(EC))
        if (StringRef(It->path()).ends_with(".json"))
          Files.push_back(It->path());
      if (EC)
        return Fail(EC.message());
      std::sort(Files.begin(), Files.end());
      for (const std::string &F : Files)
        if (llvm::Error E = addReport(S, F))
          return std::move(E);
    }
  } else {
    S.side.kind = "reports";
    if (llvm::Error E = addReport(S, Spec))
      return std::move(E);
  }
  if (S.points.empty())
    return Fail("no report to compare");
  // The runs of one point must be runs of one thing.
  size_t Runs = 0;
  for (auto &[Key, Reports] : S.points) {
    Runs = std::max(Runs, Reports.size());
    const prof::ProfileReport &First = Reports.front();
    for (const prof::ProfileReport &R : Reports) {
      if (R.tool != First.tool || programOf(R) != programOf(First))
        return Fail("the reports are of different programs or tools (" +
                    First.tool + " " + programOf(First) + " vs " + R.tool +
                    " " + programOf(R) + "); repeated runs must be of one");
      if (R.options != First.options)
        return Fail("the reports were made with different options; "
                    "repeated runs must use the same");
    }
  }
  S.side.runs = Runs;
  return S;
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

void decide(CompareRow &Row, const CompareOptions &O) {
  if (Row.a.empty() || Row.b.empty()) {
    Row.verdict = Row.a.empty() ? "only_b" : "only_a";
    return;
  }
  double A = median(Row.a), B = median(Row.b);
  Row.aMedian = A;
  Row.bMedian = B;
  Row.delta = B - A;
  if (A != 0)
    Row.relPct = (B - A) / std::fabs(A) * 100;
  double Thr = O.thresholdPct.count(Row.metric)
                   ? O.thresholdPct.at(Row.metric)
                   : 0;
  bool Beyond = Row.relPct ? std::fabs(*Row.relPct) > Thr : B != A;
  if (isTime(Row.metric) && std::fabs(B - A) < O.minTimeS)
    Beyond = false;
  if (!Beyond) {
    Row.verdict = "same";
    return;
  }
  if (Row.a.size() >= 2 && Row.b.size() >= 2) {
    auto [AMin, AMax] = std::minmax_element(Row.a.begin(), Row.a.end());
    auto [BMin, BMax] = std::minmax_element(Row.b.begin(), Row.b.end());
    if (*BMin <= *AMax && *AMin <= *BMax) {
      Row.verdict = "noise";
      return;
    }
  }
  Row.verdict = B > A ? "regression" : "improvement";
}

const std::map<std::string, std::string> &shortNames() {
  static const std::map<std::string, std::string> M = {
      {"wall", "wall_s"},         {"time", "wall_s"},
      {"cpu", "cpu_s"},           {"peak", "peak_rss_bytes"},
      {"rss", "peak_rss_bytes"},  {"peak_rss", "peak_rss_bytes"},
      {"heap", "heap_bytes"},     {"ir", "ir_bytes"},
      {"lines", "ir_lines"}};
  return M;
}

} // namespace

const std::vector<std::string> &q2::orch::compareMetrics() {
  static const std::vector<std::string> M = {
      "wall_s", "cpu_s", "peak_rss_bytes", "heap_bytes", "ir_bytes",
      "ir_lines"};
  return M;
}

CompareOptions::CompareOptions()
    : thresholdPct{{"wall_s", 10},    {"cpu_s", 10},   {"peak_rss_bytes", 5},
                   {"heap_bytes", 10}, {"ir_bytes", 1}, {"ir_lines", 1}} {}

llvm::Error q2::orch::parseThresholds(StringRef Spec, CompareOptions &O) {
  llvm::SmallVector<StringRef> Parts;
  Spec.split(Parts, ',', -1, false);
  for (StringRef P : Parts) {
    auto [K, V] = P.split('=');
    K = K.trim();
    V = V.trim();
    V.consume_back("%");
    std::string Metric = K.str();
    if (auto It = shortNames().find(Metric); It != shortNames().end())
      Metric = It->second;
    if (!llvm::is_contained(compareMetrics(), Metric))
      return createStringError(
          "--threshold: unknown metric '" + K +
          "' (metrics: wall_s cpu_s peak_rss_bytes heap_bytes ir_bytes "
          "ir_lines, or wall cpu peak heap ir lines)");
    double D;
    if (V.getAsDouble(D) || !std::isfinite(D) || D < 0)
      return createStringError("--threshold: '" + P +
                               "': expected METRIC=PERCENT, a number >= 0");
    O.thresholdPct[Metric] = D;
  }
  return llvm::Error::success();
}

Expected<CompareResult> q2::orch::compareProfiles(StringRef ASpec,
                                                  StringRef BSpec,
                                                  const CompareOptions &O) {
  auto A = loadSide(ASpec, "A");
  if (!A)
    return A.takeError();
  auto B = loadSide(BSpec, "B");
  if (!B)
    return B.takeError();
  if (A->side.kind != B->side.kind)
    return createStringError("cannot compare a " + A->side.kind + " (A) with a " +
                             B->side.kind + " (B)");
  CompareResult R;
  R.a = A->side;
  R.b = B->side;
  R.thresholdPct = O.thresholdPct;
  R.minTimeS = O.minTimeS;
  R.rule = llvm::formatv(
      "a change counts when median(B) differs from median(A) by more than "
      "the metric's threshold (% of median(A); times also by >= {0} ms) "
      "and, with >= 2 runs on both sides, the ranges [min, max] of A and B "
      "do not overlap (the change exceeds the spread of both sides); "
      "larger is worse for every metric",
      O.minTimeS * 1e3);
  R.warnings = A->warnings;
  R.warnings.insert(R.warnings.end(), B->warnings.begin(), B->warnings.end());
  if (A->side.runs < 2 || B->side.runs < 2)
    R.warnings.push_back(
        "single run on a side: no noise estimate, thresholds only (give "
        "repeated reports for a noise-aware verdict)");

  // Every point of either side, A's order first.
  std::vector<std::string> Points;
  for (auto &KV : A->points)
    Points.push_back(KV.first);
  for (auto &KV : B->points)
    if (!A->points.count(KV.first))
      Points.push_back(KV.first);

  bool OptionsChecked = false;
  for (const std::string &Point : Points) {
    auto AIt = A->points.find(Point), BIt = B->points.find(Point);
    if (AIt == A->points.end() || BIt == B->points.end()) {
      R.warnings.push_back("point " + Point + " only in " +
                           (AIt == A->points.end() ? "B" : "A") +
                           ": not compared");
      continue;
    }
    const prof::ProfileReport &RA = AIt->second.front();
    const prof::ProfileReport &RB = BIt->second.front();
    if (RA.tool != RB.tool)
      return createStringError("A is a " + RA.tool + " report, B a " +
                               RB.tool + " report: not comparable");
    if (programOf(RA) != programOf(RB)) {
      std::string Msg = (Point.empty() ? "" : "point " + Point + ": ") +
                        "A and B profile different programs (A: " +
                        programOf(RA) + "; B: " + programOf(RB) + ")";
      if (!O.allowDifferentProgram)
        return createStringError(Msg +
                                 "; --allow-different-program compares "
                                 "them anyway");
      R.warnings.push_back(Msg);
    }
    if (!OptionsChecked) {
      OptionsChecked = true;
      std::set<std::string> Keys;
      for (auto &KV : RA.options)
        Keys.insert(KV.first);
      for (auto &KV : RB.options)
        Keys.insert(KV.first);
      for (const std::string &K : Keys) {
        auto OA = RA.options.find(K), OB = RB.options.find(K);
        std::string VA = OA == RA.options.end() ? "(absent)"
                                                : optionText(OA->second);
        std::string VB = OB == RB.options.end() ? "(absent)"
                                                : optionText(OB->second);
        if (VA != VB)
          R.optionDifferences.push_back(K + ": " + VA + " -> " + VB);
      }
    }

    std::vector<ReportRows> RowsA, RowsB;
    for (const auto &Rep : AIt->second)
      RowsA.push_back(rowsOf(Rep));
    for (const auto &Rep : BIt->second)
      RowsB.push_back(rowsOf(Rep));
    // Row order: A's first run, then anything new in the others.
    std::vector<std::string> Order;
    std::set<std::string> Have;
    std::map<std::string, std::pair<std::string, std::string>> KindName;
    for (auto *Side : {&RowsA, &RowsB})
      for (const ReportRows &RR : *Side)
        for (const std::string &K : RR.order)
          if (Have.insert(K).second) {
            Order.push_back(K);
            KindName[K] = {RR.rows.at(K).kind, RR.rows.at(K).name};
          }
    // Totals last.
    std::stable_partition(Order.begin(), Order.end(), [](const std::string &K) {
      return !StringRef(K).starts_with("total:");
    });
    for (const std::string &K : Order) {
      bool OnlyOneSide = false;
      for (const std::string &M : compareMetrics()) {
        CompareRow Row;
        Row.point = Point;
        Row.kind = KindName[K].first;
        Row.name = KindName[K].second;
        Row.metric = M;
        bool InA = false, InB = false;
        for (const ReportRows &RR : RowsA)
          if (auto It = RR.rows.find(K); It != RR.rows.end()) {
            InA = true;
            if (auto V = It->second.metrics.find(M);
                V != It->second.metrics.end())
              Row.a.push_back(V->second);
          }
        for (const ReportRows &RR : RowsB)
          if (auto It = RR.rows.find(K); It != RR.rows.end()) {
            InB = true;
            if (auto V = It->second.metrics.find(M);
                V != It->second.metrics.end())
              Row.b.push_back(V->second);
          }
        if (Row.a.empty() && Row.b.empty())
          continue; // a metric neither side has (IR with ir-metrics=false)
        if (InA && InB && (Row.a.empty() || Row.b.empty()))
          continue; // measured on one side only: nothing to compare
        OnlyOneSide |= !(InA && InB);
        decide(Row, O);
        Row.gated = Row.kind != "pass" || O.gatePasses;
        if (Row.gated && Row.verdict == "regression")
          ++R.regressions;
        if (Row.gated && Row.verdict == "improvement")
          ++R.improvements;
        R.rows.push_back(std::move(Row));
      }
      if (OnlyOneSide && KindName[K].first != "pass")
        R.warnings.push_back((Point.empty() ? "" : "point " + Point + ": ") +
                             KindName[K].first + " '" + KindName[K].second +
                             "' is on one side only");
    }
  }
  return R;
}

namespace {

std::string fmtValue(StringRef Metric, double V) {
  if (isTime(Metric))
    return llvm::formatv("{0:F2} ms", V * 1e3).str();
  if (Metric == "ir_bytes")
    return llvm::formatv("{0:F1} KB", V / 1024).str();
  if (Metric.ends_with("_bytes"))
    return llvm::formatv("{0:F1} MB", V / (1024.0 * 1024)).str();
  return llvm::formatv("{0:F0}", V).str();
}

std::string fmtDelta(StringRef Metric, double V) {
  std::string S = fmtValue(Metric, std::fabs(V));
  return (V > 0 ? "+" : V < 0 ? "-" : " ") + S;
}

std::string sideText(const CompareSide &S) {
  return llvm::formatv("{0} ({1}, {2} run{3}{4})", S.spec, S.kind, S.runs,
                       S.runs == 1 ? "" : "s",
                       S.kind == "sweep"
                           ? llvm::formatv(", {0} points", S.files.size()).str()
                           : "")
      .str();
}

} // namespace

std::string q2::orch::formatCompareTable(const CompareResult &R, bool All) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "A: " << sideText(R.a) << "\nB: " << sideText(R.b) << "\n";
  for (const std::string &D : R.optionDifferences)
    OS << "options differ: " << D << "\n";
  for (const std::string &W : R.warnings)
    OS << "warning: " << W << "\n";
  OS << llvm::formatv("{0,-52} {1,-15} {2,12} {3,12} {4,12} {5,8}  {6}\n",
                      "row", "metric", "A", "B", "change", "rel", "verdict");
  std::string LastPoint = "\x01", LastName;
  for (const CompareRow &Row : R.rows) {
    // Passes within their thresholds are left out unless asked for.
    if (!All && Row.kind == "pass" && Row.verdict == "same")
      continue;
    if (Row.point != LastPoint) {
      if (!Row.point.empty())
        OS << "== point " << Row.point << "\n";
      LastPoint = Row.point;
    }
    std::string Name = Row.name == LastName ? "" : Row.name;
    LastName = Row.name;
    if (Name.size() > 52)
      Name = "..." + Name.substr(Name.size() - 49);
    auto V = [&](const std::optional<double> &X) {
      return X ? fmtValue(Row.metric, *X) : std::string("-");
    };
    std::string Verdict = Row.verdict;
    if (!Row.gated && (Verdict == "regression" || Verdict == "improvement"))
      Verdict += " (not gated)";
    if (Row.a.empty() || Row.b.empty()) {
      OS << llvm::formatv("{0,-52} {1,-15} {2,12} {3,12} {4,12} {5,8}  {6}\n",
                          Name, Row.metric,
                          Row.a.empty() ? "-" : fmtValue(Row.metric, median(Row.a)),
                          Row.b.empty() ? "-" : fmtValue(Row.metric, median(Row.b)),
                          "", "", Verdict);
      continue;
    }
    OS << llvm::formatv(
        "{0,-52} {1,-15} {2,12} {3,12} {4,12} {5,8}  {6}\n", Name, Row.metric,
        V(Row.aMedian), V(Row.bMedian), fmtDelta(Row.metric, *Row.delta),
        Row.relPct ? llvm::formatv("{0}{1:F1}%", *Row.relPct > 0 ? "+" : "",
                                   *Row.relPct)
                         .str()
                   : std::string("-"),
        Verdict == "same" ? "" : Verdict);
  }
  OS << "rule: " << R.rule << "\n";
  OS << "thresholds:";
  for (const std::string &M : compareMetrics())
    OS << " " << M << "=" << llvm::format("%g", R.thresholdPct.at(M))
       << "%";
  OS << "\n";
  OS << llvm::formatv("verdict: {0} ({1} regression{2}, {3} improvement{4} "
                      "among the gated rows)\n",
                      R.regression() ? "REGRESSION" : "no regression",
                      R.regressions, R.regressions == 1 ? "" : "s",
                      R.improvements, R.improvements == 1 ? "" : "s");
  return Out;
}

std::string q2::orch::toJSONText(const CompareResult &R, int Indent) {
  using nlohmann::json;
  auto Side = [](const CompareSide &S) {
    return json{{"spec", S.spec}, {"kind", S.kind}, {"files", S.files},
                {"runs", S.runs}};
  };
  auto Opt = [](const std::optional<double> &X) {
    return X ? json(*X) : json(nullptr);
  };
  json Rows = json::array();
  for (const CompareRow &Row : R.rows)
    Rows.push_back({{"point", Row.point},
                    {"kind", Row.kind},
                    {"name", Row.name},
                    {"metric", Row.metric},
                    {"a", Opt(Row.aMedian ? Row.aMedian
                                          : Row.a.empty()
                                              ? std::nullopt
                                              : std::optional<double>(
                                                    median(Row.a)))},
                    {"b", Opt(Row.bMedian ? Row.bMedian
                                          : Row.b.empty()
                                              ? std::nullopt
                                              : std::optional<double>(
                                                    median(Row.b)))},
                    {"a_runs", Row.a},
                    {"b_runs", Row.b},
                    {"delta", Opt(Row.delta)},
                    {"rel_pct", Opt(Row.relPct)},
                    {"verdict", Row.verdict},
                    {"gated", Row.gated}});
  json J = {{"schema", R.schema},
            {"a", Side(R.a)},
            {"b", Side(R.b)},
            {"rule", R.rule},
            {"threshold_pct", R.thresholdPct},
            {"min_time_s", R.minTimeS},
            {"option_differences", R.optionDifferences},
            {"warnings", R.warnings},
            {"regressions", R.regressions},
            {"improvements", R.improvements},
            {"verdict", R.regression() ? "regression" : "no regression"},
            {"rows", Rows}};
  return J.dump(Indent);
}
