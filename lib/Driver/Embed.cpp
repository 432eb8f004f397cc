//===- Embed.cpp - Entry points for embedders (the Python module) ---------===//
//
// buildProgramText: q2-qpe's Hamiltonian -> stage-0 program as a function
// (q2::qpe::planProgram plans the request, as for q2-qpe).
// analyzeIRStages: the report's `ir` of every file of an --ir-dir directory.
//
//===----------------------------------------------------------------------===//
#include "q2/Driver/Driver.h"
#include "q2/Hamiltonian/Hamiltonian.h"
#include "q2/Profiling/MLIR/IRMetrics.h"
#include "q2/QPE/ProgramPlan.h"
#include "q2/QPE/QPEProgram.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace q2;
namespace ham = q2::hamiltonian;

llvm::Expected<std::string>
q2::driver::buildProgramText(llvm::StringRef path, const ProgramSpec &spec) {
  auto h = ham::loadHamiltonian(path);
  if (!h)
    return h.takeError();
  return buildProgramText(*h, spec);
}

llvm::Expected<std::string>
q2::driver::buildProgramText(const ham::QubitHamiltonian &h,
                             const ProgramSpec &spec) {
  // Every option of the request (window, base time and shift included),
  // planned exactly as q2-qpe plans it.
  auto plan = qpe::planProgram(h, spec);
  if (!plan)
    return plan.takeError();
  mlir::MLIRContext ctx;
  std::string text;
  llvm::raw_string_ostream os(text);
  // As q2-qpe writes it.
  if (llvm::Error e =
          qpe::writeQPEProgram(os, ctx, h, plan->params, plan->options))
    return std::move(e);
  return text;
}

llvm::Expected<std::vector<driver::StageIR>>
q2::driver::analyzeIRStages(llvm::StringRef dir,
                            mlir::DialectRegistry &registry) {
  if (!llvm::sys::fs::is_directory(dir))
    return llvm::createStringError(
        std::make_error_code(std::errc::no_such_file_or_directory),
        "'" + dir + "' is not a directory");
  std::vector<StageIR> out;
  for (unsigned i = 0; i <= pipeline::kNumStages; ++i) {
    llvm::SmallString<256> p(dir);
    std::string file = pipeline::stageFileName(i);
    llvm::sys::path::append(p, file);
    if (!llvm::sys::fs::exists(p))
      continue;
    auto buf = readInputFile(p);
    if (!buf)
      return buf.takeError();
    llvm::StringRef text = (*buf)->getBuffer();
    StageIR s;
    s.stage = i == 0 ? "Input" : pipeline::stageName(pipeline::Stage(i)).str();
    s.file = file;
    llvm::StringRef ext = llvm::sys::path::extension(file);
    if (ext == ".o") {
      s.ir = profiling::measureBuffer(text, "object");
    } else if (ext == ".ll") {
      llvm::LLVMContext llctx;
      llvm::SMDiagnostic diag;
      auto m = llvm::parseIR((*buf)->getMemBufferRef(), diag, llctx);
      if (!m) {
        std::string msg;
        llvm::raw_string_ostream ms(msg);
        diag.print("", ms, /*ShowColors=*/false);
        return llvm::createStringError(
            std::make_error_code(std::errc::invalid_argument),
            std::string(p) + ": cannot parse LLVM IR: " + msg);
      }
      // Ops and histogram of the module, size of the file as it is.
      s.ir = profiling::measureIR(*m, /*countOps=*/true);
      profiling::IRMetrics file = profiling::measureBuffer(text, "llvm-ir");
      s.ir.bytes = file.bytes;
      s.ir.lines = file.lines;
    } else {
      mlir::MLIRContext ctx(registry);
      ctx.allowUnregisteredDialects(false);
      std::string diags;
      llvm::raw_string_ostream ds(diags);
      mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
        ds << d << "\n";
        return mlir::success();
      });
      llvm::SourceMgr sm;
      sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(text, p),
                            llvm::SMLoc());
      auto module = mlir::parseSourceFile<mlir::ModuleOp>(sm, &ctx);
      if (!module)
        return llvm::createStringError(
            std::make_error_code(std::errc::invalid_argument),
            std::string(p) + ": cannot parse MLIR: " + diags);
      s.ir = profiling::measureIRFromText(*module, text);
    }
    out.push_back(std::move(s));
  }
  return out;
}
