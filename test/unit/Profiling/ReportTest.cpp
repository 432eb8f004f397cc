//===- ReportTest.cpp - Atomic JSON files and appended records ------------===//

#include "q2/Profiling/Report.h"
#include "q2/Profiling/ReportFields.h"
#include "q2/Profiling/MLIR/SnapshotPass.h"
#include "q2/Profiling/Session.h"
#include "q2/QPE/QPEMetadata.h"

#include "llvm/ADT/StringExtras.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "llvm/Support/MemoryBuffer.h"

#include "UnitTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <tuple>

using namespace q2::profiling;

namespace {

using q2::test::errorText;
using q2::test::TempDir;

SnapshotEntry entry(llvm::StringRef label) {
  SnapshotEntry e;
  e.snapshot.label = label.str();
  return e;
}

TEST(ProfReport, AppendCreatesThenAppends) {
  TempDir dir;
  std::string f = dir.file("snap.json");
  ASSERT_FALSE(bool(appendSnapshot(f, entry("a"))));
  ASSERT_FALSE(bool(appendSnapshot(f, entry("b"))));
  auto doc = readSnapshotFile(f);
  ASSERT_TRUE(bool(doc)) << llvm::toString(doc.takeError());
  EXPECT_EQ(doc->schema, "q2.snapshots/1");
  ASSERT_EQ(doc->snapshots.size(), 2u);
  EXPECT_EQ(doc->snapshots[0].snapshot.label, "a");
  EXPECT_EQ(doc->snapshots[1].snapshot.label, "b");
  EXPECT_EQ(doc->snapshots[1].index, 1u);
  // No temporary or lock files left behind.
  std::error_code ec;
  std::vector<std::string> names;
  for (llvm::sys::fs::directory_iterator it(dir.path, ec), end;
       !ec && it != end; it.increment(ec))
    names.push_back(llvm::sys::path::filename(it->path()).str());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"snap.json"}));
}

TEST(ProfReport, ConcurrentAppendersLoseNothing) {
  // Regression: unlocked read-modify-write lost 28-34 of 80 snapshots.
  TempDir dir;
  std::string f = dir.file("snap.json");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i)
        EXPECT_FALSE(bool(appendSnapshot(f, entry("t" + std::to_string(t)))));
    });
  for (std::thread &t : threads)
    t.join();
  auto doc = readSnapshotFile(f);
  ASSERT_TRUE(bool(doc)) << llvm::toString(doc.takeError());
  EXPECT_EQ(doc->snapshots.size(), 80u);
}

TEST(ProfReport, RefusesForeignFileWithoutTouchingIt) {
  TempDir dir;
  std::string f = dir.file("other.json");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(f, ec);
    ASSERT_FALSE(ec);
    os << "[1, 2, 3]\n";
  }
  std::string msg = errorText(appendSnapshot(f, entry("x")));
  EXPECT_NE(msg.find(f), std::string::npos) << msg;
  EXPECT_NE(msg.find("refusing"), std::string::npos) << msg;
  auto buf = llvm::MemoryBuffer::getFile(f);
  ASSERT_TRUE(bool(buf));
  EXPECT_EQ((*buf)->getBuffer(), "[1, 2, 3]\n");

  std::string bad = dir.file("bad.json");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(bad, ec);
    os << "{\"snapshots\": [";
  }
  msg = errorText(appendSnapshot(bad, entry("x")));
  EXPECT_NE(msg.find("invalid JSON"), std::string::npos) << msg;
}

TEST(ProfReport, UnwritablePathIsAnError) {
  std::string msg = errorText(writeReport("/nonexistent-q2-dir/r.json", {}));
  EXPECT_FALSE(msg.empty());
  EXPECT_NE(msg.find("/nonexistent-q2-dir/r.json"), std::string::npos) << msg;
}

