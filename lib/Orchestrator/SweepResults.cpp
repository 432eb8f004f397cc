//===- SweepResults.cpp - point records, results and summaries ------------===//
//
// A point's result.json (q2.sweep.point/1), the results of one or more
// sweep directories merged by key, and the summary written next to them
// (summary.csv, summary.txt).
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/Sweep.h"

#include "RecordFields.h"
#include "SweepInternal.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <sstream>
#include <tuple>

using namespace q2::orch;
using namespace q2::orch::sweep_detail;
using llvm::createStringError;
using llvm::Error;
using llvm::Expected;
namespace json = q2::json;

namespace {
/// Reads `Path` as T after checking its "schema" string.
template <class T>
Expected<T> readWithSchema(llvm::StringRef Path, llvm::StringRef Schema) {
  Expected<json::Value> V = json::readFile(Path);
  if (!V)
    return V.takeError();
  json::Cursor C(*V, Path.str());
  Expected<json::Cursor> S = C.at("schema");
  if (!S)
    return S.takeError();
  Expected<std::string> Name = S->string();
  if (!Name)
    return Name.takeError();
  if (*Name != Schema)
    return S->error("expected \"" + Schema + "\", got \"" + *Name + "\"");
  T R{};
  if (Error E = json::fromValue(C, R))
    return std::move(E);
  return R;
}
} // namespace

//===----------------------------------------------------------------------===//
// Records
//===----------------------------------------------------------------------===//

std::optional<double> PointRecord::compileSeconds() const {
  if (!report)
    return std::nullopt;
  return report->compileSeconds();
}

const MeasureRecord *PointRecord::failedPhaseRecord() const {
  if (failedPhase == "A" && phases.a)
    return &*phases.a;
  if (failedPhase == "BC" && phases.bc)
    return &*phases.bc;
  return nullptr;
}

std::string q2::orch::toJSONText(const PointRecord &R, int Indent) {
  Expected<std::string> Text = json::dump(json::toValue(R), Indent);
  if (!Text) { // Only strings that are not UTF-8 fail.
    llvm::consumeError(Text.takeError());
    return "null";
  }
  return std::move(*Text);
}

Expected<PointRecord> q2::orch::readPointRecord(llvm::StringRef Path) {
  Expected<PointRecord> R = readWithSchema<PointRecord>(Path, kPointSchema);
  // Summaries and merges count by status: an unknown one is a bad file.
  if (R && R->status != "ok" && R->status != "failed" &&
      R->status != "cancelled")
    return createStringError(Path + ": status: '" + R->status +
                             "' is not one of ok, failed, cancelled");
  return R;
}

Error q2::orch::writePointRecord(llvm::StringRef Path, const PointRecord &R) {
  return json::writeFile(Path, json::toValue(R));
}

Error q2::orch::writeResults(llvm::StringRef Path,
                             const std::vector<PointRecord> &Results) {
  return json::writeFile(Path, json::toValue(Results));
}

std::vector<PointRecord> q2::orch::resultsOf(const SweepSummary &Summary) {
  std::vector<PointRecord> Out;
  for (const PointResult &P : Summary.points)
    if (!P.record.key.empty() && P.status() != "cancelled")
      Out.push_back(P.record);
  return Out;
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

Expected<std::vector<PointRecord>>
q2::orch::loadResults(const std::vector<std::string> &Dirs) {
  std::map<std::string, PointRecord> ByKey;
  for (const auto &D : Dirs) {
    std::string Points = joinPath(D, "points");
    if (!llvm::sys::fs::is_directory(Points))
      return createStringError(D + ": not a sweep directory (no points/)");
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Points, EC), End;
         It != End && !EC; It.increment(EC)) {
      std::string File = joinPath(It->path(), "result.json");
      if (!llvm::sys::fs::exists(File))
        continue; // Not finished (or still running), or a lock file.
      Expected<PointRecord> R = readPointRecord(File);
      if (!R)
        return R.takeError();
      if (R->key.empty())
        return createStringError(File + ": key: empty");
      auto Old = ByKey.find(R->key);
      if (Old != ByKey.end() && Old->second.status != R->status)
        return createStringError(File + ": point '" + R->key +
                                 "' also in an earlier directory with "
                                 "status '" +
                                 Old->second.status + "'");
      ByKey[R->key] = std::move(*R);
    }
    if (EC)
      return createStringError(Points + ": " + EC.message());
  }
  std::vector<PointRecord> Out;
  for (auto &KV : ByKey)
    Out.push_back(std::move(KV.second));
  std::stable_sort(Out.begin(), Out.end(),
                   [](const PointRecord &A, const PointRecord &B) {
                     return std::tie(A.molecule, A.nEst, A.nTrotter, A.mode) <
                            std::tie(B.molecule, B.nEst, B.nTrotter, B.mode);
                   });
  return Out;
}

