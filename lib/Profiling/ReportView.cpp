//===- ReportView.cpp - A profile as people read it -----------------------===//
//
// The view model is plain JSON so that the text tables here, the HTML
// report's script and the plot script read one structure. Everything that
// needs arithmetic over the report (the merged tree, IR growth, totals, the
// reduced timeline) is done once, here.
//
//===----------------------------------------------------------------------===//
#include "q2/Profiling/ReportView.h"

#include "q2/Profiling/ReportFields.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <initializer_list>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <numeric>

using namespace q2::profiling;
using namespace q2::profiling::view;
using q2::json::Value;
using llvm::StringRef;

namespace {

//===----------------------------------------------------------------------===//
// Reading the document
//===----------------------------------------------------------------------===//

const Value *get(const Value &v, const char *key) {
  if (!v.is_object())
    return nullptr;
  auto it = v.find(key);
  if (it == v.end() || it->is_null())
    return nullptr;
  return &*it;
}
/// Whether a record's (or the report's) heap figures were counted at every
/// allocation: false only where it says `"heap_exact": false` (mallinfo2
/// at boundaries); reports from before the key are taken as they are.
bool heapCountedExactly(const Value &v) {
  const Value *e = get(v, "heap_exact");
  return !e || !e->is_boolean() || e->get<bool>();
}
std::optional<double> num(const Value &v, const char *key) {
  const Value *p = get(v, key);
  if (p && p->is_number())
    return p->get<double>();
  return std::nullopt;
}
double num0(const Value &v, const char *key) {
  return num(v, key).value_or(0);
}
std::string str(const Value &v, const char *key) {
  const Value *p = get(v, key);
  return p && p->is_string() ? p->get<std::string>() : std::string();
}
const Value &arr(const Value &v, const char *key) {
  static const Value empty = Value::array();
  const Value *p = get(v, key);
  return p && p->is_array() ? *p : empty;
}
Value orNull(std::optional<double> v) { return v ? Value(*v) : Value(); }
/// `keys` of `from` into `to`: numbers, or null when absent.
void copyNumbers(Value &to, const Value &from,
                 std::initializer_list<const char *> keys) {
  for (const char *k : keys)
    to[k] = orNull(num(from, k));
}

/// "H2: 4 system qubits, n_est 4, n_trotter 2, 15 terms, fixed, order 2".
std::string programSummary(const Value &params) {
  std::string out = str(params, "molecule");
  auto add = [&](const std::string &s) {
    out += (out.empty() ? "" : out.find(':') == std::string::npos ? ": " : ", ") + s;
  };
  if (auto n = num(params, "n_system"))
    add(llvm::formatv("{0} system qubits", int64_t(*n)).str());
  if (auto n = num(params, "n_est"))
    add(llvm::formatv("n_est {0}", int64_t(*n)).str());
  if (auto n = num(params, "n_trotter"))
    add(llvm::formatv("n_trotter {0}", int64_t(*n)).str());
  if (auto n = num(params, "n_terms"))
    add(llvm::formatv("{0} terms", int64_t(*n)).str());
  if (std::string m = str(params, "mode"); !m.empty())
    add(m);
  if (auto n = num(params, "order"))
    add(llvm::formatv("order {0}", int64_t(*n)).str());
  return out;
}

std::string isoTime(double unixS) {
  std::time_t t = std::time_t(unixS);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

//===----------------------------------------------------------------------===//
// The merged pass tree
//===----------------------------------------------------------------------===//

struct TreeBuilder {
  const Value &passes; // the view's flat pass list
  std::vector<std::vector<int>> kids;
  /// Which pass of its pipeline a record is: the how-many-th record under
  /// its parent on its op. One pass instance run on several ops has one
  /// slot; canonicalize twice in a pipeline has two (as --mlir-timing
  /// keeps the two apart).
  std::vector<int> slot;

  explicit TreeBuilder(const Value &passes) : passes(passes) {
    kids.resize(passes.size());
    slot.resize(passes.size());
    std::map<std::string, int> seen;
    for (size_t i = 0; i < passes.size(); ++i) {
      const Value &p = passes[i];
      std::string key = llvm::formatv("{0}/{1}@{2}", num0(p, "parent"),
                                      str(p, "op"), str(p, "op_symbol"));
      slot[i] = seen[key]++;
    }
  }

  /// One node for the records `recs` (the same pass on several ops, or one
  /// record): figures summed, children merged by label.
  Value node(const std::vector<int> &recs) {
    const Value &first = passes[recs.front()];
    Value n = Value::object();
    n["label"] = first["label"];
    n["op"] = first["op"];
    n["count"] = recs.size();
    n["adaptor"] = first["adaptor"];
    double wall = 0, cpu = 0;
    std::optional<double> rss, heapAfter, heapPeak;
    // IR after: the last figure per op (a pass on 3 functions: their sum).
    std::map<std::string, std::pair<double, double>> irPerOp;
    bool anyFailed = false;
    for (int r : recs) {
      const Value &p = passes[r];
      wall += num0(p, "wall_s");
      cpu += num0(p, "cpu_s");
      if (auto v = num(p, "rss_after_bytes"))
        rss = std::max(rss.value_or(0), *v);
      if (auto v = num(p, "heap_after_bytes"))
        heapAfter = *v;
      if (auto v = num(p, "heap_peak_bytes"))
        heapPeak = std::max(heapPeak.value_or(0), *v);
      if (auto b = num(p, "ir_bytes"))
        irPerOp[str(p, "op") + "@" + str(p, "op_symbol")] = {
            *b, num0(p, "ir_lines")};
      anyFailed |= p.value("failed", false);
    }
    n["wall_s"] = wall;
    n["cpu_s"] = cpu;
    n["rss_after_bytes"] = orNull(rss);
    n["heap_after_bytes"] = orNull(heapAfter);
    n["heap_peak_bytes"] = orNull(heapPeak);
    if (!irPerOp.empty()) {
      double b = 0, l = 0;
      for (auto &[k, v] : irPerOp) {
        b += v.first;
        l += v.second;
      }
      n["ir_bytes"] = b;
      n["ir_lines"] = l;
      n["ir_ops"] = irPerOp.size();
    } else {
      n["ir_bytes"] = nullptr;
      n["ir_lines"] = nullptr;
    }
    if (anyFailed)
      n["failed"] = true;
    std::vector<int> children;
    for (int r : recs)
      llvm::append_range(children, kids[r]);
    n["children"] = merge(children);
    return n;
  }

  /// Siblings grouped by pass (slot and label), in the order each first
  /// ran.
  Value merge(const std::vector<int> &recs) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<int>> groups;
    for (int r : recs) {
      std::string label =
          llvm::formatv("{0}#{1}", str(passes[r], "label"), slot[r]).str();
      auto [it, inserted] = groups.try_emplace(label);
      if (inserted)
        order.push_back(label);
      it->second.push_back(r);
    }
    Value out = Value::array();
    for (const std::string &l : order)
      out.push_back(node(groups[l]));
    return out;
  }
};

//===----------------------------------------------------------------------===//
// The timeline
//===----------------------------------------------------------------------===//

struct Point {
  double t = 0, y = 0;
  std::string label; ///< the stage / pass at that time, for hovers
};

/// At most `max` of the points, each the highest of its slice (so the peak
/// is always kept).
void reduce(std::vector<Point> &pts, size_t max) {
  if (max < 2 || pts.size() <= max)
    return;
  std::vector<Point> out;
  double per = double(pts.size()) / double(max);
  for (size_t b = 0; b < max; ++b) {
    size_t lo = size_t(b * per), hi = std::min(pts.size(), size_t((b + 1) * per));
    if (lo >= hi)
      continue;
    auto best = std::max_element(pts.begin() + lo, pts.begin() + hi,
                                 [](auto &a, auto &b) { return a.y < b.y; });
    out.push_back(std::move(*best));
  }
  pts = std::move(out);
}

Value series(const std::vector<Point> &pts) {
  Value t = Value::array(), y = Value::array(), l = Value::array();
  for (const Point &p : pts) {
    t.push_back(p.t);
    y.push_back(p.y);
    l.push_back(p.label);
  }
  Value s = Value::object();
  s["t"] = std::move(t);
  s["y"] = std::move(y);
  s["label"] = std::move(l);
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

llvm::Expected<Value> q2::profiling::view::loadReportDocument(StringRef path) {
  // The one reader decides what is a valid report (and upgrades a /2
  // report's parameters); the document keeps keys it does not know.
  auto r = readReport(path);
  if (!r)
    return r.takeError();
  auto doc = json::readFile(path);
  if (!doc)
    return doc.takeError();
  (*doc)["schema"] = r->schema;
  if (r->parameters)
    (*doc)["parameters"] = json::toValue(*r->parameters);
  return doc;
}

Value q2::profiling::view::documentOf(const ProfileReport &report) {
  return json::toValue(report);
}

std::optional<TopMetric> q2::profiling::view::parseTopMetric(StringRef s) {
  if (s == "time" || s == "wall")
    return TopMetric::Wall;
  if (s == "heap" || s == "heap-peak")
    return TopMetric::HeapPeak;
  if (s == "ir" || s == "ir-growth")
    return TopMetric::IRGrowth;
  return std::nullopt;
}

StringRef q2::profiling::view::toString(TopMetric m) {
  switch (m) {
  case TopMetric::Wall:
    return "time";
  case TopMetric::HeapPeak:
    return "heap";
  case TopMetric::IRGrowth:
    return "ir";
  }
  return "time";
}

//===----------------------------------------------------------------------===//
// The view model
//===----------------------------------------------------------------------===//

Value q2::profiling::view::buildView(const Value &report, StringRef label,
                                     const ViewOptions &options) {
  static const Value kNone;
  const Value *pb = get(report, "phase_b");
  const Value &phaseB = pb ? *pb : kNone;
  const Value &stagesIn = arr(phaseB, "stages");
  const Value &passesIn = arr(phaseB, "passes");
  Value v = Value::object();
  v["schema"] = kViewSchema;
  v["label"] = label.str();

  // Header: what, when, where.
  Value h = Value::object();
  h["tool"] = str(report, "tool");
  h["input"] = str(report, "input");
  h["report_schema"] = str(report, "schema");
  if (std::string e = str(report, "error"); !e.empty())
    h["error"] = e;
  if (const Value *p = get(report, "parameters")) {
    h["parameters"] = *p;
    h["program"] = programSummary(*p);
  }
  Value opts = Value::object();
  if (const Value *o = get(report, "options"))
    opts = *o;
  std::string pipeline;
  if (opts.contains("pipeline") && opts["pipeline"].is_string()) {
    pipeline = opts["pipeline"].get<std::string>();
    opts.erase("pipeline");
  } else {
    // q2-opt: its stages are the pipeline.
    std::vector<std::string> names;
    for (const Value &s : stagesIn)
      if (str(s, "kind") == "compile")
        names.push_back(str(s, "name"));
    pipeline = llvm::join(names, ",");
  }
  h["pipeline"] = pipeline;
  h["options"] = opts;
  std::optional<double> when;
  for (const Value &s : arr(phaseB, "snapshots"))
    if (auto t = num(s, "unix_time_s"); t && *t > 0)
      when = std::min(when.value_or(*t), *t);
  for (const Value &s : stagesIn)
    if (const Value *b = get(s, "begin"))
      if (auto t = num(*b, "unix_time_s"); t && *t > 0)
        when = std::min(when.value_or(*t), *t);
  if (when) {
    h["unix_time_s"] = *when;
    h["when"] = isoTime(*when);
  }
  for (const char *k : {"host", "q2_build_id"})
    if (std::string s = str(report, k); !s.empty())
      h[k] = s;
  v["header"] = std::move(h);

  // Stages.
  Value stages = Value::array();
  std::optional<double> prevIR;
  for (const Value &s : stagesIn) {
    Value o = Value::object();
    o["name"] = str(s, "name");
    o["kind"] = str(s, "kind");
    o["wall_s"] = num0(s, "wall_s");
    o["cpu_s"] = num0(s, "cpu_s");
    copyNumbers(o, s, {"rss_after_bytes", "peak_rss_bytes",
                       "heap_after_bytes", "heap_peak_bytes"});
    o["peak_source"] = str(s, "peak_source");
    if (const Value *e = get(s, "heap_exact"); e && e->is_boolean())
      o["heap_exact"] = *e;
    const Value *b = get(s, "begin");
    const Value *e = get(s, "end");
    o["t0"] = b ? num0(*b, "elapsed_s") : 0.0;
    o["t1"] = e ? num0(*e, "elapsed_s") : 0.0;
    o["first_pass"] = num0(s, "first_pass");
    o["end_pass"] = num0(s, "end_pass");
    if (const Value *ir = get(s, "ir")) {
      o["ir_kind"] = str(*ir, "kind");
      o["ir_bytes"] = num0(*ir, "bytes");
      // An object's '\n' count is no line count.
      o["ir_lines"] = str(*ir, "kind") == "object" ? Value() : Value(num0(*ir, "lines"));
      o["ir_ops"] = orNull(num(*ir, "ops"));
      double bytes = num0(*ir, "bytes");
      o["ampl"] = prevIR && *prevIR > 0 ? Value(bytes / *prevIR) : Value();
      prevIR = bytes;
    } else {
      o["ir_bytes"] = nullptr;
      o["ir_lines"] = nullptr;
      o["ampl"] = nullptr;
    }
    stages.push_back(std::move(o));
  }

  // Passes, flat, with the IR growth of each (IR after minus the last
  // figure of the same op; the module's starts from the Input stage's).
  Value passes = Value::array();
  std::map<std::string, double> lastIR;
  size_t stageCursor = 0;
  for (size_t i = 0; i < passesIn.size(); ++i) {
    const Value &p = passesIn[i];
    // Stage ends update the module's last size.
    while (stageCursor < stages.size() &&
           num0(stages[stageCursor], "end_pass") <= double(i)) {
      const Value &st = stages[stageCursor++];
      if (str(st, "ir_kind") == "mlir")
        lastIR["builtin.module@"] = num0(st, "ir_bytes");
    }
    Value o = Value::object();
    o["i"] = i;
    o["parent"] = num(p, "parent").value_or(-1);
    o["depth"] = num0(p, "depth");
    std::string arg = str(p, "argument");
    o["label"] = arg.empty() ? str(p, "name") : arg;
    o["name"] = str(p, "name");
    o["op"] = str(p, "op");
    o["op_symbol"] = str(p, "op_symbol");
    o["stage"] = str(p, "stage");
    o["adaptor"] = p.value("adaptor", false);
    o["failed"] = p.value("failed", false);
    o["t0"] = num0(p, "start_s");
    o["t1"] = num0(p, "end_s");
    o["wall_s"] = num0(p, "wall_s");
    o["self_wall_s"] = num0(p, "self_wall_s");
    o["cpu_s"] = num0(p, "cpu_s");
    copyNumbers(o, p, {"rss_after_bytes", "rss_delta_bytes"});
    // A pass's heap figures only when counted at every allocation: glibc's
    // readings at its boundaries cannot say which pass held the memory.
    if (heapCountedExactly(p))
      copyNumbers(o, p, {"heap_after_bytes", "heap_peak_bytes",
                         "heap_allocated_bytes", "heap_alloc_count"});
    o["ir_growth_bytes"] = nullptr;
    if (const Value *ir = get(p, "ir_after")) {
      double bytes = num0(*ir, "bytes");
      o["ir_bytes"] = bytes;
      o["ir_lines"] = num0(*ir, "lines");
      std::string key = str(p, "op") + "@" + str(p, "op_symbol");
      if (auto it = lastIR.find(key); it != lastIR.end())
        o["ir_growth_bytes"] = bytes - it->second;
      lastIR[key] = bytes;
    } else {
      o["ir_bytes"] = nullptr;
      o["ir_lines"] = nullptr;
    }
    passes.push_back(std::move(o));
  }

  // A stage name that occurs twice (convert-vector-to-llvm at two places of
  // sparsifier) is told apart by its occurrence, as compare does: "#2".
  {
    std::map<std::string, int> seen;
    for (Value &st : stages) {
      int n = ++seen[str(st, "name")];
      std::string shown = n == 1 ? str(st, "name")
                                 : str(st, "name") + "#" + std::to_string(n);
      size_t first = size_t(num0(st, "first_pass")),
             end = std::min(passes.size(), size_t(num0(st, "end_pass")));
      for (size_t i = first; i < end; ++i)
        passes[i]["stage"] = shown;
      if (n > 1)
        st["occurrence"] = n;
    }
  }

  // The tree: one root per stage, its passes below, merged by label.
  TreeBuilder tb(passes);
  for (size_t i = 0; i < passes.size(); ++i) {
    double parent = num0(passes[i], "parent");
    if (parent >= 0 && parent < double(passes.size()))
      tb.kids[size_t(parent)].push_back(int(i));
  }
  Value tree = Value::array();
  double treeTotal = 0;
  for (const Value &st : stages) {
    size_t first = size_t(num0(st, "first_pass")),
           end = std::min(passes.size(), size_t(num0(st, "end_pass")));
    std::vector<int> roots;
    for (size_t i = first; i < end; ++i) {
      double parent = num0(passes[i], "parent");
      if (parent < double(first) || parent >= double(end))
        roots.push_back(int(i));
    }
    Value n = Value::object();
    n["label"] = st["name"];
    n["stage"] = true;
    n["kind"] = st["kind"];
    n["count"] = 1;
    n["wall_s"] = st["wall_s"];
    n["cpu_s"] = st["cpu_s"];
    n["rss_after_bytes"] = st["rss_after_bytes"];
    n["heap_after_bytes"] = st["heap_after_bytes"];
    n["heap_peak_bytes"] = st["heap_peak_bytes"];
    n["ir_bytes"] = st["ir_bytes"];
    n["ir_lines"] = st["ir_lines"];
    Value kids = tb.merge(roots);
    // A stage that is one pipeline element (q2-profile's): its children are
    // the element's.
    if (kids.size() == 1 && kids[0]["count"] == 1) {
      Value only = kids[0];
      kids = only["children"];
      if (only.value("failed", false))
        n["failed"] = true;
    }
    n["children"] = std::move(kids);
    treeTotal += num0(st, "wall_s");
    tree.push_back(std::move(n));
  }
  v["tree"] = std::move(tree);

  // Totals and peaks.
  Value t = Value::object();
  double compileS = 0, compileCPU = 0, allWall = 0;
  std::optional<double> peak;
  std::string peakStage;
  for (const Value &st : stages) {
    allWall += num0(st, "wall_s");
    if (str(st, "kind") != "compile")
      continue;
    compileS += num0(st, "wall_s");
    compileCPU += num0(st, "cpu_s");
    if (auto p = num(st, "peak_rss_bytes"); p && (!peak || *p > *peak)) {
      peak = *p;
      peakStage = str(st, "name");
    }
  }
  t["compile_s"] = num(report, "compile_s").value_or(compileS);
  t["compile_cpu_s"] = compileCPU;
  t["wall_s"] = allWall;
  t["tree_wall_s"] = treeTotal;
  t["peak_rss_bytes"] = orNull(peak);
  t["peak_rss_stage"] = peakStage;
  // The pass that holds the peak: the timeline's attribution, else the pass
  // of that stage with the highest RSS after it.
  std::string peakPass;
  std::optional<double> peakT;
  if (const Value *tl = get(phaseB, "timeline"))
    if (const Value *pk = get(*tl, "peak")) {
      peakPass = str(*pk, "pass");
      if (peakPass.empty())
        peakPass = str(*pk, "last_pass");
      peakT = num(*pk, "t_s");
      if (auto r = num(*pk, "rss_bytes"); r && (!peak || *r >= *peak)) {
        t["sampled_peak_rss_bytes"] = *r;
      }
    }
  if (peakPass.empty() && !peakStage.empty()) {
    std::optional<double> best;
    for (const Value &p : passes)
      if (str(p, "stage") == peakStage && !p.value("adaptor", false))
        if (auto r = num(p, "rss_after_bytes"); r && (!best || *r > *best)) {
          best = *r;
          peakPass = str(p, "label");
          peakT = num(p, "t1");
        }
  }
  t["peak_rss_pass"] = peakPass;
  t["peak_rss_t"] = orNull(peakT);
  t["lifetime_peak_rss_bytes"] = orNull(num(report, "lifetime_peak_rss_bytes"));
  t["profiler_overhead_s"] = orNull(num(phaseB, "profiler_overhead_s"));
  // Heap: the exact peak when the report has one, else the highest live
  // heap at a stage end (mallinfo2).
  bool passHeap = false;
  for (const Value &p : passes)
    passHeap |= get(p, "heap_peak_bytes") != nullptr;
  t["has_pass_heap"] = passHeap;
  if (auto hp = num(report, "heap_peak_bytes")) {
    t["heap_peak_bytes"] = *hp;
    t["heap_peak_pass"] = str(report, "heap_peak_pass");
    t["heap_peak_stage"] = str(report, "heap_peak_stage");
    // Not exact without the interposer (mallinfo2 at pass boundaries).
    t["heap_peak_source"] = heapCountedExactly(report) ? "exact" : "boundaries";
  } else {
    std::optional<double> best;
    std::string where;
    for (const Value &st : stages) {
      auto hp = num(st, "heap_peak_bytes");
      auto ha = num(st, "heap_after_bytes");
      if (auto x = hp ? hp : ha; x && (!best || *x > *best)) {
        best = *x;
        where = str(st, "name");
      }
    }
    t["heap_peak_bytes"] = orNull(best);
    t["heap_peak_stage"] = where;
    t["heap_peak_pass"] = "";
    t["heap_peak_source"] = best ? "stage_end" : "";
  }
  size_t nPasses = 0;
  for (const Value &p : passes)
    nPasses += !p.value("adaptor", false);
  t["passes"] = nPasses;
  t["stages"] = stages.size();
  v["totals"] = std::move(t);

  // The memory timeline: the sampler's, else RSS at pass and stage
  // boundaries; heap where the report has it.
  std::vector<Point> rss, heap;
  std::string source;
  if (const Value *tl = get(phaseB, "timeline"); tl && !arr(*tl, "samples").empty()) {
    for (const Value &s : arr(*tl, "samples")) {
      std::string where = str(s, "pass");
      if (where.empty())
        where = str(s, "last_pass");
      std::string stage = str(s, "stage");
      rss.push_back({num0(s, "t_s"), num0(s, "rss_bytes"),
                     where.empty() ? stage : stage + " / " + where});
    }
    source = llvm::formatv("sampled every {0} ms",
                           int64_t(num0(*tl, "interval_ms")))
                 .str();
  } else {
    source = "at pass and stage boundaries";
    for (const Value &p : passesIn) {
      if (p.value("adaptor", false))
        continue;
      std::string arg = str(p, "argument");
      std::string l = str(p, "stage") + " / " + (arg.empty() ? str(p, "name") : arg);
      if (auto b = num(p, "rss_before_bytes"))
        rss.push_back({num0(p, "start_s"), *b, l});
      if (auto a = num(p, "rss_after_bytes"))
        rss.push_back({num0(p, "end_s"), *a, l});
    }
    for (const Value &s : stagesIn)
      for (const char *k : {"begin", "end"})
        if (const Value *snap = get(s, k))
          if (const Value *st = get(*snap, "status"))
            rss.push_back({num0(*snap, "elapsed_s"), num0(*st, "vm_rss_bytes"),
                           str(s, "name") + " (" + k + ")"});
  }
  for (const Value &p : passes)
    if (auto a = num(p, "heap_after_bytes"))
      heap.push_back({num0(p, "t1"), *a, str(p, "stage") + " / " + str(p, "label")});
  if (heap.empty())
    for (const Value &s : stagesIn)
      for (const char *k : {"begin", "end"})
        if (const Value *snap = get(s, k))
          if (const Value *hp = get(*snap, "heap"))
            heap.push_back({num0(*snap, "elapsed_s"),
                            num0(*hp, "heap_in_use_bytes"),
                            str(s, "name") + " (" + k + ")"});
  auto byTime = [](const Point &a, const Point &b) { return a.t < b.t; };
  std::stable_sort(rss.begin(), rss.end(), byTime);
  std::stable_sort(heap.begin(), heap.end(), byTime);
  size_t fullPoints = rss.size();
  reduce(rss, options.maxTimelinePoints);
  reduce(heap, options.maxTimelinePoints);
  Value tl = Value::object();
  tl["source"] = source;
  tl["points"] = fullPoints;
  tl["rss"] = series(rss);
  tl["heap"] = series(heap);
  tl["heap_source"] = passHeap ? "after each pass (exact)" : "at stage boundaries (mallinfo2)";
  if (!rss.empty()) {
    auto pk = std::max_element(rss.begin(), rss.end(),
                               [](auto &a, auto &b) { return a.y < b.y; });
    Value p = Value::object();
    p["t"] = pk->t;
    p["rss_bytes"] = pk->y;
    p["label"] = pk->label;
    tl["peak"] = std::move(p);
  }
  v["timeline"] = std::move(tl);
  v["stages"] = std::move(stages);
  v["passes"] = std::move(passes);
  return v;
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

namespace {

/// Code points, which is what a terminal shows for our names and marks.
size_t columns(StringRef s) {
  size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80;
  return n;
}

/// `s` in at most `w` columns: the middle replaced by "…".
std::string fit(StringRef s, size_t w) {
  if (columns(s) <= w || w < 3)
    return s.str();
  // ASCII names (pass names are) are cut on bytes.
  size_t keep = w - 1, head = (keep + 1) / 2, tail = keep - head;
  return (s.take_front(head) + "…" + s.take_back(tail)).str();
}

std::string pad(StringRef s, size_t w, bool left) {
  size_t c = columns(s);
  std::string sp(c < w ? w - c : 0, ' ');
  return left ? s.str() + sp : sp + s.str();
}

/// A number right-aligned in `w` columns, at least one of them a space,
/// with up to `prec` decimals (fewer when large); "—" when absent.
std::string cell(std::optional<double> v, size_t w, int prec) {
  if (!v || !std::isfinite(*v))
    return pad("—", w, false);
  char buf[64];
  for (int p = prec; p >= 0; --p) {
    snprintf(buf, sizeof buf, "%.*f", p, *v);
    if (strlen(buf) < w)
      return pad(buf, w, false);
  }
  snprintf(buf, sizeof buf, "%.2g", *v);
  return pad(buf, w, false);
}
std::optional<double> scaled(const Value &v, const char *key, double unit) {
  auto x = num(v, key);
  if (x)
    *x /= unit;
  return x;
}

constexpr size_t kNum = 7; // one numeric column, with its leading space

/// Word-wrapped "key: text" with a hanging indent.
void wrap(llvm::raw_ostream &os, StringRef key, StringRef text, unsigned width,
          unsigned maxLines = 4) {
  std::string line = (key + ": ").str();
  size_t indent = line.size();
  unsigned lines = 0;
  llvm::SmallVector<StringRef> words;
  text.split(words, ' ', -1, false);
  for (size_t i = 0; i < words.size(); ++i) {
    StringRef w = words[i];
    if (columns(line) + w.size() + 1 > width && columns(line) > indent) {
      if (++lines == maxLines) {
        os << line << "… (" << (words.size() - i) << " more)\n";
        return;
      }
      os << line << "\n";
      line = std::string(indent, ' ');
    }
    if (columns(line) > indent)
      line += " ";
    // A word longer than the line (a pipeline without spaces) is cut at
    // commas.
    while (columns(line) + w.size() > width && w.size() > 20) {
      size_t room = width > columns(line) ? width - columns(line) : 0;
      size_t cut = w.take_front(room).rfind(',');
      if (cut == StringRef::npos || cut == 0)
        break;
      line += w.take_front(cut + 1).str();
      os << line << "\n";
      if (++lines == maxLines) {
        os << std::string(indent, ' ') << "…\n";
        return;
      }
      line = std::string(indent, ' ');
      w = w.drop_front(cut + 1);
    }
    line += w.str();
  }
  os << line << "\n";
}

std::string optionsText(const Value &opts) {
  std::vector<std::string> parts;
  for (auto it = opts.begin(); it != opts.end(); ++it) {
    std::string v = it->is_string() ? it->get<std::string>() : it->dump();
    parts.push_back(it.key() + "=" + v);
  }
  return llvm::join(parts, " ");
}

std::string mb(std::optional<double> bytes, int prec = 1) {
  if (!bytes)
    return "—";
  return llvm::formatv("{0} MB", llvm::format("%.*f", prec, *bytes / 1e6)).str();
}

void formatHeader(llvm::raw_ostream &os, const Value &v, unsigned width) {
  const Value &h = v["header"];
  const Value &t = v["totals"];
  std::string title = "Profile";
  if (std::string in = str(h, "input"); !in.empty())
    title += " of " + in;
  title += " by " + str(h, "tool");
  os << fit(title, width) << "\n";
  std::string when = str(h, "when");
  if (std::string host = str(h, "host"); !host.empty())
    when += (when.empty() ? "on " : ", on ") + host;
  if (when.empty())
    wrap(os, "report", str(h, "report_schema"), width);
  else
    wrap(os, "when", when + " (" + str(h, "report_schema") + ")", width);
  if (std::string p = str(h, "program"); !p.empty())
    wrap(os, "program", p, width);
  wrap(os, "pipeline", str(h, "pipeline"), width, 3);
  if (const Value *o = get(h, "options"); o && !o->empty())
    wrap(os, "options", optionsText(*o), width, 3);
  if (std::string e = str(h, "error"); !e.empty())
    wrap(os, "error", e, width);
  std::string time = llvm::formatv("compile {0} s wall, {1} s CPU",
                                   llvm::format("%.3f", num0(t, "compile_s")),
                                   llvm::format("%.3f", num0(t, "compile_cpu_s")))
                         .str();
  if (auto po = num(t, "profiler_overhead_s"))
    time += llvm::formatv("; profiler {0} s (not in the pass times)",
                          llvm::format("%.3f", *po))
                .str();
  wrap(os, "time", time, width);
  std::string memory = "peak RSS " + mb(num(t, "peak_rss_bytes"));
  if (std::string s = str(t, "peak_rss_stage"); !s.empty()) {
    memory += " in " + s;
    if (std::string p = str(t, "peak_rss_pass"); !p.empty() && p != s)
      memory += " (" + p + ")";
  }
  memory += "; heap peak " + mb(num(t, "heap_peak_bytes"));
  std::string hs = str(t, "heap_peak_pass");
  if (hs.empty())
    hs = str(t, "heap_peak_stage");
  if (!hs.empty())
    memory += " in " + hs;
  if (str(t, "heap_peak_source") == "stage_end")
    memory += " (live at a stage end)";
  else if (str(t, "heap_peak_source") == "boundaries")
    memory += " (not exact: mallinfo2 at pass boundaries)";
  if (auto lp = num(t, "lifetime_peak_rss_bytes"))
    memory += "; lifetime peak RSS " + mb(lp);
  wrap(os, "memory", memory, width);
}

void formatStages(llvm::raw_ostream &os, const Value &v, unsigned width) {
  // Numbers first, the name last (names of pipeline elements are long).
  constexpr size_t w = 7;
  os << pad("Wall s", w, false) << pad("CPU s", w, false)
     << pad("RSS MB", w, false) << pad("Peak MB", w + 1, false)
     << pad("Heap MB", w + 1, false) << pad("HeapPk", w, false)
     << pad("IR kB", w + 1, false) << pad("Lines", w, false)
     << pad("Ampl.", w, false) << "  Stage\n";
  size_t used = 9 * w + 3 + 2;
  bool sampled = false;
  for (const Value &s : v["stages"]) {
    os << cell(num(s, "wall_s"), w, 3) << cell(num(s, "cpu_s"), w, 3)
       << cell(scaled(s, "rss_after_bytes", 1e6), w, 1)
       << cell(scaled(s, "peak_rss_bytes", 1e6), w, 1);
    bool smp = str(s, "peak_source") != "kernel_hwm" && get(s, "peak_rss_bytes");
    sampled |= smp;
    os << (smp ? "*" : " ");
    os << cell(scaled(s, "heap_after_bytes", 1e6), w + 1, 1)
       << cell(scaled(s, "heap_peak_bytes", 1e6), w, 1)
       << cell(scaled(s, "ir_bytes", 1e3), w + 1, 1)
       << cell(num(s, "ir_lines"), w, 0);
    if (auto a = num(s, "ampl"))
      os << pad(llvm::formatv("{0}x", llvm::format("%.2f", *a)).str(), w, false);
    else
      os << pad("—", w, false);
    os << "  " << fit(str(s, "name"), width > used + 10 ? width - used : 10)
       << "\n";
  }
  if (sampled)
    os << "  * sampled peak (the kernel's VmHWM reset was refused)\n";
}

/// Fold: the `fold` largest children by wall (shown in run order), the rest
/// summed.
struct Folded {
  std::vector<const Value *> shown;
  size_t rest = 0;
  double restWall = 0, restCPU = 0;
};
Folded foldChildren(const Value &kids, size_t fold) {
  Folded f;
  std::vector<const Value *> all;
  for (const Value &k : kids)
    all.push_back(&k);
  if (fold == 0 || all.size() <= fold + 1) {
    f.shown = all;
    return f;
  }
  std::vector<size_t> idx(all.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    return num0(*all[a], "wall_s") > num0(*all[b], "wall_s");
  });
  std::vector<bool> keep(all.size());
  for (size_t i = 0; i < fold; ++i)
    keep[idx[i]] = true;
  for (size_t i = 0; i < all.size(); ++i) {
    if (keep[i]) {
      f.shown.push_back(all[i]);
    } else {
      ++f.rest;
      f.restWall += num0(*all[i], "wall_s");
      f.restCPU += num0(*all[i], "cpu_s");
    }
  }
  return f;
}

void treeHeader(llvm::raw_ostream &os) {
  os << pad("Wall", kNum, false) << pad("Wall", kNum, false)
     << pad("CPU", kNum, false) << pad("RSS", kNum, false)
     << pad("Heap", kNum, false) << pad("Heap", kNum, false)
     << pad("IR", kNum, false) << pad("IR", kNum, false) << "\n";
  os << pad("ms", kNum, false) << pad("%", kNum, false)
     << pad("ms", kNum, false) << pad("MB", kNum, false)
     << pad("MB", kNum, false) << pad("pk MB", kNum, false)
     << pad("kB", kNum, false) << pad("lines", kNum, false) << "  Name\n";
}

void treeRow(llvm::raw_ostream &os, const Value &n, double total,
             unsigned depth, unsigned width) {
  double wall = num0(n, "wall_s");
  os << cell(wall * 1e3, kNum, 2)
     << cell(total > 0 ? std::optional<double>(100 * wall / total) : std::nullopt,
             kNum - 1, 1)
     << (total > 0 ? "%" : " ") << cell(num0(n, "cpu_s") * 1e3, kNum, 2)
     << cell(scaled(n, "rss_after_bytes", 1e6), kNum, 1)
     << cell(scaled(n, "heap_after_bytes", 1e6), kNum, 1)
     << cell(scaled(n, "heap_peak_bytes", 1e6), kNum, 1)
     << cell(scaled(n, "ir_bytes", 1e3), kNum, 1)
     << cell(num(n, "ir_lines"), kNum, 0) << "  ";
  // "x4": the pass ran on 4 ops (of the kind its parent anchors on).
  std::string suffix;
  if (double c = num0(n, "count"); c > 1)
    suffix = llvm::formatv(" x{0}", int64_t(c)).str();
  if (n.value("failed", false))
    suffix += "  FAILED";
  size_t used = 8 * kNum + 2 + 2 * depth + columns(suffix);
  os << std::string(2 * depth, ' ')
     << fit(str(n, "label"), width > used + 12 ? width - used : 12) << suffix
     << "\n";
}

void treeRows(llvm::raw_ostream &os, const Value &kids, double total,
              unsigned depth, const TextOptions &o) {
  // The stages are the outline of the run: they fold only when many.
  Folded f = foldChildren(kids, depth == 0 && o.fold ? 3 * o.fold : o.fold);
  for (const Value *k : f.shown) {
    treeRow(os, *k, total, depth, o.width);
    if (const Value *c = get(*k, "children"))
      treeRows(os, *c, total, depth + 1, o);
  }
  if (f.rest) {
    Value more = Value::object();
    more["label"] = llvm::formatv("… {0} more", f.rest).str();
    more["wall_s"] = f.restWall;
    more["cpu_s"] = f.restCPU;
    treeRow(os, more, total, depth, o.width);
  }
}

/// Passes merged per (stage, label): the flat and top lists.
struct FlatRow {
  std::string stage, label, op;
  size_t count = 0;
  double wall = 0, cpu = 0, growth = 0;
  bool hasGrowth = false;
  std::optional<double> heapPeak, heapAfter, rss, irBytes;
};
std::vector<FlatRow> flatRows(const Value &v) {
  std::vector<FlatRow> rows;
  std::map<std::pair<std::string, std::string>, size_t> at;
  for (const Value &p : v["passes"]) {
    if (p.value("adaptor", false))
      continue;
    auto key = std::make_pair(str(p, "stage"), str(p, "label"));
    auto [it, inserted] = at.try_emplace(key, rows.size());
    if (inserted) {
      rows.emplace_back();
      rows.back().stage = key.first;
      rows.back().label = key.second;
      rows.back().op = str(p, "op");
    }
    FlatRow &r = rows[it->second];
    ++r.count;
    r.wall += num0(p, "wall_s");
    r.cpu += num0(p, "cpu_s");
    if (auto g = num(p, "ir_growth_bytes")) {
      r.growth += *g;
      r.hasGrowth = true;
    }
    if (auto h = num(p, "heap_peak_bytes"))
      r.heapPeak = std::max(r.heapPeak.value_or(0), *h);
    if (auto h = num(p, "heap_after_bytes"))
      r.heapAfter = *h;
    if (auto x = num(p, "rss_after_bytes"))
      r.rss = std::max(r.rss.value_or(0), *x);
    if (auto x = num(p, "ir_bytes"))
      r.irBytes = *x;
  }
  return rows;
}

void flatList(llvm::raw_ostream &os, const Value &v, const TextOptions &o) {
  std::vector<FlatRow> rows = flatRows(v);
  double total = num0(v["totals"], "tree_wall_s");
  auto metric = [&](const FlatRow &r) -> std::optional<double> {
    switch (o.topBy) {
    case TopMetric::Wall:
      return r.wall;
    case TopMetric::HeapPeak:
      return r.heapPeak;
    case TopMetric::IRGrowth:
      return r.hasGrowth ? std::optional<double>(r.growth) : std::nullopt;
    }
    return r.wall;
  };
  std::vector<size_t> idx;
  for (size_t i = 0; i < rows.size(); ++i)
    if (metric(rows[i]))
      idx.push_back(i);
  if (idx.empty()) {
    os << (o.topBy == TopMetric::HeapPeak
               ? "no per-pass heap peaks in this report (they need exact heap "
                 "counting: q2-opt, or libq2_heap.so preloaded)\n"
               : "no per-pass IR sizes in this report (q2-opt "
                 "--profile-passes, or the q2-profile pass with ir-metrics)\n");
    return;
  }
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    return *metric(rows[a]) > *metric(rows[b]);
  });
  size_t limit = o.top ? o.top : (o.fold ? o.fold : idx.size());
  size_t shown = std::min(limit, idx.size());
  os << pad("Wall", kNum, false) << pad("Wall", kNum, false)
     << pad("CPU", kNum, false) << pad("RSS", kNum, false)
     << pad("Heap", kNum, false) << pad("IR", kNum, false)
     << pad("IR", kNum, false) << "\n"
     << pad("ms", kNum, false) << pad("%", kNum, false)
     << pad("ms", kNum, false) << pad("MB", kNum, false)
     << pad("pk MB", kNum, false) << pad("kB", kNum, false)
     << pad("grow kB", kNum + 1, false) << "  Pass [stage]\n";
  size_t used = 7 * kNum + 3;
  for (size_t k = 0; k < shown; ++k) {
    const FlatRow &r = rows[idx[k]];
    os << cell(r.wall * 1e3, kNum, 2)
       << cell(total > 0 ? std::optional<double>(100 * r.wall / total)
                         : std::nullopt,
               kNum - 1, 1)
       << (total > 0 ? "%" : " ") << cell(r.cpu * 1e3, kNum, 2)
       << cell(r.rss ? std::optional<double>(*r.rss / 1e6) : std::nullopt, kNum, 1)
       << cell(r.heapPeak ? std::optional<double>(*r.heapPeak / 1e6) : std::nullopt,
               kNum, 1)
       << cell(r.irBytes ? std::optional<double>(*r.irBytes / 1e3) : std::nullopt,
               kNum, 1)
       << cell(r.hasGrowth ? std::optional<double>(r.growth / 1e3) : std::nullopt,
               kNum + 1, 1)
       << "  ";
    std::string suffix;
    if (r.count > 1)
      suffix = llvm::formatv(" (x{0} {1})", r.count, r.op).str();
    size_t room = o.width > used + 12 ? o.width - used : 12;
    std::string name = r.label + suffix;
    if (!r.stage.empty() && r.stage != r.label)
      name += " [" + fit(r.stage, 30) + "]";
    if (columns(name) > room)
      name = fit(r.label, room > columns(suffix) + 12 ? room - columns(suffix) : 12) +
             suffix;
    os << name << "\n";
  }
  if (shown < idx.size()) {
    double restWall = 0;
    for (size_t k = shown; k < idx.size(); ++k)
      restWall += rows[idx[k]].wall;
    os << cell(restWall * 1e3, kNum, 2) << "  … "
       << (idx.size() - shown) << " more (--top N, or --fold 0 for all)\n";
  }
}

} // namespace

