//===- Execute.cpp - Phase C: running a compiled program ------------------===//
//
// The --coeffs reader, and the run of an object ("Phase C" in q2-opt's
// output) as a compile session's Executor: load it (stage "Load"), call it
// for every coefficient set (stage "Execute") with a progress line, print
// the energies, the error estimate and the blocks, and return the report's
// phase_c record. The loaded-program API itself is jit::Circuit.
//
//===----------------------------------------------------------------------===//
#include "q2/Execution/PhaseC.h"

#include "q2/Profiling/Memory.h"
#include "q2/Profiling/Session.h"
#include "q2/Profiling/Timing.h"
#include "q2/Runtime/QuantumRuntime.h"

#include "q2/Support/JSON.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <cmath>
#include <unistd.h>

using namespace q2;
using namespace q2::execution;

llvm::Expected<std::vector<CoeffSet>>
q2::execution::readCoeffSets(llvm::StringRef path, unsigned nTerms) {
  auto doc = q2::json::readFile(path);
  if (!doc)
    return doc.takeError();
  q2::json::Cursor root(*doc, path.str());
  std::vector<CoeffSet> sets;
  auto addSet = [&](const q2::json::Cursor &c, std::string label) -> llvm::Error {
    CoeffSet set{std::move(label), {}};
    if (!c.isArray())
      return c.error("a coefficient set must be an array of numbers");
    if (llvm::Error e = q2::json::fromValue(c, set.coeffs))
      return e;
    for (size_t i = 0; i < set.coeffs.size(); ++i)
      if (!std::isfinite(set.coeffs[i]))
        return llvm::createStringError(
            path + ": " +
            llvm::formatv("set '{0}', coefficient {1}: not a finite number",
                          set.label, i));
    if (set.coeffs.size() != nTerms)
      return llvm::createStringError(
          path + ": " +
          llvm::formatv("set '{0}' has {1} coefficients; the program has {2} "
                        "terms",
                        set.label, set.coeffs.size(), nTerms));
    sets.push_back(std::move(set));
    return llvm::Error::success();
  };
  if (auto list = root.find("sets")) {
    auto entries = list->elements();
    if (!entries)
      return entries.takeError();
    for (size_t i = 0; i < entries->size(); ++i) {
      const q2::json::Cursor &e = (*entries)[i];
      std::string label = "set" + std::to_string(i);
      if (auto l = e.find("label")) {
        auto s = l->string();
        if (!s)
          return s.takeError();
        label = *s;
      }
      auto c = e.at("coeffs");
      if (!c)
        return c.takeError();
      if (llvm::Error err = addSet(*c, label))
        return std::move(err);
    }
  } else if (root.isArray() && !root.value().empty() &&
             root.value()[0].is_array()) {
    auto entries = root.elements();
    if (!entries)
      return entries.takeError();
    for (size_t i = 0; i < entries->size(); ++i)
      if (llvm::Error e = addSet((*entries)[i], "set" + std::to_string(i)))
        return std::move(e);
  } else if (llvm::Error e = addSet(root, "set0")) {
    return std::move(e);
  }
  if (sets.empty())
    return llvm::createStringError(path + ": no coefficient sets");
  return sets;
}

//===----------------------------------------------------------------------===//
// Running an object
//===----------------------------------------------------------------------===//

namespace {
/// The progress line of the calls (stderr): once a call has run `after`
/// seconds, each finished block as "block k of n, S s, ~R s left", and, while
/// one block runs long (the first builds U; a block that replays slices can
/// take minutes) or the program has no blocks, a heartbeat "running, S s, k
/// of n blocks done" (from 2 s at the earliest) so that a long call is never
/// silent. In place on a terminal (\r, every second), one line per
/// event otherwise (heartbeats every 10 s, so a log stays short). n is the
/// program's estimation wires (one powered block each); R assumes the blocks
/// left take as long as the mean of those after the first. One heartbeat
/// thread serves every call, so a short call pays no thread start.
class CallProgress {
public:
  CallProgress(int64_t wires, double after)
      : wires(wires), after(after), tty(llvm::errs().is_displayed()),
        heartbeat([this] { beat(); }) {}
  ~CallProgress() {
    end();
    {
      std::lock_guard<std::mutex> lock(mu);
      quit = true;
    }
    wake.notify_all();
    heartbeat.join();
  }

