//===- Main.cpp - q2-opt's main -------------------------------------------===//
//
// Two modes over one registry:
//  - mlir-opt mode (no driver flag): exactly MlirOptMain (--pass-pipeline,
//    --split-input-file, --verify-diagnostics, ...) on the pipeline's
//    dialects and passes;
//  - the QPE driver (--qpe-pipeline, --profile-stages, any other driver flag,
//    or an input that is not MLIR: an object, a Hamiltonian): runDriver().
//
//===----------------------------------------------------------------------===//
#include "DriverInternal.h"
#include "q2/Driver/Driver.h"
#include "q2/InitQ2.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "q2/Support/FileIO.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"

#include <cstdio>

/// What the input file is, from its name and first bytes (stdin: MLIR, as
/// for mlir-opt).
static q2::session::InputKind inputKind(llvm::StringRef input) {
  using q2::session::InputKind;
  if (input == "-")
    return InputKind::MLIR;
  char head[4096];
  FILE *f = std::fopen(input.str().c_str(), "rb");
  if (!f)
    return InputKind::MLIR; // the reader says why
  size_t n = std::fread(head, 1, sizeof(head), f);
  std::fclose(f);
  return q2::session::classifyInput(input, llvm::StringRef(head, n));
}

/// MlirOptMain(argc, argv, input, output, registry), except that -o goes
/// through q2::writeFileAtomically: llvm::ToolOutputFile writes the final
/// name in place and deletes it on SIGHUP even under nohup, where the
/// process carries on and exits 0 with no output (issue 28).
static int mlirOptMode(llvm::StringRef input, llvm::StringRef output,
                       mlir::DialectRegistry &registry) {
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (input == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(input, &message);
  if (!file) {
    llvm::errs() << message << "\n";
    return 1;
  }
  // Passes that write files (q2-profile's report=) must not name -o: the
  // module written after them would replace what they wrote.
  q2::claimHostOutput(output, "-o");
  bool failed = false;
  llvm::Error e =
      q2::writeFileAtomically(output, [&](llvm::raw_ostream &os) {
        failed = mlir::failed(
            mlir::MlirOptMain(os, std::move(file), registry, config));
        // Diagnostics are out already; an error only keeps the file away.
        return failed ? llvm::createStringError("failed")
                      : llvm::Error::success();
      });
  if (failed) {
    llvm::consumeError(std::move(e));
    return 1;
  }
  if (e) {
    llvm::WithColor::error(llvm::errs(), "q2-opt")
        << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  return 0;
}

int q2::driver::q2OptMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::DialectRegistry registry;
  q2::registerQ2Dialects(registry);
  q2::registerQ2Passes();
  registerCLOptions();
  // mlir-opt's registration and parsing, with the help organized between.
  std::string header = mlir::registerCLIOptions(
      "q2-opt: the q2 QPE compiler and profiler\n\n"
      "  q2-opt --profile-stages h2.FCIDUMP    Phase A + the six stages + "
      "5 runs, with the table\n"
      "  q2-opt --profile-stages h2.mlir -o h2.o --report r.json\n"
      "  q2-opt --run 5 h2.o                   run a saved object\n"
      "  q2-opt --pass-pipeline=... in.mlir    mlir-opt (no driver flag)\n\n"
      "Inputs: MLIR, an FCIDUMP, qubit-Hamiltonian JSON or OpenFermion terms "
      "(built as q2-qpe\nbuilds them), or an object written by q2-opt. "
      "Docs: docs/pipeline.md, docs/report.md.\n",
      registry);
  detail::organizeHelp();
  auto [input, output] = mlir::parseCLIOptions(argc, argv, header);
  // An object, a Hamiltonian or an unknown input is the driver's, flags or
  // not: mlir-opt could only fail to parse it.
  if (!driverFlagsGiven() &&
      inputKind(input) == q2::session::InputKind::MLIR)
    return mlirOptMode(input, output, registry);
  auto opts = optionsFromCommandLine(input, output);
  if (!opts) {
    llvm::WithColor::error(llvm::errs(), "q2-opt")
        << llvm::toString(opts.takeError()) << "\n";
    return 1;
  }
  return runDriver(*opts, registry);
}
