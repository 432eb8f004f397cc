//===- Session.cpp - One profiled run: stages, passes, snapshots ----------===//

#include "q2/Profiling/Session.h"
#include "q2/Profiling/ChromeTrace.h"
#include "q2/Profiling/Heap.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <mutex>
#include <thread>
#include <unordered_map>

using namespace q2::profiling;

llvm::StringRef q2::profiling::toString(StageKind k) {
  switch (k) {
  case StageKind::Input:
    return "input";
  case StageKind::Compile:
    return "compile";
  case StageKind::Run:
    return "run";
  }
  return "compile";
}

std::optional<StageKind> q2::profiling::parseEnum(llvm::StringRef s,
                                                  StageKind *) {
  if (s == "input")
    return StageKind::Input;
  if (s == "compile")
    return StageKind::Compile;
  if (s == "run")
    return StageKind::Run;
  return std::nullopt;
}

struct ProfilingSession::Impl {
  explicit Impl(ProfilingOptions o)
      : opts(std::move(o)), heapExact(heapCountingExact()),
        sessionHeapWindow(HeapWindows::open()) {}

  /// Per-thread nesting. Frames are pass records and, for nested pipelines,
  /// markers naming the adaptor that owns the pipeline (on worker threads the
  /// adaptor itself ran on another thread). A thread waiting for parallel
  /// work may run another pipeline re-entrantly; the stack stays LIFO.
  struct Frame {
    int64_t index;
    bool marker;
  };
  struct ThreadState {
    std::vector<Frame> stack;
    double profilerWall = 0; ///< profiler time spent on this thread so far
    int tid = 0;
  };
  struct OpenStage {
    StageRecord record;
    double overheadAtStart = 0;
    HeapWindows::Id heapWindow = 0;
    HeapCounters heap0;
  };
  /// Bookkeeping parallel to passRecords.
  struct PassAux {
    const void *key = nullptr;
    double childWall = 0; ///< sum of nested records' wallS
    double profWall0 = 0; ///< thread's profilerWall at the pass start
    double cpu0 = 0;
    HeapWindows::Id heapWindow = 0; ///< open while the pass runs
    HeapCounters heap0;
  };

  ThreadState &threadState() { // requires `mutex`
    auto [it, inserted] = threads.try_emplace(std::this_thread::get_id());
    if (inserted)
      it->second.tid = int(threads.size() - 1);
    return it->second;
  }
  void noteHWM(uint64_t hwm) { maxHWM = std::max(maxHWM, hwm); }
  void chargeLocked(double w) { // requires `mutex`
    threadState().profilerWall += w;
    totalProfilerS += w;
  }

  ProfilingOptions opts;
  /// Heap figures are counted at every allocation (else mallinfo2 at
  /// boundaries).
  bool heapExact;
  /// Open for the session's life: the session's heap peak.
  HeapWindows::Id sessionHeapWindow;
  PhaseTracker tracker;
  RSSReader rssReader;
  std::unique_ptr<TimelineSampler> sampler;

  mutable std::mutex mutex; // guards the records below
  std::vector<PassRecord> passRecords;
  std::vector<PassAux> passAux;
  /// Unfinished records per pass object (to find a pipeline's adaptor).
  std::unordered_map<const void *, std::vector<int64_t>> openByKey;
  std::vector<StageRecord> stageRecords;
  std::optional<OpenStage> openStage;
  /// The last stage's end snapshot while nothing has happened since
  /// (chainStageSnapshots).
  std::optional<MemorySnapshot> chainEnd;
  std::vector<MemorySnapshot> snaps;
  std::vector<std::string> warningList;
  std::unordered_map<std::thread::id, ThreadState> threads;
  double totalProfilerS = 0;
  uint64_t maxHWM = 0;
  bool warnedThreading = false;
};

static uint64_t currentRSSOrZero(const RSSReader &reader) {
  auto rss = reader.read();
  if (!rss) {
    llvm::consumeError(rss.takeError());
    return 0;
  }
  return *rss;
}

