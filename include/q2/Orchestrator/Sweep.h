//===- Sweep.h - Isolated, budgeted, resumable profiling sweeps -*- C++ -*-===//
//
// A sweep is a grid of (n_est, n_trotter) x modes x molecules. Every point
// runs as budgeted child processes through measure(): Phase A builds the
// program (q2-qpe), Phase B+C compiles, profiles and runs it (q2-opt). The
// commands are templates so that the machinery does not depend on the tools.
// Each point's result is a typed PointRecord, written atomically to
//   OUT/points/<key>/result.json   (schema q2.sweep.point/1)
// when it finishes; a rerun skips points that have one (resume).
//
// Concurrency: a sweep over all its points holds OUT/.lock (a second one on
// the same OUT is refused); every point is run under OUT/points/<key>.lock,
// so `--only` jobs of one emitted sweep may share OUT, but two processes
// never run (or delete) the same point.
//
// The library never prints: progress goes to an injectable callback, which
// runSweep() invokes from the calling thread only.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_ORCHESTRATOR_SWEEP_H
#define Q2_ORCHESTRATOR_SWEEP_H

#include "q2/Orchestrator/Measure.h"
#include "q2/Profiling/Report.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace q2::orch {

struct Molecule {
  std::string name;
  std::string hamiltonian;
  /// Number of Pauli terms; 0 = unknown (then learned from a point's
  /// report, parameters.n_terms, else taken as 1 for the fit).
  unsigned nTerms = 0;
};

/// Where q2-profile looks for example data: <dir of Executable>/../share/q2/
/// examples (CMake copies examples/ there in the build tree and installs it
/// next to bin/).
std::string examplesDirFor(llvm::StringRef executable);
/// The default molecule of a sweep: "h2" from
/// ExamplesDir/hamiltonians/h2_0.7414.FCIDUMP (15 Pauli terms). The error
/// names the file it looked for.
llvm::Expected<Molecule> defaultMolecule(llvm::StringRef examplesDir);

struct GridPoint {
  unsigned nEst = 0, nTrotter = 0;
};

/// (2,1) (2,3) (2,5) (3,3) (3,5) (4,3) (4,5) (4,10).
std::vector<GridPoint> defaultH2Grid();
/// Parses "2x1,2x3,4x10" (n_est x n_trotter).
llvm::Expected<std::vector<GridPoint>> parseGrid(llvm::StringRef text);

struct PointId {
  std::string molecule, mode;
  unsigned nEst = 0, nTrotter = 0;
  /// File-name safe: "h2-fixed-e2-t1" (characters of the molecule name other
  /// than letters, digits, '.', '_' and '-' are replaced: '+' by 'p', others
  /// by '_'). Not injective: validateSweepSpec() refuses a spec whose points
  /// share a key.
  std::string key() const;
};

/// argv templates. Placeholders (replaced inside any word): {ham} {molecule}
/// {mode} {n_est} {n_trotter} {runs} {point_dir} {prog} {report}, plus every
/// entry of SweepSpec::vars (e.g. {q2_qpe}, {q2_opt}).
struct CommandTemplates {
  std::vector<std::string> phaseA;
  std::vector<std::string> phaseBC;
};
/// q2-qpe {ham} --mode {mode} --n-est {n_est} --n-trotter {n_trotter}
///        -o {prog}
/// q2-opt --profile-stages --run {runs} {prog} --report {report}
/// with the programs taken from the {q2_qpe} and {q2_opt} variables.
CommandTemplates defaultCommandTemplates();

/// What Slurm says about the array task that ran (or tried to run) a point.
/// In result.json as "slurm" (docs/sweeps.md).
struct SlurmTaskRecord {
  /// "<array job>_<task>", e.g. "4711_3".
  std::string jobId;
  /// Slurm's job state once the task ended: COMPLETED, FAILED,
  /// OUT_OF_MEMORY, TIMEOUT, NODE_FAIL, CANCELLED, ... ("" while running).
  std::string state;
  /// Slurm's "exit status:signal" of the task ("0:9").
  std::string exitCode;
  /// Slurm's Elapsed and MaxRSS (decimal MB) of the task, and the memory
  /// limit it enforced (--mem), when known.
  std::optional<double> elapsedS, maxRssMB, memLimitMB;
  std::string node;
  /// Where the state came from: "sacct", "scontrol", "jobcomp" (the
  /// jobcomp/filetxt log), "log" (the task's output), "task" (the task
  /// itself, in a point it finished).
  std::string source;
  /// The task's output file (stdout and stderr of the array task).
  std::string log;
};