namespace {
struct Column {
  std::string name;
  std::function<std::string(const PointRecord &)> get;
};

std::string fmt(double V, int Prec) {
  if (!std::isfinite(V))
    return "";
  std::ostringstream OS;
  OS.setf(std::ios::fixed);
  OS.precision(Prec);
  OS << V;
  return OS.str();
}

template <class T> std::string fmt(const std::optional<T> &V, int Prec) {
  return V ? fmt(double(*V), Prec) : std::string();
}

std::string str(const std::optional<std::string> &V) {
  return V ? *V : std::string();
}

/// A field of a phase record, "" when the phase did not run.
template <class F>
std::function<std::string(const PointRecord &)>
phase(std::optional<MeasureRecord> PointPhases::*Which, F Get) {
  return [=](const PointRecord &R) {
    const auto &P = R.phases.*Which;
    return P ? Get(*P) : std::string();
  };
}

/// The first coefficient set Phase C ran, if the point has a report.
const q2::profiling::PhaseCSetRecord *firstSet(const PointRecord &P) {
  if (!P.report || !P.report->phaseC || P.report->phaseC->sets.empty())
    return nullptr;
  return &P.report->phaseC->sets.front();
}

/// The columns a point's report adds (one row per point: the outcome, the
/// compile peak, the timeline peak and IR size per stage). Stage columns
/// follow the stages in the order the results first name them.
void addReportColumns(std::vector<Column> &Cols,
                      const std::vector<PointRecord> &Results) {
  using R = const PointRecord &;
  auto set = [](auto Get, int Prec) {
    return [=](R P) {
      const q2::profiling::PhaseCSetRecord *S = firstSet(P);
      return S ? fmt(Get(*S), Prec) : std::string();
    };
  };
  using SetR = const q2::profiling::PhaseCSetRecord &;
  Cols.push_back({"prob_sum", set([](SetR S) { return S.probSum; }, 9)});
  Cols.push_back({"energy", set([](SetR S) { return S.energy; }, 6)});
  Cols.push_back({"resolution", set([](SetR S) { return S.resolution; }, 6)});
  Cols.push_back({"exact_energy", [](R P) {
                    const q2::profiling::PhaseCSetRecord *S = firstSet(P);
                    return S ? fmt(S->exactEnergy, 6) : std::string();
                  }});
  Cols.push_back({"energy_error", [](R P) {
                    // |energy - exact| in Ha, as ProfileResult.energy_error.
                    const q2::profiling::PhaseCSetRecord *S = firstSet(P);
                    if (!S || !S->exactEnergy)
                      return std::string();
                    return fmt(std::fabs(S->energy - *S->exactEnergy), 6);
                  }});
  Cols.push_back({"error_resolutions", [](R P) {
                    const q2::profiling::PhaseCSetRecord *S = firstSet(P);
                    return S ? fmt(S->errorResolutions, 2) : std::string();
                  }});
  Cols.push_back({"compile_peak_mb", [](R P) {
                    if (!P.report)
                      return std::string();
                    uint64_t Peak = 0;
                    for (const auto &St : P.report->phaseB.stages)
                      if (St.kind == q2::profiling::StageKind::Compile)
                        Peak = std::max(Peak, St.peakRSS);
                    return Peak ? fmt(Peak / 1e6, 1) : std::string();
                  }});
  Cols.push_back({"timeline_peak_mb", [](R P) {
                    if (!P.report || !P.report->phaseB.timeline ||
                        !P.report->phaseB.timeline->peak)
                      return std::string();
                    return fmt(
                        P.report->phaseB.timeline->peak->sample.rss / 1e6, 1);
                  }});
  std::vector<std::string> Stages;
  for (const auto &P : Results)
    if (P.report)
      for (const auto &St : P.report->phaseB.stages)
        if (St.ir && llvm::find(Stages, St.name) == Stages.end())
          Stages.push_back(St.name);
  for (const std::string &Name : Stages) {
    auto ir = [Name](R P) -> const q2::profiling::IRMetrics * {
      if (!P.report)
        return nullptr;
      for (const auto &St : P.report->phaseB.stages)
        if (St.name == Name && St.ir)
          return &*St.ir;
      return nullptr;
    };
    Cols.push_back({"ir_kb_" + Name, [ir](R P) {
                      const q2::profiling::IRMetrics *M = ir(P);
                      return M ? fmt(M->bytes / 1e3, 1) : std::string();
                    }});
    Cols.push_back({"ir_lines_" + Name, [ir](R P) {
                      const q2::profiling::IRMetrics *M = ir(P);
                      return M ? std::to_string(M->lines) : std::string();
                    }});
  }
}

std::vector<Column> columns(const std::vector<PointRecord> &Results) {
  using R = const PointRecord &;
  using M = const MeasureRecord &;
  std::vector<Column> Cols = {
      {"key", [](R P) { return P.key; }},
      {"molecule", [](R P) { return P.molecule; }},
      {"mode", [](R P) { return P.mode; }},
      {"n_est", [](R P) { return std::to_string(P.nEst); }},
      {"n_trotter", [](R P) { return std::to_string(P.nTrotter); }},
      {"n_terms",
       [](R P) { return P.nTerms ? std::to_string(*P.nTerms) : ""; }},
      {"x", [](R P) { return fmt(P.x, 0); }},
      {"status", [](R P) { return P.status; }},
      {"failed_phase", [](R P) { return str(P.failedPhase); }},
      {"reason", [](R P) { return P.reason; }},
      {"exit_code",
       [](R P) {
         const MeasureRecord *F = P.failedPhaseRecord();
         return F && !F->signal ? std::to_string(F->exitCode) : "";
       }},
      {"signal",
       [](R P) {
         const MeasureRecord *F = P.failedPhaseRecord();
         return F ? F->signalName : "";
       }},
      // The compile stages only (stages 1-6), not Input, Load or Execute.
      {"compile_s", [](R P) { return fmt(P.compileSeconds(), 3); }},
      {"wall_s", [](R P) { return fmt(P.wallS, 3); }},
      {"wall_a_s", phase(&PointPhases::a, [](M Ph) { return fmt(Ph.wallS, 3); })},
      {"wall_bc_s",
       phase(&PointPhases::bc, [](M Ph) { return fmt(Ph.wallS, 3); })},
      {"peak_rss_mb", [](R P) { return fmt(P.peakRssMB, 1); }},
      {"peak_rss_a_mb",
       phase(&PointPhases::a, [](M Ph) { return fmt(Ph.peakTreeRssMB, 1); })},
      {"peak_rss_bc_mb",
       phase(&PointPhases::bc, [](M Ph) { return fmt(Ph.peakTreeRssMB, 1); })},
      {"vmhwm_bc_mb",
       phase(&PointPhases::bc, [](M Ph) { return fmt(Ph.maxVmHwmMB, 1); })},
  };
  addReportColumns(Cols, Results);
  return Cols;
}

std::string csvEscape(const std::string &S) {
  if (S.find_first_of(",\"\n") == std::string::npos)
    return S;
  std::string Out = "\"";
  for (char C : S)
    Out += C == '"' ? std::string("\"\"") : std::string(1, C);
  return Out + "\"";
}
} // namespace

