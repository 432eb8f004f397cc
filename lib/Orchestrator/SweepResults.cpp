//===- SweepResults.cpp - point records, results and summaries ------------===//
//
// A point's result.json (q2.sweep.point/1), the results of one or more
// sweep directories merged by key, and the summary written next to them
// (summary.csv, summary.txt).
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/Sweep.h"

#include "q2/Orchestrator/RecordFields.h"
#include "SweepInternal.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
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
/// Reads `path` as T after checking its "schema" string.
template <class T>
Expected<T> readWithSchema(llvm::StringRef path, llvm::StringRef schema) {
  Expected<json::Value> v = json::readFile(path);
  if (!v)
    return v.takeError();
  json::Cursor c(*v, path.str());
  Expected<json::Cursor> s = c.at("schema");
  if (!s)
    return s.takeError();
  Expected<std::string> name = s->string();
  if (!name)
    return name.takeError();
  if (*name != schema)
    return s->error("expected \"" + schema + "\", got \"" + *name + "\"");
  T r{};
  if (Error e = json::fromValue(c, r))
    return std::move(e);
  return r;
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

std::string q2::orch::toJSONText(const PointRecord &r, int indent) {
  Expected<std::string> text = json::dump(json::toValue(r), indent);
  if (!text) { // Only strings that are not UTF-8 fail.
    llvm::consumeError(text.takeError());
    return "null";
  }
  return std::move(*text);
}

Expected<PointRecord> q2::orch::readPointRecord(llvm::StringRef path) {
  Expected<PointRecord> r = readWithSchema<PointRecord>(path, kPointSchema);
  // Summaries and merges count by status: an unknown one is a bad file.
  if (r && r->status != "ok" && r->status != "failed" &&
      r->status != "cancelled")
    return createStringError(path + ": status: '" + r->status +
                             "' is not one of ok, failed, cancelled");
  return r;
}

Error q2::orch::writePointRecord(llvm::StringRef path, const PointRecord &r) {
  return json::writeFile(path, json::toValue(r));
}

Error q2::orch::writeSweepSpec(llvm::StringRef path, const SweepSpec &spec) {
  return json::writeFile(path, json::toValue(spec));
}

Expected<SweepSpec> q2::orch::readSweepSpec(llvm::StringRef path) {
  Expected<SweepSpec> spec = readWithSchema<SweepSpec>(path, "q2.sweep/1");
  if (!spec)
    return spec.takeError();
  // The field list reads each grid entry as a pair; anything else is 0x0.
  for (const GridPoint &g : spec->grid)
    if (g.nEst == 0 || g.nTrotter == 0)
      return createStringError(path + ": grid: expected [n_est, n_trotter] "
                                      "pairs of positive integers");
  spec->outDir = llvm::sys::path::parent_path(path).str();
  return spec;
}

Error q2::orch::writeResults(llvm::StringRef path,
                             const std::vector<PointRecord> &results) {
  return json::writeFile(path, json::toValue(results));
}

std::vector<PointRecord> q2::orch::resultsOf(const SweepSummary &summary) {
  std::vector<PointRecord> out;
  for (const PointResult &p : summary.points)
    if (!p.record.key.empty() && p.status() != "cancelled")
      out.push_back(p.record);
  return out;
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

Expected<std::vector<PointRecord>>
q2::orch::loadResults(const std::vector<std::string> &dirs) {
  std::map<std::string, PointRecord> byKey;
  for (const auto &d : dirs) {
    std::string points = joinPath(d, "points");
    if (!llvm::sys::fs::is_directory(points))
      return createStringError(d + ": not a sweep directory (no points/)");
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(points, ec), end;
         it != end && !ec; it.increment(ec)) {
      std::string file = joinPath(it->path(), "result.json");
      if (!llvm::sys::fs::exists(file))
        continue; // Not finished (or still running), or a lock file.
      Expected<PointRecord> r = readPointRecord(file);
      if (!r)
        return r.takeError();
      if (r->key.empty())
        return createStringError(file + ": key: empty");
      auto old = byKey.find(r->key);
      if (old != byKey.end() && old->second.status != r->status)
        return createStringError(file + ": point '" + r->key +
                                 "' also in an earlier directory with "
                                 "status '" +
                                 old->second.status + "'");
      byKey[r->key] = std::move(*r);
    }
    if (ec)
      return createStringError(points + ": " + ec.message());
  }
  std::vector<PointRecord> out;
  for (auto &kv : byKey)
    out.push_back(std::move(kv.second));
  std::stable_sort(out.begin(), out.end(),
                   [](const PointRecord &a, const PointRecord &b) {
                     return std::tie(a.molecule, a.nEst, a.nTrotter, a.mode) <
                            std::tie(b.molecule, b.nEst, b.nTrotter, b.mode);
                   });
  return out;
}

namespace {
struct Column {
  std::string name;
  std::function<std::string(const PointRecord &)> get;
};

std::string fmt(double v, int prec) {
  if (!std::isfinite(v))
    return "";
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(prec);
  os << v;
  return os.str();
}

template <class T> std::string fmt(const std::optional<T> &v, int prec) {
  return v ? fmt(double(*v), prec) : std::string();
}

std::string str(const std::optional<std::string> &v) {
  return v ? *v : std::string();
}

/// A field of a phase record, "" when the phase did not run.
template <class F>
std::function<std::string(const PointRecord &)>
phase(std::optional<MeasureRecord> PointPhases::*which, F Get) {
  return [=](const PointRecord &r) {
    const auto &p = r.phases.*which;
    return p ? Get(*p) : std::string();
  };
}

/// The first coefficient set Phase C ran, if the point has a report.
const q2::profiling::PhaseCSetRecord *firstSet(const PointRecord &p) {
  if (!p.report || !p.report->phaseC || p.report->phaseC->sets.empty())
    return nullptr;
  return &p.report->phaseC->sets.front();
}

/// The columns a point's report adds (one row per point: the outcome, the
/// compile peak, the timeline peak and IR size per stage). Stage columns
/// follow the stages in the order the results first name them.
void addReportColumns(std::vector<Column> &cols,
                      const std::vector<PointRecord> &results) {
  using R = const PointRecord &;
  auto set = [](auto Get, int prec) {
    return [=](R p) {
      const q2::profiling::PhaseCSetRecord *s = firstSet(p);
      return s ? fmt(Get(*s), prec) : std::string();
    };
  };
  using SetR = const q2::profiling::PhaseCSetRecord &;
  cols.push_back({"prob_sum", set([](SetR s) { return s.probSum; }, 9)});
  cols.push_back({"energy", set([](SetR s) { return s.energy; }, 6)});
  cols.push_back({"resolution", set([](SetR s) { return s.resolution; }, 6)});
  cols.push_back({"exact_energy", [](R p) {
                    const q2::profiling::PhaseCSetRecord *s = firstSet(p);
                    return s ? fmt(s->exactEnergy, 6) : std::string();
                  }});
  cols.push_back({"energy_error", [](R p) {
                    // |energy - exact| in Ha, as ProfileResult.energy_error.
                    const q2::profiling::PhaseCSetRecord *s = firstSet(p);
                    if (!s || !s->exactEnergy)
                      return std::string();
                    return fmt(std::fabs(s->energy - *s->exactEnergy), 6);
                  }});
  cols.push_back({"error_resolutions", [](R p) {
                    const q2::profiling::PhaseCSetRecord *s = firstSet(p);
                    return s ? fmt(s->errorResolutions, 2) : std::string();
                  }});
  cols.push_back({"compile_peak_mb", [](R p) {
                    if (!p.report)
                      return std::string();
                    uint64_t peak = 0;
                    for (const auto &st : p.report->phaseB.stages)
                      if (st.kind == q2::profiling::StageKind::Compile)
                        peak = std::max(peak, st.peakRSS);
                    return peak ? fmt(peak / 1e6, 1) : std::string();
                  }});
  cols.push_back({"timeline_peak_mb", [](R p) {
                    if (!p.report || !p.report->phaseB.timeline ||
                        !p.report->phaseB.timeline->peak)
                      return std::string();
                    return fmt(
                        p.report->phaseB.timeline->peak->sample.rss / 1e6, 1);
                  }});
  std::vector<std::string> stages;
  for (const auto &p : results)
    if (p.report)
      for (const auto &st : p.report->phaseB.stages)
        if (st.ir && llvm::find(stages, st.name) == stages.end())
          stages.push_back(st.name);
  for (const std::string &name : stages) {
    auto ir = [name](R p) -> const q2::profiling::IRMetrics * {
      if (!p.report)
        return nullptr;
      for (const auto &st : p.report->phaseB.stages)
        if (st.name == name && st.ir)
          return &*st.ir;
      return nullptr;
    };
    cols.push_back({"ir_kb_" + name, [ir](R p) {
                      const q2::profiling::IRMetrics *m = ir(p);
                      return m ? fmt(m->bytes / 1e3, 1) : std::string();
                    }});
    cols.push_back({"ir_lines_" + name, [ir](R p) {
                      const q2::profiling::IRMetrics *m = ir(p);
                      return m ? std::to_string(m->lines) : std::string();
                    }});
  }
}

std::vector<Column> columns(const std::vector<PointRecord> &results) {
  using R = const PointRecord &;
  using M = const MeasureRecord &;
  std::vector<Column> cols = {
      {"key", [](R p) { return p.key; }},
      {"molecule", [](R p) { return p.molecule; }},
      {"mode", [](R p) { return p.mode; }},
      {"n_est", [](R p) { return std::to_string(p.nEst); }},
      {"n_trotter", [](R p) { return std::to_string(p.nTrotter); }},
      {"n_terms",
       [](R p) { return p.nTerms ? std::to_string(*p.nTerms) : ""; }},
      {"x", [](R p) { return fmt(p.x, 0); }},
      {"status", [](R p) { return p.status; }},
      {"failed_phase", [](R p) { return str(p.failedPhase); }},
      {"reason", [](R p) { return p.reason; }},
      {"exit_code",
       [](R p) {
         const MeasureRecord *f = p.failedPhaseRecord();
         return f && !f->signal ? std::to_string(f->exitCode) : "";
       }},
      {"signal",
       [](R p) {
         const MeasureRecord *f = p.failedPhaseRecord();
         return f ? f->signalName : "";
       }},
      // The compile stages only (stages 1-6), not Input, Load or Execute.
      {"compile_s", [](R p) { return fmt(p.compileSeconds(), 3); }},
      {"wall_s", [](R p) { return fmt(p.wallS, 3); }},
      {"wall_a_s", phase(&PointPhases::a, [](M ph) { return fmt(ph.wallS, 3); })},
      {"wall_bc_s",
       phase(&PointPhases::bc, [](M ph) { return fmt(ph.wallS, 3); })},
      {"peak_rss_mb", [](R p) { return fmt(p.peakRssMB, 1); }},
      {"peak_rss_a_mb",
       phase(&PointPhases::a, [](M ph) { return fmt(ph.peakTreeRssMB, 1); })},
      {"peak_rss_bc_mb",
       phase(&PointPhases::bc, [](M ph) { return fmt(ph.peakTreeRssMB, 1); })},
      {"vmhwm_bc_mb",
       phase(&PointPhases::bc, [](M ph) { return fmt(ph.maxVmHwmMB, 1); })},
  };
  // The Slurm task of each point, for sweeps run by the slurm executor.
  if (llvm::any_of(results, [](R p) { return p.slurm.has_value(); })) {
    auto task = [](auto get) {
      return [=](R p) { return p.slurm ? get(*p.slurm) : std::string(); };
    };
    using T = const SlurmTaskRecord &;
    cols.push_back({"slurm_job", task([](T t) { return t.jobId; })});
    cols.push_back({"slurm_state", task([](T t) { return t.state; })});
    cols.push_back(
        {"slurm_max_rss_mb", task([](T t) { return fmt(t.maxRssMB, 1); })});
    cols.push_back(
        {"slurm_elapsed_s", task([](T t) { return fmt(t.elapsedS, 0); })});
  }
  addReportColumns(cols, results);
  return cols;
}

std::string csvEscape(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
} // namespace

std::string q2::orch::summaryCsv(const std::vector<PointRecord> &results) {
  auto cols = columns(results);
  std::string out;
  for (size_t i = 0; i < cols.size(); ++i)
    out += (i ? "," : "") + cols[i].name;
  out += "\n";
  for (const auto &r : results) {
    for (size_t i = 0; i < cols.size(); ++i)
      out += (i ? "," : "") + csvEscape(cols[i].get(r));
    out += "\n";
  }
  return out;
}

std::string q2::orch::summaryTable(const std::vector<PointRecord> &results) {
  // The table leaves out the columns that only matter for failures when
  // every point succeeded.
  auto cols = columns(results);
  std::vector<std::vector<std::string>> rows;
  rows.emplace_back();
  for (const auto &c : cols)
    rows.back().push_back(c.name);
  for (const auto &r : results) {
    rows.emplace_back();
    for (const auto &c : cols)
      rows.back().push_back(c.get(r));
  }
  std::vector<size_t> width(cols.size(), 0);
  std::vector<bool> used(cols.size(), false);
  for (size_t row = 0; row < rows.size(); ++row)
    for (size_t i = 0; i < cols.size(); ++i) {
      width[i] = std::max(width[i], rows[row][i].size());
      // IR size per stage is for summary.csv; the table stays readable.
      if (row > 0 && !rows[row][i].empty() &&
          !llvm::StringRef(cols[i].name).starts_with("ir_"))
        used[i] = true;
    }
  std::string out;
  for (const auto &row : rows) {
    std::string line;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (!used[i] || i == 0)
        continue; // The key repeats molecule/mode/n_est/n_trotter.
      std::string cell = row[i];
      cell.resize(width[i], ' ');
      line += cell + "  ";
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  }
  size_t ok = 0;
  for (const auto &r : results)
    ok += r.status == "ok";
  out += std::to_string(results.size()) + " points, " + std::to_string(ok) +
         " ok, " + std::to_string(results.size() - ok) + " failed\n";
  return out;
}

Error q2::orch::writeSummary(const std::string &dir,
                             const std::vector<PointRecord> &results) {
  if (Error e = q2::writeFileAtomically(joinPath(dir, "summary.csv"),
                                        summaryCsv(results)))
    return e;
  return q2::writeFileAtomically(joinPath(dir, "summary.txt"),
                                 summaryTable(results));
}
