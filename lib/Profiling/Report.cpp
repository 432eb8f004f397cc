//===- Report.cpp - The typed profile report and its JSON form ------------===//

#include "q2/Profiling/ReportFields.h"

#include "q2/Support/FileIO.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace q2::profiling;
namespace json = q2::json;

double ProfileReport::compileSeconds() const {
  double s = 0;
  for (const StageRecord &st : phaseB.stages)
    if (st.kind == StageKind::Compile)
      s += st.wallS;
  return s;
}

uint64_t ProfileReport::compilePeakRSS() const {
  uint64_t p = 0;
  for (const StageRecord &st : phaseB.stages)
    if (st.kind == StageKind::Compile)
      p = std::max(p, st.peakRSS);
  return p;
}

template <class T> std::string q2::profiling::toJSONText(const T &r, int indent) {
  auto text = json::dump(json::toValue(r), indent);
  if (!text) { // only strings that are not UTF-8 fail
    llvm::consumeError(text.takeError());
    return "null";
  }
  return std::move(*text);
}

template <class T>
llvm::Expected<T> q2::profiling::fromJSONText(llvm::StringRef text,
                                              llvm::StringRef source) {
  auto v = json::parse(text, source);
  if (!v)
    return v.takeError();
  T r{};
  if (llvm::Error e = json::fromValue(json::Cursor(*v, source.str()), r))
    return std::move(e);
  return r;
}

#define Q2_INSTANTIATE(T)                                                      \
  template std::string q2::profiling::toJSONText<T>(const T &, int);          \
  template llvm::Expected<T> q2::profiling::fromJSONText<T>(llvm::StringRef,  \
                                                            llvm::StringRef);
Q2_INSTANTIATE(ProcStatus)
Q2_INSTANTIATE(MemorySnapshot)
Q2_INSTANTIATE(IRMetrics)
Q2_INSTANTIATE(StatsRecord)
Q2_INSTANTIATE(TimelineSample)
Q2_INSTANTIATE(TimelineRecord)
Q2_INSTANTIATE(PassRecord)
Q2_INSTANTIATE(StageRecord)
Q2_INSTANTIATE(SessionRecord)
Q2_INSTANTIATE(PhaseCSetRecord)
Q2_INSTANTIATE(PhaseCRecord)
Q2_INSTANTIATE(ProfileReport)
Q2_INSTANTIATE(SnapshotEntry)
Q2_INSTANTIATE(SnapshotFile)
#undef Q2_INSTANTIATE

json::RawObject
q2::profiling::upgradeParametersV2(const json::RawObject &v2) {
  json::Value v = json::Value::parse(v2.text, nullptr, false);
  if (!v.is_object())
    return v2;
  for (auto [from, to] : {std::pair<const char *, const char *>{
                              "n_system_qubits", "n_system"},
                          {"n_estimation_wires", "n_est"}}) {
    auto it = v.find(from);
    if (it == v.end())
      continue;
    v[to] = *it;
    v.erase(from);
  }
  // /2 had no words or coefficients: /3 writes them, empty here.
  for (const char *key : {"words", "default_coeffs"})
    if (!v.contains(key))
      v[key] = json::Value::array();
  auto text = json::dump(v, -1);
  if (!text) {
    llvm::consumeError(text.takeError());
    return v2;
  }
  return {std::move(*text)};
}

//===----------------------------------------------------------------------===//
// What a readable report must hold (ReportChecks.h)
//===----------------------------------------------------------------------===//

namespace {
/// A time in seconds: finite (a NaN was written as null) and not negative.
/// Keys absent from the file (optional ones) are not checked.
struct Times {
  const json::Cursor &c;
  llvm::Error err = llvm::Error::success();
  Times &operator()(const char *key, double v) {
    if (err || (std::isfinite(v) && v >= 0))
      return *this;
    auto m = c.at(key);
    if (!m) {
      llvm::consumeError(m.takeError());
      return *this;
    }
    if (!std::isfinite(v))
      err = m->error("null where a time in seconds belongs (a broken "
                     "report: refusing it)");
    else
      err = m->error(llvm::formatv("{0} is negative (a time in seconds "
                                   "cannot be: refusing the report)",
                                   llvm::format("%g", v)));
    return *this;
  }
};
} // namespace

