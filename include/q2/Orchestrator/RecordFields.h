//===- RecordFields.h - JSON field lists of the orchestrator's records ---===//
//
// One field list per record type: record.json (q2.measure/1) and
// result.json (q2.sweep.point/1) are written and read from these lists, so
// the writer and the reader cannot disagree. docs/sweeps.md documents the
// keys. The embedded profile report uses the report's own lists
// (q2/Profiling/ReportFields.h).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_LIB_ORCHESTRATOR_RECORDFIELDS_H
#define Q2_LIB_ORCHESTRATOR_RECORDFIELDS_H

#include "q2/Profiling/ReportFields.h"
#include "q2/Support/JSON.h"
#include "q2/Orchestrator/Measure.h"
#include "q2/Orchestrator/Sweep.h"

#include <map>
#include <optional>
#include <string>
#include <type_traits>

namespace q2::orch {

/// For JSON.h's enum support (found by ADL).
llvm::StringRef toString(StopReason r);
std::optional<StopReason> parseEnum(llvm::StringRef s, StopReason *);

/// Texts written into every record.json for its readers (not read back).
extern const char *const kMeasureScope;
extern const char *const kMeasureLimitation;

/// Whether a field list is being read (true) or written (false).
#define Q2_READING std::remove_reference_t<decltype(v)>::reading

Q2_JSON_FIELDS(MeasureRecord) {
  constexpr bool reading = Q2_READING;
  v.derived("schema", std::string(kMeasureSchema));
  v("command", r.command);
  // `cwd` is null when the command inherited it.
  std::optional<std::string> cwd;
  if constexpr (!reading)
    if (!r.cwd.empty())
      cwd = r.cwd;
  v("cwd", cwd);
  // `env`: the overrides only, as an object.
  std::map<std::string, std::string> env;
  if constexpr (!reading)
    env.insert(r.env.begin(), r.env.end());
  v("env", env);
  v("reason", r.reason);
  // `exit_code` is null when a signal ended the command, `signal` null when
  // it exited.
  std::optional<int> exitCode;
  std::optional<std::string> signal;
  if constexpr (!reading) {
    if (r.signal)
      signal = r.signalName;
    else
      exitCode = r.exitCode;
  }
  v("exit_code", exitCode);
  v("signal", signal);
  if constexpr (reading) {
    r.cwd = cwd.value_or("");
    r.env.assign(env.begin(), env.end());
    r.exitCode = exitCode.value_or(-1);
    r.signalName = signal.value_or("");
    r.signal = signal ? signalNumber(*signal) : 0;
  }
  v("wall_s", r.wallS);
  v("peak_tree_rss_mb", r.peakTreeRssMB);
  v("peak_tree_procs", r.peakTreeProcs);
  v("max_vmhwm_mb", r.maxVmHwmMB);
  v("poll_s", r.pollS);
  v("polls", r.polls);
  v("rss_budget_mb", r.rssBudgetMB);
  v("wall_budget_s", r.wallBudgetS);
  v("stray_procs_killed", r.strayProcsKilled);
  v.optional("cancelled_by", r.cancelledBy);
  v.derived("scope", std::string(kMeasureScope));
  v.derived("limitation", std::string(kMeasureLimitation));
  v("stdout", r.stdoutFile);
  v("stderr", r.stderrFile);
}

Q2_JSON_FIELDS(SlurmTaskRecord) {
  v("job_id", r.jobId);
  v.unlessDefault("state", r.state, std::string());
  v.unlessDefault("exit_code", r.exitCode, std::string());
  v.optional("elapsed_s", r.elapsedS);
  v.optional("max_rss_mb", r.maxRssMB);
  v.optional("mem_limit_mb", r.memLimitMB);
  v.unlessDefault("node", r.node, std::string());
  v("source", r.source);
  v.unlessDefault("log", r.log, std::string());
}

Q2_JSON_FIELDS(PointPhases) {
  v.optional("A", r.a);
  v.optional("BC", r.bc);
}

Q2_JSON_FIELDS(PointRecord) {
  v("schema", r.schema);
  v("key", r.key);
  v("molecule", r.molecule);
  v("hamiltonian", r.hamiltonian);
  v("mode", r.mode);
  v("n_est", r.nEst);
  v("n_trotter", r.nTrotter);
  v("n_terms", r.nTerms);
  v("x", r.x);
  v("status", r.status);
  v("failed_phase", r.failedPhase);
  v("reason", r.reason);
  v("message", r.message);
  v("phases", r.phases);
  v("wall_s", r.wallS);
  v("peak_rss_mb", r.peakRssMB);
  v("report", r.report);
  // Only when true / present (the slurm executor's), so that the results of
  // local sweeps read and merge as before.
  v.unlessDefault("retryable", r.retryable, false);
  v.optional("slurm", r.slurm);
}

/// For JSON.h's enum support (found by ADL).
llvm::StringRef toString(SweepExecutor e);
std::optional<SweepExecutor> parseEnum(llvm::StringRef s, SweepExecutor *);

Q2_JSON_FIELDS(Molecule) {
  v("name", r.name);
  v("hamiltonian", r.hamiltonian);
  v("n_terms", r.nTerms);
}

Q2_JSON_FIELDS(SlurmOptions) {
  v("partition", r.partition);
  v("account", r.account);
  v("max_parallel", r.maxParallel);
  v("sbatch_args", r.sbatchArgs);
  v("poll_s", r.pollS);
  v("q2_profile", r.q2Profile);
}

/// OUT/sweep.json (q2.sweep/1). Keys added later are optional, so that
/// the sweep.json of older sweeps still reads.
Q2_JSON_FIELDS(SweepSpec) {
  constexpr bool reading = Q2_READING;
  v.derived("schema", std::string("q2.sweep/1"));
  // The grid as [[n_est, n_trotter], ...] (readSweepSpec checks the pairs).
  std::vector<std::vector<unsigned>> grid;
  if constexpr (!reading)
    for (const GridPoint &g : r.grid)
      grid.push_back({g.nEst, g.nTrotter});
  v("grid", grid);
  if constexpr (reading) {
    r.grid.clear();
    for (const auto &p : grid)
      r.grid.push_back({p.size() == 2 ? p[0] : 0, p.size() == 2 ? p[1] : 0});
  }
  v("modes", r.modes);
  v("molecules", r.molecules);
  std::map<std::string, std::vector<std::string>> commands;
  if constexpr (!reading)
    commands = {{"A", r.commands.phaseA}, {"BC", r.commands.phaseBC}};
  v("commands", commands);
  if constexpr (reading) {
    r.commands.phaseA = commands["A"];
    r.commands.phaseBC = commands["BC"];
  }
  v("vars", r.vars);
  v("runs", r.runs);
  v("jobs", r.jobs);
  v("phase_wall_s", r.phase.wallBudgetS);
  v("point_rss_mb", r.phase.rssBudgetMB);
  v("total_rss_mb", r.totalRssMB);
  v("poll_s", r.phase.pollS);
  v.unlessDefault("kill_grace_s", r.phase.killGraceS, 1.0);
  v.unlessDefault("retry_failed", r.retryFailed, false);
  v("only", r.only);
  v.unlessDefault("executor", r.executor, SweepExecutor::Local);
  if constexpr (reading) {
    std::optional<SlurmOptions> slurm;
    v.optional("slurm", slurm);
    if (slurm)
      r.slurm = std::move(*slurm);
  } else {
    v.when(r.executor == SweepExecutor::Slurm, "slurm", r.slurm);
  }
}

#undef Q2_READING

} // namespace q2::orch

#endif // Q2_LIB_ORCHESTRATOR_RECORDFIELDS_H