  static void callback(void *self, int64_t done, double secs, int32_t) {
    static_cast<CallProgress *>(self)->block(done, secs);
  }

  /// The runtime started a long stage of a subspace path (the eigenphase
  /// path's U and its eigenvectors, the live-subspace register): the
  /// heartbeat names it from now on.
  static void stageCallback(void *self, int32_t path, const char *stage,
                            int64_t dim) {
    static_cast<CallProgress *>(self)->stage(path, stage, dim);
  }

  /// A call starts at `t0` (profiling::elapsedSeconds()).
  void begin(std::string callLabel, double callT0) {
    {
      std::lock_guard<std::mutex> lock(mu);
      label = std::move(callLabel);
      t0 = callT0;
      finished = 0;
      first = rest = 0;
      lastPrint = -1e9;
      pathText.clear();
      active = true;
    }
    wake.notify_all();
  }

  /// The call returned: ends an in-place line so that what follows starts
  /// on its own. Idempotent.
  void end() {
    std::lock_guard<std::mutex> lock(mu);
    active = false;
    if (tty && printed)
      llvm::errs() << "\n";
    printed = false;
  }

private:
  void stage(int32_t path, const char *what, int64_t dim) {
    std::lock_guard<std::mutex> lock(mu);
    pathText = llvm::formatv("{0} path, {1} states: {2}",
                             path == Q2_PATH_EIGENPHASES ? "eigenphase"
                                                         : "live-subspace",
                             dim, what)
                   .str();
    double now = profiling::elapsedSeconds() - t0;
    if (now >= std::max(after, 2.0))
      print(llvm::formatv("q2-opt: [{0}] {1}, {2:F1} s", label, pathText, now),
            now);
  }

  void block(int64_t done, double secs) {
    std::lock_guard<std::mutex> lock(mu);
    finished = done;
    if (done == 1)
      first = secs;
    else
      rest += secs;
    double now = profiling::elapsedSeconds() - t0;
    if (now < after)
      return;
    std::string line = llvm::formatv("q2-opt: [{0}] block {1}", label, done);
    if (wires >= done) {
      double mean = done > 1 ? rest / double(done - 1) : first;
      line += llvm::formatv(" of {0}, {1:F1} s, ~{2:F0} s left", wires, now,
                            mean * double(wires - done))
                  .str();
    } else {
      line += llvm::formatv(", {0:F1} s", now).str();
    }
    print(line, now);
  }

  /// The heartbeat thread: reports the block in progress when nothing was
  /// printed for a while.
  void beat() {
    const double every = tty ? 1.0 : 10.0;
    std::unique_lock<std::mutex> lock(mu);
    while (!quit) {
      if (!active) {
        wake.wait(lock);
        continue;
      }
      wake.wait_for(lock, std::chrono::milliseconds(tty ? 250 : 1000));
      if (!active || quit)
        continue;
      double now = profiling::elapsedSeconds() - t0;
      if (now < std::max(after, 2.0) || now - lastPrint < every)
        continue;
      // Says blocks done, not "block k running": a program compiled
      // without powered blocks has none to count.
      print(llvm::formatv("q2-opt: [{0}] running{4}, {1:F0} s, {2} of {3} "
                          "blocks done",
                          label, now, finished, wires,
                          pathText.empty() ? std::string()
                                           : " (" + pathText + ")"),
            now);
    }
  }

  /// Called with `mu` held.
  void print(const std::string &line, double now) {
    if (tty)
      llvm::errs() << "\r" << line << "\x1b[K";
    else
      llvm::errs() << line << "\n";
    llvm::errs().flush();
    printed = true;
    lastPrint = now;
  }

  const int64_t wires;
  const double after;
  const bool tty;
  std::mutex mu;
  std::condition_variable wake;
  std::string label;
  std::string pathText; // the subspace path's current stage, if any
  double t0 = 0, first = 0, rest = 0, lastPrint = -1e9;
  int64_t finished = 0;
  bool active = false, quit = false, printed = false;
  std::thread heartbeat; // last: starts once the fields above exist
};
} // namespace

