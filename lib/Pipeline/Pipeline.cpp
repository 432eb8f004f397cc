//===- Pipeline.cpp - The six stages of the QPE pipeline ------------------===//
//
// Stages 1-4 are textual pass pipelines (the same text a user can pass to
// --pass-pipeline, see docs/pipeline.md); stages 5-6 are in LLVMStages.cpp.
//
//===----------------------------------------------------------------------===//
#include "q2/Pipeline/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
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

std::string q2::pipeline::stageFileName(unsigned i) {
  if (i == 0)
    return "0_Input.mlir";
  Stage s = stageAt(i);
  const char *ext = s == Stage::LLVMIR       ? ".ll"
                    : s == Stage::ObjectCode ? ".o"
                                             : ".mlir";
  return llvm::formatv("{0}_{1}{2}", i, stageName(s), ext);
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

llvm::Error PipelineOptions::validate() const {
  if (optLevel > 3)
    return llvm::createStringError(
        llvm::formatv("opt-level (-O) must be 0, 1, 2 or 3, got {0}", optLevel));
  if (outlineGates == 1)
    return llvm::createStringError(
        "outline-gates must be 0 (off) or at least 2, got 1");
  return llvm::Error::success();
}

/// An option's value as reported (integers widen to int64).
template <class T> static PipelineOptions::Value toValue(const T &v) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string> ||
                std::is_same_v<T, double>)
    return v;
  else
    return int64_t(v);
}

void PipelineOptions::forEach(
    llvm::function_ref<void(llvm::StringRef, Value)> fn) const {
#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H) fn(N, toValue(F));
#include "q2/Pipeline/PipelineOptions.def"
}

std::string PipelineOptions::str() const {
  std::string out;
  forEach([&](llvm::StringRef name, Value v) {
    if (!out.empty())
      out += ' ';
    out += name.str() + "=";
    std::visit(
        [&](const auto &x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, bool>)
            out += x ? "true" : "false";
          else if constexpr (std::is_same_v<X, std::string>)
            out += x;
          else
            out += llvm::formatv("{0}", x).str();
        },
        v);
  });
  return out;
}

//===----------------------------------------------------------------------===//
// Stages 1-4
//===----------------------------------------------------------------------===//

/// The textual pipeline of stages 1-4.
static std::string stageText(Stage s, const PipelineOptions &o) {
  switch (s) {
  case Stage::HLOLowering:
    return "func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,"
           "tosa-to-tensor),linalg-generalize-named-ops,"
           "linalg-fuse-elementwise-ops,q2-scalarize-elementwise-extract,"
           "canonicalize{region-simplify=disabled},cse";
  case Stage::QuantumLowering: {
    std::string text = llvm::formatv(
        "func.func(quantum-lower-ctrl-adj,"
        "quantum-decompose-pauli-rot{{keep-native={0}},"
        "quantum-cancel-inverses,quantum-merge-rotations)",
        o.keepNativePauli ? "true" : "false");
    // Stages 1-2 have structured control flow only (one block per region):
    // region simplification finds nothing there, but walked every op of
    // the program after each of canonicalize's iterations.
    if (o.unroll)
      text += ",canonicalize{region-simplify=disabled},func.func(quantum-"
              "unroll),canonicalize{region-simplify=disabled},"
              "func.func(quantum-cancel-inverses,quantum-merge-rotations)";
    text += ",canonicalize{region-simplify=disabled},cse";
    if (o.powerBlocks)
      text += ",func.func(quantum-power-loops)";
    // Last, on the final gate sequence (powered bodies included): bounds
    // what stages 3-6 see per function (docs/pipeline.md). Blocks above a
    // quarter chunk are cut: a table pays off well before a full chunk.
    // A table's gates are data, so it holds 8 chunks' worth: LLVM pays a
    // fixed cost per function, which dominated stages 4-6 at 10^4 terms.
    return text + llvm::formatv(",quantum-outline-chunks{{"
                                "max-gates={0} min-gates={1} "
                                "max-table-gates={2}}",
                                o.outlineGates, o.outlineGates / 4,
                                8 * o.outlineGates)
                      .str();
  }
  case Stage::Bufferization:
    // q2-order-constant-globals right after the pass that creates the
    // globals: every later pass (and its --keep-intermediate=pass file and
    // per-pass IR figures) then sees the same IR in every run.
    return "one-shot-bufferize{bufferize-function-boundaries "
           "function-boundary-type-conversion=identity-layout-map},"
           "q2-order-constant-globals,"
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
           "reconcile-unrealized-casts,canonicalize,convert-qpe-to-llvm";
  case Stage::LLVMIR:
  case Stage::ObjectCode:
    break;
  }
  llvm_unreachable("stages 5 and 6 are functions, not pass pipelines");
}

