//===- Sweep.cpp - Isolated, budgeted, resumable profiling sweeps ---------===//

#include "q2/Orchestrator/Sweep.h"
#include "q2/Orchestrator/Measure.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <sstream>
#include <thread>

using namespace q2::orch;
using llvm::Error;
using llvm::Expected;
using nlohmann::json;

namespace {

Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

std::string joinPath(llvm::StringRef A, llvm::StringRef B,
                     llvm::StringRef C = "") {
  llvm::SmallString<256> P(A);
  llvm::sys::path::append(P, B);
  if (!C.empty())
    llvm::sys::path::append(P, C);
  return std::string(P);
}

Error writeFileAtomically(const std::string &Path, const std::string &Text) {
  return llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
    OS << Text;
    return Error::success();
  });
}

/// Parses a JSON file; errors start with "file: ".
Expected<json> readJsonFile(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return makeError(Path + ": " + Buf.getError().message());
  json J = json::parse((*Buf)->getBuffer().begin(), (*Buf)->getBuffer().end(),
                       nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded())
    return makeError(Path + ":1: not valid JSON");
  return J;
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

const Molecule *findMolecule(const SweepSpec &Spec, const std::string &Name) {
  for (const auto &M : Spec.molecules)
    if (M.name == Name)
      return &M;
  return nullptr;
}

double numberOr(const json &J, const char *Key, double Default) {
  auto It = J.find(Key);
  return It != J.end() && It->is_number() ? It->get<double>() : Default;
}

} // namespace

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
      return makeError("bad grid point '" + Item +
                       "' (expected N_ESTxN_TROTTER, e.g. 2x3)");
    Grid.push_back(P);
  }
  if (Grid.empty())
    return makeError("empty grid");
  return Grid;
}

std::string PointId::key() const {
  std::string Safe;
  for (char C : molecule)
    Safe += (llvm::isAlnum(C) || C == '.' || C == '_' || C == '-') ? C
            : C == '+'                                            ? 'p'
                                                                  : '_';
  return Safe + "-" + mode + "-e" + std::to_string(nEst) + "-t" +
         std::to_string(nTrotter);
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
    return makeError("unknown molecule '" + Id.molecule + "'");
  std::string Dir = pointDir(Spec, Id);
  // A directory without result.json is what an interrupted run left.
  if (llvm::sys::fs::exists(Dir))
    if (std::error_code EC = llvm::sys::fs::remove_directories(Dir))
      return makeError("cannot remove partial '" + Dir + "': " + EC.message());
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return makeError("cannot create '" + Dir + "': " + EC.message());

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

  PointResult R;
  R.id = Id;
  json J;
  J["schema"] = "q2.sweep.point/1";
  J["key"] = Id.key();
  J["molecule"] = Id.molecule;
  J["hamiltonian"] = Mol->hamiltonian;
  J["mode"] = Id.mode;
  J["n_est"] = Id.nEst;
  J["n_trotter"] = Id.nTrotter;
  J["phases"] = json::object();
  J["failed_phase"] = nullptr;
  J["reason"] = "exit";
  J["message"] = nullptr;
  J["report"] = nullptr;
  std::string Status = "ok";
  double Wall = 0, Peak = 0;

  auto RunPhase = [&](const char *Name,
                      const std::vector<std::string> &Template) -> bool {
    MeasureOptions MO;
    for (const auto &W : Template)
      MO.argv.push_back(substitute(W, Vars));
    MO.outDir = joinPath(Dir, Name);
    MO.cwd = Dir;
    MO.wallBudgetS = Spec.phaseWallS;
    MO.rssBudgetMB = Spec.pointRssMB;
    MO.pollS = Spec.pollS;
    MO.killGraceS = Spec.killGraceS;
    MO.cancel = Spec.cancel;
    Expected<MeasureRecord> Rec = measure(MO);
    if (!Rec) {
      Status = "failed";
      J["failed_phase"] = Name;
      J["reason"] = "refused";
      J["message"] = llvm::toString(Rec.takeError());
      return false;
    }
    J["phases"][Name] = toJson(*Rec);
    Wall += Rec->wallS;
    Peak = std::max(Peak, Rec->peakTreeRssMB);
    if (Rec->reason == StopReason::Cancelled) {
      Status = "cancelled";
      return false;
    }
    if (Rec->reason != StopReason::Exit || Rec->exitCode != 0) {
      Status = "failed";
      J["failed_phase"] = Name;
      J["reason"] = stopReasonName(Rec->reason);
      std::string Msg = Rec->reason == StopReason::Exit
                            ? "exit code " + std::to_string(Rec->exitCode)
                        : Rec->signal ? "killed by " + Rec->signalName
                                      : "";
      J["message"] = Msg;
      return false;
    }
    return true;
  };

  if (RunPhase("A", Spec.commands.phaseA) &&
      RunPhase("BC", Spec.commands.phaseBC)) {
    Expected<json> Report = readJsonFile(Vars["report"]);
    if (!Report) {
      Status = "failed";
      J["failed_phase"] = "BC";
      J["reason"] = "no_report";
      J["message"] = llvm::toString(Report.takeError());
    } else {
      J["report"] = std::move(*Report);
    }
  }

  unsigned NTerms = Mol->nTerms;
  if (NTerms == 0)
    if (const json *T = findKey(J["report"], "n_terms"))
      if (T->is_number_unsigned())
        NTerms = T->get<unsigned>();
  if (NTerms == 0)
    NTerms = NTermsHint;
  J["n_terms"] = NTerms ? json(NTerms) : json(nullptr);
  J["x"] = NTerms ? json(double(Id.nEst) * Id.nTrotter * NTerms)
                  : json(nullptr);
  J["status"] = Status;
  J["wall_s"] = Wall;
  J["peak_rss_mb"] = Peak;
  R.status = Status;
  R.json = std::move(J);
  if (Status == "cancelled")
    return R;
  if (Error E = writeFileAtomically(joinPath(Dir, "result.json"),
                                    R.json.dump(2) + "\n"))
    return std::move(E);
  return R;
}