std::string q2::orch::summaryCsv(const std::vector<PointRecord> &Results) {
  auto Cols = columns(Results);
  std::string Out;
  for (size_t I = 0; I < Cols.size(); ++I)
    Out += (I ? "," : "") + Cols[I].name;
  Out += "\n";
  for (const auto &R : Results) {
    for (size_t I = 0; I < Cols.size(); ++I)
      Out += (I ? "," : "") + csvEscape(Cols[I].get(R));
    Out += "\n";
  }
  return Out;
}

std::string q2::orch::summaryTable(const std::vector<PointRecord> &Results) {
  // The table leaves out the columns that only matter for failures when
  // every point succeeded.
  auto Cols = columns(Results);
  std::vector<std::vector<std::string>> Rows;
  Rows.emplace_back();
  for (const auto &C : Cols)
    Rows.back().push_back(C.name);
  for (const auto &R : Results) {
    Rows.emplace_back();
    for (const auto &C : Cols)
      Rows.back().push_back(C.get(R));
  }
  std::vector<size_t> Width(Cols.size(), 0);
  std::vector<bool> Used(Cols.size(), false);
  for (size_t Row = 0; Row < Rows.size(); ++Row)
    for (size_t I = 0; I < Cols.size(); ++I) {
      Width[I] = std::max(Width[I], Rows[Row][I].size());
      // IR size per stage is for summary.csv; the table stays readable.
      if (Row > 0 && !Rows[Row][I].empty() &&
          !llvm::StringRef(Cols[I].name).starts_with("ir_"))
        Used[I] = true;
    }
  std::string Out;
  for (const auto &Row : Rows) {
    std::string Line;
    for (size_t I = 0; I < Cols.size(); ++I) {
      if (!Used[I] || I == 0)
        continue; // The key repeats molecule/mode/n_est/n_trotter.
      std::string Cell = Row[I];
      Cell.resize(Width[I], ' ');
      Line += Cell + "  ";
    }
    while (!Line.empty() && Line.back() == ' ')
      Line.pop_back();
    Out += Line + "\n";
  }
  size_t Ok = 0;
  for (const auto &R : Results)
    Ok += R.status == "ok";
  Out += std::to_string(Results.size()) + " points, " + std::to_string(Ok) +
         " ok, " + std::to_string(Results.size() - Ok) + " failed\n";
  return Out;
}

Error q2::orch::writeSummary(const std::string &Dir,
                             const std::vector<PointRecord> &Results) {
  if (Error E = q2::writeFileAtomically(joinPath(Dir, "summary.csv"),
                                        summaryCsv(Results)))
    return E;
  return q2::writeFileAtomically(joinPath(Dir, "summary.txt"),
                                 summaryTable(Results));
}
