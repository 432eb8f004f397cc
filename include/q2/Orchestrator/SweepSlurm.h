//===- SweepSlurm.h - Sweeps as Slurm job arrays ----------------*- C++ -*-===//
//
// The slurm executor of a sweep (SweepSpec::executor): the points that are
// not finished go to Slurm as one job array (`sbatch --parsable`), one point
// per task, each task the same budgeted run as a local point (`q2-profile
// sweep --slurm-task`, writing OUT/points/<key>/ on a path the nodes
// share). The controller follows the array with `squeue`, and when a task
// ends without a result asks Slurm why: `sacct --parsable2` where
// accounting is enabled, else `scontrol show job`, the jobcomp/filetxt log
// and the task's output. A task killed for its --mem or --time is a budget
// failure of the point (with Slurm's MaxRSS/Elapsed next to our peak); a
// node failure or a task that died otherwise is retryable; a cancelled
// task leaves the point missing. Rerunning (`--resume`) submits only
// missing and retryable points and never a point whose task is still
// queued or running.
//
// Files: OUT/slurm/submissions.json (every array submitted: job id, the
// point of each task), OUT/slurm/<n>/ (the spec the tasks read, their keys,
// the batch script and one output file per task).
//
// The parsers of the tools' output are exposed for the unit tests.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_ORCHESTRATOR_SWEEPSLURM_H
#define Q2_ORCHESTRATOR_SWEEPSLURM_H

#include "q2/Orchestrator/Sweep.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace q2::orch {

//===----------------------------------------------------------------------===//
// Budgets
//===----------------------------------------------------------------------===//

/// sbatch --mem of a task, in MiB (Slurm's "M"): the phase RSS budget plus
/// 10% and 100 MB for q2-profile itself, so that our own budget, which
/// leaves a full record, acts before Slurm's.
uint64_t slurmMemMiB(const MeasureBudget &phase);
/// sbatch --time of a task, in minutes: both phases at their wall budget
/// and kill grace, plus a minute for starting.
uint64_t slurmTimeMinutes(const MeasureBudget &phase);

//===----------------------------------------------------------------------===//
// What the Slurm tools print
//===----------------------------------------------------------------------===//

/// Seconds of a Slurm duration: "[D-][HH:]MM:SS[.mmm]" (sacct, scontrol,
/// squeue); nullopt for anything else ("UNLIMITED", "INVALID", "").
std::optional<double> parseSlurmDuration(llvm::StringRef text);
/// Decimal MB of a Slurm size: a number with an optional unit K, M, G, T
/// (binary, as Slurm means them) and an optional per-node/per-CPU suffix
/// ("315404K", "100M", "4000Mn", "2Gc"); a bare number is bytes when
/// BareIsBytes, else KiB (sacct's MaxRSS). nullopt for "" or garbage.
std::optional<double> parseSlurmSizeMB(llvm::StringRef text,
                                       bool bareIsBytes = false);

/// A task in the queue (squeue -r -o "%F|%K|%T|%M|%N|%r").
struct SlurmQueuedTask {
  std::string arrayJobId;
  unsigned taskId = 0;
  /// PENDING, RUNNING, CONFIGURING, COMPLETING, REQUEUED, ...
  std::string state;
  double elapsedS = 0;
  std::string node, reason;
  std::string jobId() const {
    return arrayJobId + "_" + std::to_string(taskId);
  }
};
/// Lines that are not of that form are ignored.
std::vector<SlurmQueuedTask> parseSqueue(llvm::StringRef text);

/// Tasks by job id ("4711_3") from
/// `sacct --parsable2 --noheader --format=JobID,State,ExitCode,Elapsed,
/// MaxRSS,ReqMem,NodeList`: the state and exit code of the task's own line,
/// the largest MaxRSS of its steps ("4711_3.batch"), a step's
/// OUT_OF_MEMORY over the task's FAILED.
std::map<std::string, SlurmTaskRecord> parseSacct(llvm::StringRef text);
/// Tasks by job id from `scontrol show job -o` (one "Key=Value ..." line per
/// task) or the same lines of a jobcomp/filetxt log (Source "jobcomp").
/// Lines of other arrays than ArrayJobId (when not empty) are skipped.
std::map<std::string, SlurmTaskRecord>
parseScontrolJobs(llvm::StringRef text, llvm::StringRef source,
                  llvm::StringRef arrayJobId = "");
/// What slurmstepd wrote into a task's output: "exceeded memory limit (X >
/// Y)" (MaxRSS and limit from it, state OUT_OF_MEMORY), "DUE TO TIME
/// LIMIT" (TIMEOUT), "DUE TO NODE FAILURE" (NODE_FAIL), "DUE TO
/// PREEMPTION" (PREEMPTED). Only fills what R does not know yet, and the
/// state only when it is empty, FAILED or CANCELLED.
void readTaskLog(llvm::StringRef text, SlurmTaskRecord &r);

