//===- ProfileToolOptions.h - q2-profile's options (private) ----*- C++ -*-===//
//
// Every option of q2-profile's subcommands as llvm::cl options, and the
// helpers its commands share: ProfileTool.cpp (main, measure, merge) and
// ProfileSweepCommands.cpp (run, sweep).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_LIB_ORCHESTRATOR_PROFILETOOLOPTIONS_H
#define Q2_LIB_ORCHESTRATOR_PROFILETOOLOPTIONS_H

#include "q2/Orchestrator/Measure.h"
#include "q2/Orchestrator/Sweep.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"

#include <atomic>
#include <string>
#include <utility>
#include <vector>

namespace q2::orch::profile_tool {

namespace cl = llvm::cl;
using llvm::StringRef;

/// Unsigned decimal integers (cl's own parser also takes 0x.. and octal).
class DecimalParser : public cl::parser<unsigned> {
public:
  using cl::parser<unsigned>::parser;
  bool parse(cl::Option &o, StringRef, StringRef arg, unsigned &v) {
    if (arg.getAsInteger(10, v))
      return o.error("'" + arg + "' is not a non-negative integer");
    return false;
  }
};
using UnsignedOpt = cl::opt<unsigned, false, DecimalParser>;

/// The defaults of run and sweep are SweepSpec's (declared there only).
const SweepSpec &specDefaults();
/// `help` followed by " (default V)"; kept alive for cl::desc.
const char *withDefault(const char *help, double v);

enum class RunMode { Fixed, Dynamic, Both };

/// Every option of every subcommand. Constructed on the first call of
/// q2ProfileMain (registering them with llvm::cl), so that a program that
/// only links the library sees none of them.
struct Options {
  cl::SubCommand Measure{
      "measure", "run one command under a wall and a process-tree RSS budget "
                 "(writes DIR/record.json)"};
  cl::SubCommand Run{"run", "profile one (n_est, n_trotter) point for one "
                            "mode or both, in isolated budgeted children"};
  cl::SubCommand Sweep{"sweep", "profile a grid of points x modes x "
                                "molecules (resumable, parallel, emits jobs)"};
  cl::SubCommand Merge{"merge", "combine the results of sweep directories "
                                "into one summary"};
  cl::SubCommand Status{"status", "show the points of a sweep directory: "
                                  "finished, failed, queued or running in "
                                  "Slurm, missing"};
  cl::SubCommandGroup RunAndSweep{&Run, &Sweep};

  cl::OptionCategory MeasureCat{"Command: measure"};
  cl::OptionCategory PointCat{
      "Command: run and sweep (points)",
      "Each point runs Phase A ({q2_qpe} builds the program) and Phase B+C "
      "({q2_opt} compiles with --profile-stages and runs it) as measured "
      "children, each under the budgets --wall-s and --point-rss-mb. "
      "Template placeholders: {ham} {molecule} {mode} {n_est} {n_trotter} "
      "{runs} {point_dir} {prog} {report} {q2_qpe} {q2_opt}, and every "
      "--var K=V."};
  cl::OptionCategory RunCat{"Command: run"};
  cl::OptionCategory SweepCat{"Command: sweep"};
  cl::OptionCategory SlurmCat{
      "Command: sweep (Slurm)",
      "--executor slurm submits the points that are not finished as one "
      "Slurm job array (sbatch), one point per task, each task the same "
      "budgeted run as a local point, writing into --out (a path every "
      "node must see). Tasks ask for --mem and --time from --point-rss-mb "
      "and --wall-s. The sweep follows the array (squeue) until every "
      "task ended; ^C cancels it (scancel). Rerun with --resume to submit "
      "only missing and retryable points."};
  cl::OptionCategory MergeCat{"Command: merge"};
  cl::OptionCategory StatusCat{"Command: status"};

