//===- DriverInternal.h - Pieces of the driver (private) --------*- C++ -*-===//
#ifndef Q2_LIB_DRIVER_DRIVERINTERNAL_H
#define Q2_LIB_DRIVER_DRIVERINTERNAL_H

#include "q2/Driver/Driver.h"
#include "q2/Profiling/Session.h"
#include "q2/Session/ProgramInput.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace q2::driver::detail {

/// --help shows the driver options, then the mlir-opt flags that matter and
/// q2's passes, then --help/--version; every other MLIR and LLVM option
/// only in --help-hidden. Call after registering every option, before
/// parsing.
void organizeHelp();

/// Refuses compile-only flags (DriverOptions::compileFlag) when the input
/// is an object file, and an object with nothing to do.
llvm::Error checkObjectInputFlags(const DriverOptions &opts);

/// The line printed before the stage table for a Hamiltonian input
/// ("Phase A: ...").
std::string formatHamiltonianSummary(llvm::StringRef path,
                                     const profiling::PhaseARecord &rec);

/// The compile cache (--cache-dir). An entry holds the object, the full key
/// it was made for and the object's checksum; a lookup checks all three, so
/// a damaged, truncated or foreign entry is reported ("corrupt") and
/// replaced, never used.
class CompileCache {
public:
  /// `keyText` names everything the object depends on (see cacheKey()).
  CompileCache(std::string dir, std::string keyText);
  /// The cached object, or none (status() says miss or corrupt, and why).
  std::optional<llvm::SmallVector<char, 0>> lookup();
  llvm::Error store(llvm::ArrayRef<char> object);
  const std::string &path() const { return file; }
  /// "hit", "miss" or "corrupt" after lookup().
  const std::string &status() const { return state; }
  const std::string &why() const { return reason; }

private:
  std::string dir, key, file, state = "miss", reason;
};

/// The cache key text: input bytes (hashed), every pipeline option, the
/// tool's build id, the LLVM version and the host CPU.
std::string cacheKey(llvm::StringRef input,
                     const pipeline::PipelineOptions &opts);

/// --coeffs (Phase C's reader, q2/Execution/PhaseC.h).
using execution::CoeffSet;
using execution::readCoeffSets;

} // namespace q2::driver::detail

#endif // Q2_LIB_DRIVER_DRIVERINTERNAL_H