//===----------------------------------------------------------------------===//
// The sweep
//===----------------------------------------------------------------------===//

static json specToJson(const SweepSpec &Spec) {
  json J;
  J["schema"] = "q2.sweep/1";
  J["grid"] = json::array();
  for (const auto &G : Spec.grid)
    J["grid"].push_back({G.nEst, G.nTrotter});
  J["modes"] = Spec.modes;
  J["molecules"] = json::array();
  for (const auto &M : Spec.molecules)
    J["molecules"].push_back(
        {{"name", M.name}, {"hamiltonian", M.hamiltonian}, {"n_terms", M.nTerms}});
  J["commands"] = {{"A", Spec.commands.phaseA}, {"BC", Spec.commands.phaseBC}};
  J["vars"] = Spec.vars;
  J["runs"] = Spec.runs;
  J["jobs"] = Spec.jobs;
  J["phase_wall_s"] = Spec.phaseWallS;
  J["point_rss_mb"] = Spec.pointRssMB;
  J["total_rss_mb"] = Spec.totalRssMB;
  J["only"] = Spec.only;
  return J;
}

Expected<SweepSummary> q2::orch::runSweep(const SweepSpec &Spec,
                                          const ProgressCallback &Progress) {
  if (Spec.molecules.empty())
    return makeError("sweep has no molecule");
  if (Spec.grid.empty() || Spec.modes.empty())
    return makeError("sweep has an empty grid or no mode");
  for (const auto &Mode : Spec.modes)
    if (Mode.empty() || Mode.find('/') != std::string::npos)
      return makeError("bad mode '" + Mode + "'");
  if (std::error_code EC =
          llvm::sys::fs::create_directories(joinPath(Spec.outDir, "points")))
    return makeError("cannot create '" + Spec.outDir + "': " + EC.message());
  // Every `--only` job of an emitted sweep writes the same spec; skip that
  // so concurrent jobs do not race on it.
  if (Spec.only.empty())
    if (Error E = writeFileAtomically(joinPath(Spec.outDir, "sweep.json"),
                                      specToJson(Spec).dump(2) + "\n"))
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
      Spec.totalRssMB > 0 ? Spec.totalRssMB : Spec.pointRssMB * Jobs;
  PeakRssModel Model(Spec.pointRssMB, Spec.pointRssMB);
  std::map<std::string, unsigned> TermsOf;
  for (const auto &M : Spec.molecules)
    if (M.nTerms)
      TermsOf[M.name] = M.nTerms;
  auto XOf = [&](const PointId &Id) {
    auto It = TermsOf.find(Id.molecule);
    return double(Id.nEst) * Id.nTrotter *
           (It != TermsOf.end() ? It->second : 1);
  };
  auto Learn = [&](const json &J) {
    if (J.value("status", "") != "ok")
      return; // A killed point's peak is a lower bound only.
    if (J.contains("n_terms") && J["n_terms"].is_number_unsigned())
      TermsOf.emplace(J.value("molecule", ""), J["n_terms"].get<unsigned>());
    Model.add(numberOr(J, "x", NAN), numberOr(J, "peak_rss_mb", NAN));
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
    std::string ResultFile = joinPath(pointDir(Spec, Ids[I]), "result.json");
    if (llvm::sys::fs::exists(ResultFile)) {
      Expected<json> J = readJsonFile(ResultFile);
      if (J) {
        std::string Status = J->value("status", "");
        if (Status == "ok" || (Status == "failed" && !Spec.retryFailed)) {
          PointResult &R = Sum.points[I];
          R.id = Ids[I];
          R.status = Status;
          R.skipped = true;
          R.json = std::move(*J);
          Learn(R.json);
          ++Done;
          ++Sum.skipped;
          Sum.failed += Status != "ok";
          Emit(ProgressEvent::Skipped, Ids[I], Status, 0, 0);
          continue;
        }
      } else {
        llvm::consumeError(J.takeError()); // Unreadable: run it again.
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
        // The machinery failed for this point; record it and go on.
        Slot.id = Ids[I];
        Slot.status = "failed";
        Slot.json = {{"schema", "q2.sweep.point/1"},
                     {"key", Ids[I].key()},
                     {"molecule", Ids[I].molecule},
                     {"mode", Ids[I].mode},
                     {"n_est", Ids[I].nEst},
                     {"n_trotter", Ids[I].nTrotter},
                     {"status", "failed"},
                     {"reason", "error"},
                     {"message", llvm::toString(R.takeError())}};
      }
      if (Slot.status == "cancelled") {
        Sum.cancelled = true;
      } else {
        ++Done;
        ++RanNow;
        ++Sum.ran;
        if (Slot.status != "ok")
          ++Sum.failed;
        Learn(Slot.json);
      }
      Emit(ProgressEvent::Finished, Ids[I], Slot.status, Workers.size(), 0);
      L.lock();
    }
  }

  std::vector<json> Results;
  for (const auto &P : Sum.points)
    if (!P.json.is_null() && P.status != "cancelled")
      Results.push_back(P.json);
  if (Spec.only.empty())
    if (Error E = writeSummary(Spec.outDir, Results))
      return std::move(E);
  return Sum;
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

const json *q2::orch::findKey(const json &J, const std::string &Name) {
  if (J.is_object()) {
    auto It = J.find(Name);
    if (It != J.end())
      return &*It;
    for (const auto &V : J)
      if (const json *F = findKey(V, Name))
        return F;
  } else if (J.is_array()) {
    for (const auto &V : J)
      if (const json *F = findKey(V, Name))
        return F;
  }
  return nullptr;
}

Expected<std::vector<json>>
q2::orch::loadResults(const std::vector<std::string> &Dirs) {
  std::map<std::string, json> ByKey;
  for (const auto &D : Dirs) {
    std::string Points = joinPath(D, "points");
    if (!llvm::sys::fs::is_directory(Points))
      return makeError(D + ": not a sweep directory (no points/)");
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Points, EC), End;
         It != End && !EC; It.increment(EC)) {
      std::string File = joinPath(It->path(), "result.json");
      if (!llvm::sys::fs::exists(File))
        continue; // Not finished (or still running).
      Expected<json> J = readJsonFile(File);
      if (!J)
        return J.takeError();
      std::string Key = J->value("key", "");
      if (Key.empty())
        return makeError(File + ":1: result without a key");
      auto Old = ByKey.find(Key);
      if (Old != ByKey.end() &&
          Old->second.value("status", "") != J->value("status", ""))
        return makeError(File + ":1: point '" + Key +
                         "' also in an earlier directory with status '" +
                         Old->second.value("status", "") + "'");
      ByKey[Key] = std::move(*J);
    }
    if (EC)
      return makeError(Points + ": " + EC.message());
  }
  std::vector<json> Out;
  for (auto &KV : ByKey)
    Out.push_back(std::move(KV.second));
  std::stable_sort(Out.begin(), Out.end(), [](const json &A, const json &B) {
    auto K = [](const json &J) {
      return std::make_tuple(J.value("molecule", ""), J.value("n_est", 0u),
                             J.value("n_trotter", 0u), J.value("mode", ""));
    };
    return K(A) < K(B);
  });
  return Out;
}

