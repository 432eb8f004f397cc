//===- SweepScheduler.cpp - runSweep: points in parallel, within RSS ------===//
//
// runSweep takes the sweep directory, skips the points a previous run
// finished, and runs the rest on `jobs` worker threads, admitting a point
// only while the predicted peak RSS of the points running fits the total
// budget (PeakRssModel, learnt from the points finished).
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/Sweep.h"
#include "q2/Orchestrator/SweepSlurm.h"

#include "q2/Orchestrator/RecordFields.h"
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

/// One sweep's points: which are pending, which run on which worker
/// thread, and the memory they were admitted with. Workers only run
/// runPoint and hand the result back; the calling thread admits, collects,
/// learns and reports.
class SweepScheduler {
public:
  SweepScheduler(const SweepSpec &spec, const ProgressCallback &progress);

  /// Runs every point not finished before; the summary of all of them.
  SweepSummary run();

private:
  using Clock = std::chrono::steady_clock;

  /// The size the RSS model is fitted on: n_est * n_trotter * terms.
  double sizeOf(const PointId &id) const;
  /// Feeds a finished point's peak to the model (ok points only: a killed
  /// point's peak is a lower bound).
  void learn(const PointRecord &r);
  void emit(ProgressEvent::Kind k, const PointId &id,
            const std::string &status, size_t running, double predictedMb);
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
  void finish(size_t i, Expected<PointResult> r);

  const SweepSpec &spec;
  const ProgressCallback &progress;
  Clock::time_point start = Clock::now();
  std::vector<PointId> ids;
  SweepSummary sum;
  const unsigned jobs;
  /// The total RSS budget of the points running at once (MB).
  const double totalMB;
  PeakRssModel model;
  std::map<std::string, unsigned> termsOf;
  size_t done = 0, ranNow = 0;

  std::deque<size_t> pending;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::pair<size_t, Expected<PointResult>>> finished; // under mu
  std::map<size_t, std::thread> workers;
  std::map<size_t, double> admitted; // index -> predicted MB
  double inUseMB = 0;
};

SweepScheduler::SweepScheduler(const SweepSpec &spec,
                               const ProgressCallback &progress)
    : spec(spec), progress(progress), ids(enumeratePoints(spec)),
      jobs(std::max(1u, spec.jobs)),
      totalMB(spec.totalRssMB > 0 ? spec.totalRssMB
                                  : spec.phase.rssBudgetMB * jobs),
      model(spec.phase.rssBudgetMB, spec.phase.rssBudgetMB) {
  sum.points.resize(ids.size());
  for (const auto &m : spec.molecules)
    if (m.nTerms)
      termsOf[m.name] = m.nTerms;
}

double SweepScheduler::sizeOf(const PointId &id) const {
  auto it = termsOf.find(id.molecule);
  return double(id.nEst) * id.nTrotter *
         (it != termsOf.end() ? it->second : 1);
}

void SweepScheduler::learn(const PointRecord &r) {
  if (r.status != "ok")
    return;
  if (r.nTerms)
    termsOf.emplace(r.molecule, *r.nTerms);
  if (r.x)
    model.add(*r.x, r.peakRssMB);
}

void SweepScheduler::emit(ProgressEvent::Kind k, const PointId &id,
                          const std::string &status, size_t running,
                          double predictedMb) {
  if (!progress)
    return;
  ProgressEvent e{k, id, status};
  e.done = done;
  e.failed = sum.failed;
  e.total = ids.size();
  e.running = running;
  e.elapsedS = std::chrono::duration<double>(Clock::now() - start).count();
  // Throughput of points run now (parallelism included).
  if (ranNow > 0)
    e.etaS = e.elapsedS / double(ranNow) * double(ids.size() - done);
  e.predictedRssMB = predictedMb;
  progress(e);
}

void SweepScheduler::resumeFinished() {
  for (size_t i = 0; i < ids.size(); ++i) {
    std::string dir = pointDir(spec, ids[i]);
    std::string resultFile = joinPath(dir, "result.json");
    if (llvm::sys::fs::exists(resultFile)) {
      Expected<PointRecord> rec = readPointRecord(resultFile);
      if (rec) {
        const std::string status = rec->status;
        if (isFinished(*rec, spec.retryFailed)) {
          // Temporaries of writers killed in this finished point (only
          // while nobody else works on it).
          if (Expected<q2::FileLock> l = lockPoint(spec, ids[i]))
            removeStaleTemporariesIn(dir);
          else
            llvm::consumeError(l.takeError());
          PointResult &r = sum.points[i];
          r.id = ids[i];
          r.skipped = true;
          r.record = std::move(*rec);
          learn(r.record);
          ++done;
          ++sum.skipped;
          sum.failed += status != "ok";
          emit(ProgressEvent::Skipped, ids[i], status, 0, 0);
          continue;
        }
      } else {
        llvm::consumeError(rec.takeError()); // Unreadable: run it again.
      }
    }
    pending.push_back(i);
  }
}

