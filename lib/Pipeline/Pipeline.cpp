//===- Pipeline.cpp - the six stages of the QPE pipeline ------------------===//
//
// Stages 1-4 are textual pass pipelines (the same text a user can pass to
// --pass-pipeline, see docs/pipeline.md); stages 5-6 are C++ passes.
//
//===----------------------------------------------------------------------===//
#include "q2/Pipeline/Pipeline.h"
#include "q2/Pipeline/SnapshotPass.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace q2::pipeline;

static const char *const kStageNames[] = {"HLOLowering",   "QuantumLowering",
                                          "Bufferization", "LLVMDialect",
                                          "LLVMIR",        "ObjectCode"};

llvm::StringRef q2::pipeline::stageName(Stage s) {
  return kStageNames[static_cast<unsigned>(s) - 1];
}

std::optional<Stage> q2::pipeline::parseStage(llvm::StringRef s) {
  unsigned n;
  if (!s.getAsInteger(10, n))
    return n >= 1 && n <= kNumStages ? std::optional(stageAt(n)) : std::nullopt;
  for (unsigned i = 1; i <= kNumStages; ++i)
    if (s.equals_insensitive(kStageNames[i - 1]))
      return stageAt(i);
  return std::nullopt;
}

/// The textual pipeline of stages 1-4.
static std::string stageText(Stage s, const PipelineOptions &o) {
  switch (s) {
  case Stage::HLOLowering:
    return "func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,"
           "tosa-to-tensor),linalg-generalize-named-ops,"
           "linalg-fuse-elementwise-ops,q2-scalarize-elementwise-extract,"
           "canonicalize,cse";
  case Stage::QuantumLowering: {
    std::string text = llvm::formatv(
        "func.func(quantum-lower-ctrl-adj,"
        "quantum-decompose-pauli-rot{{keep-native={0}},"
        "quantum-cancel-inverses,quantum-merge-rotations)",
        o.keepNativePauli ? "true" : "false");
    if (o.unroll)
      text += ",canonicalize,func.func(quantum-unroll),canonicalize,"
              "func.func(quantum-cancel-inverses,quantum-merge-rotations)";
    return text + ",canonicalize,cse";
  }
  case Stage::Bufferization:
    return "one-shot-bufferize{bufferize-function-boundaries "
           "function-boundary-type-conversion=identity-layout-map},"
           "buffer-results-to-out-params{hoist-static-allocs "
           "modify-public-functions},"
           "func.func(ownership-based-buffer-deallocation),"
           "buffer-deallocation-simplification,"
           "bufferization-lower-deallocations,canonicalize,cse,"
           "func.func(convert-linalg-to-loops)";
  case Stage::LLVMDialect:
    return "func.func(convert-scf-to-cf),convert-quantum-to-llvm,"
           "convert-arith-to-llvm,convert-math-to-llvm,"
           "expand-strided-metadata,finalize-memref-to-llvm,"
           "convert-func-to-llvm,convert-cf-to-llvm,convert-index-to-llvm,"
           "reconcile-unrealized-casts,canonicalize";
  case Stage::LLVMIR:
  case Stage::ObjectCode:
    break;
  }
  llvm_unreachable("stages 5 and 6 are C++ passes");
}

void q2::pipeline::buildStage(OpPassManager &pm, Stage s,
                              const PipelineOptions &opts,
                              std::shared_ptr<Artifacts> artifacts) {
  if (s == Stage::LLVMIR) {
    pm.addPass(createLLVMIRStagePass(opts.optLevel, std::move(artifacts)));
    return;
  }
  if (s == Stage::ObjectCode) {
    pm.addPass(createObjectCodeStagePass(opts.optLevel, std::move(artifacts)));
    return;
  }
  std::string text = stageText(s, opts);
  std::string err;
  llvm::raw_string_ostream os(err);
  // The text only names passes that registerQ2Passes() registers; a parse
  // failure is a build/registration bug, not bad input.
  if (failed(parsePassPipeline(text, pm, os)))
    llvm::report_fatal_error(llvm::Twine("q2: cannot build stage ") +
                             stageName(s) + ": " + err);
}

