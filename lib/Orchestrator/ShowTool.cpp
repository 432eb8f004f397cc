//===- ShowTool.cpp - q2-profile show and q2-profile html -----------------===//
//
// Both read their inputs with the project's readers (readReport through
// loadReportDocument, loadResults for sweeps), so they refuse exactly the
// reports compare and merge refuse. The rendering is the profiling
// library's (ReportView.h: text; ReportHTML.h: the page); --png runs
// plot_profile.py (matplotlib) from <bin>/../share/q2/scripts/.
//
//===----------------------------------------------------------------------===//
#include "ShowTool.h"
#include "PlotScript.h"
#include "q2/Orchestrator/Compare.h"
#include "q2/Orchestrator/ProfileTool.h"
#include "q2/Orchestrator/Sweep.h"
#include "q2/Profiling/ReportHTML.h"
#include "q2/Profiling/ReportView.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace q2::orch;
namespace cl = llvm::cl;
namespace view = q2::profiling::view;
namespace html = q2::profiling::html;
using llvm::StringRef;

namespace {

struct ShowCL {
  cl::SubCommand Show{
      "show", "print reports (q2-opt's, the q2-profile pass's, Python's) or "
              "a sweep's summary as tables: what was profiled, the stages, "
              "the pass tree"};
  cl::SubCommand Html{
      "html", "write one self-contained HTML page (plotly.js inline, opens "
              "offline) of reports, two reports compared, or sweeps"};
  cl::OptionCategory ShowCat{"Command: show"};
  cl::OptionCategory HtmlCat{"Command: html"};

  cl::list<std::string> ShowInputs{cl::Positional,
                                   cl::desc("REPORT.json|SWEEP_DIR..."),
                                   cl::sub(Show), cl::cat(ShowCat)};
  cl::opt<unsigned> Top{
      "top",
      cl::desc("Only the top N passes (merged per stage) by --by, instead of "
               "the tree"),
      cl::value_desc("N"), cl::init(0), cl::sub(Show), cl::cat(ShowCat)};
  cl::opt<std::string> By{
      "by",
      cl::desc("What --top and --flat rank by: time (default), heap (peak "
               "during the pass) or ir (IR growth)"),
      cl::value_desc("time|heap|ir"), cl::init("time"), cl::sub(Show),
      cl::cat(ShowCat)};
  cl::opt<bool> Flat{"flat",
                     cl::desc("Passes merged per stage and sorted, instead of "
                              "the tree"),
                     cl::sub(Show), cl::cat(ShowCat)};
  cl::opt<unsigned> Fold{
      "fold",
      cl::desc("Lists longer than N show the N largest and sum the rest "
               "(default 15; 0 shows all)"),
      cl::value_desc("N"), cl::init(15), cl::sub(Show), cl::cat(ShowCat)};
  cl::opt<unsigned> Width{
      "width", cl::desc("Columns (default 100; names are shortened to fit)"),
      cl::value_desc("N"), cl::init(100), cl::sub(Show), cl::cat(ShowCat)};
  cl::opt<bool> Json{
      "json",
      cl::desc("Print the view (schema q2.view/1: header, totals, stages, "
               "passes, tree, timeline) as JSON instead"),
      cl::sub(Show), cl::cat(ShowCat)};
  cl::opt<std::string> Png{
      "png",
      cl::desc("Also draw the report to FILE (plot_profile.py, matplotlib; "
               "one report only)"),
      cl::value_desc("FILE"), cl::sub(Show), cl::cat(ShowCat)};
  cl::opt<std::string> Python{
      "python",
      cl::desc("Interpreter for --png (default /usr/bin/python3, else "
               "python3 on PATH)"),
      cl::value_desc("PATH"), cl::sub(Show), cl::cat(ShowCat)};

