//===- PhaseA.cpp - Hamiltonian inputs of q2-opt ---------------------------===//
//
// What an input is (MLIR, an object, a Hamiltonian, or none of them), and
// Phase A for a Hamiltonian: read it and map it to qubits ("Hamiltonian"),
// then plan and build the stage-0 program as q2-qpe does ("Program", through
// buildProgramText and so q2::qpe::planProgram), each a measured stage.
//
//===----------------------------------------------------------------------===//
#include "DriverInternal.h"

#include "q2/Hamiltonian/QubitHamiltonian.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace q2;
using namespace q2::driver;
using namespace q2::driver::detail;
namespace ham = q2::hamiltonian;
namespace prof = q2::profiling;

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
  llvm::StringRef word =
      t.take_while([](char c) { return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$'; });
  return word == "module" || (word.contains('.') && llvm::isAlpha(word[0]));
}

} // namespace

InputKind q2::driver::detail::classifyInput(llvm::StringRef path,
                                            llvm::StringRef contents) {
  if (contents.starts_with("\x7f" "ELF"))
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

bool q2::driver::detail::isHamiltonian(InputKind k) {
  return k == InputKind::FCIDump || k == InputKind::HamiltonianJSON ||
         k == InputKind::OpenFermion;
}

llvm::Error q2::driver::detail::unknownInputError(llvm::StringRef path) {
  return llvm::createStringError(
      "'" + path +
      "' is neither MLIR nor a known Hamiltonian format; q2-opt reads MLIR "
      "(a q2-qpe program, or any .mlir file), FCIDUMP ('&FCI ...'), "
      "qubit-Hamiltonian JSON ('{...}'), OpenFermion term lines "
      "('-0.045 X0 X1 Y2 Y3') and objects it wrote (ELF)");
}

llvm::Expected<std::string>
q2::driver::detail::runPhaseA(llvm::StringRef contents, llvm::StringRef path,
                              InputKind kind,
                              const qpe::ProgramRequest &request,
                              prof::ProfilingSession *session,
                              prof::PhaseARecord &rec) {
  rec.format = kind == InputKind::FCIDump           ? "fcidump"
               : kind == InputKind::HamiltonianJSON ? "json"
                                                    : "openfermion";
  rec.nEst = request.nEst;
  rec.nTrotter = request.nTrotter;
  rec.resolution = request.resolution;
  rec.mode = qpe::toString(request.mode).str();
  // The stage records, when profiling, for the summary below.
  auto finished = [&](std::optional<prof::ScopedStage> &stage) {
    return stage ? stage->finish() : nullptr;
  };
  auto summarize = [&](const prof::StageRecord *s, double &wall) {
    if (!s)
      return;
    wall = s->wallS;
    rec.wallS += s->wallS;
    rec.cpuS += s->cpuS;
    rec.peakRSS = std::max(rec.peakRSS, s->peakRSS);
  };

  std::optional<ham::QubitHamiltonian> h;
  {
    std::optional<prof::ScopedStage> stage;
    if (session)
      stage.emplace(*session, "Hamiltonian", prof::StageKind::Input);
    auto read = ham::parseHamiltonianBuffer(contents, path,
                                            llvm::sys::path::stem(path));
    if (!read)
      return read.takeError();
    h = std::move(*read);
    summarize(finished(stage), rec.hamiltonianS);
  }
  rec.nQubits = h->numQubits;
  rec.nElectrons = h->numElectrons;
  rec.nTerms = h->terms.size();

  std::optional<prof::ScopedStage> stage;
  if (session)
    stage.emplace(*session, "Program", prof::StageKind::Input);
  auto text = buildProgramText(*h, request);
  if (!text)
    return text.takeError();
  summarize(finished(stage), rec.programS);
  rec.programBytes = text->size();
  return text;
}

std::string q2::driver::detail::formatPhaseA(llvm::StringRef path,
                                             const prof::PhaseARecord &a) {
  return llvm::formatv("Phase A: {0} ({1}): {2} qubits, {3} electrons, {4} "
                       "Pauli terms; Hamiltonian {5:F3} s, program {6:F3} s "
                       "({7} bytes), peak RSS {8:F1} MB\n",
                       llvm::sys::path::filename(path), a.format, a.nQubits,
                       a.nElectrons, a.nTerms, a.hamiltonianS, a.programS,
                       a.programBytes, double(a.peakRSS) / 1e6)
      .str();
}