/// " (reused R, products P)" of a block line: the parts that are not 0.
static std::string blockDetail(const profiling::BlockRecord &b) {
  std::string d;
  // The eigenphase path: U's size on the system's live subspace.
  if (b.method == "eigenphases" && b.subspaceDim)
    d = llvm::formatv("U on the live subspace of {0} states",
                      *b.subspaceDim)
            .str();
  // Which dense path: U's invariant cosets, or (nothing said) the whole
  // 2^m space.
  if (b.denseDim && b.numQubits >= 0 && *b.denseDim < (int64_t(1) << b.numQubits))
    d = llvm::formatv("on {0} coset(s) of {1} of {2} states", b.cosets.value_or(0),
                      *b.denseDim, int64_t(1) << b.numQubits)
            .str();
  if (b.reused)
    d += (d.empty() ? "" : ", ") + llvm::formatv("reused {0}", b.reused).str();
  if (b.products && *b.products)
    d += (d.empty() ? "" : ", ") +
         llvm::formatv("products {0}", *b.products).str();
  // A block of a register restricted to its live subspace.
  if (b.path && *b.path == "live_subspace" && b.subspaceDim)
    d += (d.empty() ? "" : ", ") +
         llvm::formatv("live-subspace register of {0} amplitudes",
                       *b.subspaceDim)
             .str();
  return d.empty() ? d : " (" + d + ")";
}

PhaseC::PhaseC(ExecuteOptions opts, llvm::raw_ostream *out)
    : opts(std::move(opts)), out(out) {}

PhaseC::~PhaseC() = default;

llvm::Error PhaseC::prepare(const qpe::QPEMetadata &md) {
  sets.clear();
  skipped.reset();
  // A register that cannot be allocated fails here, unless the run is only
  // implied (skipUnrunnable): then Phase C is recorded as skipped.
  if (opts.runs > 0 && opts.skipUnrunnable)
    if ((skipped = jit::skippedRun(md, opts.maxQubits)))
      return llvm::Error::success();
  if (opts.runs == 0)
    return llvm::Error::success();
  if (llvm::Error e = jit::checkRunnable(md, opts.maxQubits))
    return e;
  if (opts.coeffsPath.empty()) {
    sets = {{"default", md.mode == qpe::Mode::Dynamic ? md.defaultCoeffs
                                                      : std::vector<double>{}}};
    return llvm::Error::success();
  }
  if (md.mode != qpe::Mode::Dynamic)
    return llvm::createStringError(
        "--coeffs needs a dynamic-mode program (this one is fixed)");
  auto read = readCoeffSets(opts.coeffsPath, md.nTerms);
  if (!read)
    return read.takeError();
  sets = std::move(*read);
  return llvm::Error::success();
}

session::ExecuteOutcome PhaseC::skip() {
  if (out)
    *out << "\nPhase C skipped: " << *skipped->reason
         << "; the stages above were profiled (--max-qubits raises the "
            "limit; --run N insists and fails)\n";
  session::ExecuteOutcome o;
  o.record = std::move(skipped);
  skipped.reset();
  return o;
}

