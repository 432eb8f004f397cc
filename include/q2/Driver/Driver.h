//===- Driver.h - q2-opt as a library ---------------------------*- C++ -*-===//
//
// q2-opt's command line, cache, Phase C and printing around one compile
// session (q2/Session/CompileSession.h). tools/q2-opt is one call of
// q2OptMain(); embedders compile through the session and load through
// jit::Circuit directly.
//
//   q2OptMain        registers the dialects, passes and q2 options, parses the
//                    command line; without driver flags it is mlir-opt
//                    (MlirOptMain), else runDriver().
//   runDriver        one run of the QPE driver: a compile session (Phase A,
//                    the six stages with its hooks, the report), the
//                    compile cache, Phase C, the table.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_DRIVER_DRIVER_H
#define Q2_DRIVER_DRIVER_H

#include "q2/Execution/PhaseC.h"
#include "q2/Pipeline/Pipeline.h"
#include "q2/Session/SessionOptions.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace q2::driver {

enum class Emit { Default, MLIR, LLVM, Obj };
using Keep = session::Keep;

/// One run of the QPE driver: what its compile session takes (the
/// pipeline, the stage to stop after, profiling, --ir-dir, the program
/// request of a Hamiltonian input; declared once, in
/// session::SessionOptions and SessionOptions.def), what Phase C takes
/// (execution::ExecuteOptions, ExecuteOptions.def) and what q2-opt does
/// around them. Filled from the command line by optionsFromCommandLine(),
/// or directly by embedders.
struct DriverOptions : session::SessionOptions, execution::ExecuteOptions {
  std::string input = "-";
  std::string output = "-";
  bool outputGiven = false; ///< -o was given (profiling runs print no object)
  bool lastGiven = false; ///< --stop-after-stage was given
  Emit emit = Emit::Default;
  std::string reportPath, tracePath;
  /// --html: the self-contained HTML report (q2/Profiling/ReportHTML.h).
  std::string htmlPath;
  std::string cacheDir;
  /// The first Phase A flag given (--n-est, ...), refused for inputs that
  /// are not a Hamiltonian.
  std::string programFlag;
  /// The first flag given that acts on compilation only (--emit, -O2, ...),
  /// refused for an object input; and whether --run was given (an object
  /// input needs something to do). Set from the command line, so the
  /// library reads no global option state.
  std::string compileFlag;
  bool runGiven = false;
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

} // namespace q2::driver

#endif // Q2_DRIVER_DRIVER_H
