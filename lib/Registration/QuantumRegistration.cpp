//===- QuantumRegistration.cpp - what the plugin registers ----------------===//
//
// Kept apart from InitQ2.cpp so that the plugin links only this object and
// none of the upstream registrations (each would cost relocations at load).
//
//===----------------------------------------------------------------------===//
#include "q2/InitQ2.h"

#include "q2/Conversion/Passes.h"
#include "q2/Dialect/QPE/IR/QPEDialect.h"
#include "q2/Dialect/Quantum/IR/QuantumDialect.h"
#include "q2/Dialect/Quantum/Transforms/Passes.h"
#include "q2/Pipeline/Passes.h"
#include "q2/Profiling/MLIR/ProfilePass.h"
#include "q2/Profiling/MLIR/SnapshotPass.h"
#include "q2/Session/QPEPipelinePass.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"

void q2::registerQuantumDialect(mlir::DialectRegistry &registry) {
  // The quantum dialect and the `qpe` dialect of the programs' metadata.
  registry.insert<q2::quantum::QuantumDialect, q2::qpe::QPEDialect>();
  q2::quantum::registerBufferizableOpInterfaceExternalModels(registry);
}

void q2::registerQ2PassesOnce() {
  // The generated registration aborts on a duplicate name; a tool that
  // already links the q2 passes (q2-opt) may still load the plugin.
  if (mlir::PassInfo::lookup("quantum-cancel-inverses"))
    return;
  q2::quantum::registerQuantumPasses();
  q2::registerQ2ConversionPasses();
  q2::pipeline::registerPipelines();
  q2::session::registerQPEPipelinePass();
  q2::profiling::registerSnapshotPass();
  q2::profiling::registerProfilePass();
}
