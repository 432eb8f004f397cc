//===- Driver.h - q2-opt as a library ---------------------------*- C++ -*-===//
//
// parse -> compile -> run -> report, as functions. tools/q2-opt is one call
// of q2OptMain(); the Python module calls compileProgram() and
// Circuit::load() directly.
//
//   q2OptMain        registers the dialects, passes and q2 options, parses the
//                    command line; without driver flags it is mlir-opt
//                    (MlirOptMain), else runDriver().
//   runDriver        one run of the QPE driver: the six stages with hooks
//                    for profiling, --ir-dir and MLIR's pass-manager options,
//                    the compile cache, Phase C, the table and the report.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_DRIVER_DRIVER_H
#define Q2_DRIVER_DRIVER_H

#include "q2/Pipeline/Pipeline.h"
#include "q2/Profiling/Report.h"
#include "q2/Profiling/Timeline.h"
#include "q2/QPE/ProgramRequest.h"
#include "q2/QPE/QPEMetadata.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace q2::jit {
class QPEExecutable;
} // namespace q2::jit

namespace q2::hamiltonian {
struct QubitHamiltonian;
} // namespace q2::hamiltonian

namespace q2::driver {

enum class Emit { Default, MLIR, LLVM, Obj };
enum class Keep { Stage, Pass };

/// One run of the QPE driver. Filled from the command line by
/// optionsFromCommandLine(), or directly by embedders.
struct DriverOptions {
  std::string input = "-";
  std::string output = "-";
  bool outputGiven = false; ///< -o was given (profiling runs print no object)
  pipeline::PipelineOptions pipeline;
  pipeline::Stage last = pipeline::Stage::ObjectCode;
  bool lastGiven = false; ///< --stop-after-stage was given
  Emit emit = Emit::Default;
  /// Profiling: per-stage (and with profilePasses per-pass) measurements.
  bool profile = false;
  bool profilePasses = false;
  std::string reportPath, tracePath;
  int timelineIntervalMs = 100;
  profiling::TimelineSampler::Options::Backend timelineBackend =
      profiling::TimelineSampler::Options::Backend::Auto;
  /// Phase C: calls per coefficient set (0 = do not run).
  int runs = 0;
  std::string coeffsPath;
  int64_t maxQubits = 0; ///< runtime register limit; 0 = its default
  /// A program above the limit compiles and skips Phase C (recorded in the
  /// report) instead of failing: set when the runs are only implied by
  /// profiling (no --run, --coeffs, --threads, --runtime-lib).
  bool skipUnrunnable = false;
  int threads = 0;       ///< runtime kernel threads; 0 = all cores
  bool quiet = false;    ///< no Phase C progress line on stderr
  double progressAfterS = 2.0; ///< seconds into a call before progress shows
  std::string runtimeLib;
  std::string cacheDir;
  std::string irDir;
  Keep keep = Keep::Stage;
  /// Phase A, for a Hamiltonian input (FCIDUMP, qubit JSON, OpenFermion
  /// terms): what to build, with q2-qpe's defaults. `programFlag` names the
  /// first Phase A flag given (--n-est, ...), refused for other inputs.
  qpe::ProgramRequest program;
  std::string programFlag;
  /// The first flag given that acts on compilation only (--emit, -O2, ...),
  /// refused for an object input; and whether --run was given (an object
  /// input needs something to do). Set from the command line, so the
  /// library reads no global option state.
  std::string compileFlag;
  bool runGiven = false;
  /// Apply MLIR's pass-manager command-line options (--mlir-timing, ...)
  /// to every stage; set for command lines, off for embedders that never
  /// registered those options.
  bool mlirCommandLine = false;
  /// Where the table and Phase C lines go (null: stdout).
  llvm::raw_ostream *out = nullptr;
};

/// Registers q2-opt's options (category "q2 QPE driver options"), among them
/// one flag per pipeline option of PipelineOptions.def. Call before parsing.
void registerCLOptions();
/// Whether any option that only the driver understands was given.
bool driverFlagsGiven();
/// Reads the parsed command line into options, refusing flags that cannot
/// act in the mode given (each error names the flag and what it needs).
llvm::Expected<DriverOptions> optionsFromCommandLine(llvm::StringRef input,
                                                     llvm::StringRef output);

/// Runs the driver; diagnostics go to stderr. Returns the exit code.
int runDriver(const DriverOptions &opts, mlir::DialectRegistry &registry);

/// main() of q2-opt.
int q2OptMain(int argc, char **argv);

//===----------------------------------------------------------------------===//
// Embedding: compile once, call many
//===----------------------------------------------------------------------===//

/// A compiled QPE program: its object and what it is.
struct CompiledProgram {
  qpe::QPEMetadata metadata;
  llvm::SmallVector<char, 0> object;
  std::optional<profiling::ProfileReport> report; ///< when profiled
};

/// Compiles MLIR text (a q2-qpe program) through the six stages; with
/// `profile`, the stages are measured as by --profile-stages. With `irDir`,
/// the IR after each stage is written there as by --ir-dir
/// (0_Input.mlir .. 6_ObjectCode.o).
llvm::Expected<CompiledProgram>
compileProgram(llvm::StringRef mlirText, llvm::StringRef sourceName,
               const pipeline::PipelineOptions &opts, bool profile,
               mlir::DialectRegistry &registry, llvm::StringRef irDir = "");

/// What q2-qpe builds from a Hamiltonian (its defaults): the one request
/// type of q2-qpe, q2-opt's Hamiltonian inputs and Python.
using ProgramSpec = qpe::ProgramRequest;
/// The stage-0 program (MLIR text, as `q2-qpe FILE ... -o -` prints it) for
/// the Hamiltonian in `path` (FCIDUMP, qubit JSON or term lines).
llvm::Expected<std::string> buildProgramText(llvm::StringRef path,
                                             const ProgramSpec &spec);
/// The same for a Hamiltonian already loaded (q2-opt's Phase A measures the
/// load and the build apart).
llvm::Expected<std::string>
buildProgramText(const hamiltonian::QubitHamiltonian &h,
                 const ProgramSpec &spec);

/// The IR a `--ir-dir` directory holds, one entry per stage file present
/// (0_Input.mlir .. 6_ObjectCode.o), in stage order: bytes and lines of the
/// file, ops of the parsed IR (MLIR ops incl. the module; LLVM
/// instructions; 0 for the object), as in the report's `ir`.
struct StageIR {
  std::string stage; ///< "Input", "HLOLowering", ...
  std::string file;
  profiling::IRMetrics ir;
};
llvm::Expected<std::vector<StageIR>>
analyzeIRStages(llvm::StringRef dir, mlir::DialectRegistry &registry);

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
  const qpe::QPEMetadata &metadata() const { return md; }
  const std::string &runtimeLibrary() const;

private:
  Circuit() = default;
  qpe::QPEMetadata md;
  std::unique_ptr<jit::QPEExecutable> exe;
  struct RuntimeControl;
  std::unique_ptr<RuntimeControl> rt;
  int64_t maxQubits = 0;   // this circuit's limit (0: the default)
  int threadsWanted = 0;   // as given to setThreads
  int threadsInUse = 0;    // what the runtime made of it
};

} // namespace q2::driver

#endif // Q2_DRIVER_DRIVER_H
