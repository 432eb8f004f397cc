//===- SweepSlurm.cpp - runSweep as a Slurm job array ---------------------===//
//
// The controller of a Slurm sweep: what earlier submissions left (results,
// tasks in the queue, tasks that ended without a result), one array for the
// rest, following it until every task ended, cancelling it on ^C. The
// Slurm tools and their output are in SlurmClient.cpp; a task runs its
// point as a local sweep restricted to it (slurmTaskSpec).
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/SweepSlurm.h"

#include "SweepInternal.h"
#include "q2/Orchestrator/RecordFields.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <ctime>
#include <set>
#include <thread>

using namespace q2::orch;
using namespace q2::orch::sweep_detail;
using llvm::createStringError;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
namespace json = q2::json;

namespace q2::orch {
namespace {

/// One array submitted for a sweep: task i runs the point keys[i].
struct Submission {
  unsigned n = 0;
  /// The array job id; empty while sbatch has not answered (a controller
  /// killed then leaves it so; the job name finds the array again).
  std::string jobId;
  std::string jobName;
  std::vector<std::string> keys;
  /// The sbatch command line, for the curious.
  std::vector<std::string> sbatch;
  std::string submittedAt;
};

Q2_JSON_FIELDS(Submission) {
  v("n", r.n);
  v("job_id", r.jobId);
  v("job_name", r.jobName);
  v("keys", r.keys);
  v("sbatch", r.sbatch);
  v("submitted_at", r.submittedAt);
}

constexpr const char *kSubmissionsSchema = "q2.sweep.slurm/1";
/// Seconds to wait, after a task ended by itself, for its result.json to
/// become visible (a shared filesystem may show it late) before calling it
/// a task failure.
constexpr double kResultGraceS = 60;
/// Seconds to wait for cancelled tasks to leave the queue.
constexpr double kCancelWaitS = 120;

std::string slurmDir(StringRef outDir) { return joinPath(outDir, "slurm"); }
std::string submissionDir(StringRef outDir, unsigned n) {
  return joinPath(outDir, "slurm", std::to_string(n));
}
std::string taskLogPath(StringRef outDir, unsigned n, unsigned task) {
  return joinPath(submissionDir(outDir, n), std::to_string(task) + ".log");
}

Expected<std::vector<Submission>> loadSubmissions(StringRef outDir) {
  std::string file = joinPath(slurmDir(outDir), "submissions.json");
  std::vector<Submission> subs;
  if (!llvm::sys::fs::exists(file))
    return subs;
  Expected<json::Value> v = json::readFile(file);
  if (!v)
    return v.takeError();
  json::Cursor c(*v, file);
  Expected<json::Cursor> schema = c.at("schema");
  if (!schema)
    return schema.takeError();
  Expected<std::string> name = schema->string();
  if (!name)
    return name.takeError();
  if (*name != kSubmissionsSchema)
    return schema->error("expected \"" + llvm::Twine(kSubmissionsSchema) +
                         "\", got \"" + *name + "\"");
  Expected<json::Cursor> list = c.at("submissions");
  if (!list)
    return list.takeError();
  if (Error e = json::fromValue(*list, subs))
    return std::move(e);
  return subs;
}

Error saveSubmissions(StringRef outDir, const std::vector<Submission> &subs) {
  json::Value j = json::Value::object();
  j["schema"] = kSubmissionsSchema;
  j["submissions"] = json::toValue(subs);
  return json::writeFile(joinPath(slurmDir(outDir), "submissions.json"), j);
}

/// Unique per sweep directory and submission, so that a submission whose
/// job id was never saved can be found in the queue.
std::string jobNameFor(StringRef outDir, unsigned n) {
  return llvm::formatv("q2sweep-{0:x-8}-{1}",
                       uint32_t(llvm::xxh3_64bits(outDir)), n)
      .str();
}

std::string nowUTC() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

/// The array job ids of the submissions (known ones).
std::set<std::string> jobIdsOf(const std::vector<Submission> &subs) {
  std::set<std::string> jobs;
  for (const Submission &s : subs)
    if (!s.jobId.empty())
      jobs.insert(s.jobId);
  return jobs;
}

/// The latest task of each point: (submission index, task index).
std::map<std::string, std::pair<size_t, unsigned>>
latestTasks(const std::vector<Submission> &subs) {
  std::map<std::string, std::pair<size_t, unsigned>> out;
  for (size_t s = 0; s < subs.size(); ++s)
    for (unsigned t = 0; t < subs[s].keys.size(); ++t)
      out[subs[s].keys[t]] = {s, t};
  return out;
}

/// The queue's tasks of these arrays, by job id ("4711_3").
Expected<std::map<std::string, SlurmQueuedTask>>
queuedTasks(const SlurmCommandRunner &run, const std::set<std::string> &jobs) {
  std::map<std::string, SlurmQueuedTask> out;
  if (jobs.empty())
    return out;
  Expected<std::string> text =
      run({"squeue", "--noheader", "--array", "--jobs", llvm::join(jobs, ","),
           "--format=%F|%K|%T|%M|%N|%r"});
  if (!text) {
    // squeue's answer when the only job asked about is no longer known
    // (ended more than MinJobAge ago): nothing of it is queued.
    std::string why = llvm::toString(text.takeError());
    if (StringRef(why).contains("Invalid job id specified"))
      return out;
    return createStringError(std::make_error_code(std::errc::io_error), why);
  }
  for (SlurmQueuedTask &t : parseSqueue(*text))
    if (jobs.count(t.arrayJobId))
      out[t.jobId()] = std::move(t);
  return out;
}

/// Finds the array of a submission whose job id was not saved.
std::string findByName(const SlurmCommandRunner &run, StringRef name) {
  Expected<std::string> text = run({"squeue", "--noheader", "--array", "--name",
                                    name.str(), "--format=%F|%K|%T|%M|%N|%r"});
  if (!text) {
    llvm::consumeError(text.takeError());
    return "";
  }
  std::vector<SlurmQueuedTask> tasks = parseSqueue(*text);
  return tasks.empty() ? "" : tasks.front().arrayJobId;
}

/// What Slurm knows about the ended tasks of one array: sacct where
/// accounting works, else `scontrol show job`, else the jobcomp/filetxt
/// log; then each task's output (slurmstepd's lines).
class Accounting {
public:
  explicit Accounting(const SlurmCommandRunner &run) : run(run) {}

