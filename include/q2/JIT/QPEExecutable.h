//===- QPEExecutable.h - run the stage-6 object through ORC LLJIT -*- C++ -*-===//
//
// What is compiled is what runs: the relocatable ELF object of stage 6 is
// linked in-process by an ORC LLJIT, its q2_rt_* calls bound to the runtime
// shared library (libq2_runtime.so) and malloc/free to the process, and the
// entry point is called through its MLIR C interface (see docs/execution.md).
// One load, any number of calls: in dynamic mode each call takes its own
// Hamiltonian coefficients. What the numbers mean (energies) is lib/QPE's.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_JIT_QPEEXECUTABLE_H
#define Q2_JIT_QPEEXECUTABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace q2::jit {

/// The MLIR descriptor of a rank-1 memref (what `_mlir_ciface_*` takes).
struct MemRef1D {
  double *allocated;
  double *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
};

struct ExecutableOptions {
  /// Path of libq2_runtime.so. Empty: defaultRuntimeLibrary().
  std::string runtimeLibrary;
  /// Name of the entry function (its C interface is `_mlir_ciface_<entry>`).
  std::string entry = "qpe";
  /// The caller has checked the digest of these very bytes
  /// (qpe::readObjectMetadata does): load() then does not hash them again.
  /// Anything read from a file or cache and not checked must leave it false.
  bool digestChecked = false;
};

/// $Q2_RUNTIME_LIB if set, else <dir of /proc/self/exe>/../lib/libq2_runtime.so.
std::string defaultRuntimeLibrary();

class QPEExecutable {
public:
  /// Links `object` into a new LLJIT. q2_rt_* symbols come only from the
  /// runtime library, everything else (malloc, free, memcpy, ...) from the
  /// process. Errors: missing runtime library, bad object, unresolved
  /// symbols (the message names them), missing entry point.
  /// `numCoeffs` = 0 means a fixed-mode program (`qpe(out)`), otherwise
  /// dynamic (`qpe(coeffs, out)`); the output has 2^numOutQubits doubles.
  static llvm::Expected<std::unique_ptr<QPEExecutable>>
  load(llvm::ArrayRef<char> object, unsigned numCoeffs, unsigned numOutQubits,
       const ExecutableOptions &options = {});

  ~QPEExecutable();
  QPEExecutable(const QPEExecutable &) = delete;
  QPEExecutable &operator=(const QPEExecutable &) = delete;

  /// One call of the entry point; returns the 2^numOutQubits probabilities.
  /// Not re-entrant on one executable (it keeps a coefficient buffer); use
  /// one executable per thread.
  /// `coeffs` must have numCoeffs() entries (none in fixed mode). A runtime
  /// error pending after the call (q2_rt_last_error) becomes the returned
  /// error and is cleared; a stale error pending before the call is cleared
  /// first so that it cannot turn the call into a no-op.
  llvm::Expected<std::vector<double>> run(llvm::ArrayRef<double> coeffs = {});
  /// As run(), writing into `out` (2^numOutQubits doubles, caller owned).
  llvm::Error runInto(llvm::ArrayRef<double> coeffs,
                      llvm::MutableArrayRef<double> out);

  unsigned numCoeffs() const { return nCoeffs; }
  unsigned numOutQubits() const { return nOut; }
  bool isDynamic() const { return nCoeffs != 0; }
  const std::string &runtimeLibrary() const { return runtimePath; }

  /// Address of a runtime (or any linked) symbol, e.g. "q2_rt_set_num_threads".
  llvm::Expected<void *> lookup(llvm::StringRef symbol);

private:
  QPEExecutable() = default;

  using FixedFn = void (*)(MemRef1D *);
  using DynamicFn = void (*)(MemRef1D *, MemRef1D *);
  std::unique_ptr<llvm::orc::LLJIT> jit;
  void *entry = nullptr;
  const char *(*lastError)() = nullptr;
  void (*clearError)() = nullptr;
  unsigned nCoeffs = 0, nOut = 0;
  std::string runtimePath;
  std::vector<double> coeffCopy; // the callee may treat its argument as writable
  std::mutex sessionErrorsMutex;
  std::string sessionErrors; // reported by ORC while linking
};

} // namespace q2::jit

#endif // Q2_JIT_QPEEXECUTABLE_H
