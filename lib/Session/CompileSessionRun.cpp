//===- CompileSessionRun.cpp - A session to a loaded circuit --------------===//
//
// The part of the compile session that links the JIT (library Q2Session):
// loading the object, and run() from a program to a loaded circuit. The
// compile steps are Q2SessionCore's (CompileSession.cpp), so that the
// mlir-opt plugin's q2-qpe-pipeline pass compiles without the JIT.
//
//===----------------------------------------------------------------------===//
#include "q2/Session/CompileSession.h"

#include "q2/Support/FileIO.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace q2;
using namespace q2::session;

llvm::Expected<std::unique_ptr<jit::Circuit>>
CompileSession::load(bool digestChecked) {
  return jit::Circuit::load(compiled.object, *md, opts.runtimeLib,
                            opts.maxQubits, digestChecked);
}

llvm::Expected<CompiledProgram> CompileSession::run(const ProgramSource &source,
                                                    const SessionOptions &opts,
                                                    DialectRegistry &registry,
                                                    bool loadCircuit) {
  CompileSession s(opts, registry);
  // The error keeps its code (a missing file stays ENOENT) and gains the
  // diagnostics collected.
  auto failed = [&](llvm::Error e) -> llvm::Error {
    std::string msg;
    std::error_code ec = llvm::inconvertibleErrorCode();
    llvm::handleAllErrors(std::move(e), [&](const llvm::ErrorInfoBase &info) {
      msg = info.message();
      ec = info.convertToErrorCode();
    });
    if (!s.diags.empty() && msg + "\n" != s.diags)
      msg += "\n" + s.diags;
    while (!msg.empty() && msg.back() == '\n')
      msg.pop_back();
    return llvm::createStringError(ec, msg);
  };
  if (llvm::Error e = s.start(source.name))
    return failed(std::move(e));
  std::unique_ptr<llvm::MemoryBuffer> program;
  if (source.kind == ProgramSource::Kind::Text) {
    program = llvm::MemoryBuffer::getMemBufferCopy(source.text, source.name);
  } else {
    auto file = readInputFile(source.name);
    if (!file)
      return failed(file.takeError());
    llvm::StringRef contents = (*file)->getBuffer();
    InputKind kind = classifyInput(source.name, contents);
    if (kind == InputKind::Object)
      return failed(llvm::createStringError(
          std::make_error_code(std::errc::invalid_argument),
          "'" + source.name +
              "' is an object file: it is loaded, not compiled"));
    if (kind == InputKind::Unknown)
      return failed(unknownInputError(source.name));
    if (isHamiltonian(kind)) {
      auto text = s.buildProgram(contents, source.name, kind);
      if (!text)
        return failed(text.takeError());
      program = llvm::MemoryBuffer::getMemBufferCopy(*text, source.name);
    } else {
      program = std::move(*file);
    }
  }
  if (llvm::Error e = s.parse(std::move(program)))
    return failed(std::move(e));
  if (llvm::Error e = s.compile())
    return failed(std::move(e));
  s.finish(/*failed=*/false);
  CompiledProgram out;
  out.metadata = *s.md;
  out.object = std::move(s.compiled.object);
  if (s.prof)
    out.report = std::move(s.rep);
  if (loadCircuit) {
    auto c = jit::Circuit::load(out.object, out.metadata, opts.runtimeLib,
                                opts.maxQubits);
    if (!c)
      return failed(c.takeError());
    out.circuit = std::move(*c);
  }
  return std::move(out);
}
