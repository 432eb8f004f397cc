//===- InitQ2.h - dialect and pass registration -----------------*- C++ -*-===//
//
// What q2-opt registers: exactly the dialects, interfaces and passes the QPE
// pipeline needs (not InitAllDialects/InitAllPasses: fewer symbols to
// resolve at start-up and far less to compile on small machines).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_INITQ2_H
#define Q2_INITQ2_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace q2 {
/// Dialects of the pipeline (builtin, func, arith, math, scf, cf, tensor,
/// linalg, tosa, memref, bufferization, llvm, quantum) and the external
/// interface models they need (bufferization, inlining, LLVM translation).
void registerQ2Dialects(mlir::DialectRegistry &registry);
/// Only the quantum and qpe dialects (what the mlir-opt plugin adds).
void registerQuantumDialect(mlir::DialectRegistry &registry);
/// Upstream passes used by the stages plus all q2 passes and pipelines.
void registerQ2Passes();
/// Only the q2 passes and pipelines; skips those already registered, so
/// loading the plugin into a tool that has them is harmless.
void registerQ2PassesOnce();
} // namespace q2

#endif
