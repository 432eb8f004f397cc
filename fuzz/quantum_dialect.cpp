// libFuzzer target: parse + verify of MLIR text using the quantum dialect
// (ops, types; the #qpe.metadata attribute and its check against @qpe), with
// the upstream dialects QPE programs use.
#include "q2/Dialect/Quantum/IR/QuantumDialect.h"
#include "q2/Dialect/QPE/IR/QPEDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

/// Deepest bracket nesting of the text (a cheap upper bound of the parser's
/// recursion; '<' '>' clamp at zero since "->" closes nothing).
static int nestingDepth(llvm::StringRef text) {
  int depth = 0, deepest = 0;
  for (char c : text) {
    if (c == '{' || c == '(' || c == '[' || c == '<')
      deepest = std::max(deepest, ++depth);
    else if ((c == '}' || c == ')' || c == ']' || c == '>') && depth > 0)
      --depth;
  }
  return deepest;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // One context for the whole run (creating one per input costs more than
  // the parse); its uniqued attributes grow slowly, far below -rss_limit_mb.
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    registry.insert<q2::quantum::QuantumDialect, q2::qpe::QPEDialect,
                    mlir::func::FuncDialect,
                    mlir::arith::ArithDialect, mlir::math::MathDialect,
                    mlir::scf::SCFDialect, mlir::tensor::TensorDialect,
                    mlir::tosa::TosaDialect>();
    auto *c = new mlir::MLIRContext(registry,
                                    mlir::MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    return c;
  }();
  // The MLIR lexer relies on the NUL after the buffer (as every file read
  // through llvm::MemoryBuffer has, and so q2-opt's input); libFuzzer's data
  // has none, so the text is copied into a std::string.
  const std::string copy(reinterpret_cast<const char *>(data), size);
  llvm::StringRef text(copy.c_str(), size);
  // The upstream parser recurses per nesting level (a stack overflow on
  // thousands of nested regions or types is an upstream limitation, out of
  // scope of this target), so deeply nested inputs are skipped.
  if (size > 64 * 1024 || nestingDepth(text) > 100)
    return 0;
  mlir::ScopedDiagnosticHandler quiet(ctx, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  mlir::ParserConfig config(ctx, /*verifyAfterParse=*/true);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config, "fuzz.mlir");
  if (module)
    (void)mlir::verify(*module);
  return 0;
}
