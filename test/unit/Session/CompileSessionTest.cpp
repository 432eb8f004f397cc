//===- CompileSessionTest.cpp - One compilation, measured -----------------===//
#include "q2/Session/CompileSession.h"

#include "q2/Execution/PhaseC.h"
#include "q2/InitQ2.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "UnitTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <mutex>

using namespace q2;
using namespace q2::session;
using q2::test::errorText;
using q2::test::TempDir;

namespace {

mlir::DialectRegistry &registry() {
  static mlir::DialectRegistry *r = [] {
    auto *reg = new mlir::DialectRegistry();
    registerQ2Dialects(*reg);
    registerQ2Passes();
    return reg;
  }();
  return *r;
}

std::string h2Path() {
  return std::string(Q2_TEST_SOURCE_DIR) +
         "/examples/hamiltonians/h2_0.7414.FCIDUMP";
}

SessionOptions profiled() {
  SessionOptions so;
  so.profile = true;
  so.hosted = true; // the test process is not the session's own
  so.timelineIntervalMs = 5;
  so.program.nEst = 3;
  so.program.nTrotter = 2;
  return so;
}

execution::ExecuteOptions runOptions(int runs) {
  execution::ExecuteOptions eo;
  eo.runs = runs;
  eo.runtimeLib = Q2_TEST_RUNTIME_LIB;
  eo.quiet = true;
  return eo;
}

// A Hamiltonian file: Phase A, the parse, the six stages and Phase C (the
// executor hook) are measured, the report has the start snapshot, every
// option q2-opt records and phase_c, and the loaded circuit runs.
TEST(CompileSession, HamiltonianFileThroughPhaseC) {
  execution::PhaseC phaseC(runOptions(2));
  SessionHooks hooks;
  hooks.executor = &phaseC;
  auto prog = CompileSession::run(ProgramSource::fromFile(h2Path()), profiled(),
                                  registry(), hooks);
  ASSERT_TRUE(bool(prog)) << errorText(prog.takeError());
  ASSERT_TRUE(prog->report.has_value());
  const profiling::ProfileReport &r = *prog->report;
  ASSERT_TRUE(r.phaseA.has_value());
  EXPECT_EQ(r.phaseA->format, "fcidump");
  EXPECT_EQ(r.phaseA->nTerms, 15u);
  std::vector<std::string> names;
  for (const auto &s : r.phaseB.stages)
    names.push_back(s.name);
  std::vector<std::string> want = {
      "Hamiltonian",   "Program",     "Input",      "HLOLowering",
      "QuantumLowering", "Bufferization", "LLVMDialect", "LLVMIR",
      "ObjectCode",    "Load",        "Execute"};
  EXPECT_EQ(names, want);
  ASSERT_FALSE(r.phaseB.snapshots.empty());
  EXPECT_EQ(r.phaseB.snapshots.front().label, "start");
  EXPECT_TRUE(r.phaseB.timeline.has_value());
  for (const char *k :
       {"profile_passes", "timeline_interval_ms", "last_stage", "opt-level"})
    EXPECT_TRUE(r.options.count(k)) << k;
  EXPECT_EQ(r.input, h2Path());
  ASSERT_TRUE(r.parameters.has_value());
  auto params = qpe::fromJSON(r.parameters->text, "parameters");
  ASSERT_TRUE(bool(params)) << errorText(params.takeError());
  EXPECT_EQ(params->nEst, 3u);
  ASSERT_TRUE(r.phaseC.has_value());
  EXPECT_EQ(r.phaseC->callsPerSet, 2u);
  ASSERT_EQ(r.phaseC->sets.size(), 1u);
  EXPECT_NEAR(r.phaseC->sets[0].probSum, 1.0, 1e-9);
  std::unique_ptr<jit::Circuit> circuit = phaseC.takeCircuit();
  ASSERT_TRUE(circuit);
  auto call = circuit->call();
  ASSERT_TRUE(bool(call)) << errorText(call.takeError());
  EXPECT_NEAR(call->probSum, 1.0, 1e-9);
}

/// A cache that has every object: it counts its calls.
struct FakeCache : ObjectCache {
  llvm::SmallVector<char, 0> object;
  std::vector<std::string> *events;
  std::optional<llvm::SmallVector<char, 0>>
  lookup(llvm::StringRef, const pipeline::PipelineOptions &) override {
    events->push_back("lookup");
    if (object.empty())
      return std::nullopt;
    return object;
  }
  llvm::Error store(llvm::ArrayRef<char> o) override {
    events->push_back("store");
    object.assign(o.begin(), o.end());
    return llvm::Error::success();
  }
  profiling::CacheRecord record() const override {
    return {"fake", object.empty() ? "miss" : "hit"};
  }
};

// The one sequence and its hooks: the input's kind, the cache between the
// parse and the stages (a hit runs no stage), the object ready before
// Phase C; a refusal from the classified hook ends the session.
TEST(CompileSession, HooksInOrderAndCacheHitSkipsTheStages) {
  std::vector<std::string> events;
  FakeCache cache;
  cache.events = &events;
  execution::PhaseC phaseC(runOptions(1));
  SessionHooks hooks;
  hooks.classified = [&](InputKind kind) {
    events.push_back(kind == InputKind::FCIDump ? "fcidump" : "other");
    return llvm::Error::success();
  };
  hooks.cache = &cache;
  hooks.ready = [&] { events.push_back("ready"); };
  hooks.executor = &phaseC;
  auto stageNames = [](const profiling::ProfileReport &r) {
    std::vector<std::string> names;
    for (const auto &s : r.phaseB.stages)
      names.push_back(s.name);
    return names;
  };
  auto first = CompileSession::run(ProgramSource::fromFile(h2Path()),
                                   profiled(), registry(), hooks);
  ASSERT_TRUE(bool(first)) << errorText(first.takeError());
  EXPECT_EQ(events, (std::vector<std::string>{"fcidump", "lookup", "store",
                                              "ready"}));
  EXPECT_EQ(first->report->cache->status, "miss");
  events.clear();
  auto second = CompileSession::run(ProgramSource::fromFile(h2Path()),
                                    profiled(), registry(), hooks);
  ASSERT_TRUE(bool(second)) << errorText(second.takeError());
  EXPECT_EQ(events, (std::vector<std::string>{"fcidump", "lookup", "ready"}));
  EXPECT_EQ(second->report->cache->status, "hit");
  std::vector<std::string> want = {"Hamiltonian", "Program", "Input", "Load",
                                   "Execute"};
  EXPECT_EQ(stageNames(*second->report), want);
  ASSERT_TRUE(second->report->phaseC.has_value());
  EXPECT_EQ(second->report->phaseC->sets.size(), 1u);

  hooks.classified = [](InputKind) {
    return llvm::createStringError("refused by the front end");
  };
  events.clear();
  auto refused = CompileSession::run(ProgramSource::fromFile(h2Path()),
                                     profiled(), registry(), hooks);
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(errorText(refused.takeError()).find("refused by the front end"),
            std::string::npos);
  EXPECT_TRUE(events.empty());
}

// Program text, not profiled, IR kept: no report, 0_Input.mlir is the text.
TEST(CompileSession, TextWithIRDirAndNoProfile) {
  auto program = buildProgramText(h2Path(), profiled().program);
  ASSERT_TRUE(bool(program)) << errorText(program.takeError());
  TempDir dir;
  SessionOptions so;
  so.irDir = dir.file("ir");
  auto prog = CompileSession::run(ProgramSource::fromText(*program, "h2"), so,
                                  registry());
  ASSERT_TRUE(bool(prog)) << errorText(prog.takeError());
  EXPECT_FALSE(prog->report.has_value());
  auto stages = analyzeIRStages(so.irDir, registry());
  ASSERT_TRUE(bool(stages)) << errorText(stages.takeError());
  ASSERT_EQ(stages->size(), 7u);
  EXPECT_EQ((*stages)[0].ir.bytes, program->size());
}

// What cannot be compiled is refused with the file's error code and a
// message naming it; parse errors carry the parser's diagnostic.
TEST(CompileSession, RefusesWhatItCannotCompile) {
  TempDir dir;
  std::string obj = dir.file("x.o");
  q2::test::put(obj, std::string("\x7f"
                                 "ELF\x02\x01\x01",
                                 7));
  auto r = CompileSession::run(ProgramSource::fromFile(obj), SessionOptions(),
                               registry());
  std::error_code ec;
  std::string msg;
  llvm::handleAllErrors(r.takeError(), [&](const llvm::ErrorInfoBase &e) {
    msg = e.message();
    ec = e.convertToErrorCode();
  });
  EXPECT_EQ(ec, std::errc::invalid_argument);
  EXPECT_NE(msg.find("is an object file"), std::string::npos) << msg;

  r = CompileSession::run(ProgramSource::fromFile(dir.file("missing.mlir")),
                          SessionOptions(), registry());
  EXPECT_EQ(llvm::errorToErrorCode(r.takeError()),
            std::errc::no_such_file_or_directory);

  r = CompileSession::run(ProgramSource::fromText("module {", "bad.mlir"),
                          SessionOptions(), registry());
  msg = errorText(r.takeError());
  EXPECT_NE(msg.find("bad.mlir:1:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("error:"), std::string::npos) << msg;
}

// A hosted session (the q2-qpe-pipeline pass's entry): the module lives in
// the caller's context and is compiled in place, the stages go through the
// caller's runner, the snapshots bracket every stage, the object is written
// and 0_Input.mlir is the module as printed before the first stage.
TEST(CompileSession, HostedModuleInCallersContext) {
  auto program = buildProgramText(h2Path(), profiled().program);
  ASSERT_TRUE(bool(program)) << errorText(program.takeError());
  mlir::MLIRContext ctx(registry());
  auto module = mlir::parseSourceString<mlir::ModuleOp>(*program, &ctx);
  ASSERT_TRUE(module);
  TempDir dir;
  SessionOptions so;
  so.irDir = dir.file("ir");
  HostedCompile hosting;
  int nested = 0;
  hosting.runNested = [&](mlir::OpPassManager &pm, mlir::ModuleOp m) {
    ++nested;
    mlir::PassManager run(m.getContext());
    static_cast<mlir::OpPassManager &>(run) = pm;
    return run.run(m);
  };
  hosting.snapshotReport = dir.file("snap.json");
  hosting.output = dir.file("h2.o");
  auto out = CompileSession::compileHosted(*module, so, hosting);
  ASSERT_TRUE(bool(out)) << errorText(out.takeError());
  EXPECT_EQ(nested, 4); // the four MLIR stages; LLVMIR and ObjectCode are not
  EXPECT_FALSE(out->report.has_value());
  EXPECT_EQ(out->metadata.nEst, 3u);
  // The caller's module is now in the LLVM dialect.
  EXPECT_TRUE(ctx.getLoadedDialect<mlir::LLVM::LLVMDialect>());
  auto obj = llvm::MemoryBuffer::getFile(hosting.output);
  ASSERT_TRUE(bool(obj));
  EXPECT_EQ((*obj)->getBuffer(),
            llvm::StringRef(out->object.data(), out->object.size()));
  EXPECT_TRUE((*obj)->getBuffer().starts_with("\x7f"
                                              "ELF"));
  auto snap = llvm::MemoryBuffer::getFile(hosting.snapshotReport);
  ASSERT_TRUE(bool(snap));
  auto json = llvm::json::parse((*snap)->getBuffer());
  ASSERT_TRUE(bool(json)) << errorText(json.takeError());
  std::vector<std::string> labels;
  for (const llvm::json::Value &v :
       *json->getAsObject()->getArray("snapshots"))
    labels.push_back(v.getAsObject()->getString("label")->str());
  std::vector<std::string> want = {
      "Input",         "HLOLowering", "QuantumLowering", "Bufferization",
      "LLVMDialect",   "LLVMIR",      "ObjectCode"};
  EXPECT_EQ(labels, want);
  auto stages = analyzeIRStages(so.irDir, registry());
  ASSERT_TRUE(bool(stages)) << errorText(stages.takeError());
  EXPECT_EQ(stages->size(), 7u);
}

// A hosted session that fails leaves no object behind and returns the
// pipeline's error as it gave it.
TEST(CompileSession, HostedFailureWritesNothing) {
  auto program = buildProgramText(h2Path(), profiled().program);
  ASSERT_TRUE(bool(program)) << errorText(program.takeError());
  mlir::MLIRContext ctx(registry());
  auto module = mlir::parseSourceString<mlir::ModuleOp>(*program, &ctx);
  ASSERT_TRUE(module);
  TempDir dir;
  SessionOptions so;
  so.pipeline.optLevel = 9;
  HostedCompile hosting;
  hosting.output = dir.file("h2.o");
  hosting.snapshotReport = dir.file("snap.json");
  auto out = CompileSession::compileHosted(*module, so, hosting);
  ASSERT_FALSE(bool(out));
  std::string msg = errorText(out.takeError());
  EXPECT_NE(msg.find("opt-level"), std::string::npos) << msg;
  EXPECT_EQ(msg.find(" in pass '"), std::string::npos) << msg;
  EXPECT_FALSE(llvm::sys::fs::exists(hosting.output));
}

} // namespace