  std::map<std::string, SlurmTaskRecord> tasksOf(const std::string &arrayId) {
    std::map<std::string, SlurmTaskRecord> out;
    if (sacctWorks) {
      Expected<std::string> text =
          run({"sacct", "--parsable2", "--noheader", "--jobs", arrayId,
               "--format=JobID,State,ExitCode,Elapsed,MaxRSS,ReqMem,NodeList"});
      if (text) {
        out = parseSacct(*text);
      } else {
        // "Slurm accounting storage is disabled": no slurmdbd.
        llvm::consumeError(text.takeError());
        sacctWorks = false;
      }
    }
    // sacct may lag behind a task that just ended.
    auto known = [&](const std::string &id) {
      auto it = out.find(id);
      return it != out.end() &&
             classifySlurmTask(it->second) != SlurmOutcome::Unknown;
    };
    Expected<std::string> text =
        run({"scontrol", "--oneliner", "show", "job", arrayId});
    if (text) {
      for (auto &[id, r] : parseScontrolJobs(*text, "scontrol", arrayId))
        if (!known(id))
          out[id] = std::move(r);
    } else {
      llvm::consumeError(text.takeError()); // Purged after MinJobAge.
    }
    if (std::string log = jobCompLog(); !log.empty()) {
      Expected<std::string> text = readTextFile(log);
      if (text) {
        for (auto &[id, r] : parseScontrolJobs(*text, "jobcomp", arrayId))
          if (!known(id))
            out[id] = std::move(r);
      } else {
        llvm::consumeError(text.takeError());
      }
    }
    return out;
  }

private:
  /// JobCompLoc when JobCompType is jobcomp/filetxt (asked once).
  std::string jobCompLog() {
    if (jobComp)
      return *jobComp;
    jobComp = "";
    Expected<std::string> text = run({"scontrol", "show", "config"});
    if (!text) {
      llvm::consumeError(text.takeError());
      return "";
    }
    std::string type, loc;
    llvm::SmallVector<StringRef, 256> lines;
    StringRef(*text).split(lines, '\n');
    for (StringRef line : lines) {
      auto [k, v] = line.split('=');
      if (k.trim() == "JobCompType")
        type = v.trim().str();
      else if (k.trim() == "JobCompLoc")
        loc = v.trim().str();
    }
    if (type == "jobcomp/filetxt")
      jobComp = loc;
    return *jobComp;
  }

