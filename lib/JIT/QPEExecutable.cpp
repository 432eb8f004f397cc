//===- QPEExecutable.cpp - run the stage-6 object through ORC LLJIT -------===//
//
// Symbol binding is deliberately strict: the process generator refuses
// q2_rt_*, so a runtime symbol is either found in the runtime library given
// or reported as unresolved (never silently taken from whatever runtime the
// host process happens to have loaded).
//
//===----------------------------------------------------------------------===//
#include "q2/JIT/QPEExecutable.h"

#include "q2/Support/NativeTarget.h"
#include "q2/Support/ObjectDigest.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"

#include <cmath>
#include <cstdlib>
#include <mutex>

using namespace q2::jit;
using llvm::orc::DynamicLibrarySearchGenerator;
using llvm::orc::SymbolStringPtr;


std::string q2::jit::defaultRuntimeLibrary() {
  if (const char *env = std::getenv("Q2_RUNTIME_LIB"); env && *env)
    return env;
  llvm::SmallString<256> exe;
  if (llvm::sys::fs::real_path("/proc/self/exe", exe))
    return "libq2_runtime.so"; // let the loader search
  llvm::SmallString<256> lib = llvm::sys::path::parent_path(exe);
  llvm::sys::path::append(lib, "..", "lib", "libq2_runtime.so");
  return std::string(lib);
}

// The JIT goes first: its teardown may still call the error reporter, which
// writes into members declared after it.
QPEExecutable::~QPEExecutable() { jit.reset(); }

llvm::Expected<std::unique_ptr<QPEExecutable>>
QPEExecutable::load(llvm::ArrayRef<char> object, unsigned numCoeffs,
                    unsigned numOutQubits, const ExecutableOptions &options) {
  if (numOutQubits > 32)
    return llvm::createStringError(llvm::formatv(
        "q2-jit: {0} output qubits: the result would need 2^{0} doubles",
        numOutQubits));
  if (object.empty())
    return llvm::createStringError("q2-jit: empty object");
  // Nothing of a corrupted or edited object may reach the linker: a flipped
  // relocation crashes inside JITLink or in the linked code.
  if (!options.digestChecked)
    if (llvm::Error e = q2::checkObjectDigest(object, "q2-jit: object"))
      return std::move(e);
  q2::initializeNativeTarget();

  std::unique_ptr<QPEExecutable> exe(new QPEExecutable());
  exe->nCoeffs = numCoeffs;
  exe->nOut = numOutQubits;
  exe->runtimePath = options.runtimeLibrary.empty() ? defaultRuntimeLibrary()
                                                    : options.runtimeLibrary;
  if (!llvm::sys::fs::exists(exe->runtimePath))
    return llvm::createStringError("q2-jit: runtime library '" + exe->runtimePath +
                     "' not found (set Q2_RUNTIME_LIB or pass its path)");

  // The process-symbols JITDylib (last in the link order) gets a filtered
  // generator; the main JITDylib searches the runtime library first.
  auto jit =
      llvm::orc::LLJITBuilder()
          .setProcessSymbolsJITDylibSetup(
              [](llvm::orc::LLJIT &j) -> llvm::Expected<llvm::orc::JITDylibSP> {
                auto &jd =
                    j.getExecutionSession().createBareJITDylib("<Process>");
                auto notRuntime = [](const SymbolStringPtr &name) {
                  return !(*name).starts_with("q2_rt_");
                };
                auto gen = DynamicLibrarySearchGenerator::GetForCurrentProcess(
                    j.getDataLayout().getGlobalPrefix(), notRuntime);
                if (!gen)
                  return gen.takeError();
                jd.addGenerator(std::move(*gen));
                return &jd;
              })
          .create();
  if (!jit)
    return llvm::createStringError("q2-jit: cannot create the JIT: " +
                     llvm::toString(jit.takeError()));
  exe->jit = std::move(*jit);
  // Link failures (e.g. "Symbols not found: [ q2_rt_alloc ]") are reported
  // to the session, not in the lookup error: keep them for the message.
  exe->jit->getExecutionSession().setErrorReporter(
      [raw = exe.get()](llvm::Error err) {
        std::lock_guard<std::mutex> lock(raw->sessionErrorsMutex);
        if (!raw->sessionErrors.empty())
          raw->sessionErrors += "; ";
        raw->sessionErrors += llvm::toString(std::move(err));
      });
  llvm::orc::JITDylib &jd = exe->jit->getMainJITDylib();
  char prefix = exe->jit->getDataLayout().getGlobalPrefix();

  auto runtimeGen =
      DynamicLibrarySearchGenerator::Load(exe->runtimePath.c_str(), prefix);
  if (!runtimeGen)
    return llvm::createStringError("q2-jit: cannot load runtime library '" +
                     exe->runtimePath +
                     "': " + llvm::toString(runtimeGen.takeError()));
  jd.addGenerator(std::move(*runtimeGen));

  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(object.data(), object.size()), "qpe.o");
  if (llvm::Error err = exe->jit->addObjectFile(std::move(buffer)))
    return llvm::createStringError("q2-jit: cannot add the object: " +
                     llvm::toString(std::move(err)));

  // The first lookup links the object: unresolved symbols surface here.
  std::string cifaceName = "_mlir_ciface_" + options.entry;
  auto entry = exe->jit->lookup(cifaceName);
  if (!entry) {
    std::string lookupErr = llvm::toString(entry.takeError());
    std::lock_guard<std::mutex> lock(exe->sessionErrorsMutex);
    return llvm::createStringError("q2-jit: cannot link the compiled object (entry '" +
                     cifaceName + "'): " +
                     (exe->sessionErrors.empty()
                          ? lookupErr
                          : exe->sessionErrors + " (" + lookupErr + ")"));
  }
  exe->entry = entry->toPtr<void *>();

  auto lastErr = exe->lookup("q2_rt_last_error");
  if (!lastErr)
    return lastErr.takeError();
  auto clearErr = exe->lookup("q2_rt_clear_error");
  if (!clearErr)
    return clearErr.takeError();
  exe->lastError = reinterpret_cast<const char *(*)()>(*lastErr);
  exe->clearError = reinterpret_cast<void (*)()>(*clearErr);
  return std::move(exe);
}

