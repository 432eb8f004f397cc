//===- PhaseC.cpp - Running compiled programs -----------------------------===//
#include "DriverInternal.h"

#include "q2/JIT/QPEExecutable.h"
#include "q2/Runtime/Limits.h"
#include "q2/Runtime/QuantumRuntime.h"
#include "q2/Profiling/Memory.h"
#include "q2/Profiling/Timing.h"

#include "Support/JSON.h"

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
using namespace q2::driver;
using namespace q2::driver::detail;

llvm::Error q2::driver::detail::checkRunnable(const qpe::QPEMetadata &md,
                                              int64_t maxQubits) {
  if (llvm::Error e = md.validate())
    return llvm::createStringError("invalid QPE metadata: " +
                                   llvm::toString(std::move(e)));
  // The runtime's own default (q2/Runtime/Limits.h), checked before loading.
  int64_t limit =
      maxQubits > 0 ? maxQubits : runtime::limits::defaultMaxQubits();
  int64_t n = md.numQubits();
  if (n > limit) {
    // 16 bytes per amplitude; exact for any n <= 62.
    unsigned __int128 bytes = (unsigned __int128)16 << n;
    std::string size;
    do {
      size.insert(size.begin(), char('0' + int(bytes % 10)));
      bytes /= 10;
    } while (bytes);
    return llvm::createStringError(llvm::formatv(
        "the program needs {0} qubits ({1} system + {2} estimation): {3} "
        "bytes of state; the limit is {4} qubits{5}",
        n, md.nSystem, md.nEst, size, limit,
        maxQubits > 0 ? " (--max-qubits)" : " (what fits in 80% of RAM)"));
  }
  return llvm::Error::success();
}

std::optional<profiling::PhaseCRecord>
q2::driver::detail::skippedPhaseC(const qpe::QPEMetadata &md,
                                  int64_t maxQubits) {
  if (llvm::Error e = md.validate()) {
    llvm::consumeError(std::move(e));
    return std::nullopt;
  }
  llvm::Error why = checkRunnable(md, maxQubits);
  if (!why)
    return std::nullopt;
  profiling::PhaseCRecord r;
  r.skipped = true;
  r.reason = llvm::toString(std::move(why));
  r.qubits = md.numQubits();
  r.limit = maxQubits > 0 ? maxQubits : int64_t(runtime::limits::defaultMaxQubits());
  r.bytesNeeded = std::ldexp(16.0, int(md.numQubits())); // exact: 2^(n+4)
  return r;
}

