//===- ReportViewTest.cpp - The report's views and its HTML page ----------===//

#include "q2/Profiling/Report.h"
#include "q2/Profiling/ReportFields.h"
#include "q2/Profiling/ReportHTML.h"
#include "q2/Profiling/ReportView.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include "UnitTestUtil.h"

#include <gtest/gtest.h>

using namespace q2::profiling;
namespace json = q2::json;

namespace {

using q2::test::errorText;
using q2::test::TempDir;

/// A q2-profile-like report: Input, a module pass, a func.func element run
/// on two functions (an adaptor with two child records per pass).
ProfileReport treeReport() {
  ProfileReport r;
  r.tool = "q2-profile";
  r.input = "in.mlir";
  r.options["pipeline"] = std::string("canonicalize,func.func(cse,"
                                      "convert-linalg-to-loops)");
  auto stage = [&](const char *name, StageKind kind, double wall,
                   uint64_t first, uint64_t end, uint64_t ir) {
    StageRecord s;
    s.name = name;
    s.kind = kind;
    s.wallS = s.cpuS = wall;
    s.firstPass = first;
    s.endPass = end;
    s.peakRSS = 100000000 + ir;
    s.peakSource = "kernel_hwm";
    s.end.status.vmRSS = 90000000;
    s.ir = IRMetrics{"mlir", ir, ir / 40, ir / 50, {}};
    r.phaseB.stages.push_back(s);
  };
  stage("Input", StageKind::Input, 0.001, 0, 0, 1000);
  stage("canonicalize", StageKind::Compile, 0.010, 0, 1, 900);
  stage("func.func(cse,convert-linalg-to-loops)", StageKind::Compile, 0.030,
        1, 6, 2500);
  auto pass = [&](const char *arg, int64_t parent, unsigned depth,
                  const char *op, const char *sym, double wall, bool adaptor,
                  std::optional<uint64_t> ir) {
    PassRecord p;
    p.index = int64_t(r.phaseB.passes.size());
    p.parent = parent;
    p.depth = depth;
    p.argument = arg;
    p.name = adaptor ? "'func.func' Pipeline" : arg;
    p.opName = op;
    p.opSymbol = sym;
    p.isAdaptor = adaptor;
    p.finished = true;
    p.wallS = p.cpuS = wall;
    p.rssAfter = 95000000;
    if (ir)
      p.irAfter = IRMetrics{"mlir", *ir, *ir / 40, 1, {}};
    p.stage = r.phaseB.passes.empty() ? "canonicalize"
                                      : "func.func(cse,convert-linalg-to-loops)";
    r.phaseB.passes.push_back(p);
  };
  pass("canonicalize", -1, 0, "builtin.module", "", 0.009, false, 900);
  pass("", -1, 0, "builtin.module", "", 0.029, true, std::nullopt);
  pass("cse", 1, 1, "func.func", "f", 0.004, false, 400);
  pass("convert-linalg-to-loops", 1, 1, "func.func", "f", 0.010, false, 800);
  pass("cse", 1, 1, "func.func", "g", 0.005, false, 400);
  pass("convert-linalg-to-loops", 1, 1, "func.func", "g", 0.009, false, 1200);
  return r;
}

TEST(ReportView, TreeNestsAsMLIRAndMergesOps) {
  json::Value v = view::buildView(json::toValue(treeReport()), "r.json");
  EXPECT_EQ(v["schema"], "q2.view/1");
  const json::Value &tree = v["tree"];
  ASSERT_EQ(tree.size(), 3u);
  EXPECT_EQ(tree[0]["label"], "Input");
  // A stage of one module pass: no child repeating it.
  EXPECT_EQ(tree[1]["label"], "canonicalize");
  EXPECT_TRUE(tree[1]["children"].empty());
  // The func.func element: its passes, each once with both functions.
  const json::Value &kids = tree[2]["children"];
  ASSERT_EQ(kids.size(), 2u);
  EXPECT_EQ(kids[0]["label"], "cse");
  EXPECT_EQ(kids[0]["count"], 2);
  EXPECT_DOUBLE_EQ(kids[0]["wall_s"].get<double>(), 0.009);
  EXPECT_EQ(kids[1]["label"], "convert-linalg-to-loops");
  // IR after: the last figure of each function, summed.
  EXPECT_DOUBLE_EQ(kids[1]["ir_bytes"].get<double>(), 2000);
  // IR growth: against the same function's previous figure.
  EXPECT_DOUBLE_EQ(v["passes"][3]["ir_growth_bytes"].get<double>(), 400);
  EXPECT_DOUBLE_EQ(v["passes"][5]["ir_growth_bytes"].get<double>(), 800);
  EXPECT_TRUE(v["passes"][2]["ir_growth_bytes"].is_null()); // first of f
  EXPECT_EQ(v["header"]["pipeline"],
            "canonicalize,func.func(cse,convert-linalg-to-loops)");
  EXPECT_EQ(v["totals"]["passes"], 5);
}

// Heap figures are shown when the report has them (the exact-heap keys),
// "—" when not; every line fits the width.
TEST(ReportView, HeapWhenPresentDashWhenAbsentAndFitsTheWidth) {
  json::Value doc = json::toValue(treeReport());
  doc["phase_b"]["passes"][3]["heap_peak_bytes"] = 7500000;
  doc["phase_b"]["passes"][3]["heap_after_bytes"] = 2500000;
  doc["phase_b"]["passes"][3]["heap_exact"] = true;
  doc["heap_peak_bytes"] = 7500000;
  doc["heap_peak_pass"] = "convert-linalg-to-loops";
  doc["heap_peak_stage"] = "func.func(cse,convert-linalg-to-loops)";
  // Not counted at every allocation (mallinfo2 at boundaries): the peak is
  // labelled so and no pass shows a heap figure.
  doc["heap_exact"] = false;
  view::TextOptions o;
  std::string text = view::formatView(view::buildView(doc, "r.json"), o);
  EXPECT_NE(text.find("(not exact: mallinfo2 at pass boundaries)"),
            std::string::npos)
      << text;
  doc["heap_exact"] = true;
  json::Value v = view::buildView(doc, "r.json");
  text = view::formatView(v, o);
  EXPECT_EQ(text.find("not exact"), std::string::npos) << text;
  EXPECT_NE(text.find("heap peak 7.5 MB in"), std::string::npos) << text;
  EXPECT_NE(text.find("convert-linalg-to-loops; lifetime"), std::string::npos)
      << text;
  EXPECT_NE(text.find("—"), std::string::npos) << text;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n');
  for (llvm::StringRef l : lines) {
    size_t cols = 0;
    for (unsigned char c : l)
      cols += (c & 0xC0) != 0x80;
    EXPECT_LE(cols, 100u) << l.str();
  }
  // --top by heap: the one pass with a heap peak.
  o.top = 3;
  o.topBy = view::TopMetric::HeapPeak;
  text = view::formatView(v, o);
  EXPECT_NE(text.find("top 3 passes by heap peak"), std::string::npos) << text;
  EXPECT_NE(text.find("7.5"), std::string::npos) << text;
  // Without heap figures, --top heap says why instead of an empty list.
  text = view::formatView(view::buildView(json::toValue(treeReport()), "r"), o);
  EXPECT_NE(text.find("no per-pass heap peaks in this report"),
            std::string::npos)
      << text;
}

// Long lists fold: the largest children stay, the rest is one line.
TEST(ReportView, LongListsFold) {
  ProfileReport r = treeReport();
  for (int i = 0; i < 40; ++i) {
    PassRecord p = r.phaseB.passes[0];
    p.index = int64_t(r.phaseB.passes.size());
    p.argument = "pass-" + std::to_string(i);
    p.wallS = 0.001 * (i + 1);
    r.phaseB.passes.push_back(p);
  }
  StageRecord s = r.phaseB.stages[1];
  s.name = "many";
  s.firstPass = 6;
  s.endPass = r.phaseB.passes.size();
  r.phaseB.stages.push_back(s);
  view::TextOptions o;
  o.header = false;
  o.stages = false;
  std::string text = view::formatView(view::buildView(json::toValue(r), "r"), o);
  EXPECT_NE(text.find("pass-39"), std::string::npos) << text;
  EXPECT_EQ(text.find(" pass-0\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" pass-39\n"), std::string::npos) << text;
  EXPECT_NE(text.find("… 25 more"), std::string::npos) << text;
}

// The timeline is reduced to slice maxima: the peak always survives.
TEST(ReportView, TimelineKeepsThePeak) {
  ProfileReport r = treeReport();
  TimelineRecord t;
  t.intervalMs = 1;
  for (int i = 0; i < 100000; ++i) {
    TimelineSample s;
    s.t = i * 1e-3;
    s.rss = 1000000 + uint64_t(i % 97) * 1000 + (i == 77777 ? 5000000 : 0);
    t.samples.push_back(s);
  }
  r.phaseB.timeline = t;
  view::ViewOptions vo;
  vo.maxTimelinePoints = 500;
  json::Value v = view::buildView(json::toValue(r), "r", vo);
  EXPECT_LE(v["timeline"]["rss"]["t"].size(), 500u);
  EXPECT_EQ(v["timeline"]["points"], 100000);
  EXPECT_DOUBLE_EQ(v["timeline"]["peak"]["rss_bytes"].get<double>(),
                   1000000 + 77777 % 97 * 1000 + 5000000);
}

// The page: self-contained (no src= or href= to anything outside), the
// data inline, and nothing in a report can close its script element.
TEST(ReportHTML, SelfContainedAndScriptSafe) {
  if (!html::available())
    GTEST_SKIP() << "built without plotly.js";
  ProfileReport r = treeReport();
  r.input = "</script><script>alert(1)</script>";
  html::PageInputs in;
  in.title = "t <&>";
  in.views.push_back(view::buildView(json::toValue(r), "r"));
  auto page = html::renderPage(in);
  ASSERT_TRUE(bool(page)) << errorText(page.takeError());
  // The data cannot close its element: "</" is written "<\/".
  EXPECT_EQ(page->find("</script><script>alert(1)"), std::string::npos);
  EXPECT_NE(page->find("<\\/script><script>alert(1)"), std::string::npos);
  // Nothing to fetch: no script, style or image from elsewhere.
  for (const char *ref : {"<script src", "<link ", "@import", "<img src"})
    EXPECT_EQ(page->find(ref), std::string::npos) << ref;
  EXPECT_NE(page->find("<title>t &lt;&amp;></title>"), std::string::npos);
  EXPECT_NE(page->find("\"schema\":\"q2.page/1\""), std::string::npos);
  EXPECT_NE(page->find("plotly.js v"), std::string::npos);
}

} // namespace
