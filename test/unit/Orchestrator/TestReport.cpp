//===- TestReport.cpp - Valid q2.profile/3 reports for orchestrator tests -===//
//
// q2-test-report OUT MODE N_EST N_TROTTER N_TERMS [NAME:KIND:WALL_S[:IR_BYTES]]...
//
// Writes a small but valid q2-opt report to OUT with the report library
// itself (profiling::writeReport), so that the stand-in for q2-opt in the
// sweep tests produces exactly what the sweep's reader accepts. KIND is
// input, compile or run; stages get their index in argument order.
//
//===----------------------------------------------------------------------===//

#include "q2/Profiling/Report.h"
#include "q2/QPE/QPEMetadata.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace q2::profiling;

static int usage(const llvm::Twine &Why) {
  llvm::errs() << "q2-test-report: " << Why
               << "\nusage: q2-test-report OUT MODE N_EST N_TROTTER N_TERMS "
                  "[NAME:KIND:WALL_S[:IR_BYTES]]...\n";
  return 2;
}

int main(int Argc, char **Argv) {
  if (Argc < 6)
    return usage("too few arguments");
  ProfileReport R;
  R.input = "prog.mlir";
  q2::qpe::QPEMetadata P;
  P.molecule = "stub";
  auto Mode = q2::qpe::parseMode(Argv[2]);
  if (!Mode)
    return usage("MODE must be fixed or dynamic");
  P.mode = *Mode;
  if (llvm::StringRef(Argv[3]).getAsInteger(10, P.nEst) ||
      llvm::StringRef(Argv[4]).getAsInteger(10, P.nTrotter) ||
      llvm::StringRef(Argv[5]).getAsInteger(10, P.nTerms))
    return usage("N_EST, N_TROTTER and N_TERMS must be integers");
  P.nSystem = 4;
  P.order = 2;
  P.power = q2::qpe::Power::Time;
  R.parameters = q2::json::RawObject{q2::qpe::toJSON(P)};
  for (int I = 6; I < Argc; ++I) {
    llvm::SmallVector<llvm::StringRef, 4> F;
    llvm::StringRef(Argv[I]).split(F, ':');
    StageRecord S;
    S.name = F[0].str();
    S.index = I - 6;
    std::optional<StageKind> Kind =
        F.size() > 1 ? parseEnum(F[1], (StageKind *)nullptr) : std::nullopt;
    if (F.size() < 3 || !Kind || F[2].getAsDouble(S.wallS))
      return usage("bad stage '" + llvm::Twine(Argv[I]) + "'");
    S.kind = *Kind;
    S.cpuS = S.wallS;
    S.peakSource = "sampled";
    if (F.size() > 3) {
      IRMetrics IR;
      IR.kind = "mlir";
      if (F[3].getAsInteger(10, IR.bytes))
        return usage("bad IR bytes in '" + llvm::Twine(Argv[I]) + "'");
      S.ir = IR;
    }
    R.phaseB.stages.push_back(S);
  }
  if (llvm::Error E = writeReport(Argv[1], R)) {
    llvm::errs() << "q2-test-report: " << llvm::toString(std::move(E))
                 << "\n";
    return 1;
  }
  return 0;
}