  cl::list<std::string> HtmlInputs{cl::Positional,
                                   cl::desc("REPORT.json|SWEEP_DIR..."),
                                   cl::sub(Html), cl::cat(HtmlCat)};
  cl::opt<std::string> Out{"o",
                           cl::desc("The page to write (required)"),
                           cl::value_desc("FILE.html"), cl::sub(Html),
                           cl::cat(HtmlCat)};
  cl::opt<std::string> Title{"title",
                             cl::desc("The page's title (default: from the "
                                      "inputs)"),
                             cl::value_desc("TEXT"), cl::sub(Html),
                             cl::cat(HtmlCat)};
  cl::opt<bool> NoCompare{
      "no-compare",
      cl::desc("Two reports or two sweeps: do not add the compare view "
               "(q2-profile compare A B, docs/compare.md)"),
      cl::sub(Html), cl::cat(HtmlCat)};
  cl::opt<unsigned> MaxPoints{
      "max-timeline-points",
      cl::desc("The memory timeline is drawn from at most N points, each the "
               "highest of its slice (default 2000)"),
      cl::value_desc("N"), cl::init(2000), cl::sub(Html), cl::cat(HtmlCat)};
};

ShowCL &cmd() {
  static ShowCL c;
  return c;
}

int fail(StringRef which, const llvm::Twine &msg) {
  llvm::errs() << "q2-profile: error: " << which << ": " << msg << "\n";
  return 2;
}

bool isSweepDir(StringRef path) {
  llvm::SmallString<256> p(path);
  llvm::sys::path::append(p, "points");
  return llvm::sys::fs::is_directory(p);
}

/// A sweep's points for the page (and --json): one object per point.
q2::json::Value sweepPoints(const std::vector<PointRecord> &results) {
  q2::json::Value pts = q2::json::Value::array();
  for (const PointRecord &p : results) {
    q2::json::Value o = q2::json::Value::object();
    o["key"] = p.key;
    o["molecule"] = p.molecule;
    o["mode"] = p.mode;
    o["n_est"] = p.nEst;
    o["n_trotter"] = p.nTrotter;
    o["x"] = p.x ? q2::json::Value(*p.x) : q2::json::Value();
    o["status"] = p.status;
    o["reason"] = p.reason;
    auto cs = p.compileSeconds();
    o["compile_s"] = cs ? q2::json::Value(*cs) : q2::json::Value();
    o["peak_rss_mb"] = p.peakRssMB;
    q2::json::Value stages = q2::json::Value::object();
    if (p.report)
      for (const auto &s : p.report->phaseB.stages)
        stages[s.name] = s.wallS;
    o["stages"] = std::move(stages);
    pts.push_back(std::move(o));
  }
  return pts;
}

/// A sweep in 100 columns: one row per point (merge's summary has every
/// column and is wider).
std::string sweepTable(llvm::StringRef dir,
                       const std::vector<PointRecord> &results) {
  std::string out;
  llvm::raw_string_ostream os(out);
  size_t ok = 0;
  for (const PointRecord &p : results)
    ok += p.status == "ok";
  os << "sweep " << dir << ": " << results.size() << " points, " << ok
     << " ok, " << (results.size() - ok) << " failed\n";
  os << llvm::format("%-28s %-8s %-11s %8s %10s %10s %10s %8s\n", "Point",
                     "Status", "Reason", "x", "Compile s", "Wall s",
                     "Peak MB", "IR kB");
  for (const PointRecord &p : results) {
    std::string key = p.key.size() > 28 ? p.key.substr(0, 27) + "~" : p.key;
    os << llvm::format("%-28s %-8s %-11s ", key.c_str(), p.status.c_str(),
                       p.reason.c_str());
    auto num = [&](std::optional<double> v, int w, int prec) {
      if (v)
        os << llvm::format("%*.*f", w, prec, *v);
      else
        os << llvm::format("%*s", w, "-");
    };
    num(p.x, 8, 0);
    os << " ";
    num(p.compileSeconds(), 10, 3);
    os << llvm::format(" %10.3f %10.1f ", p.wallS, p.peakRssMB);
    std::optional<double> ir;
    if (p.report)
      for (const auto &st : p.report->phaseB.stages)
        if (st.kind == q2::profiling::StageKind::Compile && st.ir)
          ir = double(st.ir->bytes) / 1e3;
    num(ir, 8, 1);
    os << "\n";
  }
  return out;
}

int plot(StringRef report, const char *argv0) {
  ShowCL &c = cmd();
  std::string top = std::to_string(c.Top ? unsigned(c.Top) : 15u);
  if (llvm::Error e = runPlotScript(argv0, "scripts/plot_profile.py",
                                    {report.str(), "-o", c.Png, "--top", top,
                                     "--by", c.By, "--require"},
                                    c.Python))
    return fail("show", llvm::toString(std::move(e)));
  return 0;
}

} // namespace

cl::SubCommand &q2::orch::showSubCommand() { return cmd().Show; }
cl::SubCommand &q2::orch::htmlSubCommand() { return cmd().Html; }
std::vector<cl::OptionCategory *> q2::orch::showCategories() {
  return {&cmd().ShowCat, &cmd().HtmlCat};
}

