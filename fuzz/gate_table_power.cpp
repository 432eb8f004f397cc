// libFuzzer target: MLIR text with quantum.gate_table and quantum.power
// (seeds: the lit tests using them) through parse, verify and the six
// compilation stages; a program with qpe.metadata is compiled the way
// q2.compile(text) does it (session::CompileSession::run) and, if that succeeds,
// loaded (jit::Circuit::load, at most 10 qubits) and called once with its
// default coefficients. Programs with scf loops are compiled, not run (a
// mutated bound would only make the run slow). The LLVM optimization level
// (0-3) is picked from the text's hash, so every level sees inputs.
#include "q2/JIT/Circuit.h"
#include "q2/Session/CompileSession.h"
#include "q2/InitQ2.h"
#include "q2/Pipeline/Pipeline.h"
#include "q2/QPE/QPEMetadata.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/Hashing.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace {

/// Deepest bracket nesting (the upstream parser recurses per level: a stack
/// overflow on thousands of levels is out of scope, as in quantum_dialect.cpp).
int nestingDepth(llvm::StringRef text) {
  int depth = 0, deepest = 0;
  for (char c : text) {
    if (c == '{' || c == '(' || c == '[' || c == '<')
      deepest = std::max(deepest, ++depth);
    else if ((c == '}' || c == ')' || c == ']' || c == '>') && depth > 0)
      --depth;
  }
  return deepest;
}

mlir::DialectRegistry &registry() {
  static mlir::DialectRegistry *r = [] {
    auto *reg = new mlir::DialectRegistry();
    q2::registerQ2Dialects(*reg);
    q2::registerQ2Passes();
    return reg;
  }();
  return *r;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A copy with a NUL after it, as MLIR's lexer expects (quantum_dialect.cpp).
  const std::string text(reinterpret_cast<const char *>(data), size);
  if (size > 16 * 1024 || nestingDepth(text) > 100)
    return 0;
  q2::pipeline::PipelineOptions opts;
  opts.optLevel = unsigned(llvm::hash_value(llvm::StringRef(text)) % 4);

  if (llvm::StringRef(text).contains("qpe.metadata")) {
    // q2.compile(text): compile, load, call.
    q2::session::SessionOptions so;
    so.pipeline = opts;
    auto prog = q2::session::CompileSession::run(
        q2::session::ProgramSource::fromText(text, "fuzz.mlir"), so,
        registry());
    if (!prog) {
      llvm::consumeError(prog.takeError());
      return 0;
    }
    if (llvm::StringRef(text).contains("scf."))
      return 0;
    auto circuit = q2::jit::Circuit::load(prog->object, prog->metadata, "",
                                          /*maxQubits=*/10);
    if (!circuit) {
      llvm::consumeError(circuit.takeError());
      return 0;
    }
    auto r = (*circuit)->call();
    if (!r)
      llvm::consumeError(r.takeError());
    return 0;
  }

  // No metadata: parse, verify and lower as q2-qpe-pipeline would.
  mlir::MLIRContext ctx(registry(), mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  mlir::ParserConfig config(&ctx, /*verifyAfterParse=*/true);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config, "fuzz.mlir");
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  auto object = q2::pipeline::compileToObject(*module, opts);
  if (!object)
    llvm::consumeError(object.takeError());
  return 0;
}