llvm::Expected<void *> QPEExecutable::lookup(llvm::StringRef symbol) {
  auto addr = jit->lookup(symbol);
  if (!addr)
    return llvm::createStringError("q2-jit: cannot resolve '" + symbol + "' (runtime '" +
                     runtimePath + "'): " + llvm::toString(addr.takeError()));
  return addr->toPtr<void *>();
}

llvm::Error QPEExecutable::runInto(llvm::ArrayRef<double> coeffs,
                                   llvm::MutableArrayRef<double> out) {
  if (coeffs.size() != nCoeffs)
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        llvm::formatv("q2-jit: the program takes {0} coefficient(s), got {1}",
                      nCoeffs, coeffs.size()));
  uint64_t outSize = uint64_t(1) << nOut;
  if (out.size() != outSize)
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        llvm::formatv(
            "q2-jit: output buffer has {0} entries, the program writes {1}",
            out.size(), outSize));

  MemRef1D outDesc{out.data(), out.data(), 0, {int64_t(outSize)}, {1}};
  if (lastError())
    clearError();
  if (nCoeffs == 0) {
    reinterpret_cast<FixedFn>(entry)(&outDesc);
  } else {
    coeffCopy.assign(coeffs.begin(), coeffs.end());
    MemRef1D inDesc{coeffCopy.data(), coeffCopy.data(), 0,
                    {int64_t(nCoeffs)}, {1}};
    reinterpret_cast<DynamicFn>(entry)(&inDesc, &outDesc);
  }
  if (const char *msg = lastError()) {
    std::string text = msg;
    clearError();
    return llvm::createStringError("q2-jit: runtime error: " + text);
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<double>>
QPEExecutable::run(llvm::ArrayRef<double> coeffs) {
  std::vector<double> out(size_t(1) << nOut, 0.0);
  if (llvm::Error err = runInto(coeffs, out))
    return std::move(err);
  return out;
}