ProfilingSession::ProfilingSession(ProfilingOptions options)
    : impl(std::make_unique<Impl>(std::move(options))) {}

/// The heap figures of a pass or stage that began at `begin` and ended at
/// `end` with window peak `peak`.
static void finishHeap(HeapFigures &f, const HeapCounters &begin,
                       const HeapCounters &end, uint64_t peak) {
  f.after = end.live;
  f.allocated = end.allocated - begin.allocated;
  f.allocCount = end.allocCount - begin.allocCount;
  f.peak = std::max({peak, f.before, f.after});
}

ProfilingSession::~ProfilingSession() {
  stopTimeline();
  // Windows of records a failure left open, then the session's.
  for (const Impl::PassAux &aux : impl->passAux)
    if (aux.heapWindow)
      HeapWindows::close(aux.heapWindow);
  if (impl->openStage)
    HeapWindows::close(impl->openStage->heapWindow);
  HeapWindows::close(impl->sessionHeapWindow);
}

const ProfilingOptions &ProfilingSession::options() const { return impl->opts; }
PhaseTracker &ProfilingSession::phase() { return impl->tracker; }
TimelineSampler *ProfilingSession::timeline() { return impl->sampler.get(); }
const TimelineSampler *ProfilingSession::timeline() const {
  return impl->sampler.get();
}

llvm::Error
ProfilingSession::startTimeline(const TimelineSampler::Options &options) {
  if (impl->sampler && impl->sampler->running())
    return llvm::createStringError("timeline already running");
  auto s = TimelineSampler::create(options, &impl->tracker);
  if (!s)
    return s.takeError();
  if (auto err = (*s)->start())
    return err;
  impl->sampler = std::move(*s);
  return llvm::Error::success();
}

llvm::Error ProfilingSession::startTimeline(int intervalMs) {
  TimelineSampler::Options o;
  o.intervalMs = intervalMs;
  return startTimeline(o);
}

void ProfilingSession::stopTimeline() {
  if (impl->sampler)
    impl->sampler->stop();
}

void ProfilingSession::warn(llvm::StringRef message) {
  if (impl->opts.warnOnStderr)
    llvm::errs() << "q2-profiling: warning: " << message << "\n";
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->warningList.push_back(message.str());
}

void ProfilingSession::beginStage(llvm::StringRef name, StageKind kind) {
  if (inStage())
    endStage();
  double t0 = elapsedSeconds();

  Impl::OpenStage st;
  StageRecord &r = st.record;
  r.name = name.str();
  r.kind = kind;
  std::optional<MemorySnapshot> chained;
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    chained = std::move(impl->chainEnd);
    impl->chainEnd.reset();
  }
  llvm::Expected<MemorySnapshot> before =
      chained ? llvm::Expected<MemorySnapshot>(std::move(*chained))
              : takeSnapshot(r.name + ":begin", 0,
                             impl->opts.smapsAtStageBoundaries);
  if (before && chained)
    before->label = r.name + ":begin";
  if (!before)
    warn("stage " + r.name + ": " + llvm::toString(before.takeError()));
  else
    r.begin = std::move(*before);
  if (impl->opts.resetPeakPerStage) {
    {
      std::lock_guard<std::mutex> lock(impl->mutex);
      impl->noteHWM(r.begin.status.vmHWM);
    }
    r.peakResetAccepted = resetPeakRSS(0, &r.peakResetError);
  } else {
    r.peakResetError = "peak reset disabled";
  }
  impl->tracker.setStage(r.name);
  if (impl->sampler && impl->sampler->running())
    impl->sampler->sampleNow();

  std::lock_guard<std::mutex> lock(impl->mutex);
  r.index = int64_t(impl->stageRecords.size());
  r.firstPass = impl->passRecords.size();
  // The snapshot and reset are the profiler's time, charged to this stage.
  double cost = elapsedSeconds() - t0;
  impl->chargeLocked(cost);
  st.overheadAtStart = impl->totalProfilerS - cost;
  // Times start last so the snapshot/reset cost is outside the stage.
  st.heapWindow = HeapWindows::open(&st.heap0);
  r.heap.before = st.heap0.live;
  r.heap.exact = impl->heapExact;
  r.begin.elapsedS = elapsedSeconds();
  r.begin.cpuS = processCPUSeconds();
  impl->openStage = std::move(st);
}