llvm::Error q2::profiling::checkRecord(const json::Cursor &c, const RUsage &r) {
  return std::move(Times{c}("user_s", r.userS)("system_s", r.systemS).err);
}
llvm::Error q2::profiling::checkRecord(const json::Cursor &c,
                                       const MemorySnapshot &r) {
  return std::move(Times{c}("elapsed_s", r.elapsedS)("unix_time_s",
                                                     r.unixTimeS)("cpu_s",
                                                                  r.cpuS)
                       .err);
}
llvm::Error q2::profiling::checkRecord(const json::Cursor &c,
                                       const TimelineSample &r) {
  return std::move(Times{c}("t_s", r.t).err);
}
llvm::Error q2::profiling::checkRecord(const json::Cursor &c,
                                       const PassRecord &r) {
  return std::move(Times{c}("start_s", r.startS)("end_s", r.endS)(
                       "wall_s", r.wallS)("self_wall_s", r.selfWallS)(
                       "cpu_s", r.cpuS)("profiler_s", r.profilerS)
                       .err);
}
llvm::Error q2::profiling::checkRecord(const json::Cursor &c,
                                       const StageRecord &r) {
  return std::move(
      Times{c}("wall_s", r.wallS)("cpu_s", r.cpuS)("profiler_s", r.profilerS)
          .err);
}
llvm::Error q2::profiling::checkRecord(const json::Cursor &c,
                                       const SessionRecord &r) {
  return std::move(Times{c}("profiler_overhead_s", r.profilerOverheadS).err);
}
llvm::Error q2::profiling::checkRecord(const json::Cursor &c,
                                       const PhaseARecord &r) {
  return std::move(Times{c}("hamiltonian_s", r.hamiltonianS)(
                       "program_s", r.programS)("wall_s", r.wallS)("cpu_s",
                                                                   r.cpuS)
                       .err);
}

llvm::Error q2::profiling::writeReport(llvm::StringRef path,
                                       const ProfileReport &report) {
  // Written as it is serialized: building the nlohmann tree first cost the
  // q2-profile pass more than its per-pass measuring (issue 35). Pass
  // records take about 1.5 kB each, indented: the text is not regrown.
  size_t records = report.phaseB.passes.size() + report.phaseB.stages.size();
  return json::writeRecordFile(path, report, 2, 16384 + 2048 * records);
}

/// Reads `path` as `T` after checking its "schema" (`schema`, or `older`
/// when the field list still reads it).
template <class T>
static llvm::Expected<T> readWithSchema(llvm::StringRef path,
                                        llvm::StringRef schema,
                                        llvm::StringRef older = "") {
  auto v = json::readFile(path);
  if (!v)
    return v.takeError();
  json::Cursor c(*v, path.str());
  auto s = c.at("schema");
  if (!s)
    return c.error(llvm::Twine("not a ") + schema + " file (no \"schema\")");
  auto name = s->string();
  if (!name || (*name != schema && (older.empty() || *name != older))) {
    std::string also =
        older.empty() ? "" : (" (" + older + " is read too)").str();
    return c.error(llvm::Twine("not a ") + schema + " file (schema " +
                   (name ? "\"" + *name + "\"" : llvm::toString(name.takeError())) +
                   ")" + also);
  }
  T r{};
  if (llvm::Error e = json::fromValue(c, r))
    return std::move(e);
  return r;
}

llvm::Expected<ProfileReport> q2::profiling::readReport(llvm::StringRef path) {
  return readWithSchema<ProfileReport>(path, kReportSchema, kReportSchemaV2);
}

llvm::Expected<SnapshotFile>
q2::profiling::readSnapshotFile(llvm::StringRef path) {
  return readWithSchema<SnapshotFile>(path, kSnapshotSchema);
}

llvm::Error q2::profiling::appendSnapshot(llvm::StringRef path,
                                          SnapshotEntry entry) {
  // Threads and processes appending to one file: the read-modify-write
  // happens under one lock (a sidecar file, since the report itself is
  // replaced by each write).
  auto lock = q2::FileLock::acquire((path + ".lock").str());
  if (!lock)
    return lock.takeError();
  SnapshotFile file;
  if (llvm::sys::fs::exists(path)) {
    auto doc = json::readFile(path);
    if (!doc)
      return doc.takeError();
    const json::Value &v = *doc;
    if (!v.is_object() || !v.contains("schema") ||
        v["schema"] != kSnapshotSchema || !v.contains("snapshots") ||
        !v["snapshots"].is_array())
      return llvm::createStringError(
          path + ": not a q2-snapshot report (an object with \"schema\": \"" +
          kSnapshotSchema +
          "\" and a \"snapshots\" array); refusing to overwrite it");
    if (llvm::Error e = json::fromValue(json::Cursor(v, path.str()), file))
      return e;
  }
  entry.index = file.snapshots.size();
  file.snapshots.push_back(std::move(entry));
  return json::writeFile(path, json::toValue(file));
}

//===----------------------------------------------------------------------===//
// Tables
//===----------------------------------------------------------------------===//

