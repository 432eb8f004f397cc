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
}

#undef Q2_READING

} // namespace q2::orch

#endif // Q2_LIB_ORCHESTRATOR_RECORDFIELDS_H