/// Where the points of a sweep run: in child processes of this one
/// (`local`), or as the tasks of a Slurm job array (`slurm`,
/// SweepSlurm.h), each task the same budgeted `q2-profile sweep --only` run.
enum class SweepExecutor { Local, Slurm };
/// "local", "slurm".
const char *executorName(SweepExecutor e);
std::optional<SweepExecutor> parseExecutor(llvm::StringRef name);

/// How a Slurm sweep is submitted (docs/sweeps.md). The task budgets are
/// derived from SweepSpec::phase (slurmMemMB, slurmTimeLimit in
/// SweepSlurm.h).
struct SlurmOptions {
  /// sbatch --partition / --account; empty = the cluster's default.
  std::string partition, account;
  /// Tasks of the array running at once (--array=...%N); 0 = no limit.
  unsigned maxParallel = 0;
  /// Passed to sbatch after ours (so they override, e.g. --mem=8G).
  std::vector<std::string> sbatchArgs;
  /// Seconds between two looks at the queue (squeue) while waiting.
  double pollS = 5;
  /// false: return once the array is submitted (`--no-wait`); a later
  /// runSweep on the same directory (`--resume`) picks it up.
  bool wait = true;
  /// The q2-profile the tasks run (absolute; on a path the nodes share).
  std::string q2Profile;
};

struct SweepSpec {
  std::string outDir;
  std::vector<GridPoint> grid = defaultH2Grid();
  std::vector<std::string> modes = {"fixed", "dynamic"};
  std::vector<Molecule> molecules;
  CommandTemplates commands = defaultCommandTemplates();
  std::map<std::string, std::string> vars;
  /// The defaults of q2-profile, Python's run_sweep and every other front
  /// end are the ones here.
  unsigned runs = 5;
  /// Points run at the same time at most.
  unsigned jobs = 1;
  /// Budgets and polling of each phase of each point (measure()'s): 600 s,
  /// 4000 MB, polled every 10 ms.
  MeasureBudget phase{600, 4000, 0.010, 1.0};
  /// Memory all running points may use together (admission control);
  /// 0 = phase.rssBudgetMB * jobs.
  double totalRssMB = 0;
  /// Rerun points whose recorded status is "failed" instead of skipping.
  bool retryFailed = false;
  /// Restrict the sweep to these point keys (empty = all). Such a partial
  /// sweep does not take OUT/.lock, writes neither sweep.json nor the
  /// summary, so that the jobs of an emitted sweep can share OUT.
  std::vector<std::string> only;
  /// When it becomes true, running points are stopped (not recorded, so a
  /// rerun redoes them) and no new point starts.
  const std::atomic<bool> *cancel = nullptr;
  /// The signal behind the cancel, for the phase records (optional).
  const std::atomic<int> *cancelSignal = nullptr;
  SweepExecutor executor = SweepExecutor::Local;
  SlurmOptions slurm;
  /// Set in a Slurm array task: its record goes into the point's
  /// result.json, and each phase keeps its peak so far on disk
  /// (MeasureOptions::liveFile) for the case that Slurm kills the task.
  std::optional<SlurmTaskRecord> slurmTask;
};

/// All points of the spec, in order: molecule, then grid, then mode.
std::vector<PointId> enumeratePoints(const SweepSpec &spec);

/// Checks a spec before anything is created: molecules, grid and modes not
/// empty, modes usable in file names, budgets finite and positive, the poll
/// interval (checkPollInterval), and that no two points of the full grid
/// (`only` ignored) share a key: "h2+" and "h2p", or a molecule or grid point
/// given twice, are refused with an error naming both.
llvm::Error validateSweepSpec(const SweepSpec &spec);

