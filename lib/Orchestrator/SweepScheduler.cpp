//===- SweepScheduler.cpp - runSweep: points in parallel, within RSS ------===//
//
// runSweep takes the sweep directory, skips the points a previous run
// finished, and runs the rest on `jobs` worker threads, admitting a point
// only while the predicted peak RSS of the points running fits the total
// budget (PeakRssModel, learnt from the points finished).
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/Sweep.h"

#include "RecordFields.h"
#include "SweepInternal.h"
#include "q2/Support/FileIO.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

using namespace q2::orch;
using namespace q2::orch::sweep_detail;
using llvm::createStringError;
using llvm::Error;
using llvm::Expected;
namespace json = q2::json;

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

/// One sweep's points: which are pending, which run on which worker
/// thread, and the memory they were admitted with. Workers only run
/// runPoint and hand the result back; the calling thread admits, collects,
/// learns and reports.
class SweepScheduler {
public:
  SweepScheduler(const SweepSpec &Spec, const ProgressCallback &Progress);

  /// Runs every point not finished before; the summary of all of them.
  SweepSummary run();

private:
  using Clock = std::chrono::steady_clock;

  /// The size the RSS model is fitted on: n_est * n_trotter * terms.
  double sizeOf(const PointId &Id) const;
  /// Feeds a finished point's peak to the model (ok points only: a killed
  /// point's peak is a lower bound).
  void learn(const PointRecord &R);
  void emit(ProgressEvent::Kind K, const PointId &Id,
            const std::string &Status, size_t Running, double PredictedMB);
  /// Takes the points whose result.json says they are done (ok, or failed
  /// without --retry-failed); queues the others.
  void resumeFinished();
  /// Starts pending points in order while workers are free, backfilling
  /// smaller points that fit when the next one does not; with nothing
  /// running, the next point always starts.
  void admit();
  /// Waits (up to 100 ms) for workers to finish and records their points.
  void collect();
  /// Records point I's result (or the error that kept it from running).
  void finish(size_t I, Expected<PointResult> R);

  const SweepSpec &Spec;
  const ProgressCallback &Progress;
  Clock::time_point Start = Clock::now();
  std::vector<PointId> Ids;
  SweepSummary Sum;
  const unsigned Jobs;
  /// The total RSS budget of the points running at once (MB).
  const double TotalMB;
  PeakRssModel Model;
  std::map<std::string, unsigned> TermsOf;
  size_t Done = 0, RanNow = 0;

  std::deque<size_t> Pending;
  std::mutex Mu;
  std::condition_variable CV;
  std::deque<std::pair<size_t, Expected<PointResult>>> Finished; // under Mu
  std::map<size_t, std::thread> Workers;
  std::map<size_t, double> Admitted; // index -> predicted MB
  double InUseMB = 0;
};

SweepScheduler::SweepScheduler(const SweepSpec &Spec,
                               const ProgressCallback &Progress)
    : Spec(Spec), Progress(Progress), Ids(enumeratePoints(Spec)),
      Jobs(std::max(1u, Spec.jobs)),
      TotalMB(Spec.totalRssMB > 0 ? Spec.totalRssMB
                                  : Spec.phase.rssBudgetMB * Jobs),
      Model(Spec.phase.rssBudgetMB, Spec.phase.rssBudgetMB) {
  Sum.points.resize(Ids.size());
  for (const auto &M : Spec.molecules)
    if (M.nTerms)
      TermsOf[M.name] = M.nTerms;
}

double SweepScheduler::sizeOf(const PointId &Id) const {
  auto It = TermsOf.find(Id.molecule);
  return double(Id.nEst) * Id.nTrotter *
         (It != TermsOf.end() ? It->second : 1);
}

void SweepScheduler::learn(const PointRecord &R) {
  if (R.status != "ok")
    return;
  if (R.nTerms)
    TermsOf.emplace(R.molecule, *R.nTerms);
  if (R.x)
    Model.add(*R.x, R.peakRssMB);
}

void SweepScheduler::emit(ProgressEvent::Kind K, const PointId &Id,
                          const std::string &Status, size_t Running,
                          double PredictedMB) {
  if (!Progress)
    return;
  ProgressEvent E{K, Id, Status};
  E.done = Done;
  E.total = Ids.size();
  E.running = Running;
  E.elapsedS = std::chrono::duration<double>(Clock::now() - Start).count();
  // Throughput of points run now (parallelism included).
  if (RanNow > 0)
    E.etaS = E.elapsedS / double(RanNow) * double(Ids.size() - Done);
  E.predictedRssMB = PredictedMB;
  Progress(E);
}

void SweepScheduler::resumeFinished() {
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
          learn(R.record);
          ++Done;
          ++Sum.skipped;
          Sum.failed += Status != "ok";
          emit(ProgressEvent::Skipped, Ids[I], Status, 0, 0);
          continue;
        }
      } else {
        llvm::consumeError(Rec.takeError()); // Unreadable: run it again.
      }
    }
    Pending.push_back(I);
  }
}

void SweepScheduler::admit() {
  for (auto It = Pending.begin();
       It != Pending.end() && Workers.size() < Jobs;) {
    double Pred = Model.predict(sizeOf(Ids[*It]));
    if (!Workers.empty() && InUseMB + Pred > TotalMB) {
      ++It;
      continue;
    }
    size_t I = *It;
    It = Pending.erase(It);
    Admitted[I] = Pred;
    InUseMB += Pred;
    auto Terms = TermsOf.find(Ids[I].molecule);
    unsigned Hint = Terms != TermsOf.end() ? Terms->second : 0;
    Workers[I] = std::thread([this, I, Hint] {
      Expected<PointResult> R = runPoint(Spec, Ids[I], Hint);
      if (!R)
        R = resultOfConcurrentRun(Spec, Ids[I], R.takeError());
      std::lock_guard<std::mutex> L(Mu);
      Finished.emplace_back(I, std::move(R));
      CV.notify_all();
    });
    emit(ProgressEvent::Started, Ids[I], "", Workers.size(), Pred);
  }
}

void SweepScheduler::collect() {
  std::unique_lock<std::mutex> L(Mu);
  CV.wait_for(L, std::chrono::milliseconds(100),
              [&] { return !Finished.empty(); });
  while (!Finished.empty()) {
    auto [I, R] = std::move(Finished.front());
    Finished.pop_front();
    L.unlock();
    finish(I, std::move(R));
    L.lock();
  }
}

void SweepScheduler::finish(size_t I, Expected<PointResult> R) {
  Workers[I].join();
  Workers.erase(I);
  InUseMB -= Admitted[I];
  Admitted.erase(I);
  PointResult &Slot = Sum.points[I];
  if (R) {
    Slot = std::move(*R);
  } else {
    // The machinery failed for this point (e.g. another process runs it);
    // record it here, not on disk, and go on.
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
    learn(Slot.record);
  }
  emit(ProgressEvent::Finished, Ids[I], Slot.status(), Workers.size(), 0);
}

SweepSummary SweepScheduler::run() {
  resumeFinished();
  while (!Pending.empty() || !Workers.empty()) {
    if (Spec.cancel && Spec.cancel->load()) {
      Sum.cancelled = true;
      Pending.clear();
    }
    admit();
    if (Workers.empty())
      break;
    collect();
  }
  return std::move(Sum);
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

  SweepSummary Sum = SweepScheduler(Spec, Progress).run();
  if (Spec.only.empty())
    if (Error E = writeSummary(Spec.outDir, resultsOf(Sum)))
      return std::move(E);
  return Sum;
}
