//===- PipelineTest.cpp - lib/Pipeline: stages, options, compile() --------===//
//
// The stage list and its names, PipelineOptions against its .def (defaults,
// str(), validate(), and str() read back as options of the registered
// q2-qpe-pipeline pass), the stage pass pipelines as text MLIR parses and
// prints back, and compile() stopping after each stage.
//
//===----------------------------------------------------------------------===//
#include "q2/InitQ2.h"
#include "q2/Pipeline/Passes.h"
#include "q2/Pipeline/Pipeline.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

using namespace q2::pipeline;

namespace {

struct Env {
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> ctx;
  Env() {
    static std::once_flag once;
    std::call_once(once, [] {
      q2::registerQ2Passes();
      registerPipelines();
    });
    q2::registerQ2Dialects(registry);
    ctx = std::make_unique<mlir::MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
  }
};

/// Two qubits: a gate and one Pauli rotation, probabilities out.
const char *kProgram = R"mlir(
func.func @qpe() -> tensor<4xf64> attributes {llvm.emit_c_interface} {
  %t = arith.constant 0.5 : f64
  %r = quantum.alloc(2) : !quantum.reg
  %q0 = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
  %q1 = quantum.extract %r[1] : !quantum.reg -> !quantum.bit
  %a0 = quantum.custom "H"() %q0 : !quantum.bit
  %b0, %b1 = quantum.pauli_rot "ZX"(%t) %a0, %q1 : !quantum.bit, !quantum.bit
  %r1 = quantum.insert %r[0], %b0 : !quantum.reg, !quantum.bit
  %r2 = quantum.insert %r1[1], %b1 : !quantum.reg, !quantum.bit
  %p = quantum.probs reg %r2[0, 2] : tensor<4xf64>
  quantum.dealloc %r2 : !quantum.reg
  return %p : tensor<4xf64>
}
)mlir";

std::string pipelineText(mlir::OpPassManager &pm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

/// Counts ops named `name` in the module.
unsigned countOps(mlir::ModuleOp module, llvm::StringRef name) {
  unsigned n = 0;
  module.walk([&](mlir::Operation *op) {
    n += op->getName().getStringRef() == name;
  });
  return n;
}

/// Records the stages compile() reports; can fail one of them.
struct RecordingHooks : CompileHooks {
  std::vector<Stage> before, after;
  std::optional<Stage> failAfter;
  void beforeStage(Stage s) override { before.push_back(s); }
  llvm::Error afterStage(const StageOutput &out) override {
    after.push_back(out.stage);
    if (failAfter == out.stage)
      return llvm::createStringError("stop here");
    return llvm::Error::success();
  }
};

//===-- the stage list ----------------------------------------------------===//

TEST(PipelineStages, NamesNumbersAndFiles) {
  const char *names[] = {"HLOLowering",  "QuantumLowering", "Bufferization",
                         "LLVMDialect",  "LLVMIR",          "ObjectCode"};
  ASSERT_EQ(kNumStages, 6u);
  for (unsigned i = 1; i <= kNumStages; ++i) {
    Stage s = stageAt(i);
    EXPECT_EQ(stageIndex(s), i);
    EXPECT_EQ(stageName(s), names[i - 1]);
    EXPECT_EQ(parseStage(names[i - 1]), s);
    EXPECT_EQ(parseStage(llvm::StringRef(names[i - 1]).lower()), s);
    EXPECT_EQ(parseStage(std::to_string(i)), s);
  }
  EXPECT_EQ(parseStage("0"), std::nullopt);
  EXPECT_EQ(parseStage("7"), std::nullopt);
  EXPECT_EQ(parseStage("Input"), std::nullopt);
  EXPECT_EQ(parseStage(""), std::nullopt);
  EXPECT_EQ(stageFileName(0), "0_Input.mlir");
  EXPECT_EQ(stageFileName(2), "2_QuantumLowering.mlir");
  EXPECT_EQ(stageFileName(4), "4_LLVMDialect.mlir");
  EXPECT_EQ(stageFileName(5), "5_LLVMIR.ll");
  EXPECT_EQ(stageFileName(6), "6_ObjectCode.o");
}

//===-- PipelineOptions ---------------------------------------------------===//

/// "name=default ..." built from the .def itself.
std::string defaultsFromDef() {
  std::string out;
  auto add = [&](const char *name, std::string value) {
    out += (out.empty() ? "" : " ") + std::string(name) + "=" + value;
  };
  auto text = [](auto v) {
    if constexpr (std::is_same_v<decltype(v), bool>)
      return std::string(v ? "true" : "false");
    else
      return std::to_string(v);
  };
#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H) add(N, text(T(DEF)));
#include "q2/Pipeline/PipelineOptions.def"
  return out;
}

TEST(PipelineOptionsTest, DefaultsAndOrderAreTheDef) {
  PipelineOptions opts;
  EXPECT_EQ(opts.str(), defaultsFromDef());
  std::vector<std::string> names;
  opts.forEach([&](llvm::StringRef n, PipelineOptions::Value) {
    names.push_back(n.str());
  });
  std::vector<std::string> def;
#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H) def.push_back(N);
#include "q2/Pipeline/PipelineOptions.def"
  EXPECT_EQ(names, def);
  EXPECT_FALSE(bool(opts.validate()));
}

TEST(PipelineOptionsTest, ValidateNamesTheOption) {
  PipelineOptions opts;
  opts.optLevel = 4;
  llvm::Error e = opts.validate();
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("opt-level"), std::string::npos);
  opts.optLevel = 3;
  opts.outlineGates = 1;
  e = opts.validate();
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("outline-gates"),
            std::string::npos);
  opts.outlineGates = 0;
  EXPECT_FALSE(bool(opts.validate()));
}

