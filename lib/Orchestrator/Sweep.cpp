//===- Sweep.cpp - sweep specs, grids and one point -----------------------===//
//
// What a sweep is (its spec, grid, points and their validation), the peak
// RSS model that admits points, and runPoint: one point's phases as
// budgeted child processes. The scheduler that runs many is in
// SweepScheduler.cpp, records and summaries in SweepResults.cpp.
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/Sweep.h"
#include "q2/Orchestrator/Measure.h"

#include "RecordFields.h"
#include "SweepInternal.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

using namespace q2::orch;
using namespace q2::orch::sweep_detail;
using llvm::createStringError;
using llvm::Error;
using llvm::Expected;
namespace json = q2::json;

namespace {

/// The same "name" with the characters kept in keys.
std::string safeName(llvm::StringRef Name) {
  std::string Safe;
  for (char C : Name)
    Safe += (llvm::isAlnum(C) || C == '.' || C == '_' || C == '-') ? C
            : C == '+'                                            ? 'p'
                                                                  : '_';
  return Safe;
}

std::string substitute(const std::string &Word,
                       const std::map<std::string, std::string> &Vars) {
  std::string Out;
  for (size_t I = 0; I < Word.size();) {
    if (Word[I] == '{') {
      size_t End = Word.find('}', I);
      if (End != std::string::npos) {
        auto It = Vars.find(Word.substr(I + 1, End - I - 1));
        if (It != Vars.end()) {
          Out += It->second;
          I = End + 1;
          continue;
        }
      }
    }
    Out += Word[I++];
  }
  return Out;
}

/// Held while a process runs (or deletes) the point; outside the point's
/// directory, which is removed and recreated under it.
std::string pointLockPath(const SweepSpec &Spec, const PointId &Id) {
  return joinPath(Spec.outDir, "points", Id.key() + ".lock");
}

} // namespace

//===----------------------------------------------------------------------===//
// Shared with the scheduler and the results (SweepInternal.h)
//===----------------------------------------------------------------------===//

namespace q2::orch::sweep_detail {

std::string joinPath(llvm::StringRef A, llvm::StringRef B,
                     llvm::StringRef C) {
  llvm::SmallString<256> P(A);
  llvm::sys::path::append(P, B);
  if (!C.empty())
    llvm::sys::path::append(P, C);
  return std::string(P);
}

std::string pointDir(const SweepSpec &Spec, const PointId &Id) {
  return joinPath(Spec.outDir, "points", Id.key());
}

Expected<q2::FileLock> lockPoint(const SweepSpec &Spec, const PointId &Id) {
  return q2::FileLock::acquire(pointLockPath(Spec, Id), /*wait=*/false,
                               "point '" + Id.key() + "'");
}

/// When runPoint could not run a point because another process holds it
/// (a --only sweep on the same directory), waits for that process and
/// takes the result it wrote: the summary must not call a point failed
/// that its own result.json calls ok. Other errors stay errors.
Expected<PointResult> resultOfConcurrentRun(const SweepSpec &Spec,
                                            const PointId &Id, Error Why) {
  // An --only job writes no summary: it reports the point as not run.
  if (!Spec.only.empty())
    return std::move(Why);
  std::string ResultFile = joinPath(pointDir(Spec, Id), "result.json");
  // Polled, so that cancelling the sweep still stops it.
  for (;;) {
    Expected<q2::FileLock> Held =
        q2::FileLock::acquire(pointLockPath(Spec, Id), /*wait=*/false);
    if (Held)
      break;
    llvm::consumeError(Held.takeError());
    if (Spec.cancel && Spec.cancel->load())
      return std::move(Why);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!llvm::sys::fs::exists(ResultFile))
    return std::move(Why);
  Expected<PointRecord> Rec = readPointRecord(ResultFile);
  if (!Rec) {
    llvm::consumeError(Rec.takeError());
    return std::move(Why);
  }
  llvm::consumeError(std::move(Why));
  PointResult R;
  R.id = Id;
  R.record = std::move(*Rec);
  return R;
}

/// Removes, in Dir and its subdirectories, temporaries of atomic writes
/// ("<name>.q2tmp-<pid>-<n>", q2/Support/FileIO.h) whose writer is dead,
/// e.g. a q2-opt killed by its budget while writing its report, or a
/// q2-profile killed while writing result.json.

void removeStaleTemporariesIn(const std::string &Dir, int Depth) {
  std::error_code EC;
  std::set<std::string> Targets;
  std::vector<std::string> Subdirs;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (q2::isTemporaryName(Name))
      Targets.insert(joinPath(Dir, Name.take_front(Name.rfind(".q2tmp-"))));
    else if (It->type() == llvm::sys::fs::file_type::directory_file)
      Subdirs.push_back(It->path());
  }
  for (const std::string &T : Targets)
    q2::removeStaleTemporaries(T);
  if (Depth > 0)
    for (const std::string &D : Subdirs)
      removeStaleTemporariesIn(D, Depth - 1);
}

