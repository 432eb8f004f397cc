//===- q2-opt.cpp - the q2 optimizer driver -------------------------------===//
//
// Two modes over one registry:
//  - mlir-opt mode (default): --pass-pipeline, --split-input-file,
//    --verify-diagnostics, ... on the pipeline's dialects and passes;
//  - QPE driver mode (--qpe-pipeline / --profile-stages): the six stages on a
//    QPE program, with outputs and measurements (Driver.cpp).
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include "q2/InitQ2.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/InitLLVM.h"

#include <vector>

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // One diagnostic per error: unless asked otherwise, do not append the
  // generic form of the failing op as a note (mlir-opt's default does).
  std::vector<char *> args(argv, argv + argc);
  bool userChose = false;
  for (int i = 1; i < argc; ++i)
    userChose |= llvm::StringRef(argv[i]).contains("mlir-print-op-on-diagnostic");
  static char quietOpFlag[] = "--mlir-print-op-on-diagnostic=false";
  if (!userChose)
    args.insert(args.begin() + 1, quietOpFlag);
  int n = static_cast<int>(args.size());

  mlir::DialectRegistry registry;
  q2::registerQ2Dialects(registry);
  q2::registerQ2Passes();
  q2::driver::registerDriverOptions();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      n, args.data(),
      "q2-opt: the q2 QPE compiler and profiler\n\n"
      "Without --qpe-pipeline/--profile-stages it behaves like mlir-opt.\n",
      registry);
  if (q2::driver::driverRequested())
    return q2::driver::runDriver(input, output, registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(n, args.data(), input, output, registry));
}