std::string q2::profiling::view::formatPassTreeTable(const Value &v,
                                                     const TextOptions &o) {
  std::string out;
  llvm::raw_string_ostream os(out);
  const Value &t = v["totals"];
  int64_t runs = int64_t(num0(t, "passes")), stages = int64_t(num0(t, "stages"));
  std::string title =
      llvm::formatv("q2-profile: {0} pass run{1} in {2} stage{3}, {4} s wall",
                    runs, runs == 1 ? "" : "s", stages, stages == 1 ? "" : "s",
                    llvm::format("%.4f", num0(t, "tree_wall_s")))
          .str();
  if (auto po = num(t, "profiler_overhead_s"))
    title += llvm::formatv(" (profiler {0} s)", llvm::format("%.4f", *po)).str();
  std::string peak = "peak RSS " + mb(num(t, "peak_rss_bytes"));
  if (std::string s = str(t, "peak_rss_stage"); !s.empty())
    peak += " in " + s;
  if (columns(title) + 2 + columns(peak) <= o.width)
    os << title << "; " << peak << "\n";
  else
    os << fit(title, o.width) << "\n" << fit("  " + peak, o.width) << "\n";
  treeHeader(os);
  treeRows(os, v["tree"], num0(t, "tree_wall_s"), 0, o);
  return out;
}

std::string q2::profiling::view::formatView(const Value &v,
                                            const TextOptions &o) {
  std::string out;
  llvm::raw_string_ostream os(out);
  if (o.header) {
    formatHeader(os, v, o.width);
    os << "\n";
  }
  if (o.stages && !(o.top && !o.tree)) {
    formatStages(os, v, o.width);
    os << "\n";
  }
  if (!o.tree)
    return out;
  if (o.top || o.flat) {
    if (o.top)
      os << "top " << o.top << " passes by "
         << (o.topBy == TopMetric::Wall       ? "wall time"
             : o.topBy == TopMetric::HeapPeak ? "heap peak"
                                              : "IR growth")
         << " (merged per stage):\n";
    flatList(os, v, o);
    return out;
  }
  treeHeader(os);
  treeRows(os, v["tree"], num0(v["totals"], "tree_wall_s"), 0, o);
  return out;
}