session::ExecuteOutcome PhaseC::execute(llvm::ArrayRef<char> object,
                                        const qpe::QPEMetadata &md,
                                        profiling::ProfilingSession *session,
                                        bool digestChecked) {
  if (skipped)
    return skip();
  if (opts.runs == 0)
    return {};
  const int runs = opts.runs;
  llvm::raw_null_ostream nowhere;
  llvm::raw_ostream &os = out ? *out : nowhere;
  session::ExecuteOutcome result;
  profiling::PhaseCRecord &rec = result.record.emplace();
  rec.callsPerSet = uint64_t(runs);
  auto fail = [&](llvm::Error e) {
    std::string msg = llvm::toString(std::move(e));
    rec.error = msg;
    result.error = llvm::createStringError(msg);
    return std::move(result);
  };
  std::optional<profiling::ScopedStage> stage;
  if (session)
    stage.emplace(*session, "Load", profiling::StageKind::Run);
  auto loaded = jit::Circuit::load(object, md, opts.runtimeLib, opts.maxQubits,
                                   digestChecked);
  stage.reset();
  if (!loaded)
    return fail(loaded.takeError());
  circuit = std::move(*loaded);
  if (session)
    stage.emplace(*session, "Execute", profiling::StageKind::Run);
  // Stop sampling while Execute is still open, so the last sample carries
  // its tag.
  llvm::scope_exit done([&] {
    if (session)
      session->stopTimeline();
    stage.reset();
  });
  rec.runtime = circuit->runtimeLibrary();
  rec.threads = circuit->setThreads(opts.threads);
  os << "\nPhase C: " << runs << " call(s) per coefficient set, "
     << rec.threads << " thread(s), runtime " << rec.runtime << "\n";
  std::vector<double> probs(size_t(1) << md.nEst, 0.0);
  std::optional<CallProgress> progress;
  if (!opts.quiet)
    progress.emplace(md.nEst, opts.progressAfterS);
  for (const CoeffSet &set : sets) {
    profiling::Stats callTimes;
    for (int c = 0; c < runs; ++c) {
      // The block report describes one call: the last.
      circuit->resetBlockStats();
      double t0 = profiling::elapsedSeconds();
      if (progress) {
        progress->begin(runs > 1 ? llvm::formatv("{0} call {1}/{2}", set.label,
                                                 c + 1, runs)
                                       .str()
                                 : set.label,
                        t0);
        // Per call: this also restarts the runtime's block count.
        circuit->setBlockProgress(&CallProgress::callback, &*progress);
        circuit->setStageProgress(&CallProgress::stageCallback,
                                     &*progress);
      }
      llvm::Error e = circuit->run(set.coeffs, probs);
      callTimes.add(profiling::elapsedSeconds() - t0);
      if (progress) {
        circuit->setBlockProgress(nullptr, nullptr);
        circuit->setStageProgress(nullptr, nullptr);
        progress->end();
      }
      if (e)
        return fail(std::move(e));
    }
    qpe::QPEResult r = qpe::decode(probs, md);
    os << llvm::formatv("  [{0}] prob_sum {1:F12}  call {2}  argmax m={3}  "
                        "phase {4:F6}  energy {5:F6} Ha (resolution {6:F6} "
                        "Ha)\n",
                        set.label, r.probSum, callTimes.summary(1e3, "ms"),
                        r.argmax, r.phase, r.energy, md.resolution);
    // The error estimate: Trotter bound for these coefficients, the peak,
    // and the exact energy when the program carries it (default set only:
    // other coefficients have another spectrum).
    bool isDefault = set.coeffs.empty() || set.coeffs == md.defaultCoeffs;
    std::optional<double> bound;
    std::string boundText = "unknown";
    if (isDefault && !md.trotterBound) {
      boundText = "unknown (program without trotter_bound)";
    } else if (auto b = qpe::trotterBoundFor(
                   md, isDefault ? llvm::ArrayRef<double>()
                                 : llvm::ArrayRef<double>(set.coeffs))) {
      bound = *b;
      boundText = llvm::formatv("{0:E3} Ha", *b).str();
    } else {
      boundText = "unknown (" + llvm::toString(b.takeError()) + ")";
    }
    std::optional<double> exact, errRes;
    if (isDefault && md.exactEnergy) {
      exact = md.exactEnergy;
      errRes = (r.energy - *exact) / md.resolution;
    }
    os << llvm::formatv("      Trotter bound {0}  peak mass {1:F4} "
                        "(m-1..m+1)  peak estimate {2:F6} Ha",
                        boundText, r.peakMass, r.peakEnergy);
    if (exact)
      os << llvm::formatv("  exact {0:F6} Ha  error {1}{2:F2} resolutions",
                          *exact, *errRes >= 0 ? "+" : "", *errRes);
    else // say why there is no error figure (docs/energies.md)
      os << (isDefault ? "  exact unknown (the program carries none, e.g. "
                         "a sector too large to diagonalise)"
                       : "  exact unknown (not the program's default "
                         "coefficients)");
    os << "\n";
    // Probability lost (or made) means the numbers are wrong, whatever the
    // energy says.
    std::optional<std::string> warning;
    if (!(std::fabs(r.probSum - 1.0) <= qpe::kProbSumTolerance)) {
      warning = llvm::formatv("prob_sum {0:E6} differs from 1 by more than "
                              "{1:E0}: the probabilities and the energy are "
                              "not reliable",
                              r.probSum, qpe::kProbSumTolerance)
                    .str();
      llvm::WithColor::warning(llvm::errs(), "q2-opt")
          << "[" << set.label << "] " << *warning << "\n";
    }
    if (errRes && std::fabs(*errRes) > 1.0)
      llvm::WithColor::warning(llvm::errs(), "q2-opt")
          << llvm::formatv("[{0}] |E - E_exact| = {1:F2} resolutions: the "
                           "QPE energy {2:F6} Ha misses the exact {3:F6} Ha "
                           "by more than its resolution {4:F6} Ha\n",
                           set.label, std::fabs(*errRes), r.energy, *exact,
                           md.resolution);
    // The few most likely outcomes, which is what a reader checks.
    std::vector<size_t> order(r.probs.size());
    for (size_t k = 0; k < order.size(); ++k)
      order[k] = k;
    size_t top = std::min<size_t>(4, order.size());
    std::partial_sort(order.begin(), order.begin() + top, order.end(),
                      [&](size_t a, size_t b) { return r.probs[a] > r.probs[b]; });
    os << "      top outcomes:";
    for (size_t k = 0; k < top; ++k)
      os << llvm::formatv("  m={0} p={1:F4} E={2:F5}", order[k],
                          r.probs[order[k]],
                          qpe::energyOfOutcome(md, order[k]));
    os << "\n";
    std::vector<profiling::BlockRecord> blocks = circuit->blockStats();
    for (const profiling::BlockRecord &b : blocks)
      os << llvm::formatv("      block x{0}: m={1} (+{2} ctrl) N={3} "
                          "gates={4}{8} {5}{6} {7:F3} ms\n",
                          b.occurrences, b.numQubits, b.numControls, b.count,
                          b.numGates, b.method,
                          blockDetail(b),
                          b.seconds * 1e3,
                          b.numOps && *b.numOps != b.numGates
                              ? llvm::formatv(" (folded to {0})", *b.numOps)
                                    .str()
                              : std::string());
    // How the runtime ran the register (a subspace path), and the
    // process's peak RSS so far (the Execute stage's own peak is in the
    // stage table).
    std::optional<profiling::PathRecord> path = circuit->lastPath();
    std::optional<uint64_t> peak;
    if (auto st = profiling::readProcStatus())
      peak = st->vmHWM;
    else
      llvm::consumeError(st.takeError());
    if (path)
      os << llvm::formatv("      path: {0}, register {1} qubits, live "
                          "subspace 2^{2}, {3} {4} states{5}; {6:F3} s{7}\n"
                          "            ({8})\n",
                          path->path, path->qubits, path->liveQubits,
                          path->path == "eigenphases" ? "U on" : "held",
                          path->subspaceDim,
                          path->path == "eigenphases"
                              ? llvm::formatv(" (U and eigenvectors {0:F3} s)",
                                              path->eigenSeconds)
                                    .str()
                              : std::string(),
                          path->seconds,
                          peak ? llvm::formatv(", peak RSS {0:F1} MB",
                                               double(*peak) / 1e6)
                                     .str()
                               : std::string(),
                          path->note);
    profiling::PhaseCSetRecord s;
    s.label = set.label;
    s.execution = std::move(path);
    s.peakRSS = peak;
    s.probSum = r.probSum;
    s.argmax = r.argmax;
    s.phase = r.phase;
    s.energy = r.energy;
    s.resolution = md.resolution;
    s.trotterBound = bound;
    s.peakMass = r.peakMass;
    s.peakEnergy = r.peakEnergy;
    s.exactEnergy = exact;
    s.errorResolutions = errRes;
    s.callS = callTimes.record();
    s.probabilities = std::move(r.probs);
    s.blocks = std::move(blocks);
    s.warning = std::move(warning);
    rec.sets.push_back(std::move(s));
  }
  return result;
}
