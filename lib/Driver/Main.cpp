//===- Main.cpp - q2-opt's main -------------------------------------------===//
//
// Two modes over one registry:
//  - mlir-opt mode (no driver flag): exactly MlirOptMain (--pass-pipeline,
//    --split-input-file, --verify-diagnostics, ...) on the pipeline's
//    dialects and passes;
//  - the QPE driver (--qpe-pipeline, --profile-stages, any other driver flag,
//    or an object file as input): runDriver().
//
//===----------------------------------------------------------------------===//
#include "q2/Driver/Driver.h"
#include "q2/InitQ2.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

#include <cstdio>

/// Whether the input starts like an ELF file (a saved object to run).
static bool inputIsObject(llvm::StringRef input) {
  if (input == "-")
    return false;
  char magic[4] = {};
  FILE *f = std::fopen(input.str().c_str(), "rb");
  if (!f)
    return false;
  size_t n = std::fread(magic, 1, 4, f);
  std::fclose(f);
  return n == 4 && llvm::StringRef(magic, 4) == "\x7f" "ELF";
}

int q2::driver::q2OptMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::DialectRegistry registry;
  q2::registerQ2Dialects(registry);
  q2::registerQ2Passes();
  registerCLOptions();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv,
      "q2-opt: the q2 QPE compiler and profiler\n\n"
      "Without driver flags it is mlir-opt for the pipeline's dialects and "
      "passes.\nWith --qpe-pipeline (or --profile-stages, or any option of "
      "the category\n\"q2 QPE driver options\") it compiles a QPE program "
      "through the six stages,\nand with --run executes it; an object file "
      "written by it can be run again.\n",
      registry);
  if (!driverFlagsGiven() && !inputIsObject(input))
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));
  auto opts = optionsFromCommandLine(input, output);
  if (!opts) {
    llvm::WithColor::error(llvm::errs(), "q2-opt")
        << llvm::toString(opts.takeError()) << "\n";
    return 1;
  }
  return runDriver(*opts, registry);
}