  const SlurmCommandRunner &run;
  bool sacctWorks = true;
  std::optional<std::string> jobComp;
};

/// A Slurm sweep from start to end (runSlurmSweep).
class SlurmSweep {
public:
  SlurmSweep(const SweepSpec &spec, const ProgressCallback &progress,
             const SlurmCommandRunner &run)
      : spec(spec), progress(progress), run(run), accounting(run),
        ids(enumeratePoints(spec)) {
    sum.points.resize(ids.size());
  }

  Expected<SweepSummary> runAll();

private:
  using Clock = std::chrono::steady_clock;
  enum class State { Done, InFlight, Todo };
  struct Slot {
    State state = State::Todo;
    /// The point's latest task (submission index, task index), if any.
    std::optional<std::pair<size_t, unsigned>> task;
    bool running = false;
    /// When its task was first seen gone without a result.
    std::optional<Clock::time_point> endedAt;
  };

  std::string jobIdOf(const Slot &s) const {
    return subs[s.task->first].jobId + "_" + std::to_string(s.task->second);
  }
  std::string logOf(const Slot &s) const {
    return taskLogPath(spec.outDir, subs[s.task->first].n, s.task->second);
  }
  /// Job ids of the arrays with points in flight.
  std::set<std::string> activeArrays() const;
  Error recoverUnsavedJobIds();
  /// Whether R was written by the point's latest task.
  bool fromLatestTask(const Slot &s, const PointRecord &r) const {
    return s.task && r.slurm && r.slurm->jobId == jobIdOf(s);
  }
  enum class Settled { Wait, Missing, Recorded };
  /// For a point whose task left the queue without a result of its own:
  /// asks Slurm why and writes the failed record (into Out), or finds the
  /// point missing (cancelled), or, unless Final, waits for a result that
  /// may still show up.
  Settled settleEnded(size_t i, bool final, PointRecord &out);
  void record(size_t i, PointRecord r, bool now);
  Error submit();
  Error follow();
  void emit(ProgressEvent::Kind k, size_t i, const std::string &status,
            const std::string &detail = "");

