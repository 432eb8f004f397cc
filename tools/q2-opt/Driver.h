//===- Driver.h - the q2-opt QPE driver -------------------------*- C++ -*-===//
#ifndef Q2_TOOLS_Q2OPT_DRIVER_H
#define Q2_TOOLS_Q2OPT_DRIVER_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace q2::driver {
/// Registers the driver's command-line options (before parsing).
void registerDriverOptions();
/// True when the command line asks for the QPE driver rather than the
/// mlir-opt behaviour.
bool driverRequested();
/// Runs the six-stage pipeline on `input`; returns the process exit code.
int runDriver(llvm::StringRef input, llvm::StringRef output,
              mlir::DialectRegistry &registry);
} // namespace q2::driver

#endif
