//===- q2-opt.cpp - the q2 optimizer driver -------------------------------===//
//
// Behaves like mlir-opt for the dialects and passes of the QPE pipeline.
// The profiling driver (--qpe-pipeline, --profile-stages, --run) is layered
// on top of this in lib/Pipeline; until it lands every invocation goes to
// MlirOptMain.
//
//===----------------------------------------------------------------------===//
#include "q2/InitQ2.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

int main(int argc, char **argv) {
  // One diagnostic per error: unless asked otherwise, do not append the
  // generic form of the failing op as a note (mlir-opt's default does).
  std::vector<char *> args(argv, argv + argc);
  bool userChose = false;
  for (int i = 1; i < argc; ++i)
    userChose |= llvm::StringRef(argv[i]).contains("mlir-print-op-on-diagnostic");
  static char quietOpFlag[] = "--mlir-print-op-on-diagnostic=false";
  if (!userChose)
    args.insert(args.begin() + 1, quietOpFlag);

  mlir::DialectRegistry registry;
  q2::registerQ2Dialects(registry);
  q2::registerQ2Passes();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      static_cast<int>(args.size()), args.data(),
      "q2-opt: the q2 QPE compiler and profiler\n", registry));
}