void q2::pipeline::addStagePasses(OpPassManager &pm, Stage s,
                                  const PipelineOptions &opts) {
  std::string err;
  llvm::raw_string_ostream os(err);
  // The text only names passes that registerQ2Passes() registers; a parse
  // failure is a build/registration bug, not bad input.
  if (failed(parsePassPipeline(stageText(s, opts), pm, os)))
    llvm::report_fatal_error(llvm::Twine("q2: cannot build stage ") +
                             stageName(s) + ": " + err);
}

//===----------------------------------------------------------------------===//
// compile()
//===----------------------------------------------------------------------===//

CompileHooks::~CompileHooks() = default;

LogicalResult
CompileHooks::runStage(Stage s, ModuleOp module,
                       llvm::function_ref<void(OpPassManager &)> addPasses) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  configure(s, pm);
  addPasses(pm);
  return pm.run(module);
}

llvm::Expected<CompileResult>
q2::pipeline::compile(ModuleOp module, const PipelineOptions &opts, Stage last,
                      CompileHooks *hooks) {
  if (llvm::Error e = opts.validate())
    return std::move(e);
  CompileHooks defaults;
  CompileHooks &h = hooks ? *hooks : defaults;
  CompileResult result;
  result.last = last;
  auto failedStage = [](Stage s, const llvm::Twine &why) {
    return llvm::createStringError(llvm::formatv("stage {0} ({1}) failed",
                                                 stageIndex(s), stageName(s)) +
                                   (why.isTriviallyEmpty() ? "" : ": ") + why);
  };
  auto step = [&](const StepEvent &e) { h.step(e); };
  for (unsigned i = 1; i <= stageIndex(last); ++i) {
    Stage s = stageAt(i);
    h.beforeStage(s);
    StageOutput out{s, module, nullptr, {}};
    if (s == Stage::LLVMIR) {
      result.llvmContext = std::make_unique<llvm::LLVMContext>();
      auto m = translateToLLVMIR(module, *result.llvmContext, opts, step);
      if (!m)
        return failedStage(s, llvm::toString(m.takeError()));
      result.llvmModule = std::move(*m);
      out.llvmModule = result.llvmModule.get();
    } else if (s == Stage::ObjectCode) {
      auto obj = emitObject(*result.llvmModule, opts, step);
      if (!obj)
        return failedStage(s, llvm::toString(obj.takeError()));
      result.object = std::move(*obj);
      out.object = result.object;
    } else if (failed(h.runStage(s, module, [&](OpPassManager &pm) {
                 addStagePasses(pm, s, opts);
               }))) {
      return failedStage(s, "");
    }
    if (llvm::Error e = h.afterStage(out))
      return std::move(e);
  }
  return std::move(result);
}

llvm::Expected<llvm::SmallVector<char, 0>>
q2::pipeline::compileToObject(ModuleOp module, const PipelineOptions &opts) {
  std::string diags;
  llvm::raw_string_ostream os(diags);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    os << d.getLocation() << ": " << d << "\n";
    return success();
  });
  auto r = compile(module, opts);
  if (!r)
    return llvm::createStringError(llvm::toString(r.takeError()) +
                                   (diags.empty() ? "" : "\n" + diags));
  return std::move(r->object);
}