StageRecord *ProfilingSession::endStage() {
  double t1 = elapsedSeconds(), cpu1 = processCPUSeconds();
  if (!inStage())
    return nullptr;
  if (impl->sampler && impl->sampler->running())
    impl->sampler->sampleNow();

  StageRecord r;
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    if (!impl->openStage)
      return nullptr;
    // First, before this function allocates.
    HeapCounters heapEnd;
    uint64_t heapPeak =
        HeapWindows::close(impl->openStage->heapWindow, &heapEnd);
    r = std::move(impl->openStage->record);
    finishHeap(r.heap, impl->openStage->heap0, heapEnd, heapPeak);
    double overheadAtStart = impl->openStage->overheadAtStart;
    impl->openStage.reset();
    r.endPass = impl->passRecords.size();
    r.profilerS = impl->totalProfilerS - overheadAtStart;
  }
  auto after =
      takeSnapshot(r.name + ":end", 0, impl->opts.smapsAtStageBoundaries);
  if (!after)
    warn("stage " + r.name + ": " + llvm::toString(after.takeError()));
  else
    r.end = std::move(*after);
  r.wallS = t1 - r.begin.elapsedS;
  r.cpuS = cpu1 - r.begin.cpuS;

  r.sampledPeakRSS = std::max(r.begin.status.vmRSS, r.end.status.vmRSS);
  if (impl->sampler) {
    r.sampledPeak = impl->sampler->peakBetween(r.begin.elapsedS, r.end.elapsedS);
    if (r.sampledPeak)
      r.sampledPeakRSS = std::max(r.sampledPeakRSS, r.sampledPeak->rss);
  }
  if (r.peakResetAccepted) {
    r.peakRSS = std::max(r.end.status.vmHWM, r.end.status.vmRSS);
    r.peakSource = "kernel_hwm";
  } else {
    r.peakRSS = r.sampledPeakRSS;
    r.peakSource = "sampled";
  }
  impl->tracker.setStage("");

  std::lock_guard<std::mutex> lock(impl->mutex);
  double cost = elapsedSeconds() - t1; // the end snapshot
  r.profilerS += cost;
  impl->chargeLocked(cost);
  impl->noteHWM(r.end.status.vmHWM);
  if (impl->opts.chainStageSnapshots && after)
    impl->chainEnd = r.end;
  impl->stageRecords.push_back(std::move(r));
  return &impl->stageRecords.back();
}

bool ProfilingSession::inStage() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->openStage.has_value();
}

std::string ProfilingSession::currentStageName() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->openStage ? impl->openStage->record.name : std::string();
}

llvm::Expected<MemorySnapshot> ProfilingSession::snapshot(llvm::StringRef label,
                                                          bool withSmaps) {
  double t0 = elapsedSeconds();
  auto s = takeSnapshot(label, 0, withSmaps);
  if (!s)
    return s.takeError();
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->chargeLocked(elapsedSeconds() - t0);
  impl->chainEnd.reset();
  impl->noteHWM(s->status.vmHWM);
  impl->snaps.push_back(*s);
  return *s;
}

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

void ProfilingSession::beginPipeline(const void *parentKey,
                                     llvm::StringRef) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  Impl::ThreadState &ts = impl->threadState();
  // The adaptor that owns this pipeline: its open record.
  int64_t owner = -1;
  auto it = impl->openByKey.find(parentKey);
  if (it != impl->openByKey.end() && !it->second.empty())
    owner = it->second.back();
  else if (!ts.stack.empty())
    owner = ts.stack.back().index;
  ts.stack.push_back({owner, /*marker=*/true});
}

void ProfilingSession::endPipeline() {
  std::lock_guard<std::mutex> lock(impl->mutex);
  Impl::ThreadState &ts = impl->threadState();
  if (!ts.stack.empty() && ts.stack.back().marker)
    ts.stack.pop_back();
}