/// Least-squares fit of peak RSS (MB) = a + b * x with
/// x = n_est * n_trotter * n_terms over finished points.
class PeakRssModel {
public:
  explicit PeakRssModel(double conservativeMb, double capMb)
      : Conservative(conservativeMb), Cap(capMb) {}
  void add(double x, double peakMb);
  /// True once two points with distinct x are known.
  bool fitted() const;
  double intercept() const { return A; }
  double slope() const { return B; }
  /// Before the fit: the conservative default. After: the fitted value
  /// with a 25% margin, at least the largest peak seen at an x not above
  /// this one, at most the cap (a point is killed above its budget anyway).
  double predict(double x) const;
  size_t size() const { return Xs.size(); }

private:
  void refit();
  double Conservative, Cap;
  std::vector<double> Xs, Ys;
  double A = 0, B = 0;
  bool Fitted = false;
};

/// The measure() records of a point's phases (absent: not run).
struct PointPhases {
  std::optional<MeasureRecord> a;  ///< Phase A ("A" in JSON)
  std::optional<MeasureRecord> bc; ///< Phase B+C ("BC")
};

inline constexpr const char *kPointSchema = "q2.sweep.point/1";

/// What a point left: OUT/points/<key>/result.json. Keys in docs/sweeps.md.
struct PointRecord {
  std::string schema = kPointSchema;
  std::string key, molecule, hamiltonian, mode;
  unsigned nEst = 0, nTrotter = 0;
  /// Pauli terms (the molecule's, else the report's parameters.n_terms,
  /// else what the sweep learned); null when unknown.
  std::optional<unsigned> nTerms;
  /// n_est * n_trotter * n_terms, when n_terms is known.
  std::optional<double> x;
  /// "ok", "failed", or "cancelled" (the latter is never written to disk).
  std::string status;
  /// "A" or "BC" for a failed point.
  std::optional<std::string> failedPhase;
  /// Why the point ended: "exit" (also for success), "signal",
  /// "wall_budget", "rss_budget", "cancelled", "refused" (a phase could not
  /// start), "no_report" (Phase B+C wrote none), "bad_report" (its report
  /// is not a valid q2.profile/3 report), "error" (the machinery failed);
  /// from the slurm executor also "node_failure", "preempted" and
  /// "task_failed" (retryable), and "wall_budget"/"rss_budget" when Slurm
  /// killed the task for its --time/--mem.
  std::string reason = "exit";
  std::optional<std::string> message;
  PointPhases phases;
  /// Sum of the phases' wall times; largest of their peak tree RSS (MB).
  double wallS = 0, peakRssMB = 0;
  /// q2-opt's report, for a successful point.
  std::optional<profiling::ProfileReport> report;
  /// A failure that says nothing about the point (the node failed, the
  /// Slurm task died without a result): a resumed sweep reruns it.
  bool retryable = false;
  /// The Slurm array task of a point run by the slurm executor.
  std::optional<SlurmTaskRecord> slurm;

  /// Wall seconds of the compile stages (report->compileSeconds()): the
  /// sweep's compile_s; nullopt without a report.
  std::optional<double> compileSeconds() const;
  /// The record of the failed phase, if any.
  const MeasureRecord *failedPhaseRecord() const;
};

/// result.json text (Indent < 0: one line).
std::string toJSONText(const PointRecord &r, int indent = 2);
/// Reads a result.json; errors name the file and the key ("n_est: expected
/// an integer, got string"); never throws.
llvm::Expected<PointRecord> readPointRecord(llvm::StringRef path);
/// Writes a record atomically (q2::writeFileAtomically).
llvm::Error writePointRecord(llvm::StringRef path, const PointRecord &r);

struct PointResult {
  PointId id;
  /// Whether this result was loaded from disk instead of being run now.
  bool skipped = false;
  /// record.status is "ok", "failed" or "cancelled".
  PointRecord record;
  const std::string &status() const { return record.status; }
};

/// Runs one point under OUT/points/<key>.lock (refused when another process
/// holds it): removes a partial OUT/points/<key>/ left by an interrupted
/// run, runs the phases, writes result.json atomically. Failures of the
/// point itself are part of the result; an Error means the machinery could
/// not work (e.g. cannot create directories, the point is in use).
/// NTermsHint (0 = none) is used when the molecule's n_terms is unknown and
/// the point's report does not tell (e.g. because the point failed).
llvm::Expected<PointResult> runPoint(const SweepSpec &spec, const PointId &id,
                                     unsigned nTermsHint = 0);

