//===- ProgramInput.cpp - What a compile session reads --------------------===//
//
// What an input is (MLIR, an object, a Hamiltonian, or none of them); the
// stage-0 program of a Hamiltonian, planned by q2::qpe::planProgram and
// written as q2-qpe writes it; the report's `ir` of every file of an
// --ir-dir directory.
//
//===----------------------------------------------------------------------===//
#include "q2/Session/ProgramInput.h"

#include "q2/Hamiltonian/Hamiltonian.h"
#include "q2/Pipeline/Pipeline.h"
#include "q2/Profiling/MLIR/IRMetrics.h"
#include "q2/QPE/ProgramPlan.h"
#include "q2/ProgramBuilder/QPEProgram.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace q2;
using namespace q2::session;
namespace ham = q2::hamiltonian;

namespace {

/// The first line that is not blank and not an OpenFermion comment ("# ..."
/// with a blank after '#', or a "#key: value" directive; an MLIR alias is
/// "#map = ...").
llvm::StringRef firstContentLine(llvm::StringRef text) {
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    llvm::StringRef t = line.trim();
    if (t.empty())
      continue;
    if (t == "#" || (t.starts_with("#") && llvm::isSpace(t[1])))
      continue;
    // "#n_qubits: 4": a term file's directive ("#map = ..." is MLIR's).
    if (t.starts_with("#") &&
        t.drop_front()
            .drop_while([](char c) { return llvm::isAlnum(c) || c == '_'; })
            .ltrim()
            .starts_with(":"))
      continue;
    return t;
  }
  return "";
}

/// Whether `t` (a first line) starts as MLIR can: a comment, a quoted
/// (generic) op, an alias, a value or block name, `module`, or a dialect op
/// name such as func.func.
bool startsLikeMLIR(llvm::StringRef t) {
  if (t.starts_with("//") || t.starts_with("\"") || t.starts_with("#") ||
      t.starts_with("!") || t.starts_with("%") || t.starts_with("^"))
    return true;
  llvm::StringRef word = t.take_while([](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
  });
  return word == "module" || (word.contains('.') && llvm::isAlpha(word[0]));
}

} // namespace

InputKind q2::session::classifyInput(llvm::StringRef path,
                                     llvm::StringRef contents) {
  if (contents.starts_with("\x7f"
                           "ELF"))
    return InputKind::Object;
  // A .mlir file is MLIR, broken or not: the parser says where.
  if (llvm::sys::path::extension(path) == ".mlir")
    return InputKind::MLIR;
  llvm::StringRef t = firstContentLine(contents);
  if (t.starts_with("&") || t.starts_with("$"))
    return InputKind::FCIDump;
  if (t.starts_with("{") || t.starts_with("["))
    return InputKind::HamiltonianJSON;
  // A term line: "-0.045 X0 X1 Y2 Y3" or "(-0.045+0j) [X0 X1 Y2 Y3]".
  if (!t.empty() && (llvm::isDigit(t[0]) || t[0] == '-' || t[0] == '+' ||
                     t[0] == '.' || t[0] == '('))
    return InputKind::OpenFermion;
  // Nothing but OpenFermion comments is an (empty) term file.
  if (t.empty() && contents.ltrim().starts_with("#"))
    return InputKind::OpenFermion;
  if (t.empty() || startsLikeMLIR(t))
    return InputKind::MLIR;
  return InputKind::Unknown;
}

bool q2::session::isHamiltonian(InputKind k) {
  return k == InputKind::FCIDump || k == InputKind::HamiltonianJSON ||
         k == InputKind::OpenFermion;
}

llvm::Error q2::session::unknownInputError(llvm::StringRef path) {
  return llvm::createStringError(
      "'" + path +
      "' is neither MLIR nor a known Hamiltonian format; q2-opt reads MLIR "
      "(a q2-qpe program, or any .mlir file), FCIDUMP ('&FCI ...'), "
      "qubit-Hamiltonian JSON ('{...}'), OpenFermion term lines "
      "('-0.045 X0 X1 Y2 Y3') and objects it wrote (ELF)");
}

llvm::Expected<std::string>
q2::session::buildProgramText(llvm::StringRef path,
                              const qpe::ProgramRequest &spec) {
  auto h = ham::loadHamiltonian(path);
  if (!h)
    return h.takeError();
  return buildProgramText(*h, spec);
}

llvm::Expected<std::string>
q2::session::buildProgramText(const ham::QubitHamiltonian &h,
                              const qpe::ProgramRequest &spec) {
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

llvm::Expected<std::vector<StageIR>>
q2::session::analyzeIRStages(llvm::StringRef dir,
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