int q2::orch::runShowCommand(const char *argv0) {
  ShowCL &c = cmd();
  if (c.ShowInputs.empty())
    return fail("show", "no report given (q2-profile show REPORT.json...)");
  auto by = view::parseTopMetric(c.By);
  if (!by)
    return fail("show", "--by: '" + c.By + "' is not one of time, heap, ir");
  if (c.Width < 60)
    return fail("show", "--width must be at least 60");
  if (!c.Png.empty()) {
    if (c.ShowInputs.size() != 1 || isSweepDir(c.ShowInputs[0]))
      return fail("show", "--png draws one report; give exactly one");
    if (llvm::Error e = q2::checkOutputPath(c.Png, "--png"))
      return fail("show", llvm::toString(std::move(e)));
    if (llvm::Error e = q2::checkDistinctPaths(
            {{c.ShowInputs[0], "report"}}, {{c.Png, "--png"}}))
      return fail("show", llvm::toString(std::move(e)));
  }
  view::TextOptions to;
  to.width = c.Width;
  to.flat = c.Flat;
  to.top = c.Top;
  to.topBy = *by;
  to.fold = c.Fold;
  // Everything is read (and refused) before anything is printed.
  std::vector<std::string> texts;
  q2::json::Value jsonOut = q2::json::Value::array();
  for (const std::string &in : c.ShowInputs) {
    if (isSweepDir(in)) {
      auto results = loadResults({in});
      if (!results)
        return fail("show", llvm::toString(results.takeError()));
      if (c.Json) {
        q2::json::Value s = q2::json::Value::object();
        s["schema"] = "q2.sweep.view/1";
        s["label"] = in;
        s["points"] = sweepPoints(*results);
        jsonOut.push_back(std::move(s));
      } else {
        texts.push_back(sweepTable(in, *results));
      }
      continue;
    }
    auto doc = view::loadReportDocument(in);
    if (!doc)
      return fail("show", llvm::toString(doc.takeError()));
    q2::json::Value v = view::buildView(*doc, in);
    if (c.Json)
      jsonOut.push_back(std::move(v));
    else
      texts.push_back(view::formatView(v, to));
  }
  if (c.Json) {
    auto text = q2::json::dump(jsonOut.size() == 1 ? jsonOut[0] : jsonOut, 1);
    if (!text)
      return fail("show", llvm::toString(text.takeError()));
    llvm::outs() << *text << "\n";
  } else {
    for (size_t i = 0; i < texts.size(); ++i)
      llvm::outs() << (i ? "\n" : "") << texts[i];
  }
  llvm::outs().flush();
  if (!c.Png.empty())
    return plot(c.ShowInputs[0], argv0);
  return 0;
}

int q2::orch::runHtmlCommand(const char *) {
  ShowCL &c = cmd();
  if (c.HtmlInputs.empty())
    return fail("html", "no input given (q2-profile html REPORT.json... -o "
                        "out.html)");
  if (c.Out.empty())
    return fail("html", "-o FILE.html is required");
  if (!html::available())
    return fail("html", "this q2-profile was built without plotly.js (install "
                        "python3-plotly, or set Q2_PLOTLY_JS, and rebuild)");
  std::vector<q2::NamedPath> ins;
  for (const std::string &in : c.HtmlInputs)
    ins.push_back({in, "input"});
  if (llvm::Error e = q2::checkOutputPath(c.Out, "-o"))
    return fail("html", llvm::toString(std::move(e)));
  if (llvm::Error e = q2::checkDistinctPaths(ins, {{c.Out, "-o"}}))
    return fail("html", llvm::toString(std::move(e)));

  html::PageInputs page;
  view::ViewOptions vo;
  vo.maxTimelinePoints = c.MaxPoints;
  std::vector<std::string> reports, sweeps;
  q2::json::Value points = q2::json::Value::array();
  for (const std::string &in : c.HtmlInputs) {
    if (isSweepDir(in)) {
      auto results = loadResults({in});
      if (!results)
        return fail("html", llvm::toString(results.takeError()));
      for (auto &p : sweepPoints(*results)) {
        if (c.HtmlInputs.size() > 1)
          p["key"] = in + ":" + p["key"].get<std::string>();
        points.push_back(std::move(p));
      }
      sweeps.push_back(in);
      continue;
    }
    auto doc = view::loadReportDocument(in);
    if (!doc)
      return fail("html", llvm::toString(doc.takeError()));
    page.views.push_back(view::buildView(*doc, in, vo));
    reports.push_back(in);
  }
  if (!sweeps.empty()) {
    q2::json::Value s = q2::json::Value::object();
    s["dirs"] = sweeps;
    s["points"] = std::move(points);
    page.sweep = std::move(s);
  }
  // Two of a kind: the compare view (the same comparison as q2-profile
  // compare; a refusal there only leaves the view out, with the reason).
  std::vector<std::string> &pair = reports.size() == 2 ? reports : sweeps;
  if (!c.NoCompare && pair.size() == 2 &&
      reports.size() + sweeps.size() == 2) {
    auto r = compareProfiles(pair[0], pair[1], CompareOptions());
    if (r) {
      auto j = q2::json::parse(toJSONText(*r, -1), "compare");
      if (!j)
        return fail("html", llvm::toString(j.takeError()));
      page.compare = std::move(*j);
    } else {
      llvm::errs() << "q2-profile: warning: html: no compare view: "
                   << llvm::toString(r.takeError()) << "\n";
    }
  }
  page.title = c.Title;
  if (page.title.empty()) {
    std::vector<std::string> names;
    for (const std::string &in : c.HtmlInputs)
      names.push_back(llvm::sys::path::filename(in).str());
    page.title = "q2 profile: " + llvm::join(names, ", ");
  }
  if (llvm::Error e = html::writePage(c.Out, page))
    return fail("html", llvm::toString(std::move(e)));
  return 0;
}