int64_t ProfilingSession::beginPass(const void *key, PassStart info) {
  // Profiler overhead is measured in wall time only (it is CPU-bound work on
  // this thread); thread-CPU clocks are syscalls and would double the cost.
  double p0 = elapsedSeconds();
  if (info.multithreaded) {
    bool first;
    {
      std::lock_guard<std::mutex> lock(impl->mutex);
      first = !impl->warnedThreading;
      impl->warnedThreading = true;
    }
    if (first)
      warn("MLIR multithreading is enabled: per-pass RSS and the pass "
           "named at the peak are not exact (call "
           "MLIRContext::disableMultithreading() before running)");
  }

  PassRecord r;
  r.name = std::move(info.name);
  r.argument = std::move(info.argument);
  r.isAdaptor = info.isAdaptor;
  r.opName = std::move(info.opName);
  r.opSymbol = std::move(info.opSymbol);
  r.rssBefore = currentRSSOrZero(impl->rssReader);
  std::string label = r.label();
  int64_t idx;
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    Impl::ThreadState &ts = impl->threadState();
    impl->chainEnd.reset();
    idx = int64_t(impl->passRecords.size());
    r.index = idx;
    r.parent = ts.stack.empty() ? -1 : ts.stack.back().index;
    r.depth = r.parent < 0 ? 0 : impl->passRecords[r.parent].depth + 1;
    r.thread = ts.tid;
    if (impl->openStage)
      r.stage = impl->openStage->record.name;
    impl->passRecords.push_back(std::move(r));
    impl->passAux.emplace_back();
    impl->passAux.back().key = key;
    impl->openByKey[key].push_back(idx);
    ts.stack.push_back({idx, /*marker=*/false});
  }
  impl->tracker.setPass(label, idx);
  std::string().swap(label); // freed before the pass's heap window opens

  // Charge our own cost to the profiler, then start the pass's clocks last.
  double overheadW = elapsedSeconds() - p0;
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->chargeLocked(overheadW);
  Impl::PassAux &aux = impl->passAux[idx];
  aux.profWall0 = impl->threadState().profilerWall;
  aux.cpu0 = processCPUSeconds();
  PassRecord &rec = impl->passRecords[idx];
  // Last, so that the records above are not the pass's allocations.
  aux.heapWindow = HeapWindows::open(&aux.heap0);
  rec.heap.before = aux.heap0.live;
  rec.heap.exact = impl->heapExact;
  rec.startS = elapsedSeconds();
  return idx;
}

int64_t ProfilingSession::endPass(const void *key, bool failed) {
  double t1 = elapsedSeconds(), cpu1 = processCPUSeconds();
  uint64_t rssAfter = currentRSSOrZero(impl->rssReader);

  int64_t idx = -1, parent = -1;
  std::string parentLabel;
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    Impl::ThreadState &ts = impl->threadState();
    if (ts.stack.empty() || ts.stack.back().marker ||
        impl->passAux[ts.stack.back().index].key != key)
      return -1; // not ours (attached mid-run); nothing to close
    idx = ts.stack.back().index;
    // First, before this function allocates.
    Impl::PassAux &aux = impl->passAux[idx];
    HeapCounters heapEnd;
    uint64_t heapPeak = HeapWindows::close(aux.heapWindow, &heapEnd);
    aux.heapWindow = 0;
    ts.stack.pop_back();
    std::vector<int64_t> &open = impl->openByKey[key];
    auto pos = std::find(open.begin(), open.end(), idx);
    if (pos != open.end())
      open.erase(pos);
    if (open.empty())
      impl->openByKey.erase(key);

    PassRecord &r = impl->passRecords[idx];
    finishHeap(r.heap, aux.heap0, heapEnd, heapPeak);
    double nestedProfW = ts.profilerWall - aux.profWall0;
    r.endS = t1;
    r.profilerS = nestedProfW;
    r.wallS = std::max(0.0, t1 - r.startS - nestedProfW);
    r.cpuS = std::max(0.0, cpu1 - aux.cpu0 - nestedProfW);
    r.selfWallS = std::max(0.0, r.wallS - aux.childWall);
    r.rssAfter = rssAfter;
    r.rssDelta = int64_t(rssAfter) - int64_t(r.rssBefore);
    r.failed = failed;
    r.finished = true;
    parent = r.parent;
    if (parent >= 0) {
      impl->passAux[parent].childWall += r.wallS;
      parentLabel = impl->passRecords[parent].label();
    }
  }
  impl->tracker.setPass(parentLabel, parent);
  chargeProfilerTime(elapsedSeconds() - t1);
  return idx;
}