const Molecule *findMolecule(const SweepSpec &Spec, const std::string &Name) {
  for (const auto &M : Spec.molecules)
    if (M.name == Name)
      return &M;
  return nullptr;
}

/// The identifying fields of a point's record.
PointRecord recordFor(const PointId &Id, const Molecule *Mol) {
  PointRecord R;
  R.key = Id.key();
  R.molecule = Id.molecule;
  R.hamiltonian = Mol ? Mol->hamiltonian : "";
  R.mode = Id.mode;
  R.nEst = Id.nEst;
  R.nTrotter = Id.nTrotter;
  return R;
}

} // namespace q2::orch::sweep_detail

//===----------------------------------------------------------------------===//
// Example data
//===----------------------------------------------------------------------===//

std::string q2::orch::examplesDirFor(llvm::StringRef Executable) {
  llvm::SmallString<256> P(llvm::sys::path::parent_path(Executable));
  llvm::sys::path::append(P, "..", "share", "q2", "examples");
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

Expected<Molecule> q2::orch::defaultMolecule(llvm::StringRef ExamplesDir) {
  std::string File =
      joinPath(ExamplesDir, "hamiltonians", "h2_0.7414.FCIDUMP");
  if (!llvm::sys::fs::is_regular_file(File))
    return createStringError(
        "no default molecule: '" + File +
        "' not found (example data is looked for in <dir of the "
        "executable>/../share/q2/examples); give --molecule NAME=FILE");
  return Molecule{"h2", File, 15};
}

//===----------------------------------------------------------------------===//
// Grid, points, templates
//===----------------------------------------------------------------------===//

std::vector<GridPoint> q2::orch::defaultH2Grid() {
  return {{2, 1}, {2, 3}, {2, 5}, {3, 3}, {3, 5}, {4, 3}, {4, 5}, {4, 10}};
}

Expected<std::vector<GridPoint>> q2::orch::parseGrid(llvm::StringRef Text) {
  std::vector<GridPoint> Grid;
  llvm::SmallVector<llvm::StringRef, 16> Items;
  Text.split(Items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Item : Items) {
    auto [E, T] = Item.trim().split('x');
    GridPoint P;
    if (E.getAsInteger(10, P.nEst) || T.getAsInteger(10, P.nTrotter) ||
        P.nEst == 0 || P.nTrotter == 0)
      return createStringError("bad grid point '" + Item +
                       "' (expected N_ESTxN_TROTTER, e.g. 2x3)");
    Grid.push_back(P);
  }
  if (Grid.empty())
    return createStringError("empty grid");
  return Grid;
}

std::string PointId::key() const {
  return safeName(molecule) + "-" + mode + "-e" + std::to_string(nEst) +
         "-t" + std::to_string(nTrotter);
}

CommandTemplates q2::orch::defaultCommandTemplates() {
  CommandTemplates T;
  T.phaseA = {"{q2_qpe}", "{ham}",         "--mode",      "{mode}",
              "--n-est",  "{n_est}",       "--n-trotter", "{n_trotter}",
              "-o",       "{prog}"};
  T.phaseBC = {"{q2_opt}", "--profile-stages", "--run",    "{runs}",
               "{prog}",   "--report",         "{report}"};
  return T;
}

std::vector<PointId> q2::orch::enumeratePoints(const SweepSpec &Spec) {
  std::vector<PointId> Out;
  for (const auto &M : Spec.molecules)
    for (const auto &G : Spec.grid)
      for (const auto &Mode : Spec.modes) {
        PointId Id{M.name, Mode, G.nEst, G.nTrotter};
        if (Spec.only.empty() ||
            std::find(Spec.only.begin(), Spec.only.end(), Id.key()) !=
                Spec.only.end())
          Out.push_back(Id);
      }
  return Out;
}

Error q2::orch::validateSweepSpec(const SweepSpec &Spec) {
  // Every refusal is about a value (embedders map it to ValueError).
  const std::error_code Invalid =
      std::make_error_code(std::errc::invalid_argument);
  if (Spec.outDir.empty())
    return createStringError(Invalid, "no sweep directory given");
  if (Spec.molecules.empty())
    return createStringError(Invalid, "sweep has no molecule");
  if (Spec.grid.empty() || Spec.modes.empty())
    return createStringError(Invalid, "sweep has an empty grid or no mode");
  for (const auto &G : Spec.grid) // as parseGrid refuses them
    if (G.nEst == 0 || G.nTrotter == 0)
      return createStringError(
          Invalid, "bad grid point " + std::to_string(G.nEst) + "x" +
                       std::to_string(G.nTrotter) +
                       ": n_est and n_trotter must be at least 1");
  for (const auto &Mode : Spec.modes)
    if (Mode.empty() || Mode.find('/') != std::string::npos || Mode == "." ||
        Mode == "..")
      return createStringError(Invalid, "bad mode '" + Mode + "'");
  for (const auto &M : Spec.molecules)
    if (M.name.empty())
      return createStringError(Invalid, "molecule with an empty name (file '" +
                                            M.hamiltonian + "')");
  auto Positive = [&](double V, const char *What) -> Error {
    if (!std::isfinite(V) || V <= 0)
      return createStringError(Invalid,
                               llvm::Twine(What) +
                                   " must be a finite positive number, got " +
                                   std::to_string(V));
    return Error::success();
  };
  if (Error E = Positive(Spec.phase.wallBudgetS, "phase wall budget (s)"))
    return E;
  if (Error E = Positive(Spec.phase.rssBudgetMB, "point RSS budget (MB)"))
    return E;
  if (Spec.totalRssMB != 0)
    if (Error E = Positive(Spec.totalRssMB, "total RSS budget (MB)"))
      return E;
  if (!std::isfinite(Spec.phase.killGraceS) || Spec.phase.killGraceS < 0)
    return createStringError(Invalid,
                             "kill grace must be a finite non-negative number");
  if (Error E = checkPollInterval(Spec.phase.pollS, Spec.phase.wallBudgetS))
    return E;
  // Keys name directories: two points with one key would overwrite each
  // other's results (and resume would list one twice).
  SweepSpec All = Spec;
  All.only.clear();
  std::map<std::string, PointId> Seen;
  auto Describe = [](const PointId &Id) {
    return "molecule '" + Id.molecule + "' mode '" + Id.mode + "' " +
           std::to_string(Id.nEst) + "x" + std::to_string(Id.nTrotter);
  };
  for (const PointId &Id : enumeratePoints(All)) {
    auto [It, New] = Seen.emplace(Id.key(), Id);
    if (New)
      continue;
    const PointId &Old = It->second;
    if (Old.molecule == Id.molecule && Old.mode == Id.mode &&
        Old.nEst == Id.nEst && Old.nTrotter == Id.nTrotter)
      return createStringError(Invalid, "point '" + Id.key() +
                                            "' appears twice (" + Describe(Id) +
                                            " is given twice)");
    return createStringError(Invalid,
                             "point key '" + Id.key() + "' is shared by " +
                                 Describe(Old) + " and " + Describe(Id) +
                                 " (keys keep letters, digits, '.', '_' and "
                                 "'-' of a molecule name, '+' becomes 'p'); "
                                 "rename one");
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Peak RSS model
//===----------------------------------------------------------------------===//

void PeakRssModel::add(double X, double PeakMB) {
  if (!std::isfinite(X) || !std::isfinite(PeakMB))
    return;
  Xs.push_back(X);
  Ys.push_back(PeakMB);
  refit();
}

void PeakRssModel::refit() {
  size_t N = Xs.size();
  double MX = 0, MY = 0;
  for (size_t I = 0; I < N; ++I) {
    MX += Xs[I];
    MY += Ys[I];
  }
  MX /= double(N);
  MY /= double(N);
  double Sxx = 0, Sxy = 0;
  for (size_t I = 0; I < N; ++I) {
    Sxx += (Xs[I] - MX) * (Xs[I] - MX);
    Sxy += (Xs[I] - MX) * (Ys[I] - MY);
  }
  // Centered sums: a fit of peaks in the hundreds of MB against x in the
  // thousands stays well conditioned.
  Fitted = N >= 2 && Sxx > 1e-12 * std::max(1.0, MX * MX);
  if (Fitted) {
    B = Sxy / Sxx;
    A = MY - B * MX;
  }
}

bool PeakRssModel::fitted() const { return Fitted; }

double PeakRssModel::predict(double X) const {
  if (!Fitted)
    return std::min(Conservative, Cap);
  double P = 1.25 * (A + B * X);
  for (size_t I = 0; I < Xs.size(); ++I)
    if (Xs[I] <= X)
      P = std::max(P, Ys[I]);
  return std::min(std::max(P, 0.0), Cap);
}

//===----------------------------------------------------------------------===//
// One point
//===----------------------------------------------------------------------===//

Expected<PointResult> q2::orch::runPoint(const SweepSpec &Spec,
                                         const PointId &Id,
                                         unsigned NTermsHint) {
  const Molecule *Mol = findMolecule(Spec, Id.molecule);
  if (!Mol)
    return createStringError("unknown molecule '" + Id.molecule + "'");
  std::string Dir = pointDir(Spec, Id);
  if (std::error_code EC =
          llvm::sys::fs::create_directories(joinPath(Spec.outDir, "points")))
    return createStringError("cannot create '" + Spec.outDir +
                             "/points': " + EC.message());
  // Another process running this point must not see its directory removed.
  Expected<q2::FileLock> Lock = lockPoint(Spec, Id);
  if (!Lock)
    return Lock.takeError();
  // A directory without result.json is what an interrupted run left.
  if (llvm::sys::fs::exists(Dir))
    if (std::error_code EC = llvm::sys::fs::remove_directories(Dir))
      return createStringError("cannot remove partial '" + Dir +
                               "': " + EC.message());
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return createStringError("cannot create '" + Dir + "': " + EC.message());

  std::map<std::string, std::string> Vars = Spec.vars;
  Vars["ham"] = Mol->hamiltonian;
  Vars["molecule"] = Mol->name;
  Vars["mode"] = Id.mode;
  Vars["n_est"] = std::to_string(Id.nEst);
  Vars["n_trotter"] = std::to_string(Id.nTrotter);
  Vars["runs"] = std::to_string(Spec.runs);
  Vars["point_dir"] = Dir;
  Vars["prog"] = joinPath(Dir, "prog.mlir");
  Vars["report"] = joinPath(Dir, "report.json");

  PointResult Result;
  Result.id = Id;
  PointRecord &R = Result.record;
  R = recordFor(Id, Mol);
  R.status = "ok";

  auto Fail = [&](const char *Phase, llvm::StringRef Reason,
                  std::string Message) {
    R.status = "failed";
    R.failedPhase = Phase;
    R.reason = Reason.str();
    R.message = std::move(Message);
  };
  auto RunPhase = [&](const char *Name,
                      const std::vector<std::string> &Template,
                      std::optional<MeasureRecord> &Slot) -> bool {
    MeasureOptions MO;
    for (const auto &W : Template)
      MO.argv.push_back(substitute(W, Vars));
    MO.outDir = joinPath(Dir, Name);
    MO.cwd = Dir;
    static_cast<MeasureBudget &>(MO) = Spec.phase;
    MO.cancel = Spec.cancel;
    MO.cancelSignal = Spec.cancelSignal;
    Expected<MeasureRecord> Rec = measure(MO);
    if (!Rec) {
      Fail(Name, "refused", llvm::toString(Rec.takeError()));
      return false;
    }
    Slot = *Rec;
    R.wallS += Rec->wallS;
    R.peakRssMB = std::max(R.peakRssMB, Rec->peakTreeRssMB);
    if (Rec->reason == StopReason::Cancelled) {
      R.status = "cancelled";
      R.reason = stopReasonName(Rec->reason);
      return false;
    }
    if (Rec->reason != StopReason::Exit || Rec->exitCode != 0) {
      Fail(Name, stopReasonName(Rec->reason),
           Rec->reason == StopReason::Exit
               ? "exit code " + std::to_string(Rec->exitCode)
           : Rec->signal ? "killed by " + Rec->signalName
                         : "");
      return false;
    }
    return true;
  };

  if (RunPhase("A", Spec.commands.phaseA, R.phases.a) &&
      RunPhase("BC", Spec.commands.phaseBC, R.phases.bc)) {
    const std::string &ReportPath = Vars["report"];
    if (!llvm::sys::fs::exists(ReportPath)) {
      Fail("BC", "no_report",
           "'" + ReportPath + "': Phase B+C succeeded without writing it");
    } else if (Expected<q2::profiling::ProfileReport> Report =
                   q2::profiling::readReport(ReportPath)) {
      R.report = std::move(*Report);
    } else {
      Fail("BC", "bad_report", llvm::toString(Report.takeError()));
    }
  }

  unsigned NTerms = Mol->nTerms;
  if (NTerms == 0 && R.report && R.report->parameters)
    NTerms = unsigned(R.report->parameters->nTerms);
  if (NTerms == 0)
    NTerms = NTermsHint;
  if (NTerms) {
    R.nTerms = NTerms;
    R.x = double(Id.nEst) * Id.nTrotter * NTerms;
  }
  if (R.status == "cancelled")
    return Result;
  if (Error E = writePointRecord(joinPath(Dir, "result.json"), R))
    return std::move(E);
  return Result;
}