void SweepScheduler::admit() {
  for (auto it = pending.begin();
       it != pending.end() && workers.size() < jobs;) {
    double pred = model.predict(sizeOf(ids[*it]));
    if (!workers.empty() && inUseMB + pred > totalMB) {
      ++it;
      continue;
    }
    size_t i = *it;
    it = pending.erase(it);
    admitted[i] = pred;
    inUseMB += pred;
    auto terms = termsOf.find(ids[i].molecule);
    unsigned hint = terms != termsOf.end() ? terms->second : 0;
    workers[i] = std::thread([this, i, hint] {
      Expected<PointResult> r = runPoint(spec, ids[i], hint);
      if (!r)
        r = resultOfConcurrentRun(spec, ids[i], r.takeError());
      std::lock_guard<std::mutex> l(mu);
      finished.emplace_back(i, std::move(r));
      cv.notify_all();
    });
    emit(ProgressEvent::Started, ids[i], "", workers.size(), pred);
  }
}

void SweepScheduler::collect() {
  std::unique_lock<std::mutex> l(mu);
  cv.wait_for(l, std::chrono::milliseconds(100),
              [&] { return !finished.empty(); });
  while (!finished.empty()) {
    auto [i, r] = std::move(finished.front());
    finished.pop_front();
    l.unlock();
    finish(i, std::move(r));
    l.lock();
  }
}

void SweepScheduler::finish(size_t i, Expected<PointResult> r) {
  workers[i].join();
  workers.erase(i);
  inUseMB -= admitted[i];
  admitted.erase(i);
  PointResult &slot = sum.points[i];
  if (r) {
    slot = std::move(*r);
  } else {
    // The machinery failed for this point (e.g. another process runs it);
    // record it here, not on disk, and go on.
    slot.id = ids[i];
    slot.record = recordFor(ids[i], findMolecule(spec, ids[i].molecule));
    slot.record.status = "failed";
    slot.record.reason = "error";
    slot.record.message = llvm::toString(r.takeError());
  }
  if (slot.status() == "cancelled") {
    sum.cancelled = true;
  } else {
    ++done;
    ++ranNow;
    ++sum.ran;
    if (slot.status() != "ok")
      ++sum.failed;
    learn(slot.record);
  }
  emit(ProgressEvent::Finished, ids[i], slot.status(), workers.size(), 0);
}

SweepSummary SweepScheduler::run() {
  resumeFinished();
  while (!pending.empty() || !workers.empty()) {
    if (spec.cancel && spec.cancel->load()) {
      sum.cancelled = true;
      pending.clear();
    }
    admit();
    if (workers.empty())
      break;
    collect();
  }
  return std::move(sum);
}

} // namespace

Expected<std::optional<q2::FileLock>>
q2::orch::sweep_detail::openSweepDirectory(const SweepSpec &spec) {
  if (Error e = validateSweepSpec(spec))
    return std::move(e);
  if (std::error_code ec =
          llvm::sys::fs::create_directories(joinPath(spec.outDir, "points")))
    return createStringError("cannot create '" + spec.outDir +
                             "': " + ec.message());
  // A whole sweep owns OUT: a second one would remove the partial points
  // the first is running. `--only` jobs share OUT; each point is locked.
  std::optional<q2::FileLock> sweepLock;
  if (spec.only.empty()) {
    Expected<q2::FileLock> l =
        q2::FileLock::acquire(joinPath(spec.outDir, ".lock"), /*wait=*/false,
                              "sweep directory '" + spec.outDir + "'");
    if (!l)
      return l.takeError();
    sweepLock.emplace(std::move(*l));
  }
  // Every `--only` job of an emitted sweep writes the same spec; skip that
  // so concurrent jobs do not race on it.
  if (spec.only.empty())
    if (Error e = writeSweepSpec(joinPath(spec.outDir, "sweep.json"), spec))
      return std::move(e);
  return std::move(sweepLock);
}

Expected<SweepSummary> q2::orch::runSweep(const SweepSpec &spec,
                                          const ProgressCallback &progress) {
  if (spec.executor == SweepExecutor::Slurm)
    return runSlurmSweep(spec, progress);
  // Before sweep.json is rewritten. (Not in a Slurm task: its own array is
  // in the queue.)
  if (spec.only.empty())
    if (Error e = checkNoSlurmTasksActive(spec.outDir))
      return std::move(e);
  Expected<std::optional<q2::FileLock>> lock = openSweepDirectory(spec);
  if (!lock)
    return lock.takeError();
  SweepSummary sum = SweepScheduler(spec, progress).run();
  if (spec.only.empty())
    if (Error e = writeSummary(spec.outDir, resultsOf(sum)))
      return std::move(e);
  return sum;
}
