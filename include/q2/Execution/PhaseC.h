//===- PhaseC.h - Running a compiled program, as a session step -*- C++ -*-===//
//
// Phase C: the object a compile session produced (or an object file) loaded
// through the JIT (stage "Load") and called for every coefficient set
// (stage "Execute"), with what q2-opt prints (energies, the error estimate,
// the blocks, a progress line) and the report's phase_c record. It is the
// session's Executor hook (q2/Session/CompileSession.h): the session
// sequences it, q2-opt and Python pass it, and the session itself (and the
// mlir-opt plugin with it) links no JIT.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_EXECUTION_PHASEC_H
#define Q2_EXECUTION_PHASEC_H

#include "q2/JIT/Circuit.h"
#include "q2/Session/CompileSession.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace q2::execution {

/// Calls per coefficient set when profiling implies Phase C (q2-opt
/// --profile-stages without --run).
inline constexpr int kImpliedRuns = 5;

/// What Phase C takes (declared once, in ExecuteOptions.def).
struct ExecuteOptions {
#define Q2_EXECUTE_OPTION(Type, Field, Default, Flag, ValueDesc, Help)         \
  Type Field = Default;
#include "q2/Execution/ExecuteOptions.def"
  /// A program above the register limit compiles and Phase C is recorded as
  /// skipped instead of failing: when the runs are only implied (q2-opt
  /// --profile-stages without --run, --coeffs, --threads, --runtime-lib).
  bool skipUnrunnable = false;
};

/// One coefficient set of Phase C.
struct CoeffSet {
  std::string label;
  std::vector<double> coeffs;
};
/// Reads --coeffs: a flat array (one set), an array of arrays, or
/// {"sets": [{"label": ..., "coeffs": [...]}, ...]}; every set has nTerms
/// finite numbers.
llvm::Expected<std::vector<CoeffSet>> readCoeffSets(llvm::StringRef path,
                                                    unsigned nTerms);

/// Phase C as the session's Executor. With runs = 0 nothing is loaded,
/// run or recorded.
class PhaseC : public session::Executor {
public:
  /// `out`: where the results are printed (null: nowhere).
  PhaseC(ExecuteOptions opts, llvm::raw_ostream *out = nullptr);
  ~PhaseC() override;

  /// The metadata's limits and the coefficient sets (--coeffs for a
  /// dynamic program, else the defaults), or the skipped record when the
  /// register cannot be allocated and skipUnrunnable is set.
  llvm::Error prepare(const qpe::QPEMetadata &md) override;
  session::ExecuteOutcome execute(llvm::ArrayRef<char> object,
                                  const qpe::QPEMetadata &md,
                                  profiling::ProfilingSession *profiler,
                                  bool digestChecked) override;

  ExecuteOptions &options() { return opts; }
  /// The circuit execute() loaded and ran (null before, with runs = 0, or
  /// after a failure to load), for the caller to call again.
  std::unique_ptr<jit::Circuit> takeCircuit() { return std::move(circuit); }

private:
  session::ExecuteOutcome skip();

  ExecuteOptions opts;
  llvm::raw_ostream *out;
  std::vector<CoeffSet> sets;
  std::optional<profiling::PhaseCRecord> skipped;
  std::unique_ptr<jit::Circuit> circuit;
};

} // namespace q2::execution

#endif // Q2_EXECUTION_PHASEC_H