  // measure
  cl::opt<std::string> MOut{
      "out",
      cl::desc("Evidence directory to create: record.json (q2.measure/1), "
               "stdout.txt, stderr.txt. Must not exist; its parent must"),
      cl::value_desc("DIR"), cl::sub(Measure), cl::cat(MeasureCat)};
  cl::opt<double> MWall{
      "wall-s",
      cl::desc("Wall-clock budget in seconds; when exceeded, the whole tree "
               "gets SIGTERM and, after the grace time, SIGKILL"),
      cl::value_desc("S"), cl::init(0), cl::sub(Measure), cl::cat(MeasureCat)};
  cl::opt<double> MRss{
      "rss-mb",
      cl::desc("Budget on the summed RSS of the command and all its "
               "descendants, decimal MB (1 MB = 1e6 bytes)"),
      cl::value_desc("M"), cl::init(0), cl::sub(Measure), cl::cat(MeasureCat)};
  cl::opt<std::string> MCwd{"cwd",
                            cl::desc("Working directory of the command "
                                     "(default: inherited)"),
                            cl::value_desc("D"), cl::sub(Measure),
                            cl::cat(MeasureCat)};
  cl::list<std::string> MEnv{
      "env", cl::desc("Set (or override) a variable for the command "
                      "(repeatable)"),
      cl::value_desc("K=V"), cl::sub(Measure), cl::cat(MeasureCat)};
  cl::opt<double> MPoll{
      "poll-ms",
      cl::desc(withDefault("Poll interval in ms: every poll finds the tree "
                           "in /proc and checks the budgets. 1 to 1000, at "
                           "most the wall budget",
                           MeasureBudget().pollS * 1000)),
      cl::value_desc("N"), cl::init(MeasureBudget().pollS * 1000),
      cl::sub(Measure), cl::cat(MeasureCat)};
  cl::opt<double> MGrace{
      "kill-grace-s",
      cl::desc(withDefault("Time between SIGTERM and SIGKILL when the tree "
                           "is stopped",
                           MeasureBudget().killGraceS)),
      cl::value_desc("G"), cl::init(MeasureBudget().killGraceS),
      cl::sub(Measure), cl::cat(MeasureCat)};
  cl::opt<bool> MQuiet{"quiet", cl::desc("Do not print the one-line outcome"),
                       cl::sub(Measure), cl::cat(MeasureCat)};
  /// Words before `--`: refused (the command goes after `--`).
  cl::list<std::string> MStray{cl::Positional, cl::desc("-- CMD [ARG...]"),
                               cl::sub(Measure), cl::cat(MeasureCat)};