namespace {
struct StageCLOptions : PassPipelineOptions<StageCLOptions> {
  Option<bool> keepNativePauli{
      *this, "keep-native-pauli",
      llvm::cl::desc("Keep pauli_rot for the runtime (no decomposition)"),
      llvm::cl::init(false)};
  Option<bool> unroll{*this, "unroll",
                      llvm::cl::desc("Fully unroll loops in QuantumLowering"),
                      llvm::cl::init(false)};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("LLVM optimization level 0-3"),
                            llvm::cl::init(2)};
  Option<std::string> output{
      *this, "output",
      llvm::cl::desc("Stage 5: write the .ll here; stage 6 and "
                     "q2-qpe-pipeline: write the object here")};
  Option<bool> profile{
      *this, "profile",
      llvm::cl::desc("q2-qpe-pipeline: insert q2-snapshot passes before the "
                     "first stage (label Input) and after each stage "
                     "(labelled with the stage name); needs report=. "
                     "Default: on if report= is given")};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("q2-qpe-pipeline: JSON report the snapshots are "
                     "appended to (schema q2.snapshots/1)")};
  PipelineOptions get() const {
    PipelineOptions o;
    o.keepNativePauli = keepNativePauli;
    o.unroll = unroll;
    o.optLevel = std::min(3u, static_cast<unsigned>(optLevel));
    return o;
  }
};

const char *const kStageArgs[] = {"q2-hlo-lowering",   "q2-quantum-lowering",
                                  "q2-bufferization",  "q2-llvm-dialect",
                                  "q2-llvm-ir",        "q2-object-code"};
} // namespace

void q2::pipeline::registerPipelines() {
  for (unsigned i = 1; i <= kNumStages; ++i) {
    Stage s = stageAt(i);
    std::string desc = llvm::formatv("QPE stage {0}: {1}", i, stageName(s));
    PassPipelineRegistration<StageCLOptions>(
        kStageArgs[i - 1], desc,
        [s](OpPassManager &pm, const StageCLOptions &o) {
          if (s == Stage::LLVMIR)
            pm.addPass(createLLVMIRStagePass(o.get().optLevel, nullptr, o.output));
          else if (s == Stage::ObjectCode)
            pm.addPass(createObjectCodeStagePass(o.get().optLevel, nullptr, o.output));
          else
            buildStage(pm, s, o.get(), nullptr);
        });
  }
  PassPipelineRegistration<StageCLOptions>(
      "q2-qpe-pipeline", "All six QPE stages, stage 0 MLIR to an object file",
      [](OpPassManager &pm, const StageCLOptions &o) {
        auto artifacts = std::make_shared<Artifacts>();
        // Snapshots bracket every stage with profile=true, or with report=
        // alone (unless profile=false): a report that is silently not
        // written would be a trap. An empty report is rejected by the first
        // snapshot pass at initialization, before any stage runs.
        bool profile = o.profile.hasValue() ? bool(o.profile) : !o.report.empty();
        auto snapshot = [&](llvm::StringRef label) {
          if (profile)
            pm.addPass(createSnapshotPass(label.str(), o.report, artifacts));
        };
        snapshot("Input");
        for (unsigned i = 1; i <= 4; ++i) {
          buildStage(pm, stageAt(i), o.get(), artifacts);
          snapshot(stageName(stageAt(i)));
        }
        pm.addPass(createLLVMIRStagePass(o.get().optLevel, artifacts));
        snapshot(stageName(Stage::LLVMIR));
        pm.addPass(createObjectCodeStagePass(o.get().optLevel, artifacts, o.output));
        snapshot(stageName(Stage::ObjectCode));
      });
  registerSnapshotPass();
}