/// What a task that ended means for its point.
enum class SlurmOutcome {
  /// Ended by itself (COMPLETED, or FAILED with an exit status): its
  /// result.json says what happened; without one, a task failure.
  Ended,
  MemoryKill,  ///< OUT_OF_MEMORY: the point failed, rss_budget
  TimeKill,    ///< TIMEOUT, DEADLINE: the point failed, wall_budget
  NodeFailure, ///< NODE_FAIL, BOOT_FAIL: retryable
  Preempted,   ///< PREEMPTED: retryable
  Cancelled,   ///< CANCELLED (scancel, ^C): the point is missing
  Killed,      ///< FAILED by a signal Slurm did not send: retryable
  Unknown,     ///< Slurm no longer knows the task: missing
};
SlurmOutcome classifySlurmTask(const SlurmTaskRecord &r);
const char *slurmOutcomeName(SlurmOutcome o);

/// The failed record of a point whose task ended without writing one
/// (outcomes other than Cancelled and Unknown; nullopt for those): the
/// reason, whether it is retryable, a message with Slurm's figures, and
/// our own peak (the phases the task finished, plus the live.json of the
/// phase it was killed in) in wall_s / peak_rss_mb.
std::optional<PointRecord> slurmFailureRecord(const SweepSpec &spec,
                                              const PointId &id,
                                              const SlurmTaskRecord &task);

//===----------------------------------------------------------------------===//
// The scheduler's tools
//===----------------------------------------------------------------------===//

/// Runs a Slurm command (argv[0] looked up in PATH) and returns its stdout;
/// an error (naming the command and quoting its stderr) when it cannot
/// start, fails or runs longer than 60 s. Replaceable for tests.
using SlurmCommandRunner = std::function<llvm::Expected<std::string>(
    const std::vector<std::string> &argv)>;
SlurmCommandRunner defaultSlurmCommandRunner();

//===----------------------------------------------------------------------===//
// Sweeps
//===----------------------------------------------------------------------===//

/// runSweep for SweepExecutor::Slurm (runSweep calls it): takes OUT/.lock,
/// writes OUT/sweep.json, finds out what earlier submissions left (results,
/// tasks still queued or running, tasks that ended without a result),
/// submits the rest as one array and, with Spec.slurm.wait, follows it
/// until every task ended, reporting progress as a local sweep does
/// (running = tasks running, queued = tasks pending). Spec.cancel cancels
/// the array (scancel) and waits for its tasks to go. Summary files as a
/// local sweep; without waiting they list what is finished so far.
llvm::Expected<SweepSummary>
runSlurmSweep(const SweepSpec &spec, const ProgressCallback &progress = {},
              const SlurmCommandRunner &run = defaultSlurmCommandRunner());

/// Refuses a local sweep of a directory whose Slurm tasks are still queued
/// or running (it would run their points twice). Where the queue cannot
/// be asked (no Slurm here: a directory copied off the cluster), there is
/// nothing to refuse.
llvm::Error checkNoSlurmTasksActive(
    llvm::StringRef outDir,
    const SlurmCommandRunner &run = defaultSlurmCommandRunner());

/// The spec of one array task: OUT/slurm/<n>/sweep.json restricted to the
/// point on line TaskId+1 of OUT/slurm/<n>/keys.txt, with the task's
/// SlurmTaskRecord (job id "<ArrayJobId>_<TaskId>", node, output file).
llvm::Expected<SweepSpec> slurmTaskSpec(llvm::StringRef submissionDir,
                                        llvm::StringRef arrayJobId,
                                        unsigned taskId, llvm::StringRef node);

/// One point of a sweep directory as `q2-profile status` shows it.
struct PointStatus {
  PointId id;
  /// "ok", "failed", "retryable", "running", "queued", "ended" (its task
  /// ended without a result; the next --resume records why), "missing".
  std::string state;
  std::optional<PointRecord> record;
  /// The point's latest Slurm task, when it has one.
  std::optional<SlurmQueuedTask> task;
  std::string jobId;
};
/// Reads OUT/sweep.json, the results and (for a sweep that submitted
/// arrays) the queue; writes nothing.
llvm::Expected<std::vector<PointStatus>>
sweepStatus(llvm::StringRef outDir,
            const SlurmCommandRunner &run = defaultSlurmCommandRunner());

} // namespace q2::orch

#endif // Q2_ORCHESTRATOR_SWEEPSLURM_H