  const SweepSpec &spec;
  const ProgressCallback &progress;
  const SlurmCommandRunner &run;
  Accounting accounting;
  std::vector<PointId> ids;
  std::vector<Slot> slots;
  std::vector<Submission> subs;
  SweepSummary sum;
  Clock::time_point start = Clock::now();
  size_t done = 0, finishedNow = 0, running = 0, queued = 0;
  /// Accounting of the arrays asked in this round.
  std::map<std::string, std::map<std::string, SlurmTaskRecord>> acct;
};

std::set<std::string> SlurmSweep::activeArrays() const {
  std::set<std::string> out;
  for (const Slot &s : slots)
    if (s.state == State::InFlight)
      out.insert(subs[s.task->first].jobId);
  return out;
}

void SlurmSweep::emit(ProgressEvent::Kind k, size_t i,
                      const std::string &status, const std::string &detail) {
  if (!progress)
    return;
  ProgressEvent e{k, i < ids.size() ? ids[i] : PointId{}, status, detail};
  e.done = done;
  e.total = ids.size();
  e.running = running;
  e.queued = queued;
  e.failed = sum.failed;
  e.elapsedS = std::chrono::duration<double>(Clock::now() - start).count();
  if (finishedNow > 0)
    e.etaS = e.elapsedS / double(finishedNow) * double(ids.size() - done);
  progress(e);
}

void SlurmSweep::record(size_t i, PointRecord r, bool now) {
  PointResult &p = sum.points[i];
  p.id = ids[i];
  p.skipped = !now;
  p.record = std::move(r);
  slots[i].state = State::Done;
  ++done;
  if (now) {
    ++finishedNow;
    ++sum.ran;
  } else {
    ++sum.skipped;
  }
  if (p.record.status != "ok")
    ++sum.failed;
  if (p.record.retryable)
    ++sum.retryable;
  emit(now ? ProgressEvent::Finished : ProgressEvent::Skipped, i,
       p.record.status);
}

Error SlurmSweep::recoverUnsavedJobIds() {
  bool changed = false;
  for (auto it = subs.begin(); it != subs.end();) {
    if (!it->jobId.empty()) {
      ++it;
      continue;
    }
    std::string id = findByName(run, it->jobName);
    if (id.empty()) {
      // Never submitted, or ended: its tasks' results are on disk.
      it = subs.erase(it);
    } else {
      it->jobId = id;
      ++it;
    }
    changed = true;
  }
  return changed ? saveSubmissions(spec.outDir, subs) : Error::success();
}

SlurmSweep::Settled SlurmSweep::settleEnded(size_t i, bool final,
                                            PointRecord &out) {
  Slot &s = slots[i];
  const Submission &sub = subs[s.task->first];
  auto found = acct.find(sub.jobId);
  if (found == acct.end())
    found = acct.emplace(sub.jobId, accounting.tasksOf(sub.jobId)).first;
  SlurmTaskRecord task;
  if (auto it = found->second.find(jobIdOf(s)); it != found->second.end())
    task = it->second;
  task.jobId = jobIdOf(s);
  if (task.source.empty())
    task.source = "log";
  if (task.log.empty())
    task.log = logOf(s);
  if (Expected<std::string> text = readTextFile(logOf(s), 1 << 24))
    readTaskLog(*text, task);
  else
    llvm::consumeError(text.takeError());

  SlurmOutcome outcome = classifySlurmTask(task);
  // A task that ended by itself wrote its result (exit 0: ok, 3: failed
  // point), or Slurm has not told yet: give a shared filesystem and the
  // accounting a moment.
  int status = 0, signal = 0;
  auto [a, b] = StringRef(task.exitCode).split(':');
  if (a.getAsInteger(10, status) || b.getAsInteger(10, signal))
    status = signal = 0;
  bool expectResult = outcome == SlurmOutcome::Unknown ||
                      (outcome == SlurmOutcome::Ended && signal == 0 &&
                       (status == 0 || status == 3));
  if (!final && expectResult) {
    auto now = Clock::now();
    if (!s.endedAt)
      s.endedAt = now;
    if (std::chrono::duration<double>(now - *s.endedAt).count() < kResultGraceS)
      return Settled::Wait;
  }
  std::optional<PointRecord> r = slurmFailureRecord(spec, ids[i], task);
  if (!r)
    return Settled::Missing; // Cancelled, or unknown to Slurm.
  std::string dir = pointDir(spec, ids[i]);
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return Settled::Wait; // Tried again at the next look.
  // Under the point's lock, unless a task (requeued) holds it.
  Expected<q2::FileLock> lock = lockPoint(spec, ids[i]);
  if (!lock) {
    llvm::consumeError(lock.takeError());
    return final ? Settled::Missing : Settled::Wait;
  }
  if (std::optional<PointRecord> now = readResultIfAny(spec, ids[i]))
    if (fromLatestTask(s, *now) || isFinished(*now, /*retryFailed=*/false)) {
      out = std::move(*now); // Written after all (seen late).
      return Settled::Recorded;
    }
  if (Error e = writePointRecord(joinPath(dir, "result.json"), *r)) {
    llvm::consumeError(std::move(e));
    return final ? Settled::Missing : Settled::Wait;
  }
  out = std::move(*r);
  return Settled::Recorded;
}

Error SlurmSweep::submit() {
  std::vector<std::string> keys;
  for (size_t i = 0; i < ids.size(); ++i)
    if (slots[i].state == State::Todo)
      keys.push_back(ids[i].key());
  if (keys.empty())
    return Error::success();
  Submission sub;
  for (const Submission &s : subs)
    sub.n = std::max(sub.n, s.n);
  ++sub.n;
  sub.jobName = jobNameFor(spec.outDir, sub.n);
  sub.keys = keys;
  sub.submittedAt = nowUTC();
  std::string dir = submissionDir(spec.outDir, sub.n);
  // A directory of a submission that never reached the queue.
  if (llvm::sys::fs::exists(dir))
    if (std::error_code ec = llvm::sys::fs::remove_directories(dir))
      return createStringError(ec,
                               "cannot remove '" + dir + "': " + ec.message());
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return createStringError(ec,
                             "cannot create '" + dir + "': " + ec.message());

  // The tasks read their spec here: later changes to OUT/sweep.json do not
  // reach an array already queued.
  SweepSpec taskSpec = spec;
  taskSpec.only.clear();
  if (Error e = writeSweepSpec(joinPath(dir, "sweep.json"), taskSpec))
    return e;
  if (Error e = q2::writeFileAtomically(joinPath(dir, "keys.txt"),
                                        llvm::join(keys, "\n") + "\n"))
    return e;
  std::string script = joinPath(dir, "job.sh");
  std::string text = "#!/bin/sh\n"
                     "# Slurm array of the q2-profile sweep in " +
                     spec.outDir + " (submission " + std::to_string(sub.n) +
                     "): task I runs the point on line I+1 of keys.txt, as "
                     "`q2-profile sweep --only KEY` would.\n"
                     "exec " +
                     shellQuote(spec.slurm.q2Profile) + " sweep --slurm-task " +
                     shellQuote(dir) + "\n";
  if (Error e = q2::writeFileAtomically(script, text))
    return e;
  llvm::sys::fs::setPermissions(script, llvm::sys::fs::perms(0755));

  std::string array = "--array=0-" + std::to_string(keys.size() - 1);
  if (spec.slurm.maxParallel)
    array += "%" + std::to_string(spec.slurm.maxParallel);
  sub.sbatch = {"sbatch",
                "--parsable",
                array,
                "--job-name=" + sub.jobName,
                "--output=" + joinPath(dir, "%a.log"),
                "--chdir=" + spec.outDir,
                "--nodes=1",
                "--ntasks=1",
                "--mem=" + std::to_string(slurmMemMiB(spec.phase)) + "M",
                "--time=" + std::to_string(slurmTimeMinutes(spec.phase))};
  if (!spec.slurm.partition.empty())
    sub.sbatch.push_back("--partition=" + spec.slurm.partition);
  if (!spec.slurm.account.empty())
    sub.sbatch.push_back("--account=" + spec.slurm.account);
  // After ours, so that they override (sbatch takes the last).
  llvm::append_range(sub.sbatch, spec.slurm.sbatchArgs);
  sub.sbatch.push_back(script);

  // Saved before sbatch runs: a controller killed in between leaves the
  // job name, which finds the array again.
  subs.push_back(sub);
  if (Error e = saveSubmissions(spec.outDir, subs))
    return e;
  Expected<std::string> out = run(sub.sbatch);
  if (!out) {
    subs.pop_back();
    llvm::consumeError(saveSubmissions(spec.outDir, subs));
    return out.takeError();
  }
  // "4711" or "4711;cluster".
  std::string jobId = StringRef(*out).trim().split(';').first.trim().str();
  unsigned check;
  if (jobId.empty() || StringRef(jobId).getAsInteger(10, check)) {
    subs.pop_back();
    llvm::consumeError(saveSubmissions(spec.outDir, subs));
    return createStringError("sbatch --parsable printed '" +
                             StringRef(*out).trim() +
                             "', not a job id (is the array running? "
                             "squeue --name=" +
                             sub.jobName + ")");
  }
  subs.back().jobId = jobId;
  if (Error e = saveSubmissions(spec.outDir, subs))
    return e;
  for (size_t i = 0, t = 0; i < ids.size(); ++i)
    if (slots[i].state == State::Todo) {
      slots[i].state = State::InFlight;
      slots[i].task = std::make_pair(subs.size() - 1, unsigned(t++));
      slots[i].endedAt.reset();
      ++queued;
    }
  sum.submitted = keys.size();
  sum.slurmJobs.push_back(jobId);
  emit(ProgressEvent::Submitted, ids.size(), "",
       jobId + " (" + std::to_string(keys.size()) + " task" +
           (keys.size() == 1 ? "" : "s") + ", logs in " + dir + ")");
  return Error::success();
}

Error SlurmSweep::follow() {
  bool cancelling = false;
  Clock::time_point cancelledAt;
  unsigned failures = 0;
  std::string lastError;
  while (true) {
    std::set<std::string> arrays = activeArrays();
    if (arrays.empty())
      break;
    if (!cancelling && spec.cancel && spec.cancel->load()) {
      cancelling = true;
      cancelledAt = Clock::now();
      sum.cancelled = true;
      std::vector<std::string> argv = {"scancel"};
      argv.insert(argv.end(), arrays.begin(), arrays.end());
      if (Expected<std::string> r = run(argv); !r)
        return createStringError(llvm::toString(r.takeError()) +
                                 "; the array may still run: scancel " +
                                 llvm::join(arrays, " "));
    }
    if (cancelling &&
        std::chrono::duration<double>(Clock::now() - cancelledAt).count() >
            kCancelWaitS)
      return createStringError("cancelled array " + llvm::join(arrays, " ") +
                               " still in the queue after " +
                               std::to_string(int(kCancelWaitS)) + " s");

    Expected<std::map<std::string, SlurmQueuedTask>> q =
        queuedTasks(run, arrays);
    if (!q) {
      // The controller may be busy: try again, but not for ever.
      lastError = llvm::toString(q.takeError());
      if (++failures >= 10)
        return createStringError(
            lastError +
            " (10 times); the array keeps running: `q2-profile "
            "sweep --resume --out " +
            spec.outDir + "` follows it again");
    } else {
      failures = 0;
      acct.clear();
      // The counts first, so that the events of this look show them.
      auto isRunning = [](const SlurmQueuedTask &t) {
        return t.state != "PENDING" && t.state != "REQUEUED" &&
               t.state != "SUSPENDED";
      };
      std::vector<size_t> gone;
      running = queued = 0;
      for (size_t i = 0; i < ids.size(); ++i) {
        if (slots[i].state != State::InFlight)
          continue;
        auto it = q->find(jobIdOf(slots[i]));
        if (it == q->end())
          gone.push_back(i);
        else
          ++(isRunning(it->second) ? running : queued);
      }
      for (size_t i = 0; i < ids.size(); ++i) {
        Slot &s = slots[i];
        if (s.state != State::InFlight)
          continue;
        auto it = q->find(jobIdOf(s));
        if (it != q->end() && isRunning(it->second) && !s.running) {
          s.running = true;
          emit(ProgressEvent::Started, i, "",
               jobIdOf(s) + " on " + it->second.node);
        }
      }
      // Gone from the queue: their results, or why not.
      for (size_t i : gone) {
        Slot &s = slots[i];
        std::optional<PointRecord> r = readResultIfAny(spec, ids[i]);
        if (r &&
            (fromLatestTask(s, *r) || isFinished(*r, /*retryFailed=*/false))) {
          record(i, std::move(*r), /*now=*/true);
          continue;
        }
        PointRecord rec;
        switch (settleEnded(i, /*final=*/cancelling, rec)) {
        case Settled::Wait:
          ++running; // Still finishing, as far as we can tell.
          break;
        case Settled::Missing:
          s.state = State::Todo;
          ++sum.missing;
          break;
        case Settled::Recorded:
          record(i, std::move(rec), /*now=*/true);
          break;
        }
      }
      emit(ProgressEvent::Waiting, ids.size(), "");
    }
    // Sleep in small steps: ^C must not wait for the next look.
    double pollS = cancelling ? 0.5 : spec.slurm.pollS;
    auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(pollS));
    while (Clock::now() < until &&
           !(spec.cancel && spec.cancel->load() && !cancelling))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Error::success();
}

Expected<SweepSummary> SlurmSweep::runAll() {
  slots.resize(ids.size());
  Expected<std::vector<Submission>> loaded = loadSubmissions(spec.outDir);
  if (!loaded)
    return loaded.takeError();
  subs = std::move(*loaded);
  if (Error e = recoverUnsavedJobIds())
    return std::move(e);

  // The queue first, then the results: a task that is not in the queue has
  // ended, and wrote its result before it did.
  Expected<std::map<std::string, SlurmQueuedTask>> q =
      queuedTasks(run, jobIdsOf(subs));
  if (!q)
    return createStringError(llvm::toString(q.takeError()) +
                             " (needed to tell which points are still "
                             "queued or running)");
  auto latest = latestTasks(subs);
  for (size_t i = 0; i < ids.size(); ++i) {
    Slot &s = slots[i];
    if (auto it = latest.find(ids[i].key()); it != latest.end())
      s.task = it->second;
    if (s.task && q->count(jobIdOf(s))) {
      s.state = State::InFlight;
      const SlurmQueuedTask &t = q->at(jobIdOf(s));
      (t.state == "PENDING" ? queued : running)++;
      continue;
    }
    std::optional<PointRecord> r = readResultIfAny(spec, ids[i]);
    if (r && isFinished(*r, spec.retryFailed)) {
      record(i, std::move(*r), /*now=*/false);
      continue;
    }
    // The latest task ended without a result of its own: record why, once
    // (a budget failure is a result; a retryable one is submitted again).
    if (s.task && !(r && (fromLatestTask(s, *r) ||
                          isFinished(*r, /*retryFailed=*/false)))) {
      PointRecord rec;
      if (settleEnded(i, /*final=*/true, rec) == Settled::Recorded &&
          isFinished(rec, spec.retryFailed)) {
        record(i, std::move(rec), /*now=*/true);
        continue;
      }
    }
    s.state = State::Todo;
  }

  if (!(spec.cancel && spec.cancel->load()))
    if (Error e = submit())
      return std::move(e);
  if (spec.slurm.wait)
    if (Error e = follow())
      return std::move(e);
  for (size_t i = 0; i < ids.size(); ++i)
    if (slots[i].state == State::InFlight) {
      ++sum.inFlight;
      sum.points[i].id = ids[i];
    }
  return std::move(sum);
}

} // namespace
} // namespace q2::orch

