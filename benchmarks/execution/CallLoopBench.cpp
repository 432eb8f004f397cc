//===- CallLoopBench.cpp - compile once, call many ------------------------===//
//
// bench-call-loop PROGRAM.mlir [--calls N] [--runtime-lib PATH]
//
// Compiles a q2-qpe program once (a compile session), loads it
// (jit::Circuit) and calls it N times (default 1000) with its default
// coefficients. Prints the median time per call and the RSS after call 10
// and after the last call: the per-call path must not allocate anything that
// grows with the number of calls (they must stay within 1 MB).
//
//===----------------------------------------------------------------------===//
#include "q2/JIT/Circuit.h"
#include "q2/Session/CompileSession.h"
#include "q2/InitQ2.h"
#include "q2/Profiling/Memory.h"
#include "q2/Profiling/Timing.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <string>

using namespace q2;

int main(int argc, char **argv) {
  std::string program, runtime;
  int calls = 1000;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--calls") && i + 1 < argc)
      calls = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--runtime-lib") && i + 1 < argc)
      runtime = argv[++i];
    else
      program = argv[i];
  }
  if (program.empty() || calls < 11) {
    llvm::errs() << "usage: bench-call-loop PROGRAM.mlir [--calls N>10] "
                    "[--runtime-lib PATH]\n";
    return 2;
  }
  auto text = readInputFile(program);
  if (!text) {
    llvm::errs() << llvm::toString(text.takeError()) << "\n";
    return 1;
  }
  mlir::DialectRegistry registry;
  registerQ2Dialects(registry);
  registerQ2Passes();
  session::SessionOptions so;
  auto prog = session::CompileSession::run(
      session::ProgramSource::fromText((*text)->getBuffer().str(), program), so,
      registry);
  if (!prog) {
    llvm::errs() << llvm::toString(prog.takeError()) << "\n";
    return 1;
  }
  auto circuit = jit::Circuit::load(prog->object, prog->metadata, runtime);
  if (!circuit) {
    llvm::errs() << llvm::toString(circuit.takeError()) << "\n";
    return 1;
  }
  std::vector<double> out(size_t(1) << prog->metadata.nEst);
  profiling::Stats times;
  uint64_t rss10 = 0;
  for (int c = 1; c <= calls; ++c) {
    double t0 = profiling::elapsedSeconds();
    if (llvm::Error e = (*circuit)->run({}, out)) {
      llvm::errs() << llvm::toString(std::move(e)) << "\n";
      return 1;
    }
    times.add(profiling::elapsedSeconds() - t0);
    if (c == 10) {
      auto r = profiling::readCurrentRSS();
      rss10 = r ? *r : 0;
      if (!r)
        llvm::consumeError(r.takeError());
    }
  }
  auto r = profiling::readCurrentRSS();
  uint64_t rssEnd = r ? *r : 0;
  if (!r)
    llvm::consumeError(r.takeError());
  double growth = (double(rssEnd) - double(rss10)) / 1e6;
  llvm::outs() << llvm::formatv(
      "{0} calls of {1}: median {2:F3} ms/call; RSS after call 10 {3:F2} MB, "
      "after call {0} {4:F2} MB: growth {5:F3} MB (target < 1 MB) {6}\n",
      calls, prog->metadata.molecule, times.median() * 1e3, rss10 / 1e6,
      rssEnd / 1e6, growth, growth < 1.0 ? "PASS" : "FAIL");
  return growth < 1.0 ? 0 : 1;
}