/// str() is what the registered pipelines accept as options, and the
/// options they read from it are the ones given: q2-quantum-lowering{str()}
/// builds the same passes as addStagePasses with the options themselves.
TEST(PipelineOptionsTest, StrRoundTripsThroughThePassOptions) {
  Env env;
  PipelineOptions opts;
  opts.keepNativePauli = true;
  opts.unroll = true;
  opts.powerBlocks = false;
  opts.optLevel = 0;
  opts.outlineGates = 16;
  ASSERT_NE(opts.str(), PipelineOptions().str());
  auto viaText = [](const std::string &options) {
    mlir::OpPassManager pm("builtin.module");
    std::string err;
    llvm::raw_string_ostream es(err);
    EXPECT_TRUE(mlir::succeeded(mlir::parsePassPipeline(
        "q2-quantum-lowering{" + options + "}", pm, es)))
        << err;
    return pipelineText(pm);
  };
  auto direct = [](const PipelineOptions &o) {
    mlir::OpPassManager pm("builtin.module");
    addStagePasses(pm, Stage::QuantumLowering, o);
    return pipelineText(pm);
  };
  EXPECT_EQ(viaText(opts.str()), direct(opts));
  EXPECT_NE(viaText(opts.str()), direct(PipelineOptions()));
  EXPECT_EQ(viaText(PipelineOptions().str()), direct(PipelineOptions()));
  EXPECT_EQ(viaText(""), direct(PipelineOptions()));
  // Every stage pipeline and q2-qpe-pipeline accept the whole list.
  for (const char *name : {"q2-hlo-lowering", "q2-bufferization",
                           "q2-llvm-dialect", "q2-llvm-ir", "q2-object-code",
                           "q2-qpe-pipeline"}) {
    mlir::OpPassManager pm("builtin.module");
    std::string err;
    llvm::raw_string_ostream es(err);
    EXPECT_TRUE(mlir::succeeded(mlir::parsePassPipeline(
        std::string(name) + "{" + opts.str() + "}", pm, es)))
        << name << ": " << err;
  }
  // Bad values are refused by the option parser.
  mlir::OpPassManager bad("builtin.module");
  std::string badErr;
  llvm::raw_string_ostream bs(badErr);
  EXPECT_TRUE(mlir::failed(
      mlir::parsePassPipeline("q2-qpe-pipeline{opt-level=two}", bad, bs)));
}

//===-- stage pass pipelines ----------------------------------------------===//

TEST(PipelineStageText, ParsesAndPrintsBack) {
  Env env;
  for (unsigned i = 1; i <= 4; ++i) {
    Stage s = stageAt(i);
    mlir::OpPassManager pm("builtin.module");
    addStagePasses(pm, s, PipelineOptions());
    EXPECT_GT(pm.size(), 0u) << stageName(s).str();
    // The printed text is anchored: builtin.module(...).
    std::string text = pipelineText(pm);
    std::string err;
    llvm::raw_string_ostream es(err);
    mlir::FailureOr<mlir::OpPassManager> again =
        mlir::parsePassPipeline(text, es);
    ASSERT_TRUE(mlir::succeeded(again))
        << stageName(s).str() << ": " << err << "\n" << text;
    EXPECT_EQ(pipelineText(*again), text) << stageName(s).str();
  }
}

TEST(PipelineStageText, OptionsReachTheirPasses) {
  Env env;
  auto quantumLowering = [](const PipelineOptions &o) {
    mlir::OpPassManager pm("builtin.module");
    addStagePasses(pm, Stage::QuantumLowering, o);
    return pipelineText(pm);
  };
  PipelineOptions opts;
  std::string defaults = quantumLowering(opts);
  EXPECT_NE(defaults.find("keep-native=false"), std::string::npos) << defaults;
  EXPECT_NE(defaults.find("quantum-power-loops"), std::string::npos);
  EXPECT_EQ(defaults.find("quantum-unroll"), std::string::npos);
  EXPECT_NE(defaults.find("max-gates=1024"), std::string::npos);
  opts.keepNativePauli = true;
  opts.powerBlocks = false;
  opts.unroll = true;
  opts.outlineGates = 16;
  std::string changed = quantumLowering(opts);
  EXPECT_NE(changed.find("keep-native=true"), std::string::npos) << changed;
  EXPECT_EQ(changed.find("quantum-power-loops"), std::string::npos);
  EXPECT_NE(changed.find("quantum-unroll"), std::string::npos);
  EXPECT_NE(changed.find("max-gates=16"), std::string::npos);
}