Expected<SweepSummary> q2::orch::runSlurmSweep(const SweepSpec &spec,
                                               const ProgressCallback &progress,
                                               const SlurmCommandRunner &run) {
  if (!spec.only.empty())
    return createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "--only needs the local executor (a Slurm sweep submits every point "
        "that is not finished)");
  Expected<std::optional<q2::FileLock>> lock = openSweepDirectory(spec);
  if (!lock)
    return lock.takeError();
  Expected<SweepSummary> sum = SlurmSweep(spec, progress, run).runAll();
  if (!sum)
    return sum.takeError();
  if (Error e = writeSummary(spec.outDir, resultsOf(*sum)))
    return std::move(e);
  return sum;
}

Error q2::orch::checkNoSlurmTasksActive(StringRef outDir,
                                        const SlurmCommandRunner &run) {
  if (!llvm::sys::fs::exists(joinPath(slurmDir(outDir), "submissions.json")))
    return Error::success();
  Expected<std::vector<Submission>> subs = loadSubmissions(outDir);
  if (!subs)
    return subs.takeError();
  std::set<std::string> jobs = jobIdsOf(*subs);
  Expected<std::map<std::string, SlurmQueuedTask>> q = queuedTasks(run, jobs);
  if (!q) {
    llvm::consumeError(q.takeError());
    return Error::success();
  }
  if (q->empty())
    return Error::success();
  std::set<std::string> arrays;
  for (const auto &[id, t] : *q)
    arrays.insert(t.arrayJobId);
  return createStringError(
      std::make_error_code(std::errc::device_or_resource_busy),
      std::to_string(q->size()) + " point(s) of '" + outDir +
          "' are still queued or running in Slurm (array " +
          llvm::join(arrays, ", ") +
          "); follow them with `q2-profile sweep --resume --out " + outDir +
          "`, or scancel " + llvm::join(arrays, " ") + " first");
}