TEST(ProfReport, SnapshotWithIR) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::func::FuncDialect>();
  auto mod = mlir::parseSourceString<mlir::ModuleOp>(
      "func.func @f() {\n  return\n}\n", &ctx);
  ASSERT_TRUE(mod);
  auto e = snapshotWithIR("after-x", mod->getOperation());
  ASSERT_TRUE(bool(e)) << llvm::toString(e.takeError());
  EXPECT_EQ(e->snapshot.label, "after-x");
  ASSERT_TRUE(e->ir.has_value());
  EXPECT_EQ(e->ir->ops, 3u); // module, func, return
  std::string text;
  llvm::raw_string_ostream os(text);
  mod->print(os);
  os << '\n';
  EXPECT_EQ(e->ir->bytes, text.size());
  EXPECT_GT(e->snapshot.status.vmRSS, 0u);
  auto noIR = snapshotWithIR("plain", nullptr);
  ASSERT_TRUE(bool(noIR));
  EXPECT_FALSE(noIR->ir.has_value());
}

/// A report with one stage of each kind and a Phase C set.
ProfileReport sampleReport() {
  ProfileReport r;
  r.input = "in.mlir";
  r.options["opt-level"] = int64_t(2);
  r.options["keep-native-pauli"] = true;
  r.options["last_stage"] = std::string("ObjectCode");
  for (auto [name, kind, wall] :
       {std::tuple<const char *, StageKind, double>{"Input", StageKind::Input,
                                                     1.0},
        {"HLOLowering", StageKind::Compile, 0.25},
        {"ObjectCode", StageKind::Compile, 0.5},
        {"Load", StageKind::Run, 2.0},
        {"Execute", StageKind::Run, 40.0}}) {
    StageRecord s;
    s.name = name;
    s.kind = kind;
    s.wallS = wall;
    s.peakRSS = uint64_t(wall * 1e6);
    s.begin.label = std::string(name) + ":begin";
    r.phaseB.stages.push_back(s);
  }
  r.phaseB.stages[1].ir = IRMetrics{"mlir", 100, 5, 7, {{"func", 2}}};
  r.phaseB.stages[2].ir = IRMetrics{"object", 4000, 3, 0, {}};
  PassRecord p;
  p.name = "Canonicalizer";
  p.argument = "canonicalize";
  p.rssDelta = -4096;
  r.phaseB.passes.push_back(p);
  PhaseCRecord c;
  c.runtime = "libq2_runtime.so";
  c.callsPerSet = 5;
  PhaseCSetRecord set;
  set.label = "default";
  set.energy = -1.1372;
  set.resolution = 1.8e-3;
  set.trotterBound = 4.5e-4;
  set.peakMass = 0.98;
  set.peakEnergy = -1.13711;
  set.exactEnergy = -1.13727;
  set.errorResolutions = 0.08;
  set.probabilities = {0.25, 0.75};
  c.sets.push_back(set);
  r.phaseC = c;
  q2::qpe::QPEMetadata q;
  q.molecule = "h2";
  q.trotterSteps = {13, 26};
  q.exactEnergy = -1.13727;
  q.hfEnergy = -1.11668;
  q.trotterBound = 4.6e-4;
  r.parameters = q2::json::RawObject{q2::qpe::toJSON(q)};
  return r;
}

/// The report's parameters, typed (the QPE model reads them).
q2::qpe::QPEMetadata paramsOf(const ProfileReport &r) {
  auto md = q2::qpe::fromJSON(r.parameters->text, "parameters");
  EXPECT_TRUE(bool(md)) << llvm::toString(md.takeError());
  return md ? *md : q2::qpe::QPEMetadata();
}

