//===- Sweep.h - Isolated, budgeted, resumable profiling sweeps -*- C++ -*-===//
//
// A sweep is a grid of (n_est, n_trotter) x modes x molecules. Every point
// runs as budgeted child processes through measure(): Phase A builds the
// program (q2-qpe), Phase B+C compiles, profiles and runs it (q2-opt). The
// commands are templates so that the machinery does not depend on the tools.
// Each point's result is written atomically to
//   OUT/points/<key>/result.json
// when it finishes; a rerun skips points that have one (resume).
//
// The library never prints: progress goes to an injectable callback, which
// runSweep() invokes from the calling thread only.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_ORCHESTRATOR_SWEEP_H
#define Q2_ORCHESTRATOR_SWEEP_H

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace q2::orch {

struct Molecule {
  std::string name;
  std::string hamiltonian;
  /// Number of Pauli terms; 0 = unknown (then learned from a point report
  /// that has an "n_terms" field, else taken as 1 for the fit).
  unsigned nTerms = 0;
};

struct GridPoint {
  unsigned nEst = 0, nTrotter = 0;
};

/// (2,1) (2,3) (2,5) (3,3) (3,5) (4,3) (4,5) (4,10).
std::vector<GridPoint> defaultH2Grid();
/// Parses "2x1,2x3,4x10" (n_est x n_trotter).
llvm::Expected<std::vector<GridPoint>> parseGrid(llvm::StringRef Text);

struct PointId {
  std::string molecule, mode;
  unsigned nEst = 0, nTrotter = 0;
  /// File-name safe and unique within a sweep: "h2-fixed-e2-t1".
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

struct SweepSpec {
  std::string outDir;
  std::vector<GridPoint> grid = defaultH2Grid();
  std::vector<std::string> modes = {"fixed", "dynamic"};
  std::vector<Molecule> molecules;
  CommandTemplates commands = defaultCommandTemplates();
  std::map<std::string, std::string> vars;
  unsigned runs = 5;
  /// Points run at the same time at most.
  unsigned jobs = 1;
  /// Budgets of each phase of each point (measure() budgets).
  double phaseWallS = 600;
  double pointRssMB = 4000;
  /// Memory all running points may use together (admission control);
  /// 0 = pointRssMB * jobs.
  double totalRssMB = 0;
  double pollS = 0.010;
  double killGraceS = 1.0;
  /// Rerun points whose recorded status is "failed" instead of skipping.
  bool retryFailed = false;
  /// Restrict the sweep to these point keys (empty = all).
  std::vector<std::string> only;
  /// When it becomes true, running points are stopped (not recorded, so a
  /// rerun redoes them) and no new point starts.
  const std::atomic<bool> *cancel = nullptr;
};

/// All points of the spec, in order: molecule, then grid, then mode.
std::vector<PointId> enumeratePoints(const SweepSpec &Spec);

/// Least-squares fit of peak RSS (MB) = a + b * x with
/// x = n_est * n_trotter * n_terms over finished points.
class PeakRssModel {
public:
  explicit PeakRssModel(double ConservativeMB, double CapMB)
      : Conservative(ConservativeMB), Cap(CapMB) {}
  void add(double X, double PeakMB);
  /// True once two points with distinct x are known.
  bool fitted() const;
  double intercept() const { return A; }
  double slope() const { return B; }
  /// Before the fit: the conservative default. After: the fitted value
  /// with a 25% margin, at least the largest peak seen at an x not above
  /// this one, at most the cap (a point is killed above its budget anyway).
  double predict(double X) const;
  size_t size() const { return Xs.size(); }

private:
  void refit();
  double Conservative, Cap;
  std::vector<double> Xs, Ys;
  double A = 0, B = 0;
  bool Fitted = false;
};

struct PointResult {
  PointId id;
  /// "ok", "failed", or "cancelled" (the latter is never written to disk).
  std::string status;
  /// Whether this result was loaded from disk instead of being run now.
  bool skipped = false;
  nlohmann::json json;
};

/// Runs one point: removes a partial OUT/points/<key>/ left by an
/// interrupted run, runs the phases, writes result.json atomically. Failures
/// of the point itself are part of the result; an Error means the machinery
/// could not work (e.g. cannot create directories). NTermsHint (0 = none)
/// is used when the molecule's n_terms is unknown and the point's report
/// does not tell (e.g. because the point failed).
llvm::Expected<PointResult> runPoint(const SweepSpec &Spec, const PointId &Id,
                                     unsigned NTermsHint = 0);

struct ProgressEvent {
  enum Kind { Skipped, Started, Finished } kind;
  PointId point;
  std::string status; // For Skipped and Finished.
  size_t done = 0, total = 0, running = 0;
  double elapsedS = 0;
  /// Estimated seconds until the sweep ends; negative while unknown.
  double etaS = -1;
  /// Admission prediction for a Started point.
  double predictedRssMB = 0;
};
using ProgressCallback = std::function<void(const ProgressEvent &)>;

struct SweepSummary {
  std::vector<PointResult> points; // In enumeratePoints() order.
  /// Points run now, points skipped as done before, failed points (both).
  size_t ran = 0, skipped = 0, failed = 0;
  bool cancelled = false;
};

/// Writes OUT/sweep.json (the spec), runs or skips every point (up to
/// Spec.jobs at a time, with admission control), then writes the summary
/// files (see writeSummary) into OUT.
llvm::Expected<SweepSummary> runSweep(const SweepSpec &Spec,
                                      const ProgressCallback &Progress = {});

/// Loads OUT/points/*/result.json of each directory (for `merge`). A point
/// key present in several directories is an error unless the results agree
/// in status; the later directory wins then.
llvm::Expected<std::vector<nlohmann::json>>
loadResults(const std::vector<std::string> &Dirs);

/// One row per point result; columns are documented in docs/sweeps.md.
std::string summaryCsv(const std::vector<nlohmann::json> &Results);
/// The same as an aligned text table.
std::string summaryTable(const std::vector<nlohmann::json> &Results);
/// Writes DIR/summary.csv and DIR/summary.txt atomically.
llvm::Error writeSummary(const std::string &Dir,
                         const std::vector<nlohmann::json> &Results);

/// Finds the first value stored under key Name anywhere in J (depth first).
const nlohmann::json *findKey(const nlohmann::json &J, const std::string &Name);

} // namespace q2::orch

#endif // Q2_ORCHESTRATOR_SWEEP_H