Expected<SweepSpec> q2::orch::slurmTaskSpec(StringRef submissionDir,
                                            StringRef arrayJobId,
                                            unsigned taskId, StringRef node) {
  Expected<SweepSpec> spec =
      readSweepSpec(joinPath(submissionDir, "sweep.json"));
  if (!spec)
    return spec.takeError();
  std::string keysFile = joinPath(submissionDir, "keys.txt");
  Expected<std::string> keys = readTextFile(keysFile);
  if (!keys)
    return keys.takeError();
  llvm::SmallVector<StringRef, 64> lines;
  StringRef(*keys).split(lines, '\n', -1, /*KeepEmpty=*/false);
  if (taskId >= lines.size())
    return createStringError(keysFile + ": no line " +
                             std::to_string(taskId + 1) + " for array task " +
                             std::to_string(taskId));
  // OUT/slurm/<n> -> OUT.
  spec->outDir =
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(submissionDir))
          .str();
  spec->only = {lines[taskId].trim().str()};
  spec->executor = SweepExecutor::Local;
  spec->slurm = SlurmOptions();
  spec->jobs = 1;
  SlurmTaskRecord task;
  task.jobId = arrayJobId.str() + "_" + std::to_string(taskId);
  task.node = node.str();
  task.source = "task";
  task.log = joinPath(submissionDir, std::to_string(taskId) + ".log");
  spec->slurmTask = task;
  return spec;
}