// The error estimate of a Phase C set (and the parameters' step table and
// reference energies) round-trip; a report written before they existed
// still reads, with them unset.
TEST(ProfReport, EnergyErrorFieldsRoundTripAndAreOptional) {
  TempDir dir;
  std::string f = dir.file("r.json");
  ProfileReport r = sampleReport();
  ASSERT_FALSE(bool(writeReport(f, r)));
  auto back = readReport(f);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  const PhaseCSetRecord &s = back->phaseC->sets[0];
  EXPECT_EQ(s.trotterBound, 4.5e-4);
  EXPECT_EQ(s.exactEnergy, -1.13727);
  EXPECT_EQ(s.errorResolutions, 0.08);
  EXPECT_DOUBLE_EQ(s.peakMass, 0.98);
  EXPECT_DOUBLE_EQ(s.peakEnergy, -1.13711);
  EXPECT_DOUBLE_EQ(s.resolution, 1.8e-3);
  EXPECT_EQ(paramsOf(*back).trotterSteps, (std::vector<uint64_t>{13, 26}));
  EXPECT_EQ(paramsOf(*back).hfEnergy, -1.11668);

  r.phaseC->sets[0] = PhaseCSetRecord();
  r.phaseC->sets[0].label = "old";
  r.parameters = q2::json::RawObject{q2::qpe::toJSON(q2::qpe::QPEMetadata())};
  std::string text = toJSONText(r);
  EXPECT_EQ(text.find("peak_mass"), std::string::npos);
  EXPECT_EQ(text.find("trotter_steps"), std::string::npos);
  ASSERT_FALSE(bool(writeReport(f, r)));
  auto old = readReport(f);
  ASSERT_TRUE(bool(old)) << llvm::toString(old.takeError());
  EXPECT_FALSE(old->phaseC->sets[0].exactEnergy.has_value());
  EXPECT_FALSE(old->phaseC->sets[0].trotterBound.has_value());
}

// "parameters" is the program's metadata under its own keys (n_system,
// n_est, words, ... as in the object's .q2.qpe section), plus ir_scale; a
// q2.profile/2 report, which named two of them differently and had no words
// or coefficients, still reads and is written back as /3.
TEST(ProfReport, ParametersAreTheMetadataAndOldReportsRead) {
  ProfileReport r = sampleReport();
  q2::qpe::QPEMetadata q = paramsOf(r);
  q.nSystem = 4;
  q.nEst = 2;
  q.nTrotter = 26;
  q.nTerms = 1;
  q.words = {"ZIII"};
  q.defaultCoeffs = {0.5};
  r.parameters = q2::json::RawObject{q2::qpe::toJSON(q)};
  std::string text = toJSONText(r);
  for (const char *key : {"\"n_system\":4", "\"n_est\":2", "\"words\":[\"ZIII\"]",
                          "\"default_coeffs\":[0.5]", "\"ir_scale\":39"})
    EXPECT_NE(text.find(key), std::string::npos) << key << " in " << text;
  EXPECT_EQ(text.find("n_system_qubits"), std::string::npos) << text;

  TempDir dir;
  std::string f = dir.file("old.json");
  std::string old = toJSONText(r);
  auto swap = [&](const std::string &from, const std::string &to) {
    size_t at = old.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    old.replace(at, from.size(), to);
  };
  swap("\"schema\":\"q2.profile/3\"", "\"schema\":\"q2.profile/2\"");
  swap("\"n_system\":4", "\"n_system_qubits\":4");
  swap("\"n_est\":2", "\"n_estimation_wires\":2");
  swap(",\"words\":[\"ZIII\"]", ""); // the last key
  swap("\"default_coeffs\":[0.5],", "");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(f, ec);
    os << old;
  }
  auto back = readReport(f);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->schema, kReportSchema);
  q2::qpe::QPEMetadata p = paramsOf(*back);
  EXPECT_EQ(p.nSystem, 4u);
  EXPECT_EQ(p.nEst, 2u);
  EXPECT_EQ(p.trotterSteps, (std::vector<uint64_t>{13, 26}));
  EXPECT_TRUE(p.words.empty());
  EXPECT_EQ(back->parameters->text.find("n_system_qubits"), std::string::npos);
}

TEST(ProfReport, CompileSecondsSumsOnlyCompileStages) {
  // Regression: a sweep's compile_s summed Input, Load and Execute too.
  ProfileReport r = sampleReport();
  EXPECT_DOUBLE_EQ(r.compileSeconds(), 0.75);
  EXPECT_EQ(r.compilePeakRSS(), 500000u);
}