llvm::Expected<std::vector<CoeffSet>>
q2::driver::detail::readCoeffSets(llvm::StringRef path, unsigned nTerms) {
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
// Circuit
//===----------------------------------------------------------------------===//

/// Entry points of the runtime the object is linked against (the same
/// library the compiled code calls, resolved through the JIT).
struct Circuit::RuntimeControl {
  int64_t (*setMaxQubits)(int64_t) = nullptr;
  int32_t (*setThreads)(int32_t) = nullptr;
  int32_t (*getThreads)() = nullptr;
  int64_t (*blockStats)(Q2BlockStat *, int64_t) = nullptr;
  void (*resetBlockStats)() = nullptr;
  void (*setProgress)(Q2BlockProgressFn, void *) = nullptr;
};

Circuit::~Circuit() = default;

int Circuit::setThreads(int n) {
  threadsWanted = n;
  rt->setThreads(n);
  return threadsInUse = rt->getThreads();
}

int Circuit::threads() const { return threadsInUse; }

void Circuit::resetBlockStats() { rt->resetBlockStats(); }

void Circuit::setBlockProgress(void (*fn)(void *, int64_t, double, int32_t),
                               void *user) {
  rt->setProgress(fn, user);
}

std::vector<profiling::BlockRecord> Circuit::blockStats() const {
  std::vector<Q2BlockStat> raw(size_t(rt->blockStats(nullptr, 0)));
  raw.resize(size_t(rt->blockStats(raw.data(), int64_t(raw.size()))));
  std::vector<profiling::BlockRecord> out;
  for (const Q2BlockStat &b : raw) {
    profiling::BlockRecord r;
    r.numQubits = b.num_qubits;
    r.numControls = b.num_controls;
    r.count = b.count;
    r.numGates = b.num_gates;
    r.numOps = b.num_ops;
    r.occurrences = b.occurrences;
    r.method = b.method == 2 ? "dense" : b.method == 1 ? "slice_replay" : "replay";
    r.reused = b.reused;
    r.seconds = b.seconds;
    r.products = b.products;
    if (b.method == 2 && b.dense_dim > 0) {
      r.denseDim = b.dense_dim;
      r.cosets = b.cosets;
    }
    out.push_back(std::move(r));
  }
  return out;
}

const std::string &Circuit::runtimeLibrary() const {
  return exe->runtimeLibrary();
}

llvm::Expected<std::unique_ptr<Circuit>>
Circuit::load(llvm::ArrayRef<char> object, const qpe::QPEMetadata &md,
              const std::string &runtimeLib, int64_t maxQubits,
              bool digestChecked) {
  if (llvm::Error e = checkRunnable(md, maxQubits))
    return std::move(e);
  jit::ExecutableOptions eo;
  eo.digestChecked = digestChecked;
  eo.runtimeLibrary =
      runtimeLib.empty() ? jit::defaultRuntimeLibrary() : runtimeLib;
  auto exe = jit::QPEExecutable::load(object, md.numCoeffArgs(), md.nEst, eo);
  if (!exe)
    return exe.takeError();
  // The metadata sizes the buffers the host passes: check them against the
  // compiled code's own sizes, so not even a consistent forgery of the
  // metadata sections (digest recomputed) makes the code write past them.
  {
    auto shapeFn = (*exe)->lookup(qpe::kShapeSymbol);
    if (!shapeFn)
      return llvm::createStringError(
          llvm::Twine("the object has no '") + qpe::kShapeSymbol +
          "' (compiled by an older q2-opt: recompile the program)");
    int64_t shape[2] = {-1, -1};
    reinterpret_cast<void (*)(int64_t *)>(*shapeFn)(shape);
    int64_t outcomes = int64_t(uint64_t(1) << std::min(md.nEst, 62u));
    if (shape[0] != int64_t(md.numCoeffArgs()) || shape[1] != outcomes)
      return llvm::createStringError(llvm::formatv(
          "the metadata does not match the compiled code (it says {0} "
          "coefficient(s) and {1} outcome(s), the code takes {2} and "
          "writes {3}): refusing to run an edited object",
          md.numCoeffArgs(), outcomes, shape[0], shape[1]));
  }
  // The limits live in the runtime the object is linked against; run()
  // sets this circuit's before every call.
  auto rt = std::make_unique<RuntimeControl>();
  auto bind = [&](auto &fn, const char *name) -> llvm::Error {
    auto addr = (*exe)->lookup(name);
    if (!addr)
      return addr.takeError();
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(*addr);
    return llvm::Error::success();
  };
  if (llvm::Error e = bind(rt->setMaxQubits, "q2_rt_set_max_qubits"))
    return std::move(e);
  if (llvm::Error e = bind(rt->setThreads, "q2_rt_set_num_threads"))
    return std::move(e);
  if (llvm::Error e = bind(rt->getThreads, "q2_rt_get_num_threads"))
    return std::move(e);
  if (llvm::Error e = bind(rt->blockStats, "q2_rt_block_stats"))
    return std::move(e);
  if (llvm::Error e = bind(rt->resetBlockStats, "q2_rt_reset_block_stats"))
    return std::move(e);
  if (llvm::Error e = bind(rt->setProgress, "q2_rt_set_block_progress"))
    return std::move(e);
  std::unique_ptr<Circuit> c(new Circuit());
  c->md = md;
  c->exe = std::move(*exe);
  c->rt = std::move(rt);
  c->maxQubits = maxQubits;
  c->setThreads(0);
  return std::move(c);
}

llvm::Error Circuit::run(llvm::ArrayRef<double> coeffs,
                         llvm::MutableArrayRef<double> out) {
  if (coeffs.empty() && md.mode == qpe::Mode::Dynamic)
    coeffs = md.defaultCoeffs;
  for (size_t i = 0; i < coeffs.size(); ++i)
    if (!std::isfinite(coeffs[i]))
      return llvm::createStringError(
          std::make_error_code(std::errc::invalid_argument),
          llvm::formatv("coefficient {0} is {1}: coefficients must be finite "
                        "numbers",
                        i, coeffs[i]));
  rt->setMaxQubits(maxQubits);
  rt->setThreads(threadsWanted);
  return exe->runInto(coeffs, out);
}

llvm::Expected<qpe::QPEResult> Circuit::call(llvm::ArrayRef<double> coeffs) {
  std::vector<double> probs(size_t(1) << md.nEst, 0.0);
  if (llvm::Error e = run(coeffs, probs))
    return std::move(e);
  return qpe::decode(std::move(probs), md);
}

llvm::Expected<qpe::QPEResult>
Circuit::callInto(llvm::ArrayRef<double> coeffs,
                  llvm::MutableArrayRef<double> out) {
  if (llvm::Error e = run(coeffs, out))
    return std::move(e);
  return qpe::decodeView(out, md);
}

//===----------------------------------------------------------------------===//
// Phase C of the driver
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

  /// A call starts at `t0` (profiling::elapsedSeconds()).
  void begin(std::string callLabel, double callT0) {
    {
      std::lock_guard<std::mutex> lock(mu);
      label = std::move(callLabel);
      t0 = callT0;
      finished = 0;
      first = rest = 0;
      lastPrint = -1e9;
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
      print(llvm::formatv("q2-opt: [{0}] running, {1:F0} s, {2} of {3} "
                          "blocks done",
                          label, now, finished, wires),
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
  double t0 = 0, first = 0, rest = 0, lastPrint = -1e9;
  int64_t finished = 0;
  bool active = false, quit = false, printed = false;
  std::thread heartbeat; // last: starts once the fields above exist
};
} // namespace

/// " (reused R, products P)" of a block line: the parts that are not 0.
static std::string blockDetail(const profiling::BlockRecord &b) {
  std::string d;
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
  return d.empty() ? d : " (" + d + ")";
}

PhaseCOutcome q2::driver::detail::runPhaseC(llvm::ArrayRef<char> object,
                                            const qpe::QPEMetadata &md,
                                            const std::vector<CoeffSet> &sets,
                                            int runs, const DriverOptions &opts,
                                            llvm::raw_ostream &os,
                                            profiling::ProfilingSession *session,
                                            bool digestChecked) {
  PhaseCOutcome out;
  profiling::PhaseCRecord &rec = out.record;
  rec.callsPerSet = uint64_t(runs);
  auto fail = [&](llvm::Error e) {
    std::string msg = llvm::toString(std::move(e));
    rec.error = msg;
    out.error = llvm::createStringError(msg);
    return std::move(out);
  };
  std::optional<profiling::ScopedStage> stage;
  if (session)
    stage.emplace(*session, "Load", profiling::StageKind::Run);
  auto circuit = Circuit::load(object, md, opts.runtimeLib, opts.maxQubits,
                               digestChecked);
  stage.reset();
  if (!circuit)
    return fail(circuit.takeError());
  if (session)
    stage.emplace(*session, "Execute", profiling::StageKind::Run);
  // Stop sampling while Execute is still open, so the last sample carries
  // its tag.
  llvm::scope_exit done([&] {
    if (session)
      session->stopTimeline();
    stage.reset();
  });
  rec.runtime = (*circuit)->runtimeLibrary();
  rec.threads = (*circuit)->setThreads(opts.threads);
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
      (*circuit)->resetBlockStats();
      double t0 = profiling::elapsedSeconds();
      if (progress) {
        progress->begin(runs > 1 ? llvm::formatv("{0} call {1}/{2}", set.label,
                                                 c + 1, runs)
                                       .str()
                                 : set.label,
                        t0);
        // Per call: this also restarts the runtime's block count.
        (*circuit)->setBlockProgress(&CallProgress::callback, &*progress);
      }
      llvm::Error e = (*circuit)->run(set.coeffs, probs);
      callTimes.add(profiling::elapsedSeconds() - t0);
      if (progress) {
        (*circuit)->setBlockProgress(nullptr, nullptr);
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
    std::vector<profiling::BlockRecord> blocks = (*circuit)->blockStats();
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
    profiling::PhaseCSetRecord s;
    s.label = set.label;
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
  return out;
}
