//===- Circuit.h - A loaded QPE program, called many times ------*- C++ -*-===//
//
// The loaded-program API: a stage-6 object linked against the runtime
// (QPEExecutable) together with what it is (QPEMetadata), the runtime's
// limits and threads for its calls, and the decoding of each call into an
// energy. q2-opt's Phase C, the Python module and the benchmarks use it.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_JIT_CIRCUIT_H
#define Q2_JIT_CIRCUIT_H

#include "q2/Profiling/Report.h"
#include "q2/QPE/QPEMetadata.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace q2::jit {

class QPEExecutable;

/// Refuses a program whose register or result cannot be allocated, before
/// anything is (names the sizes and the limit; `maxQubits` 0 = the
/// runtime's default, q2/Runtime/Limits.h). A register above the default
/// limit (an explicit `maxQubits` caps the register whatever the path) is
/// accepted when one of the runtime's subspace paths can run it
/// (docs/runtime-blocks.md): the eigenphase path for power = repeat with one
/// Trotter step count, when the system's live subspace (the span of the
/// Pauli words' X parts) passes limits::eigenphaseRefusal, or the
/// live-subspace path when 2^(n_est + its dimension) amplitudes fit; the
/// error then names that subspace.
llvm::Error checkRunnable(const qpe::QPEMetadata &md, int64_t maxQubits);
/// Dimension of the system register's live subspace: the GF(2) rank of the
/// X parts of the program's Pauli words (the flips its Trotter step makes).
int64_t liveSystemQubits(const qpe::QPEMetadata &md);
/// For a valid program whose register is above the limit: the phase_c
/// record of a skipped run (checkRunnable's message as the reason).
std::optional<profiling::PhaseCRecord> skippedRun(const qpe::QPEMetadata &md,
                                                  int64_t maxQubits);

/// A loaded program that can be called many times. Not thread-safe.
class Circuit {
public:
  /// Links `object` against the runtime. Refuses, before allocating
  /// anything, programs whose register or result would not fit (`maxQubits`
  /// 0 = what fits in 80 % of RAM). `digestChecked`: the object's digest
  /// was checked already (qpe::readObjectMetadata), so it is not hashed twice.
  static llvm::Expected<std::unique_ptr<Circuit>>
  load(llvm::ArrayRef<char> object, const qpe::QPEMetadata &md,
       const std::string &runtimeLib = "", int64_t maxQubits = 0,
       bool digestChecked = false);
  ~Circuit();
  /// One call; `coeffs` empty means the default coefficients. `out` gets
  /// 2^n_est probabilities.
  llvm::Error run(llvm::ArrayRef<double> coeffs,
                  llvm::MutableArrayRef<double> out);
  /// One call, decoded.
  llvm::Expected<qpe::QPEResult> call(llvm::ArrayRef<double> coeffs = {});
  /// One call into the caller's buffer (2^n_est entries), decoded without
  /// copying it: the result's `probs` stays empty. Allocation-free.
  llvm::Expected<qpe::QPEResult> callInto(llvm::ArrayRef<double> coeffs,
                                          llvm::MutableArrayRef<double> out);
  /// Threads of the runtime's kernels for this circuit's calls (<= 0: all
  /// cores); the count in use. The runtime's thread count and qubit limit
  /// are process-wide: each call sets this circuit's before it runs.
  int setThreads(int n);
  int threads() const;
  /// How the powered blocks of the calls since the last reset were applied.
  std::vector<profiling::BlockRecord> blockStats() const;
  void resetBlockStats();
  /// Calls fn after each powered block of the following calls (null: off).
  void setBlockProgress(void (*fn)(void *, int64_t, double, int32_t),
                        void *user);
  /// Calls fn when a long stage of a subspace path starts (the runtime's
  /// q2_rt_set_stage_progress: path, stage, subspace dimension; null: off).
  void setStageProgress(void (*fn)(void *, int32_t, const char *, int64_t),
                        void *user);
  /// How the runtime ran the register of the last call (absent when it was
  /// a state vector from the start).
  std::optional<profiling::PathRecord> lastPath() const;
  const qpe::QPEMetadata &metadata() const { return md; }
  const std::string &runtimeLibrary() const;

private:
  Circuit() = default;
  qpe::QPEMetadata md;
  std::unique_ptr<QPEExecutable> exe;
  struct RuntimeControl;
  std::unique_ptr<RuntimeControl> rt;
  int64_t maxQubits = 0; // this circuit's limit (0: the default)
  int threadsWanted = 0; // as given to setThreads
  int threadsInUse = 0;  // what the runtime made of it
};

} // namespace q2::jit

#endif // Q2_JIT_CIRCUIT_H