Expected<std::vector<PointStatus>>
q2::orch::sweepStatus(StringRef outDir, const SlurmCommandRunner &run) {
  Expected<SweepSpec> spec = readSweepSpec(joinPath(outDir, "sweep.json"));
  if (!spec)
    return spec.takeError();
  spec->outDir = outDir.str();
  Expected<std::vector<Submission>> subs = loadSubmissions(outDir);
  if (!subs)
    return subs.takeError();
  std::set<std::string> jobs = jobIdsOf(*subs);
  Expected<std::map<std::string, SlurmQueuedTask>> queue =
      queuedTasks(run, jobs);
  if (!queue)
    return queue.takeError();
  auto latest = latestTasks(*subs);
  std::vector<PointStatus> out;
  for (const PointId &id : enumeratePoints(*spec)) {
    PointStatus p;
    p.id = id;
    if (auto it = latest.find(id.key()); it != latest.end()) {
      const Submission &s = (*subs)[it->second.first];
      p.jobId = s.jobId + "_" + std::to_string(it->second.second);
    }
    if (auto it = queue->find(p.jobId);
        !p.jobId.empty() && it != queue->end()) {
      p.task = it->second;
      p.state = it->second.state == "PENDING" ? "queued" : "running";
    } else if (std::optional<PointRecord> r = readResultIfAny(*spec, id)) {
      p.state = r->retryable ? "retryable" : r->status;
      p.record = std::move(r);
    } else {
      p.state = p.jobId.empty() ? "missing" : "ended";
    }
    out.push_back(std::move(p));
  }
  return out;
}