struct ProgressEvent {
  /// Submitted: a Slurm array went to the queue (no point; detail = its job
  /// id and size). Waiting: a Slurm sweep's periodic look at the queue.
  enum Kind { Skipped, Started, Finished, Submitted, Waiting } kind;
  PointId point;
  std::string status; // For Skipped and Finished.
  std::string detail;
  /// Points finished (ok or failed, also skipped ones), of them failed;
  /// running now; waiting in the Slurm queue (0 for a local sweep).
  size_t done = 0, total = 0, running = 0, failed = 0, queued = 0;
  double elapsedS = 0;
  /// Estimated seconds until the sweep ends; negative while unknown.
  double etaS = -1;
  /// Admission prediction for a Started point.
  double predictedRssMB = 0;
};
using ProgressCallback = std::function<void(const ProgressEvent &)>;

struct SweepSummary {
  /// In enumeratePoints() order; a point still queued or running in Slurm
  /// (not waited for) has an empty record.
  std::vector<PointResult> points;
  /// Points run now, points skipped as done before, failed points (both).
  size_t ran = 0, skipped = 0, failed = 0;
  bool cancelled = false;
  /// Slurm: points submitted now; points queued or running at the end
  /// (without waiting); failed points that a resumed sweep reruns.
  size_t submitted = 0, inFlight = 0, retryable = 0;
  /// Slurm: points whose task was cancelled while we waited (not recorded,
  /// like the points of an interrupted local sweep).
  size_t missing = 0;
  /// Slurm: the array job ids submitted now.
  std::vector<std::string> slurmJobs;
};

/// Validates the spec (validateSweepSpec), takes OUT/.lock unless the
/// sweep is restricted by `only`, removes temporaries of dead writers from
/// the point directories it skips, writes OUT/sweep.json (the spec), runs or
/// skips every point (up to Spec.jobs at a time, with admission control),
/// then writes the summary files (see writeSummary) into OUT. With
/// Spec.executor Slurm the points run as a Slurm job array instead
/// (runSlurmSweep, SweepSlurm.h).
llvm::Expected<SweepSummary> runSweep(const SweepSpec &spec,
                                      const ProgressCallback &progress = {});

/// Whether a resumed sweep skips a point with this record: ok, or failed
/// for a reason of its own (not retryable) unless RetryFailed.
bool isFinished(const PointRecord &r, bool retryFailed);

/// OUT/sweep.json: the spec a sweep was run with (schema q2.sweep/1), read
/// back by `--resume`, `status` and the Slurm tasks. Errors name the file
/// and the key.
llvm::Error writeSweepSpec(llvm::StringRef path, const SweepSpec &spec);
llvm::Expected<SweepSpec> readSweepSpec(llvm::StringRef path);

/// The results of a finished sweep, in order, without cancelled points.
std::vector<PointRecord> resultsOf(const SweepSummary &summary);

/// Loads OUT/points/*/result.json of each directory (for `merge`), sorted by
/// molecule, n_est, n_trotter, mode. A point key present in several
/// directories is an error unless the results agree in status; the later
/// directory wins then. A malformed result is an error naming its file and
/// key.
llvm::Expected<std::vector<PointRecord>>
loadResults(const std::vector<std::string> &dirs);
/// Writes the records as one JSON array (merge's results.json), atomically.
llvm::Error writeResults(llvm::StringRef path,
                         const std::vector<PointRecord> &results);

/// One row per point result; columns are documented in docs/sweeps.md.
std::string summaryCsv(const std::vector<PointRecord> &results);
/// The same as an aligned text table.
std::string summaryTable(const std::vector<PointRecord> &results);
/// Writes DIR/summary.csv and DIR/summary.txt atomically.
llvm::Error writeSummary(const std::string &dir,
                         const std::vector<PointRecord> &results);

} // namespace q2::orch

#endif // Q2_ORCHESTRATOR_SWEEP_H