// One unit convention (docs/report.md "Units"): decimal MB = 1e6 bytes and
// kB = 1e3 bytes, as the reports' *_mb fields, the q2m3 API and sweeps.
static double mb(uint64_t bytes) { return double(bytes) / 1e6; }
static double kb(uint64_t bytes) { return double(bytes) / 1e3; }

std::string
q2::profiling::formatStageTable(llvm::ArrayRef<StageRecord> stages) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format("%-16s %9s %9s %9s %13s %9s %9s %10s %9s %9s %8s\n",
                     "Stage", "Wall s", "CPU s", "RSS MB", "Peak MB", "Heap MB",
                     "HeapPk MB", "IR kB", "Lines", "Ops", "Ampl.");
  const IRMetrics *prev = nullptr;
  bool allExact = true;
  for (const StageRecord &s : stages) {
    allExact &= s.heap.exact;
    os << llvm::format(
        "%-16s %9.3f %9.3f %9.1f %9.1f %3s %9.1f %9.1f ", s.name.c_str(),
        s.wallS, s.cpuS, mb(s.end.status.vmRSS), mb(s.peakRSS),
        s.peakSource == "kernel_hwm" ? "hwm" : "smp", mb(s.heap.after),
        mb(s.heap.peak));
    if (s.ir) {
      os << llvm::format("%10.1f %9llu %9llu ", kb(s.ir->bytes),
                         (unsigned long long)s.ir->lines,
                         (unsigned long long)s.ir->ops);
      if (prev && prev->bytes)
        os << llvm::format("%7.2fx", double(s.ir->bytes) / double(prev->bytes));
      else
        os << llvm::format("%8s", "-");
      prev = &*s.ir;
    } else {
      os << llvm::format("%10s %9s %9s %8s", "-", "-", "-", "-");
    }
    os << "\n";
  }
  if (!allExact && !stages.empty())
    os << "(Heap: glibc's heap in use at stage and pass boundaries "
          "(mallinfo2), not counted per allocation.)\n";
  return out;
}

/// The finished non-adaptor passes, the `top` highest by `key` (ties keep
/// the run order, so the table does not depend on noise beyond the keys).
static std::string
passTable(llvm::ArrayRef<PassRecord> passes, size_t top,
          llvm::function_ref<double(const PassRecord &)> key) {
  std::vector<const PassRecord *> sorted;
  for (const PassRecord &p : passes)
    if (!p.isAdaptor && p.finished)
      sorted.push_back(&p);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](const PassRecord *a, const PassRecord *b) {
                     return key(*a) > key(*b);
                   });
  if (sorted.size() > top)
    sorted.resize(top);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format("%-32s %-16s %-16s %10s %10s %10s %10s %10s %10s\n",
                     "Pass", "Op", "Stage", "Wall ms", "CPU ms", "dRSS MB",
                     "dHeap MB", "HeapPk MB", "IR kB");
  for (const PassRecord *p : sorted) {
    std::string op = p->opName;
    if (!p->opSymbol.empty())
      op += " @" + p->opSymbol;
    os << llvm::format("%-32s %-16s %-16s %10.3f %10.3f %10.1f ",
                       p->label().c_str(), op.c_str(), p->stage.c_str(),
                       p->wallS * 1e3, p->cpuS * 1e3,
                       double(p->rssDelta) / 1e6);
    os << llvm::format("%10.1f %10.1f ",
                       (double(p->heap.after) - double(p->heap.before)) / 1e6,
                       mb(p->heap.peak));
    if (p->irAfter)
      os << llvm::format("%10.1f", kb(p->irAfter->bytes));
    else
      os << llvm::format("%10s", "-");
    os << "\n";
  }
  return out;
}

std::string q2::profiling::formatPassTable(llvm::ArrayRef<PassRecord> passes,
                                           size_t top) {
  return passTable(passes, top, [](const PassRecord &p) { return p.wallS; });
}

std::string
q2::profiling::formatHeapPassTable(llvm::ArrayRef<PassRecord> passes,
                                   size_t top) {
  return passTable(passes, top, [](const PassRecord &p) {
    return double(p.heap.peak) - double(p.heap.before);
  });
}

std::string q2::profiling::formatHeapPeak(const HeapPeakRecord &heap) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format("heap peak: %.1f MB", mb(heap.peak));
  if (!heap.pass.empty())
    os << " in pass " << heap.pass;
  if (!heap.stage.empty())
    os << (heap.pass.empty() ? " in stage " : " (stage ") << heap.stage
       << (heap.pass.empty() ? "" : ")");
  os << llvm::format("; lifetime heap peak %.1f MB", mb(heap.lifetimePeak));
  if (heap.exact)
    os << " (requested bytes, counted at every allocation)\n";
  else
    os << " (glibc's heap in use at pass and stage boundaries, not exact; "
          "preload lib/libq2_heap.so for exact figures)\n";
  return out;
}