  // run and sweep
  cl::opt<std::string> Out{
      "out",
      cl::desc("Sweep directory: points/<key>/ per point, summary.csv, "
               "summary.txt (created; rerunning resumes)"),
      cl::value_desc("DIR"), cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<std::string> QpeTool{
      "q2-qpe",
      cl::desc("Phase A program, {q2_qpe} (default: next to q2-profile, "
               "else PATH)"),
      cl::value_desc("PATH"), cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<std::string> OptTool{
      "q2-opt",
      cl::desc("Phase B+C program, {q2_opt} (default: next to q2-profile, "
               "else PATH)"),
      cl::value_desc("PATH"), cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<std::string> PhaseA{
      "phase-a",
      cl::desc("Phase A command template, quoted like a shell line "
               "(default: {q2_qpe} {ham} --mode {mode} --n-est {n_est} "
               "--n-trotter {n_trotter} -o {prog})"),
      cl::value_desc("CMD"), cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<std::string> PhaseBC{
      "phase-bc",
      cl::desc("Phase B+C command template (default: {q2_opt} "
               "--profile-stages --run {runs} {prog} --report {report}); "
               "{report} must be a q2.profile/3 report"),
      cl::value_desc("CMD"), cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::list<std::string> Vars{
      "var", cl::desc("Extra template placeholder {K} (repeatable)"),
      cl::value_desc("K=V"), cl::sub(RunAndSweep), cl::cat(PointCat)};
  UnsignedOpt Runs{"runs",
                   cl::desc(withDefault("Phase C executions, {runs}",
                                        specDefaults().runs)),
                   cl::value_desc("N"), cl::init(specDefaults().runs),
                   cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<double> Wall{
      "wall-s",
      cl::desc(withDefault("Wall budget of each phase of a point, s",
                           specDefaults().phase.wallBudgetS)),
      cl::value_desc("S"), cl::init(specDefaults().phase.wallBudgetS),
      cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<double> PointRss{
      "point-rss-mb",
      cl::desc(withDefault("Process-tree RSS budget of each phase of a "
                           "point, decimal MB",
                           specDefaults().phase.rssBudgetMB)),
      cl::value_desc("M"), cl::init(specDefaults().phase.rssBudgetMB),
      cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<double> Poll{
      "poll-ms",
      cl::desc(withDefault("Poll interval of the phases in ms, 1 to 1000, at "
                           "most the wall budget",
                           specDefaults().phase.pollS * 1000)),
      cl::value_desc("N"), cl::init(specDefaults().phase.pollS * 1000),
      cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<bool> NoProgress{
      "no-progress",
      cl::desc("Never show the progress line (shown only when stderr is a "
               "terminal and CI is unset)"),
      cl::sub(RunAndSweep), cl::cat(PointCat)};

  // run
  cl::opt<std::string> Ham{"ham", cl::desc("Hamiltonian (FCIDUMP), {ham}"),
                           cl::value_desc("FILE"), cl::sub(Run),
                           cl::cat(RunCat)};
  cl::opt<std::string> RunMolecule{
      "molecule", cl::desc("Molecule name, {molecule} and the point keys "
                           "(default mol)"),
      cl::value_desc("NAME"), cl::init("mol"), cl::sub(Run), cl::cat(RunCat)};
  UnsignedOpt NTerms{"n-terms",
                     cl::desc("Pauli terms of the Hamiltonian (default: "
                              "from the report)"),
                     cl::value_desc("N"), cl::init(0), cl::sub(Run),
                     cl::cat(RunCat)};
  UnsignedOpt NEst{"n-est", cl::desc("Estimation wires (required)"),
                   cl::value_desc("E"), cl::init(0), cl::sub(Run),
                   cl::cat(RunCat)};
  UnsignedOpt NTrotter{"n-trotter", cl::desc("Trotter steps (required)"),
                       cl::value_desc("T"), cl::init(0), cl::sub(Run),
                       cl::cat(RunCat)};
  cl::opt<RunMode> Mode{
      "mode", cl::desc("Program mode; both runs fixed first"),
      cl::value_desc("fixed|dynamic|both"),
      cl::values(clEnumValN(RunMode::Fixed, "fixed", "coefficients as constants"),
                 clEnumValN(RunMode::Dynamic, "dynamic",
                            "coefficients as a function argument"),
                 clEnumValN(RunMode::Both, "both", "fixed, then dynamic")),
      cl::init(RunMode::Both), cl::sub(Run), cl::cat(RunCat)};

  // sweep
  cl::list<std::string> Molecules{
      "molecule",
      cl::desc("Add a molecule (repeatable). Default: "
               "h2=<examples>/hamiltonians/h2_0.7414.FCIDUMP:15, with "
               "<examples> = <dir of q2-profile>/../share/q2/examples. Names "
               "that give the same point keys (h2+ and h2p) are refused"),
      cl::value_desc("NAME=FILE[:N_TERMS]"), cl::sub(Sweep),
      cl::cat(SweepCat)};
  cl::opt<std::string> Grid{
      "grid",
      cl::desc("n_est x n_trotter points (default "
               "2x1,2x3,2x5,3x3,3x5,4x3,4x5,4x10)"),
      cl::value_desc("ExT,..."), cl::sub(Sweep), cl::cat(SweepCat)};
  cl::opt<std::string> Modes{"modes",
                             cl::desc("Modes (default fixed,dynamic)"),
                             cl::value_desc("M,..."), cl::sub(Sweep),
                             cl::cat(SweepCat)};
  UnsignedOpt Jobs{"jobs", cl::desc("Points run in parallel (default 1)"),
                   cl::value_desc("N"), cl::init(1), cl::sub(Sweep),
                   cl::cat(SweepCat)};
  cl::opt<double> TotalRss{
      "rss-budget-mb",
      cl::desc("Memory all running points may use together: a point starts "
               "only if its predicted peak RSS (fitted from finished points; "
               "point-rss-mb before two are done) fits. Default: "
               "point-rss-mb*jobs, at most 80% of MemAvailable"),
      cl::value_desc("M"), cl::init(0), cl::sub(Sweep), cl::cat(SweepCat)};
  cl::opt<bool> RetryFailed{"retry-failed",
                            cl::desc("Rerun points recorded as failed"),
                            cl::sub(Sweep), cl::cat(SweepCat)};
  cl::list<std::string> Only{
      "only",
      cl::desc("Run only this point (repeatable; keys as in points/). Such "
               "runs may share a sweep directory; each point is locked"),
      cl::value_desc("KEY"), cl::sub(Sweep), cl::cat(SweepCat)};
  cl::opt<std::string> EmitJobs{
      "emit-jobs",
      cl::desc("Write one self-contained command per point to FILE (for GNU "
               "parallel or a Slurm array) and run nothing"),
      cl::value_desc("FILE"), cl::sub(Sweep), cl::cat(SweepCat)};

  // sweep: executors, resume
  cl::opt<SweepExecutor> Executor{
      "executor",
      cl::desc("Where the points run (default local)"),
      cl::value_desc("local|slurm"),
      cl::values(clEnumValN(SweepExecutor::Local, "local",
                            "child processes of q2-profile (--jobs at once)"),
                 clEnumValN(SweepExecutor::Slurm, "slurm",
                            "tasks of one Slurm job array")),
      cl::init(SweepExecutor::Local),
      cl::sub(Sweep),
      cl::cat(SlurmCat)};
  cl::opt<bool> Resume{
      "resume",
      cl::desc("Resume the sweep in --out with the spec it was started with "
               "(--out/sweep.json): follow its queued and running Slurm "
               "tasks, record why ended ones left no result, run what is "
               "missing or retryable. Options that change the points are "
               "refused"),
      cl::sub(Sweep), cl::cat(SlurmCat)};
  cl::opt<std::string> Partition{
      "partition", cl::desc("sbatch --partition of the tasks"),
      cl::value_desc("P"), cl::sub(Sweep), cl::cat(SlurmCat)};
  cl::opt<std::string> Account{
      "account", cl::desc("sbatch --account of the tasks"), cl::value_desc("A"),
      cl::sub(Sweep), cl::cat(SlurmCat)};
  UnsignedOpt MaxParallel{
      "max-parallel",
      cl::desc("Tasks of the array running at once (--array=...%N; default "
               "no limit)"),
      cl::value_desc("N"),
      cl::init(0),
      cl::sub(Sweep),
      cl::cat(SlurmCat)};
  cl::list<std::string> SbatchArgs{
      "sbatch-arg",
      cl::desc("Pass ARG to sbatch after q2-profile's own (repeatable; "
               "e.g. --sbatch-arg=--qos=long, --sbatch-arg=--mem=8G "
               "overrides the --mem derived from --point-rss-mb)"),
      cl::value_desc("ARG"), cl::sub(Sweep), cl::cat(SlurmCat)};
  cl::opt<double> SlurmPoll{
      "slurm-poll-s",
      cl::desc(withDefault("Seconds between two looks at the queue while "
                           "waiting",
                           SlurmOptions().pollS)),
      cl::value_desc("S"),
      cl::init(SlurmOptions().pollS),
      cl::sub(Sweep),
      cl::cat(SlurmCat)};
  cl::opt<bool> NoWait{
      "no-wait",
      cl::desc("Return once the array is submitted; `q2-profile status DIR` "
               "shows it, `q2-profile sweep --resume --out DIR` waits for it"),
      cl::sub(Sweep), cl::cat(SlurmCat)};
  /// How an array task runs its point (job.sh); not for users.
  cl::opt<std::string> SlurmTask{
      "slurm-task",
      cl::desc("Run the point of this Slurm array task (OUT/slurm/<n>, "
               "from the array's job.sh)"),
      cl::value_desc("DIR"),
      cl::Hidden,
      cl::sub(Sweep),
      cl::cat(SlurmCat)};

  // status
  cl::opt<std::string> StatusDir{cl::Positional, cl::desc("SWEEP_DIR"),
                                 cl::sub(Status), cl::cat(StatusCat)};

  // merge
  cl::opt<std::string> MergeOut{
      "out",
      cl::desc("Also write DIR/summary.csv, DIR/summary.txt and "
               "DIR/results.json (all point results)"),
      cl::value_desc("DIR"), cl::sub(Merge), cl::cat(MergeCat)};
  cl::opt<bool> Csv{"csv", cl::desc("Print the CSV instead of the table"),
                    cl::sub(Merge), cl::cat(MergeCat)};
  cl::list<std::string> Dirs{cl::Positional, cl::desc("SWEEP_DIR..."),
                             cl::sub(Merge), cl::cat(MergeCat)};

  cl::extrahelp MoreHelp{
      "\nExit status: 0 when done (a failed command is a result of measure), "
      "3 when a sweep or run\nfinished with failed points (all points are "
      "written), 2 for a refusal or an error,\n130 when interrupted by "
      "SIGINT, SIGTERM or SIGHUP (the measured tree is stopped\nfirst). "
      "compare: 0 no regression, 1 regression, 2 error. Details: "
      "docs/sweeps.md,\ndocs/compare.md.\n"};
};

Options &options();

/// `sweep`/`run` finished, and at least one point failed (now or before).
constexpr int kExitPointsFailed = 3;
/// Set by SIGINT, SIGTERM and SIGHUP once installInterruptHandler ran.
extern std::atomic<bool> Interrupted;
extern std::atomic<int> InterruptSignal;
/// SIGINT, SIGTERM and SIGHUP ask running measurements to stop their tree
/// (and a sweep to start nothing new); a second one kills us.
void installInterruptHandler();

/// Prints "q2-profile: error: Msg"; 2.
int fail(const llvm::Twine &msg);
/// "K=V" into KV; false without a key or '='.
bool splitKV(StringRef s, std::pair<std::string, std::string> &kv);
std::string absolute(StringRef p);
std::string selfPath(const char *argv0);
/// The tool `name` next to q2-profile, else `name` (PATH lookup).
std::string siblingTool(const char *argv0, const char *name);
std::string joinTemplate(const std::vector<std::string> &words);
/// Exactly (for job files).
std::string num(double v);
/// Shortly (for messages).
std::string shortNum(double v);

int cmdRun(Options &o, const char *argv0);
int cmdSweep(Options &o, const char *argv0);
int cmdStatus(Options &o);

} // namespace q2::orch::profile_tool

#endif // Q2_LIB_ORCHESTRATOR_PROFILETOOLOPTIONS_H