TEST(ProfReport, WriteThenReadGivesTheSameReport) {
  TempDir dir;
  std::string f = dir.file("r.json");
  ProfileReport r = sampleReport();
  ASSERT_FALSE(bool(writeReport(f, r)));
  // Written without the nlohmann tree: the bytes the tree would print.
  auto file = llvm::MemoryBuffer::getFile(f);
  ASSERT_TRUE(bool(file));
  EXPECT_EQ((*file)->getBuffer().str(), toJSONText(r, 2) + "\n");
  auto back = readReport(f);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(toJSONText(*back), toJSONText(r));
  EXPECT_EQ(back->phaseB.stages[3].kind, StageKind::Run);
  EXPECT_EQ(std::get<int64_t>(back->options["opt-level"]), 2);
  EXPECT_EQ(std::get<bool>(back->options["keep-native-pauli"]), true);
  EXPECT_EQ(back->phaseB.passes[0].rssDelta, -4096);
  EXPECT_DOUBLE_EQ(back->compileSeconds(), 0.75);
}

TEST(ProfReport, ReaderNamesFileAndKey) {
  TempDir dir;
  std::string f = dir.file("r.json");
  ProfileReport r = sampleReport();
  std::string text = toJSONText(r);
  auto write = [&](llvm::StringRef t) {
    std::error_code ec;
    llvm::raw_fd_ostream os(f, ec);
    os << t;
  };
  // A string where a number belongs.
  std::string bad = text;
  size_t at = bad.find("\"wall_s\":0.25");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, 13, "\"wall_s\":\"x\"");
  write(bad);
  std::string msg = errorText(readReport(f).takeError());
  EXPECT_NE(msg.find(f + ": phase_b.stages[1].wall_s: expected a number"),
            std::string::npos)
      << msg;
  // An overflowing number is an error, not an exception.
  bad = text;
  at = bad.find("\"wall_s\":0.25");
  bad.replace(at, 13, "\"wall_s\":1e400");
  write(bad);
  msg = errorText(readReport(f).takeError());
  EXPECT_NE(msg.find(f + ": invalid JSON"), std::string::npos) << msg;
  // Another schema is refused.
  write("{\"schema\": \"q2.profile/1\"}");
  msg = errorText(readReport(f).takeError());
  EXPECT_NE(msg.find("not a q2.profile/3 file (schema \"q2.profile/1\") "
                     "(q2.profile/2 is read too)"),
            std::string::npos)
      << msg;
  // A missing key is named.
  bad = text;
  at = bad.find("\"runtime\":");
  bad.replace(at, 10, "\"runtimX\":");
  write(bad);
  msg = errorText(readReport(f).takeError());
  EXPECT_NE(msg.find("phase_c: missing \"runtime\""), std::string::npos) << msg;
}

std::string writeDoc(TempDir &dir, const q2::json::Value &doc) {
  std::string f = dir.file("r.json");
  EXPECT_FALSE(bool(q2::json::writeFile(f, doc)));
  return f;
}

// Issue 40: a null or negative time is refused by the reader itself, so
// every consumer (compare, show, html, merge, Python) refuses it alike.
TEST(ProfReport, NullAndNegativeTimesAreRefusedNamingFileAndKey) {
  TempDir dir;
  q2::json::Value doc = q2::json::toValue(sampleReport());
  doc["phase_b"]["stages"][1]["wall_s"] = nullptr;
  std::string f = writeDoc(dir, doc);
  std::string msg = errorText(readReport(f).takeError());
  EXPECT_NE(msg.find(f + ": phase_b.stages[1].wall_s: null where a time in "
                         "seconds belongs"),
            std::string::npos)
      << msg;
  // The same through the JSON text reader Python's from_json uses.
  auto text = q2::json::dump(doc, -1);
  ASSERT_TRUE(bool(text));
  msg = errorText(fromJSONText<ProfileReport>(*text, "x.json").takeError());
  EXPECT_NE(msg.find("x.json: phase_b.stages[1].wall_s: null"),
            std::string::npos)
      << msg;

  doc = q2::json::toValue(sampleReport());
  doc["phase_b"]["passes"][0]["cpu_s"] = -5;
  f = writeDoc(dir, doc);
  msg = errorText(readReport(f).takeError());
  EXPECT_NE(msg.find("phase_b.passes[0].cpu_s: -5 is negative"),
            std::string::npos)
      << msg;
  doc = q2::json::toValue(sampleReport());
  doc["phase_b"]["profiler_overhead_s"] = -0.1;
  f = writeDoc(dir, doc);
  msg = errorText(readReport(f).takeError());
  EXPECT_NE(msg.find("phase_b.profiler_overhead_s: -0.1 is negative"),
            std::string::npos)
      << msg;
  doc = q2::json::toValue(sampleReport());
  doc["phase_b"]["stages"][2]["ir"]["bytes"] = -3000;
  f = writeDoc(dir, doc);
  msg = errorText(readReport(f).takeError());
  EXPECT_NE(msg.find("phase_b.stages[2].ir.bytes: expected a non-negative "
                     "integer"),
            std::string::npos)
      << msg;
  // A good report reads.
  f = writeDoc(dir, q2::json::toValue(sampleReport()));
  EXPECT_TRUE(bool(readReport(f)));
}