void ProfilingSession::setPassIR(int64_t index, IRMetrics ir) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (index >= 0 && size_t(index) < impl->passRecords.size())
    impl->passRecords[index].irAfter = std::move(ir);
}

void ProfilingSession::chargeProfilerTime(double wallS) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->chargeLocked(wallS);
}

double ProfilingSession::chargeWork(StageRecord *stage,
                                    llvm::function_ref<void()> work) {
  double t0 = elapsedSeconds();
  work();
  double cost = elapsedSeconds() - t0;
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->chargeLocked(cost);
  if (stage)
    stage->profilerS += cost;
  return cost;
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

std::vector<PassRecord> ProfilingSession::passes() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->passRecords;
}

std::vector<StageRecord> ProfilingSession::stages() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->stageRecords;
}

std::vector<MemorySnapshot> ProfilingSession::snapshots() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->snaps;
}

std::vector<std::string> ProfilingSession::warnings() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->warningList;
}

uint64_t ProfilingSession::lifetimePeakRSS() const {
  uint64_t hwm = 0;
  if (auto st = readProcStatus())
    hwm = st->vmHWM;
  else
    llvm::consumeError(st.takeError());
  std::lock_guard<std::mutex> lock(impl->mutex);
  return std::max(impl->maxHWM, hwm);
}

HeapPeakRecord ProfilingSession::heapPeak() const {
  HeapPeakRecord h;
  HeapCounters now;
  h.peak = HeapWindows::peak(impl->sessionHeapWindow, &now);
  h.exact = impl->heapExact;
  h.lifetimePeak = std::max(h.peak, impl->heapExact
                                        ? now.peak
                                        : HeapWindows::highestReading());
  // The innermost pass record whose window peak is the session's (the
  // first, if the same figure came back later), and its stage; or the
  // stage alone when the peak was reached between passes.
  std::lock_guard<std::mutex> lock(impl->mutex);
  const std::vector<PassRecord> &passes = impl->passRecords;
  auto inside = [&](int64_t i, int64_t outer) {
    for (; i >= 0; i = passes[i].parent)
      if (i == outer)
        return true;
    return false;
  };
  for (const PassRecord &p : passes)
    if (p.finished && p.heap.peak == h.peak &&
        (h.passRecord < 0 || inside(p.index, h.passRecord)))
      h.passRecord = p.index;
  if (h.passRecord >= 0) {
    h.pass = passes[h.passRecord].label();
    h.stage = passes[h.passRecord].stage;
    return h;
  }
  for (const StageRecord &st : impl->stageRecords)
    if (st.heap.peak == h.peak) {
      h.stage = st.name;
      break;
    }
  return h;
}

SessionRecord ProfilingSession::record(bool withSamples) const {
  SessionRecord rec;
  rec.heap = heapPeak(); // first, before this function allocates
  rec.stages = stages();
  rec.passes = passes();
  rec.snapshots = snapshots();
  if (impl->sampler)
    rec.timeline = impl->sampler->record(withSamples);
  rec.warnings = warnings();
  rec.lifetimePeakRSS = lifetimePeakRSS();
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    rec.profilerOverheadS = impl->totalProfilerS;
  }
  // A peak sampled between passes (typically at a stage's end, the only
  // sample of a short stage) names the stage's pass that finished last: it
  // is the one whose allocations are still held.
  auto nameLastPass = [&](TimelineSample &s) {
    if (!s.pass.empty())
      return;
    const PassRecord *last = nullptr;
    for (const PassRecord &r : rec.passes)
      if (r.finished && !r.isAdaptor && r.stage == s.stage && r.endS <= s.t &&
          (!last || r.endS > last->endS))
        last = &r;
    if (last) {
      s.lastPass = last->label();
      s.lastPassRecord = last->index;
    }
  };
  for (StageRecord &st : rec.stages)
    if (st.sampledPeak)
      nameLastPass(*st.sampledPeak);
  if (rec.timeline && rec.timeline->peak)
    nameLastPass(rec.timeline->peak->sample);
  return rec;
}