namespace {
struct Column {
  const char *name;
  std::function<std::string(const json &)> get;
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

std::string scalar(const json *V, int Prec = 3) {
  if (!V || V->is_null())
    return "";
  if (V->is_string())
    return V->get<std::string>();
  if (V->is_number_integer() || V->is_number_unsigned())
    return std::to_string(V->get<long long>());
  if (V->is_number())
    return fmt(V->get<double>(), Prec);
  return V->dump();
}

const json *at(const json &J, std::initializer_list<const char *> Path) {
  const json *Cur = &J;
  for (const char *K : Path) {
    if (!Cur->is_object())
      return nullptr;
    auto It = Cur->find(K);
    if (It == Cur->end())
      return nullptr;
    Cur = &*It;
  }
  return Cur;
}

std::vector<Column> columns() {
  auto F = [](std::initializer_list<const char *> Path, int Prec = 3) {
    std::vector<const char *> P(Path);
    return [P, Prec](const json &J) {
      const json *Cur = &J;
      for (const char *K : P) {
        if (!Cur->is_object() || !Cur->contains(K))
          return std::string();
        Cur = &(*Cur)[K];
      }
      return scalar(Cur, Prec);
    };
  };
  auto Failed = [](const json &J) -> const json * {
    const json *Ph = at(J, {"failed_phase"});
    if (!Ph || !Ph->is_string())
      return nullptr;
    return at(J, {"phases", Ph->get_ref<const std::string &>().c_str()});
  };
  return {
      {"key", F({"key"})},
      {"molecule", F({"molecule"})},
      {"mode", F({"mode"})},
      {"n_est", F({"n_est"})},
      {"n_trotter", F({"n_trotter"})},
      {"n_terms", F({"n_terms"})},
      {"x", F({"x"}, 0)},
      {"status", F({"status"})},
      {"failed_phase", F({"failed_phase"})},
      {"reason", F({"reason"})},
      {"exit_code",
       [=](const json &J) {
         const json *P = Failed(J);
         return P ? scalar(at(*P, {"exit_code"})) : std::string();
       }},
      {"signal",
       [=](const json &J) {
         const json *P = Failed(J);
         return P ? scalar(at(*P, {"signal"})) : std::string();
       }},
      {"compile_s",
       [](const json &J) {
         // Sum of the report's stage wall times (StageRecord::toJSON).
         const json *Report = at(J, {"report"});
         const json *Stages = Report ? findKey(*Report, "stages") : nullptr;
         if (!Stages || !Stages->is_array() || Stages->empty())
           return std::string();
         double Sum = 0;
         for (const auto &S : *Stages) {
           if (!S.is_object() || !S.contains("wall_s") ||
               !S["wall_s"].is_number())
             return std::string();
           Sum += S["wall_s"].get<double>();
         }
         return fmt(Sum, 3);
       }},
      {"wall_s", F({"wall_s"})},
      {"wall_a_s", F({"phases", "A", "wall_s"})},
      {"wall_bc_s", F({"phases", "BC", "wall_s"})},
      {"peak_rss_mb", F({"peak_rss_mb"}, 1)},
      {"peak_rss_a_mb", F({"phases", "A", "peak_tree_rss_mb"}, 1)},
      {"peak_rss_bc_mb", F({"phases", "BC", "peak_tree_rss_mb"}, 1)},
      {"vmhwm_bc_mb", F({"phases", "BC", "max_vmhwm_mb"}, 1)},
  };
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

std::string q2::orch::summaryCsv(const std::vector<json> &Results) {
  auto Cols = columns();
  std::string Out;
  for (size_t I = 0; I < Cols.size(); ++I)
    Out += (I ? "," : "") + std::string(Cols[I].name);
  Out += "\n";
  for (const auto &R : Results) {
    for (size_t I = 0; I < Cols.size(); ++I)
      Out += (I ? "," : "") + csvEscape(Cols[I].get(R));
    Out += "\n";
  }
  return Out;
}

std::string q2::orch::summaryTable(const std::vector<json> &Results) {
  // The table leaves out the columns that only matter for failures when
  // every point succeeded.
  auto Cols = columns();
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
      if (Row > 0 && !Rows[Row][I].empty())
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
    Ok += R.value("status", "") == "ok";
  Out += std::to_string(Results.size()) + " points, " + std::to_string(Ok) +
         " ok, " + std::to_string(Results.size() - Ok) + " failed\n";
  return Out;
}

Error q2::orch::writeSummary(const std::string &Dir,
                             const std::vector<json> &Results) {
  if (Error E = writeFileAtomically(joinPath(Dir, "summary.csv"),
                                    summaryCsv(Results)))
    return E;
  return writeFileAtomically(joinPath(Dir, "summary.txt"),
                             summaryTable(Results));
}
