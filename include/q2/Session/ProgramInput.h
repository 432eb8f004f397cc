//===- ProgramInput.h - What a compile session reads ------------*- C++ -*-===//
//
// What an input is (MLIR, an object, a Hamiltonian, or none of them), the
// stage-0 program of a Hamiltonian (as q2-qpe builds it, through
// qpe::planProgram), and the IR an --ir-dir directory holds.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_SESSION_PROGRAMINPUT_H
#define Q2_SESSION_PROGRAMINPUT_H

#include "q2/Profiling/Records.h"
#include "q2/QPE/ProgramRequest.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace q2::hamiltonian {
struct QubitHamiltonian;
} // namespace q2::hamiltonian

namespace q2::session {

/// What an input file is. A .mlir file is MLIR; otherwise the contents
/// decide: ELF, an FCIDUMP namelist, JSON, term lines, or text that starts
/// as MLIR does; anything else is Unknown.
enum class InputKind {
  MLIR,
  Object,
  FCIDump,
  HamiltonianJSON,
  OpenFermion,
  Unknown
};
InputKind classifyInput(llvm::StringRef path, llvm::StringRef contents);
bool isHamiltonian(InputKind k);
/// "'x' is neither MLIR nor a known Hamiltonian format; q2-opt reads ...".
llvm::Error unknownInputError(llvm::StringRef path);

/// The stage-0 program (MLIR text, as `q2-qpe FILE ... -o -` prints it) for
/// the Hamiltonian in `path` (FCIDUMP, qubit JSON or term lines).
llvm::Expected<std::string>
buildProgramText(llvm::StringRef path, const qpe::ProgramRequest &request);
/// The same for a Hamiltonian already loaded (a session measures the load
/// and the build apart).
llvm::Expected<std::string>
buildProgramText(const hamiltonian::QubitHamiltonian &h,
                 const qpe::ProgramRequest &request);

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

} // namespace q2::session

#endif // Q2_SESSION_PROGRAMINPUT_H
