//===- Sweep.cpp - Isolated, budgeted, resumable profiling sweeps ---------===//

#include "q2/Orchestrator/Sweep.h"
#include "q2/Orchestrator/Measure.h"

#include "RecordFields.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

using namespace q2::orch;
using llvm::createStringError;
using llvm::Error;
using llvm::Expected;
namespace json = q2::json;

namespace {

std::string joinPath(llvm::StringRef A, llvm::StringRef B,
                     llvm::StringRef C = "") {
  llvm::SmallString<256> P(A);
  llvm::sys::path::append(P, B);
  if (!C.empty())
    llvm::sys::path::append(P, C);
  return std::string(P);
}

/// Reads `Path` as T after checking its "schema" string.
template <class T>
Expected<T> readWithSchema(llvm::StringRef Path, llvm::StringRef Schema) {
  Expected<json::Value> V = json::readFile(Path);
  if (!V)
    return V.takeError();
  json::Cursor C(*V, Path.str());
  Expected<json::Cursor> S = C.at("schema");
  if (!S)
    return S.takeError();
  Expected<std::string> Name = S->string();
  if (!Name)
    return Name.takeError();
  if (*Name != Schema)
    return S->error("expected \"" + Schema + "\", got \"" + *Name + "\"");
  T R{};
  if (Error E = json::fromValue(C, R))
    return std::move(E);
  return R;
}

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

std::string pointDir(const SweepSpec &Spec, const PointId &Id) {
  return joinPath(Spec.outDir, "points", Id.key());
}

/// Held while a process runs (or deletes) the point; outside the point's
/// directory, which is removed and recreated under it.
std::string pointLockPath(const SweepSpec &Spec, const PointId &Id) {
  return joinPath(Spec.outDir, "points", Id.key() + ".lock");
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
void removeStaleTemporariesIn(const std::string &Dir, int Depth = 2) {
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

} // namespace

//===----------------------------------------------------------------------===//
// Records
//===----------------------------------------------------------------------===//

std::optional<double> PointRecord::compileSeconds() const {
  if (!report)
    return std::nullopt;
  return report->compileSeconds();
}

const MeasureRecord *PointRecord::failedPhaseRecord() const {
  if (failedPhase == "A" && phases.a)
    return &*phases.a;
  if (failedPhase == "BC" && phases.bc)
    return &*phases.bc;
  return nullptr;
}

std::string q2::orch::toJSONText(const PointRecord &R, int Indent) {
  Expected<std::string> Text = json::dump(json::toValue(R), Indent);
  if (!Text) { // Only strings that are not UTF-8 fail.
    llvm::consumeError(Text.takeError());
    return "null";
  }
  return std::move(*Text);
}

Expected<PointRecord> q2::orch::readPointRecord(llvm::StringRef Path) {
  Expected<PointRecord> R = readWithSchema<PointRecord>(Path, kPointSchema);
  // Summaries and merges count by status: an unknown one is a bad file.
  if (R && R->status != "ok" && R->status != "failed" &&
      R->status != "cancelled")
    return createStringError(Path + ": status: '" + R->status +
                             "' is not one of ok, failed, cancelled");
  return R;
}

Error q2::orch::writePointRecord(llvm::StringRef Path, const PointRecord &R) {
  return json::writeFile(Path, json::toValue(R));
}

Error q2::orch::writeResults(llvm::StringRef Path,
                             const std::vector<PointRecord> &Results) {
  return json::writeFile(Path, json::toValue(Results));
}

std::vector<PointRecord> q2::orch::resultsOf(const SweepSummary &Summary) {
  std::vector<PointRecord> Out;
  for (const PointResult &P : Summary.points)
    if (!P.record.key.empty() && P.status() != "cancelled")
      Out.push_back(P.record);
  return Out;
}

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

namespace {
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
} // namespace

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

//===----------------------------------------------------------------------===//
// The sweep
//===----------------------------------------------------------------------===//

namespace {
/// OUT/sweep.json: the spec, for readers (never read back).
json::Value specToValue(const SweepSpec &Spec) {
  json::Value J = json::Value::object();
  J["schema"] = "q2.sweep/1";
  J["grid"] = json::Value::array();
  for (const auto &G : Spec.grid)
    J["grid"].push_back(json::toValue(std::vector<unsigned>{G.nEst, G.nTrotter}));
  J["modes"] = json::toValue(Spec.modes);
  J["molecules"] = json::Value::array();
  for (const auto &M : Spec.molecules) {
    json::Value Mol = json::Value::object();
    Mol["name"] = M.name;
    Mol["hamiltonian"] = M.hamiltonian;
    Mol["n_terms"] = M.nTerms;
    J["molecules"].push_back(std::move(Mol));
  }
  J["commands"] = json::Value::object();
  J["commands"]["A"] = json::toValue(Spec.commands.phaseA);
  J["commands"]["BC"] = json::toValue(Spec.commands.phaseBC);
  J["vars"] = json::toValue(Spec.vars);
  J["runs"] = Spec.runs;
  J["jobs"] = Spec.jobs;
  J["phase_wall_s"] = Spec.phase.wallBudgetS;
  J["point_rss_mb"] = Spec.phase.rssBudgetMB;
  J["total_rss_mb"] = Spec.totalRssMB;
  J["poll_s"] = Spec.phase.pollS;
  J["only"] = json::toValue(Spec.only);
  return J;
}
} // namespace

Expected<SweepSummary> q2::orch::runSweep(const SweepSpec &Spec,
                                          const ProgressCallback &Progress) {
  if (Error E = validateSweepSpec(Spec))
    return std::move(E);
  if (std::error_code EC =
          llvm::sys::fs::create_directories(joinPath(Spec.outDir, "points")))
    return createStringError("cannot create '" + Spec.outDir +
                             "': " + EC.message());
  // A whole sweep owns OUT: a second one would remove the partial points
  // the first is running. `--only` jobs share OUT; each point is locked.
  std::optional<q2::FileLock> SweepLock;
  if (Spec.only.empty()) {
    Expected<q2::FileLock> L =
        q2::FileLock::acquire(joinPath(Spec.outDir, ".lock"), /*wait=*/false,
                              "sweep directory '" + Spec.outDir + "'");
    if (!L)
      return L.takeError();
    SweepLock.emplace(std::move(*L));
  }
  // Every `--only` job of an emitted sweep writes the same spec; skip that
  // so concurrent jobs do not race on it.
  if (Spec.only.empty())
    if (Error E = json::writeFile(joinPath(Spec.outDir, "sweep.json"),
                                  specToValue(Spec)))
      return std::move(E);

  using Clock = std::chrono::steady_clock;
  Clock::time_point Start = Clock::now();
  auto Elapsed = [&] {
    return std::chrono::duration<double>(Clock::now() - Start).count();
  };

  std::vector<PointId> Ids = enumeratePoints(Spec);
  SweepSummary Sum;
  Sum.points.resize(Ids.size());
  const unsigned Jobs = std::max(1u, Spec.jobs);
  const double Total =
      Spec.totalRssMB > 0 ? Spec.totalRssMB : Spec.phase.rssBudgetMB * Jobs;
  PeakRssModel Model(Spec.phase.rssBudgetMB, Spec.phase.rssBudgetMB);
  std::map<std::string, unsigned> TermsOf;
  for (const auto &M : Spec.molecules)
    if (M.nTerms)
      TermsOf[M.name] = M.nTerms;
  auto XOf = [&](const PointId &Id) {
    auto It = TermsOf.find(Id.molecule);
    return double(Id.nEst) * Id.nTrotter *
           (It != TermsOf.end() ? It->second : 1);
  };
  auto Learn = [&](const PointRecord &R) {
    if (R.status != "ok")
      return; // A killed point's peak is a lower bound only.
    if (R.nTerms)
      TermsOf.emplace(R.molecule, *R.nTerms);
    if (R.x)
      Model.add(*R.x, R.peakRssMB);
  };

  size_t Done = 0, RanNow = 0;
  auto Emit = [&](ProgressEvent::Kind K, const PointId &Id,
                  const std::string &Status, size_t Running, double Pred) {
    if (!Progress)
      return;
    ProgressEvent E{K, Id, Status};
    E.done = Done;
    E.total = Ids.size();
    E.running = Running;
    E.elapsedS = Elapsed();
    // Throughput of points run now (parallelism included).
    if (RanNow > 0)
      E.etaS = E.elapsedS / double(RanNow) * double(Ids.size() - Done);
    E.predictedRssMB = Pred;
    Progress(E);
  };

  std::deque<size_t> Pending;
  for (size_t I = 0; I < Ids.size(); ++I) {
    std::string Dir = pointDir(Spec, Ids[I]);
    std::string ResultFile = joinPath(Dir, "result.json");
    if (llvm::sys::fs::exists(ResultFile)) {
      Expected<PointRecord> Rec = readPointRecord(ResultFile);
      if (Rec) {
        const std::string Status = Rec->status;
        if (Status == "ok" || (Status == "failed" && !Spec.retryFailed)) {
          // Temporaries of writers killed in this finished point (only
          // while nobody else works on it).
          if (Expected<q2::FileLock> L = lockPoint(Spec, Ids[I]))
            removeStaleTemporariesIn(Dir);
          else
            llvm::consumeError(L.takeError());
          PointResult &R = Sum.points[I];
          R.id = Ids[I];
          R.skipped = true;
          R.record = std::move(*Rec);
          Learn(R.record);
          ++Done;
          ++Sum.skipped;
          Sum.failed += Status != "ok";
          Emit(ProgressEvent::Skipped, Ids[I], Status, 0, 0);
          continue;
        }
      } else {
        llvm::consumeError(Rec.takeError()); // Unreadable: run it again.
      }
    }
    Pending.push_back(I);
  }

  // Workers run points; the calling thread admits, collects and reports.
  std::mutex Mu;
  std::condition_variable CV;
  std::deque<std::pair<size_t, Expected<PointResult>>> Finished;
  std::map<size_t, std::thread> Workers;
  std::map<size_t, double> Admitted; // Index -> predicted MB.
  double InUse = 0;

  while (!Pending.empty() || !Workers.empty()) {
    bool Cancelled = Spec.cancel && Spec.cancel->load();
    if (Cancelled) {
      Sum.cancelled = true;
      Pending.clear();
    }
    // Admit in order, backfilling smaller points that fit when the next one
    // does not; with nothing running, the next point always starts.
    for (auto It = Pending.begin();
         It != Pending.end() && Workers.size() < Jobs;) {
      double Pred = Model.predict(XOf(Ids[*It]));
      if (!Workers.empty() && InUse + Pred > Total) {
        ++It;
        continue;
      }
      size_t I = *It;
      It = Pending.erase(It);
      Admitted[I] = Pred;
      InUse += Pred;
      auto Terms = TermsOf.find(Ids[I].molecule);
      unsigned Hint = Terms != TermsOf.end() ? Terms->second : 0;
      Workers[I] = std::thread([&, I, Hint] {
        Expected<PointResult> R = runPoint(Spec, Ids[I], Hint);
        if (!R)
          R = resultOfConcurrentRun(Spec, Ids[I], R.takeError());
        std::lock_guard<std::mutex> L(Mu);
        Finished.emplace_back(I, std::move(R));
        CV.notify_all();
      });
      Emit(ProgressEvent::Started, Ids[I], "", Workers.size(), Pred);
    }
    if (Workers.empty())
      break;

    std::unique_lock<std::mutex> L(Mu);
    CV.wait_for(L, std::chrono::milliseconds(100),
                [&] { return !Finished.empty(); });
    while (!Finished.empty()) {
      auto [I, R] = std::move(Finished.front());
      Finished.pop_front();
      L.unlock();
      Workers[I].join();
      Workers.erase(I);
      InUse -= Admitted[I];
      Admitted.erase(I);
      PointResult &Slot = Sum.points[I];
      if (R) {
        Slot = std::move(*R);
      } else {
        // The machinery failed for this point (e.g. another process runs
        // it); record it here, not on disk, and go on.
        Slot.id = Ids[I];
        Slot.record = recordFor(Ids[I], findMolecule(Spec, Ids[I].molecule));
        Slot.record.status = "failed";
        Slot.record.reason = "error";
        Slot.record.message = llvm::toString(R.takeError());
      }
      if (Slot.status() == "cancelled") {
        Sum.cancelled = true;
      } else {
        ++Done;
        ++RanNow;
        ++Sum.ran;
        if (Slot.status() != "ok")
          ++Sum.failed;
        Learn(Slot.record);
      }
      Emit(ProgressEvent::Finished, Ids[I], Slot.status(), Workers.size(), 0);
      L.lock();
    }
  }

  if (Spec.only.empty())
    if (Error E = writeSummary(Spec.outDir, resultsOf(Sum)))
      return std::move(E);
  return Sum;
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

Expected<std::vector<PointRecord>>
q2::orch::loadResults(const std::vector<std::string> &Dirs) {
  std::map<std::string, PointRecord> ByKey;
  for (const auto &D : Dirs) {
    std::string Points = joinPath(D, "points");
    if (!llvm::sys::fs::is_directory(Points))
      return createStringError(D + ": not a sweep directory (no points/)");
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Points, EC), End;
         It != End && !EC; It.increment(EC)) {
      std::string File = joinPath(It->path(), "result.json");
      if (!llvm::sys::fs::exists(File))
        continue; // Not finished (or still running), or a lock file.
      Expected<PointRecord> R = readPointRecord(File);
      if (!R)
        return R.takeError();
      if (R->key.empty())
        return createStringError(File + ": key: empty");
      auto Old = ByKey.find(R->key);
      if (Old != ByKey.end() && Old->second.status != R->status)
        return createStringError(File + ": point '" + R->key +
                                 "' also in an earlier directory with "
                                 "status '" +
                                 Old->second.status + "'");
      ByKey[R->key] = std::move(*R);
    }
    if (EC)
      return createStringError(Points + ": " + EC.message());
  }
  std::vector<PointRecord> Out;
  for (auto &KV : ByKey)
    Out.push_back(std::move(KV.second));
  std::stable_sort(Out.begin(), Out.end(),
                   [](const PointRecord &A, const PointRecord &B) {
                     return std::tie(A.molecule, A.nEst, A.nTrotter, A.mode) <
                            std::tie(B.molecule, B.nEst, B.nTrotter, B.mode);
                   });
  return Out;
}

namespace {
struct Column {
  std::string name;
  std::function<std::string(const PointRecord &)> get;
};

std::string fmt(double V, int Prec) {
  if (!std::isfinite(V))
    return "";
  std::ostringstream OS;
  OS.setf(std::ios::fixed);
  OS.precision(Prec);
  OS << V;
  return OS.str();
}

template <class T> std::string fmt(const std::optional<T> &V, int Prec) {
  return V ? fmt(double(*V), Prec) : std::string();
}

std::string str(const std::optional<std::string> &V) {
  return V ? *V : std::string();
}

/// A field of a phase record, "" when the phase did not run.
template <class F>
std::function<std::string(const PointRecord &)>
phase(std::optional<MeasureRecord> PointPhases::*Which, F Get) {
  return [=](const PointRecord &R) {
    const auto &P = R.phases.*Which;
    return P ? Get(*P) : std::string();
  };
}

/// The first coefficient set Phase C ran, if the point has a report.
const q2::profiling::PhaseCSetRecord *firstSet(const PointRecord &P) {
  if (!P.report || !P.report->phaseC || P.report->phaseC->sets.empty())
    return nullptr;
  return &P.report->phaseC->sets.front();
}

/// The columns a point's report adds (one row per point: the outcome, the
/// compile peak, the timeline peak and IR size per stage). Stage columns
/// follow the stages in the order the results first name them.
void addReportColumns(std::vector<Column> &Cols,
                      const std::vector<PointRecord> &Results) {
  using R = const PointRecord &;
  auto set = [](auto Get, int Prec) {
    return [=](R P) {
      const q2::profiling::PhaseCSetRecord *S = firstSet(P);
      return S ? fmt(Get(*S), Prec) : std::string();
    };
  };
  using SetR = const q2::profiling::PhaseCSetRecord &;
  Cols.push_back({"prob_sum", set([](SetR S) { return S.probSum; }, 9)});
  Cols.push_back({"energy", set([](SetR S) { return S.energy; }, 6)});
  Cols.push_back({"resolution", set([](SetR S) { return S.resolution; }, 6)});
  Cols.push_back({"exact_energy", [](R P) {
                    const q2::profiling::PhaseCSetRecord *S = firstSet(P);
                    return S ? fmt(S->exactEnergy, 6) : std::string();
                  }});
  Cols.push_back({"energy_error", [](R P) {
                    // |energy - exact| in Ha, as ProfileResult.energy_error.
                    const q2::profiling::PhaseCSetRecord *S = firstSet(P);
                    if (!S || !S->exactEnergy)
                      return std::string();
                    return fmt(std::fabs(S->energy - *S->exactEnergy), 6);
                  }});
  Cols.push_back({"error_resolutions", [](R P) {
                    const q2::profiling::PhaseCSetRecord *S = firstSet(P);
                    return S ? fmt(S->errorResolutions, 2) : std::string();
                  }});
  Cols.push_back({"compile_peak_mb", [](R P) {
                    if (!P.report)
                      return std::string();
                    uint64_t Peak = 0;
                    for (const auto &St : P.report->phaseB.stages)
                      if (St.kind == q2::profiling::StageKind::Compile)
                        Peak = std::max(Peak, St.peakRSS);
                    return Peak ? fmt(Peak / 1e6, 1) : std::string();
                  }});
  Cols.push_back({"timeline_peak_mb", [](R P) {
                    if (!P.report || !P.report->phaseB.timeline ||
                        !P.report->phaseB.timeline->peak)
                      return std::string();
                    return fmt(
                        P.report->phaseB.timeline->peak->sample.rss / 1e6, 1);
                  }});
  std::vector<std::string> Stages;
  for (const auto &P : Results)
    if (P.report)
      for (const auto &St : P.report->phaseB.stages)
        if (St.ir && llvm::find(Stages, St.name) == Stages.end())
          Stages.push_back(St.name);
  for (const std::string &Name : Stages) {
    auto ir = [Name](R P) -> const q2::profiling::IRMetrics * {
      if (!P.report)
        return nullptr;
      for (const auto &St : P.report->phaseB.stages)
        if (St.name == Name && St.ir)
          return &*St.ir;
      return nullptr;
    };
    Cols.push_back({"ir_kb_" + Name, [ir](R P) {
                      const q2::profiling::IRMetrics *M = ir(P);
                      return M ? fmt(M->bytes / 1e3, 1) : std::string();
                    }});
    Cols.push_back({"ir_lines_" + Name, [ir](R P) {
                      const q2::profiling::IRMetrics *M = ir(P);
                      return M ? std::to_string(M->lines) : std::string();
                    }});
  }
}

std::vector<Column> columns(const std::vector<PointRecord> &Results) {
  using R = const PointRecord &;
  using M = const MeasureRecord &;
  std::vector<Column> Cols = {
      {"key", [](R P) { return P.key; }},
      {"molecule", [](R P) { return P.molecule; }},
      {"mode", [](R P) { return P.mode; }},
      {"n_est", [](R P) { return std::to_string(P.nEst); }},
      {"n_trotter", [](R P) { return std::to_string(P.nTrotter); }},
      {"n_terms",
       [](R P) { return P.nTerms ? std::to_string(*P.nTerms) : ""; }},
      {"x", [](R P) { return fmt(P.x, 0); }},
      {"status", [](R P) { return P.status; }},
      {"failed_phase", [](R P) { return str(P.failedPhase); }},
      {"reason", [](R P) { return P.reason; }},
      {"exit_code",
       [](R P) {
         const MeasureRecord *F = P.failedPhaseRecord();
         return F && !F->signal ? std::to_string(F->exitCode) : "";
       }},
      {"signal",
       [](R P) {
         const MeasureRecord *F = P.failedPhaseRecord();
         return F ? F->signalName : "";
       }},
      // The compile stages only (stages 1-6), not Input, Load or Execute.
      {"compile_s", [](R P) { return fmt(P.compileSeconds(), 3); }},
      {"wall_s", [](R P) { return fmt(P.wallS, 3); }},
      {"wall_a_s", phase(&PointPhases::a, [](M Ph) { return fmt(Ph.wallS, 3); })},
      {"wall_bc_s",
       phase(&PointPhases::bc, [](M Ph) { return fmt(Ph.wallS, 3); })},
      {"peak_rss_mb", [](R P) { return fmt(P.peakRssMB, 1); }},
      {"peak_rss_a_mb",
       phase(&PointPhases::a, [](M Ph) { return fmt(Ph.peakTreeRssMB, 1); })},
      {"peak_rss_bc_mb",
       phase(&PointPhases::bc, [](M Ph) { return fmt(Ph.peakTreeRssMB, 1); })},
      {"vmhwm_bc_mb",
       phase(&PointPhases::bc, [](M Ph) { return fmt(Ph.maxVmHwmMB, 1); })},
  };
  addReportColumns(Cols, Results);
  return Cols;
}

std::string csvEscape(const std::string &S) {
  if (S.find_first_of(",\"\n") == std::string::npos)
    return S;
  std::string Out = "\"";
  for (char C : S)
    Out += C == '"' ? std::string("\"\"") : std::string(1, C);
  return Out + "\"";
}
} // namespace

std::string q2::orch::summaryCsv(const std::vector<PointRecord> &Results) {
  auto Cols = columns(Results);
  std::string Out;
  for (size_t I = 0; I < Cols.size(); ++I)
    Out += (I ? "," : "") + Cols[I].name;
  Out += "\n";
  for (const auto &R : Results) {
    for (size_t I = 0; I < Cols.size(); ++I)
      Out += (I ? "," : "") + csvEscape(Cols[I].get(R));
    Out += "\n";
  }
  return Out;
}

std::string q2::orch::summaryTable(const std::vector<PointRecord> &Results) {
  // The table leaves out the columns that only matter for failures when
  // every point succeeded.
  auto Cols = columns(Results);
  std::vector<std::vector<std::string>> Rows;
  Rows.emplace_back();
  for (const auto &C : Cols)
    Rows.back().push_back(C.name);
  for (const auto &R : Results) {
    Rows.emplace_back();
    for (const auto &C : Cols)
      Rows.back().push_back(C.get(R));
  }
  std::vector<size_t> Width(Cols.size(), 0);
  std::vector<bool> Used(Cols.size(), false);
  for (size_t Row = 0; Row < Rows.size(); ++Row)
    for (size_t I = 0; I < Cols.size(); ++I) {
      Width[I] = std::max(Width[I], Rows[Row][I].size());
      // IR size per stage is for summary.csv; the table stays readable.
      if (Row > 0 && !Rows[Row][I].empty() &&
          !llvm::StringRef(Cols[I].name).starts_with("ir_"))
        Used[I] = true;
    }
  std::string Out;
  for (const auto &Row : Rows) {
    std::string Line;
    for (size_t I = 0; I < Cols.size(); ++I) {
      if (!Used[I] || I == 0)
        continue; // The key repeats molecule/mode/n_est/n_trotter.
      std::string Cell = Row[I];
      Cell.resize(Width[I], ' ');
      Line += Cell + "  ";
    }
    while (!Line.empty() && Line.back() == ' ')
      Line.pop_back();
    Out += Line + "\n";
  }
  size_t Ok = 0;
  for (const auto &R : Results)
    Ok += R.status == "ok";
  Out += std::to_string(Results.size()) + " points, " + std::to_string(Ok) +
         " ok, " + std::to_string(Results.size() - Ok) + " failed\n";
  return Out;
}

Error q2::orch::writeSummary(const std::string &Dir,
                             const std::vector<PointRecord> &Results) {
  if (Error E = q2::writeFileAtomically(joinPath(Dir, "summary.csv"),
                                        summaryCsv(Results)))
    return E;
  return q2::writeFileAtomically(joinPath(Dir, "summary.txt"),
                                 summaryTable(Results));
}