TEST(ProfReport, StageTableComputesAmplification) {
  std::vector<StageRecord> st(3);
  st[0].name = "HLOLowering";
  st[0].wallS = 1.5;
  st[0].cpuS = 1.25;
  // Decimal units (docs/report.md): 150e6 bytes is 150.0 MB (143.1 MiB).
  st[0].end.status.vmRSS = 100000000;
  st[0].peakRSS = 150000000;
  st[0].peakSource = "kernel_hwm";
  st[0].heap.after = 40000000;
  st[0].heap.peak = 45000000;
  st[0].ir = IRMetrics{"mlir", 10240, 100, 50, {}};
  for (StageRecord &s : st)
    s.heap.exact = true; // (else a note follows the table)
  st[1].name = "NoIR";
  st[1].peakSource = "sampled";
  st[2].name = "LLVMIR";
  st[2].peakSource = "sampled";
  st[2].ir = IRMetrics{"llvm-ir", 634880, 9000, 4000, {}};
  std::string t = formatStageTable(st);
  llvm::SmallVector<llvm::StringRef, 8> lines;
  llvm::StringRef(t).split(lines, '\n', -1, false);
  ASSERT_EQ(lines.size(), 4u) << t;
  EXPECT_TRUE(lines[1].contains("HLOLowering")) << t;
  EXPECT_TRUE(lines[1].contains("1.500")) << t;
  EXPECT_TRUE(lines[1].contains("150.0 hwm")) << t;
  EXPECT_TRUE(lines[0].contains("RSS MB") && lines[0].contains("IR kB")) << t;
  EXPECT_TRUE(lines[1].contains(" 100.0 ")) << t;   // RSS MB
  EXPECT_TRUE(lines[1].contains(" 40.0 ")) << t;    // heap MB
  EXPECT_TRUE(lines[1].contains(" 45.0 ")) << t;    // heap peak MB
  EXPECT_TRUE(lines[1].contains("10.2")) << t;      // IR kB (10240 bytes)
  EXPECT_TRUE(lines[1].trim().ends_with("-")) << t; // no previous IR
  EXPECT_TRUE(lines[2].contains("smp")) << t;
  // 634880 / 10240 = 62: amplification against the last stage with IR.
  EXPECT_TRUE(lines[3].trim().ends_with("62.00x")) << t;
  EXPECT_TRUE(lines[3].contains("634.9")) << t; // kB
}

TEST(ProfReport, PassTableSortsByWall) {
  std::vector<PassRecord> ps(3);
  ps[0].argument = "cheap";
  ps[0].wallS = 0.001;
  ps[1].argument = "costly";
  ps[1].wallS = 0.5;
  ps[1].opName = "func.func";
  ps[1].opSymbol = "qpe";
  ps[2].name = "pipeline(func.func)";
  ps[2].isAdaptor = true;
  ps[2].wallS = 1.0;
  for (auto &p : ps)
    p.finished = true;
  std::string t = formatPassTable(ps, 5);
  EXPECT_EQ(t.find("pipeline"), std::string::npos) << t;
  size_t costly = t.find("costly"), cheap = t.find("cheap");
  ASSERT_NE(costly, std::string::npos);
  ASSERT_NE(cheap, std::string::npos);
  EXPECT_LT(costly, cheap) << t;
  EXPECT_NE(t.find("func.func @qpe"), std::string::npos) << t;
  EXPECT_NE(t.find("500.000"), std::string::npos) << t;
  std::string one = formatPassTable(ps, 1);
  EXPECT_EQ(one.find("cheap"), std::string::npos) << one;
}

} // namespace