//===-- compile() ---------------------------------------------------------===//

mlir::OwningOpRef<mlir::ModuleOp> parseProgram(Env &env) {
  return mlir::parseSourceString<mlir::ModuleOp>(kProgram, env.ctx.get());
}

TEST(PipelineCompile, StopsAfterQuantumLowering) {
  for (bool keepNative : {false, true}) {
    Env env;
    auto module = parseProgram(env);
    ASSERT_TRUE(module);
    PipelineOptions opts;
    opts.keepNativePauli = keepNative;
    RecordingHooks hooks;
    auto result = compile(*module, opts, Stage::QuantumLowering, &hooks);
    ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
    std::vector<Stage> ran = {Stage::HLOLowering, Stage::QuantumLowering};
    EXPECT_EQ(hooks.before, ran);
    EXPECT_EQ(hooks.after, ran);
    EXPECT_EQ(result->last, Stage::QuantumLowering);
    EXPECT_EQ(result->llvmModule, nullptr);
    EXPECT_TRUE(result->object.empty());
    // Stage 2 ran: the rotation is decomposed unless kept native; nothing
    // is lowered to LLVM yet.
    EXPECT_EQ(countOps(*module, "quantum.pauli_rot"), keepNative ? 1u : 0u);
    EXPECT_EQ(countOps(*module, "llvm.func"), 0u);
    EXPECT_GE(countOps(*module, "func.func"), 1u);
  }
}

TEST(PipelineCompile, LLVMDialectLeavesOnlyLLVM) {
  Env env;
  auto module = parseProgram(env);
  ASSERT_TRUE(module);
  auto result = compile(*module, PipelineOptions(), Stage::LLVMDialect);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->llvmModule, nullptr);
  EXPECT_TRUE(result->object.empty());
  unsigned notLLVM = 0;
  module->walk([&](mlir::Operation *op) {
    if (op != module->getOperation() &&
        op->getDialect()->getNamespace() != "llvm")
      ++notLLVM;
  });
  EXPECT_EQ(notLLVM, 0u);
  EXPECT_GE(countOps(*module, "llvm.func"), 1u);
}

TEST(PipelineCompile, LLVMIRThenObject) {
  Env env;
  auto module = parseProgram(env);
  ASSERT_TRUE(module);
  auto ir = compile(*module, PipelineOptions(), Stage::LLVMIR);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  ASSERT_NE(ir->llvmModule, nullptr);
  EXPECT_NE(ir->llvmModule->getFunction("_mlir_ciface_qpe"), nullptr);
  EXPECT_TRUE(ir->object.empty());

  auto fresh = parseProgram(env);
  ASSERT_TRUE(fresh);
  RecordingHooks hooks;
  auto obj = compile(*fresh, PipelineOptions(), Stage::ObjectCode, &hooks);
  ASSERT_TRUE(bool(obj)) << llvm::toString(obj.takeError());
  EXPECT_EQ(hooks.after.size(), 6u);
  ASSERT_GE(obj->object.size(), 4u);
  EXPECT_EQ(llvm::StringRef(obj->object.data(), 4), "\x7f" "ELF");
}

TEST(PipelineCompile, HookErrorStopsAndNamesNothingLater) {
  Env env;
  auto module = parseProgram(env);
  ASSERT_TRUE(module);
  RecordingHooks hooks;
  hooks.failAfter = Stage::QuantumLowering;
  auto result = compile(*module, PipelineOptions(), Stage::ObjectCode, &hooks);
  ASSERT_FALSE(bool(result));
  EXPECT_NE(llvm::toString(result.takeError()).find("stop here"),
            std::string::npos);
  EXPECT_EQ(hooks.before.size(), 2u);
  EXPECT_EQ(countOps(*module, "llvm.func"), 0u);
}

TEST(PipelineCompile, RefusesInvalidOptionsBeforeAnyStage) {
  Env env;
  auto module = parseProgram(env);
  ASSERT_TRUE(module);
  PipelineOptions opts;
  opts.optLevel = 9;
  RecordingHooks hooks;
  auto result = compile(*module, opts, Stage::ObjectCode, &hooks);
  ASSERT_FALSE(bool(result));
  EXPECT_NE(llvm::toString(result.takeError()).find("opt-level"),
            std::string::npos);
  EXPECT_TRUE(hooks.before.empty());
}

} // namespace