void ProfilingSession::exportTrace(ChromeTrace &trace) const {
  trace.setThreadName(0, "compiler");
  for (const StageRecord &s : stages())
    trace.addComplete(s.name, "stage", s.begin.elapsedS, s.wallS, 0,
                      {{"peak_rss_mb", double(s.peakRSS) / 1e6},
                       {"peak_source", s.peakSource},
                       {"heap_peak_mb", double(s.heap.peak) / 1e6},
                       {"heap_after_mb", double(s.heap.after) / 1e6},
                       {"heap_exact", std::string(s.heap.exact ? "yes" : "no")},
                       {"cpu_s", s.cpuS},
                       {"kind", toString(s.kind).str()}});
  // Passes on worker threads (multithreaded context) get their own track so
  // that spans on each track nest.
  for (const PassRecord &p : passes()) {
    if (!p.finished)
      continue;
    TraceArgs args = {{"op", p.opName},
                      {"rss_delta_mb", double(p.rssDelta) / 1e6},
                      {"heap_peak_mb", double(p.heap.peak) / 1e6},
                      {"heap_delta_mb",
                       (double(p.heap.after) - double(p.heap.before)) / 1e6},
                      {"heap_allocated_mb", double(p.heap.allocated) / 1e6},
                      {"heap_allocs", double(p.heap.allocCount)},
                      {"cpu_s", p.cpuS}};
    if (p.irAfter)
      args.emplace_back("ir_bytes", double(p.irAfter->bytes));
    trace.addComplete(p.label(), "pass", p.startS, p.endS - p.startS, p.thread,
                      std::move(args));
    // The live heap at the pass's boundaries (its peak is the span's).
    trace.addCounter("Heap", p.startS, {{"live_mb", double(p.heap.before) / 1e6}});
    trace.addCounter("Heap", p.endS, {{"live_mb", double(p.heap.after) / 1e6}});
  }
  for (const MemorySnapshot &s : snapshots())
    trace.addInstant(s.label, s.elapsedS,
                     {{"rss_mb", double(s.status.vmRSS) / 1e6},
                      {"heap_mb", double(s.heap.inUse) / 1e6}});
  // Counter tracks next to the RSS one: the live heap at stage boundaries
  // (the same track as the passes') and the module's IR size after each
  // stage and each module pass (a function pass's IR is its function's, not
  // a point of the module's curve).
  for (const StageRecord &s : stages()) {
    trace.addCounter("Heap", s.begin.elapsedS,
                     {{"live_mb", double(s.heap.before) / 1e6}});
    trace.addCounter("Heap", s.begin.elapsedS + s.wallS,
                     {{"live_mb", double(s.heap.after) / 1e6}});
    if (s.ir && s.ir->kind == "mlir")
      trace.addCounter("IR size", s.begin.elapsedS + s.wallS,
                       {{"kB", double(s.ir->bytes) / 1e3},
                        {"klines", double(s.ir->lines) / 1e3}});
  }
  for (const PassRecord &p : passes())
    if (p.finished && p.irAfter && p.irAfter->kind == "mlir" &&
        p.opName == "builtin.module" && p.opSymbol.empty())
      trace.addCounter("IR size", p.endS,
                       {{"kB", double(p.irAfter->bytes) / 1e3},
                        {"klines", double(p.irAfter->lines) / 1e3}});
  if (impl->sampler)
    impl->sampler->exportTrace(trace);
}
