//===- DriverTest.cpp - options, cache, Phase C inputs, compile() hooks ---===//
#include "DriverInternal.h" // lib/Driver (private)

#include "q2/Driver/Driver.h"
#include "q2/JIT/Circuit.h"
#include "q2/Session/CompileSession.h"
#include "q2/Hamiltonian/Hamiltonian.h"
#include "q2/InitQ2.h"
#include "q2/Pipeline/Pipeline.h"
#include "q2/QPE/ProgramPlan.h"
#include "q2/ProgramBuilder/QPEProgram.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "UnitTestUtil.h"

#include <gtest/gtest.h>

#include <mutex>
#include <sys/stat.h>

using namespace q2;
using namespace q2::driver;
using namespace q2::driver::detail;
using namespace q2::session;
using q2::jit::checkRunnable;
using q2::jit::Circuit;
using ProgramSpec = q2::qpe::ProgramRequest;
using q2::pipeline::PipelineOptions;
using q2::pipeline::Stage;

namespace {

using q2::test::errorText;
using q2::test::TempDir;

/// The compile session on program text, not loaded.
llvm::Expected<CompiledObject>
compileProgram(llvm::StringRef text, llvm::StringRef name,
               const PipelineOptions &opts, bool profile,
               mlir::DialectRegistry &registry, llvm::StringRef irDir = "") {
  SessionOptions so;
  so.pipeline = opts;
  so.profile = profile;
  so.hosted = true; // as for Python: the test process is not the session's
  so.timelineIntervalMs = 5;
  so.irDir = irDir.str();
  return CompileSession::run(ProgramSource::fromText(text.str(), name.str()),
                             so, registry);
}

template <class T> T flipped(T v) {
  if constexpr (std::is_same_v<T, bool>)
    return !v;
  else
    return v == 0 ? 1 : 0;
}

TEST(DriverOptions, EveryPipelineOptionIsPartOfTheCacheKey) {
  // A new option in PipelineOptions.def cannot give stale cache hits: the
  // key is built from all of them.
  std::string base = cacheKey("module {}", PipelineOptions());
  unsigned n = 0;
#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H)                              \
  {                                                                            \
    PipelineOptions o;                                                         \
    o.F = flipped(o.F);                                                        \
    EXPECT_NE(cacheKey("module {}", o), base) << N;                            \
    ++n;                                                                       \
  }
#include "q2/Pipeline/PipelineOptions.def"
  EXPECT_GE(n, 3u);
  // ... and so are the input and the tool's build.
  EXPECT_NE(cacheKey("module { }", PipelineOptions()), base);
  EXPECT_NE(base.find("q2-opt "), std::string::npos);
}

TEST(DriverCache, HitMissAndCorruptEntries) {
  TempDir d;
  std::string key = cacheKey("input", PipelineOptions());
  CompileCache c(std::string(d.path), key);
  EXPECT_FALSE(c.lookup().has_value());
  EXPECT_EQ(c.status(), "miss");
  llvm::SmallVector<char, 0> obj;
  for (int i = 0; i < 1000; ++i)
    obj.push_back(char(i * 7));
  ASSERT_FALSE(bool(c.store(obj)));
  auto hit = c.lookup();
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(c.status(), "hit");
  EXPECT_TRUE(std::equal(hit->begin(), hit->end(), obj.begin(), obj.end()));

  auto corruptAfter = [&](llvm::StringRef contents, llvm::StringRef why) {
    ASSERT_FALSE(bool(writeFileAtomically(c.path(), contents)));
    EXPECT_FALSE(c.lookup().has_value());
    EXPECT_EQ(c.status(), "corrupt");
    EXPECT_NE(c.why().find(why.str()), std::string::npos) << c.why();
  };
  auto entry = readInputFile(c.path());
  ASSERT_TRUE(bool(entry));
  std::string good = (*entry)->getBuffer().str();
  std::string flipped = good;
  flipped[flipped.size() - 10] ^= 0x55;
  corruptAfter(flipped, "checksum mismatch");
  corruptAfter(good.substr(0, good.size() - 1), "object is 999 bytes");
  corruptAfter("garbage", "not a q2 cache entry");
  // An entry made for another key (e.g. copied over) is not used.
  CompileCache other(std::string(d.path), cacheKey("other", PipelineOptions()));
  ASSERT_FALSE(bool(other.store(obj)));
  auto otherEntry = readInputFile(other.path());
  corruptAfter((*otherEntry)->getBuffer(), "made for another input or options");
  // A FIFO in place of an entry is not read (it would block).
  llvm::sys::fs::remove(c.path());
  ASSERT_EQ(::mkfifo(c.path().c_str(), 0600), 0);
  EXPECT_FALSE(c.lookup().has_value());
  EXPECT_EQ(c.status(), "corrupt");
}

TEST(DriverExecute, CoefficientFilesAreCheckedNotTrusted) {
  TempDir d;
  auto read = [&](llvm::StringRef contents, unsigned n) {
    std::string f = d.file("c.json");
    EXPECT_FALSE(bool(writeFileAtomically(f, contents)));
    return readCoeffSets(f, n);
  };
  auto sets = read(R"({"sets":[{"label":"a","coeffs":[1,2]},{"coeffs":[3,4]}]})", 2);
  ASSERT_TRUE(bool(sets)) << errorText(sets.takeError());
  ASSERT_EQ(sets->size(), 2u);
  EXPECT_EQ((*sets)[0].label, "a");
  EXPECT_EQ((*sets)[1].label, "set1");
  // Regression: 1e400 aborted with an uncaught JSON exception.
  std::string msg = errorText(read("[1e400, 1]", 2).takeError());
  EXPECT_NE(msg.find("c.json: invalid JSON"), std::string::npos) << msg;
  msg = errorText(read(R"([1, "x"])", 2).takeError());
  EXPECT_NE(msg.find("c.json: [1]: expected a number, got string"),
            std::string::npos)
      << msg;
  msg = errorText(read("[1, 2, 3]", 2).takeError());
  EXPECT_NE(msg.find("set 'set0' has 3 coefficients; the program has 2 terms"),
            std::string::npos)
      << msg;
  msg = errorText(read(R"({"sets":[{"label":"x"}]})", 2).takeError());
  EXPECT_NE(msg.find("sets[0]: missing \"coeffs\""), std::string::npos) << msg;
}

TEST(DriverExecute, OversizedProgramsAreRefusedBeforeAllocating) {
  // Regression: n_est 32 allocated the 2^32-double result before any limit
  // was checked ("LLVM ERROR: out of memory").
  qpe::QPEMetadata md;
  md.molecule = "x";
  md.nSystem = 4;
  md.nEst = 32;
  md.nTrotter = 1;
  md.nTerms = 1;
  md.order = 1;
  md.baseTime = 1;
  md.resolution = 0.1;
  md.words = {"ZZZZ"};
  md.defaultCoeffs = {1.0};
  std::string msg = errorText(checkRunnable(md, 0));
  EXPECT_NE(msg.find("the program needs 36 qubits"), std::string::npos) << msg;
  md.nEst = 3;
  EXPECT_FALSE(bool(checkRunnable(md, 0)));
  msg = errorText(checkRunnable(md, 6));
  EXPECT_NE(msg.find("the limit is 6 qubits (--max-qubits)"), std::string::npos)
      << msg;
  md.words = {"ZZ"};
  msg = errorText(checkRunnable(md, 0));
  EXPECT_NE(msg.find("invalid QPE metadata: words[0]"), std::string::npos) << msg;
}

//===----------------------------------------------------------------------===//
// compile(): the stage loop and its hooks
//===----------------------------------------------------------------------===//

struct Env {
  mlir::DialectRegistry registry;
  Env() {
    static std::once_flag once;
    std::call_once(once, [] { registerQ2Passes(); });
    registerQ2Dialects(registry);
  }
};

std::string h2Program(qpe::Mode mode) {
  static Env env;
  mlir::MLIRContext ctx(env.registry);
  std::string src =
      std::string(Q2_TEST_SOURCE_DIR) + "/examples/hamiltonians/h2_0.7414.FCIDUMP";
  auto h = hamiltonian::loadHamiltonian(src);
  EXPECT_TRUE(bool(h));
  auto p = hamiltonian::computeQPEParameters(*h, 3);
  EXPECT_TRUE(bool(p));
  qpe::QPEOptions o;
  o.power = qpe::Power::Time;
  o.mode = mode;
  o.nTrotter = 2;
  auto m = qpe::buildQPEProgram(ctx, *h, *p, o);
  EXPECT_TRUE(bool(m));
  std::string s;
  llvm::raw_string_ostream os(s);
  (*m)->print(os);
  return s;
}

struct RecordingHooks : pipeline::CompileHooks {
  std::vector<std::string> events;
  void beforeStage(Stage s) override {
    events.push_back("begin " + pipeline::stageName(s).str());
  }
  llvm::Error afterStage(const pipeline::StageOutput &out) override {
    std::string e = "end " + pipeline::stageName(out.stage).str();
    if (out.llvmModule)
      e += " llvm";
    if (!out.object.empty())
      e += " object";
    events.push_back(e);
    return llvm::Error::success();
  }
  void step(const pipeline::StepEvent &e) override {
    events.push_back((e.begin ? "step " : "done ") + e.name.str());
  }
};

TEST(DriverCompile, OneLoopReportsEveryStageAndStep) {
  static Env env;
  mlir::MLIRContext ctx(env.registry);
  auto m = mlir::parseSourceString<mlir::ModuleOp>(h2Program(qpe::Mode::Dynamic),
                                                   &ctx);
  ASSERT_TRUE(m);
  RecordingHooks hooks;
  auto r = pipeline::compile(*m, PipelineOptions(), Stage::ObjectCode, &hooks);
  ASSERT_TRUE(bool(r)) << errorText(r.takeError());
  EXPECT_FALSE(r->object.empty());
  std::vector<std::string> expected = {
      "begin HLOLowering",   "end HLOLowering",
      "begin QuantumLowering", "end QuantumLowering",
      "begin Bufferization", "end Bufferization",
      "begin LLVMDialect",   "end LLVMDialect",
      "begin LLVMIR",        "step llvm-translate", "done llvm-translate",
      "step llvm-optimize",  "done llvm-optimize",  "end LLVMIR llvm",
      "begin ObjectCode",    "step llvm-codegen",   "done llvm-codegen",
      "end ObjectCode object"};
  EXPECT_EQ(hooks.events, expected);
}

TEST(DriverCompile, StopsWhereAskedAndAfterStageErrorsStopIt) {
  static Env env;
  mlir::MLIRContext ctx(env.registry);
  auto m = mlir::parseSourceString<mlir::ModuleOp>(h2Program(qpe::Mode::Fixed),
                                                   &ctx);
  ASSERT_TRUE(m);
  struct Stopper : RecordingHooks {
    llvm::Error afterStage(const pipeline::StageOutput &out) override {
      RecordingHooks::afterStage(out).operator bool();
      if (out.stage == Stage::QuantumLowering)
        return llvm::createStringError("observer says stop");
      return llvm::Error::success();
    }
  } hooks;
  auto r = pipeline::compile(*m, PipelineOptions(), Stage::ObjectCode, &hooks);
  EXPECT_EQ(errorText(r.takeError()), "observer says stop");
  EXPECT_EQ(hooks.events.back(), "end QuantumLowering");
  PipelineOptions bad;
  bad.optLevel = 7;
  r = pipeline::compile(*m, bad);
  EXPECT_NE(errorText(r.takeError()).find("opt-level (-O) must be 0, 1, 2 or 3"),
            std::string::npos);
}

TEST(DriverEmbed, CompileOnceCallMany) {
  static Env env;
  auto prog = compileProgram(h2Program(qpe::Mode::Dynamic), "h2.mlir",
                             PipelineOptions(), /*profile=*/true, env.registry);
  ASSERT_TRUE(bool(prog)) << errorText(prog.takeError());
  ASSERT_TRUE(prog->report.has_value());
  EXPECT_EQ(prog->report->phaseB.stages.size(), 7u); // Input + 6
  EXPECT_GT(prog->report->compileSeconds(), 0.0);
  std::string rt = Q2_TEST_RUNTIME_LIB;
  auto circuit = Circuit::load(prog->object, prog->metadata, rt);
  ASSERT_TRUE(bool(circuit)) << errorText(circuit.takeError());
  auto a = (*circuit)->call();
  ASSERT_TRUE(bool(a)) << errorText(a.takeError());
  EXPECT_NEAR(a->probSum, 1.0, 1e-9);
  // Other coefficients, another energy; the same ones again, the same result.
  std::vector<double> half = prog->metadata.defaultCoeffs;
  for (double &c : half)
    c *= 0.5;
  auto b = (*circuit)->call(half);
  ASSERT_TRUE(bool(b));
  auto a2 = (*circuit)->call(prog->metadata.defaultCoeffs);
  ASSERT_TRUE(bool(a2));
  EXPECT_EQ(a2->probs, a->probs);
  EXPECT_NE(b->probs, a->probs);
  // Wrong number of coefficients: an error, not a read past the buffer.
  auto bad = (*circuit)->call({1.0, 2.0});
  EXPECT_NE(errorText(bad.takeError()).find("takes 15 coefficient(s), got 2"),
            std::string::npos);
}

// The JIT checks the digest itself unless the caller says it did
// (readObjectMetadata, for q2-opt --run obj.o): a flipped byte is refused
// before linking; an intact object is hashed by readObjectMetadata only.
TEST(DriverEmbed, LoadChecksTheDigestUnlessAlreadyChecked) {
  static Env env;
  auto prog = compileProgram(h2Program(qpe::Mode::Dynamic), "h2.mlir",
                             PipelineOptions(), /*profile=*/false,
                             env.registry);
  ASSERT_TRUE(bool(prog)) << errorText(prog.takeError());
  std::string rt = Q2_TEST_RUNTIME_LIB;
  llvm::SmallVector<char, 0> edited = prog->object;
  edited[edited.size() / 2] ^= 0x20;
  auto c = Circuit::load(edited, prog->metadata, rt);
  EXPECT_NE(errorText(c.takeError()).find("the object's digest does not match"),
            std::string::npos);
  auto md = qpe::readObjectMetadata(edited, "edited.o");
  EXPECT_NE(errorText(md.takeError()).find("edited.o: the object's digest does "
                                      "not match"),
            std::string::npos);
  md = qpe::readObjectMetadata(prog->object, "h2.o");
  ASSERT_TRUE(bool(md)) << errorText(md.takeError());
  auto ok = Circuit::load(prog->object, *md, rt, 0, /*digestChecked=*/true);
  ASSERT_TRUE(bool(ok)) << errorText(ok.takeError());
  auto r = (*ok)->call();
  ASSERT_TRUE(bool(r)) << errorText(r.takeError());
  EXPECT_NEAR(r->probSum, 1.0, 1e-9);
}

// What the Python module uses: the program built from a Hamiltonian file (as
// q2-qpe builds it), --ir-dir files of an embedded compile and their
// analysis (the same figures as the report), a call into the caller's buffer.
TEST(DriverEmbed, ProgramFromFileIRStagesAndCallInto) {
  static Env env;
  std::string src = std::string(Q2_TEST_SOURCE_DIR) +
                    "/examples/hamiltonians/h2_0.7414.FCIDUMP";
  ProgramSpec spec;
  spec.nEst = 3;
  spec.nTrotter = 2;
  spec.power = qpe::Power::Time;
  auto program = buildProgramText(src, spec);
  ASSERT_TRUE(bool(program)) << errorText(program.takeError());
  // q2-qpe's program for the same options: planned (steps, Trotter bound,
  // reference energies in the metadata), then built.
  std::string expected;
  {
    mlir::MLIRContext ctx(env.registry);
    auto h = hamiltonian::loadHamiltonian(src);
    ASSERT_TRUE(bool(h));
    auto p = hamiltonian::computeQPEParameters(*h, 3);
    ASSERT_TRUE(bool(p));
    qpe::QPEOptions o;
    o.mode = qpe::Mode::Dynamic;
    o.power = qpe::Power::Time;
    auto c = hamiltonian::trotterCommutators(*h, 2);
    ASSERT_TRUE(bool(c));
    auto tp = hamiltonian::trotterPlanForSteps(
        *c, *p, 2, hamiltonian::TrotterPower::Time, 2);
    ASSERT_TRUE(bool(tp)) << errorText(tp.takeError());
    o.trotterSteps = tp->steps;
    o.nTrotter = 2;
    o.trotterBound = tp->maxEnergyError;
    auto exact = hamiltonian::exactSectorEnergies(*h);
    ASSERT_TRUE(bool(exact));
    o.exactEnergy = exact->groundEnergy;
    o.hfEnergy = exact->hfEnergy;
    auto m = qpe::buildQPEProgram(ctx, *h, *p, o);
    ASSERT_TRUE(bool(m));
    llvm::raw_string_ostream os(expected);
    (*m)->print(os);
  }
  EXPECT_EQ(*program, expected);
  EXPECT_NE(program->find("trotter_bound"), std::string::npos);
  // The defaults are q2-qpe's: steps from the bound, power=repeat.
  ProgramSpec defaults;
  defaults.nEst = 3;
  auto autoProgram = buildProgramText(src, defaults);
  ASSERT_TRUE(bool(autoProgram)) << errorText(autoProgram.takeError());
  EXPECT_NE(autoProgram->find("power = \"repeat\""), std::string::npos);
  spec.nEst = 0;
  auto zero = buildProgramText(src, spec);
  EXPECT_FALSE(bool(zero));
  llvm::consumeError(zero.takeError());
  spec.nEst = 3;
  auto missing = buildProgramText(src + ".missing", ProgramSpec());
  EXPECT_FALSE(bool(missing));
  llvm::consumeError(missing.takeError());

  TempDir dir;
  std::string irDir = dir.file("ir");
  auto prog = compileProgram(*program, src, PipelineOptions(),
                             /*profile=*/true, env.registry, irDir);
  ASSERT_TRUE(bool(prog)) << errorText(prog.takeError());
  auto stages = analyzeIRStages(irDir, env.registry);
  ASSERT_TRUE(bool(stages)) << errorText(stages.takeError());
  const auto &recs = prog->report->phaseB.stages;
  ASSERT_EQ(stages->size(), 7u);
  for (size_t i = 0; i < stages->size(); ++i) {
    const StageIR &s = (*stages)[i];
    ASSERT_TRUE(recs[i].ir.has_value());
    EXPECT_EQ(s.stage, recs[i].name);
    EXPECT_EQ(s.file, pipeline::stageFileName(i));
    EXPECT_EQ(s.ir.bytes, recs[i].ir->bytes) << s.stage;
    EXPECT_EQ(s.ir.lines, recs[i].ir->lines) << s.stage;
    EXPECT_EQ(s.ir.ops, recs[i].ir->ops) << s.stage;
    EXPECT_GT(s.ir.bytes, 0u);
  }
  auto none = analyzeIRStages(dir.file("none"), env.registry);
  EXPECT_EQ(llvm::errorToErrorCode(none.takeError()),
            std::errc::no_such_file_or_directory);

  auto circuit = Circuit::load(prog->object, prog->metadata,
                               Q2_TEST_RUNTIME_LIB);
  ASSERT_TRUE(bool(circuit)) << errorText(circuit.takeError());
  std::vector<double> buf(8);
  auto a = (*circuit)->callInto(prog->metadata.defaultCoeffs, buf);
  ASSERT_TRUE(bool(a)) << errorText(a.takeError());
  auto b = (*circuit)->call();
  ASSERT_TRUE(bool(b));
  EXPECT_TRUE(a->probs.empty());
  EXPECT_EQ(buf, b->probs);
  EXPECT_EQ(a->argmax, b->argmax);
  EXPECT_EQ(a->energy, b->energy);
  EXPECT_EQ(a->probSum, b->probSum);
  // A wrong count is an invalid argument (Python: ValueError).
  auto bad = (*circuit)->callInto({1.0}, buf);
  EXPECT_EQ(llvm::errorToErrorCode(bad.takeError()),
            std::errc::invalid_argument);
}

} // namespace
