//===- Instrumentation.cpp - Pass and stage profiling ---------------------===//

#include "q2/Profiling/Instrumentation.h"
#include "q2/Profiling/ChromeTrace.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace q2::profiling;

static uint64_t currentRSSOrZero(const RSSReader &reader) {
  auto rss = reader.read();
  if (!rss) {
    llvm::consumeError(rss.takeError());
    return 0;
  }
  return *rss;
}

// MLIR's nested-pipeline adaptor is an internal class; recognize it by name.
static bool isAdaptor(const mlir::Pass *pass) {
  return pass->getArgument().empty() &&
         pass->getName().contains("OpToOpPassAdaptor");
}

//===----------------------------------------------------------------------===//
// Records
//===----------------------------------------------------------------------===//

std::string PassRecord::label() const {
  return argument.empty() ? name : argument;
}

nlohmann::json PassRecord::toJSON() const {
  // Filled key by key: nlohmann's initializer-list form copies and re-checks
  // every element, which made the report the profiler's costliest step.
  nlohmann::json j(nlohmann::json::value_t::object);
  j["index"] = index;
  j["parent"] = parent;
  j["depth"] = depth;
  j["thread"] = thread;
  j["name"] = name;
  j["argument"] = argument;
  j["op"] = opName;
  j["stage"] = stage;
  j["adaptor"] = isAdaptor;
  j["failed"] = failed;
  j["start_s"] = startS;
  j["wall_s"] = wallS;
  j["self_wall_s"] = selfWallS;
  j["cpu_s"] = cpuS;
  j["profiler_s"] = profilerS;
  j["rss_before_bytes"] = rssBefore;
  j["rss_after_bytes"] = rssAfter;
  j["rss_delta_bytes"] = rssDelta;
  if (!opSymbol.empty())
    j["op_symbol"] = opSymbol;
  if (!finished)
    j["unfinished"] = true;
  if (irAfter)
    j["ir_after"] = irAfter->toJSON();
  return j;
}

nlohmann::json StageRecord::toJSON() const {
  nlohmann::json j(nlohmann::json::value_t::object);
  j["name"] = name;
  j["index"] = index;
  j["wall_s"] = wallS;
  j["cpu_s"] = cpuS;
  j["rss_before_bytes"] = begin.status.vmRSS;
  j["rss_after_bytes"] = end.status.vmRSS;
  j["heap_after_bytes"] = end.heap.inUse;
  j["peak_rss_bytes"] = peakRSS;
  j["peak_source"] = peakSource;
  j["peak_reset_accepted"] = peakResetAccepted;
  j["sampled_peak_rss_bytes"] = sampledPeakRSS;
  j["first_pass"] = firstPass;
  j["end_pass"] = endPass;
  j["profiler_s"] = profilerS;
  j["begin"] = begin.toJSON();
  j["end"] = end.toJSON();
  if (!peakResetError.empty())
    j["peak_reset_error"] = peakResetError;
  if (sampledPeak)
    j["sampled_peak"] = sampledPeak->toJSON();
  if (ir)
    j["ir"] = ir->toJSON();
  if (!extra.empty())
    j["extra"] = extra;
  return j;
}

//===----------------------------------------------------------------------===//
// ProfilingSession
//===----------------------------------------------------------------------===//

ProfilingSession::ProfilingSession(ProfilingOptions options)
    : opts(std::move(options)) {}

ProfilingSession::~ProfilingSession() { stopTimeline(); }

llvm::Error
ProfilingSession::startTimeline(const TimelineSampler::Options &options) {
  if (sampler && sampler->running())
    return llvm::createStringError("timeline already running");
  auto s = TimelineSampler::create(options, &tracker);
  if (!s)
    return s.takeError();
  if (auto err = (*s)->start())
    return err;
  sampler = std::move(*s);
  return llvm::Error::success();
}

llvm::Error ProfilingSession::startTimeline(int intervalMs) {
  TimelineSampler::Options o;
  o.intervalMs = intervalMs;
  return startTimeline(o);
}

void ProfilingSession::stopTimeline() {
  if (sampler)
    sampler->stop();
}

ProfilingSession::ThreadState &ProfilingSession::threadState() {
  auto [it, inserted] = threads.try_emplace(std::this_thread::get_id());
  if (inserted)
    it->second.tid = int(threads.size() - 1);
  return it->second;
}

void ProfilingSession::noteHWM(uint64_t hwm) { maxHWM = std::max(maxHWM, hwm); }

void ProfilingSession::warn(llvm::StringRef message) {
  if (opts.warnOnStderr)
    llvm::errs() << "q2-profiling: warning: " << message << "\n";
  std::lock_guard<std::mutex> lock(mutex);
  warningList.push_back(message.str());
}

void ProfilingSession::beginStage(llvm::StringRef name) {
  if (inStage())
    endStage();

  OpenStage st;
  StageRecord &r = st.record;
  r.name = name.str();
  auto before = takeSnapshot(r.name + ":begin", 0, opts.smapsAtStageBoundaries);
  if (!before) {
    warn("stage " + r.name + ": " + llvm::toString(before.takeError()));
  } else {
    r.begin = std::move(*before);
  }
  if (opts.resetPeakPerStage) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      noteHWM(r.begin.status.vmHWM);
    }
    r.peakResetAccepted = resetPeakRSS(0, &r.peakResetError);
  } else {
    r.peakResetError = "peak reset disabled";
  }
  tracker.setStage(r.name);
  if (sampler && sampler->running())
    sampler->sampleNow();

  std::lock_guard<std::mutex> lock(mutex);
  r.index = int64_t(stageRecords.size());
  r.firstPass = passRecords.size();
  st.overheadAtStart = totalProfilerS;
  // Times start last so the snapshot/reset cost is outside the stage.
  r.begin.elapsedS = elapsedSeconds();
  r.begin.cpuS = processCPUSeconds();
  openStage = std::move(st);
}

StageRecord *ProfilingSession::endStage() {
  double t1 = elapsedSeconds(), cpu1 = processCPUSeconds();
  if (!inStage())
    return nullptr;
  if (sampler && sampler->running())
    sampler->sampleNow();

  StageRecord r;
  double overheadAtStart;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!openStage)
      return nullptr;
    r = std::move(openStage->record);
    overheadAtStart = openStage->overheadAtStart;
    openStage.reset();
    r.endPass = passRecords.size();
    r.profilerS = totalProfilerS - overheadAtStart;
  }
  auto after = takeSnapshot(r.name + ":end", 0, opts.smapsAtStageBoundaries);
  if (!after)
    warn("stage " + r.name + ": " + llvm::toString(after.takeError()));
  else
    r.end = std::move(*after);
  r.wallS = t1 - r.begin.elapsedS;
  r.cpuS = cpu1 - r.begin.cpuS;

  r.sampledPeakRSS = std::max(r.begin.status.vmRSS, r.end.status.vmRSS);
  if (sampler) {
    r.sampledPeak = sampler->peakBetween(r.begin.elapsedS, r.end.elapsedS);
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
  tracker.setStage("");

  std::lock_guard<std::mutex> lock(mutex);
  noteHWM(r.end.status.vmHWM);
  stageRecords.push_back(std::move(r));
  return &stageRecords.back();
}

bool ProfilingSession::inStage() const {
  std::lock_guard<std::mutex> lock(mutex);
  return openStage.has_value();
}

std::string ProfilingSession::currentStageName() const {
  std::lock_guard<std::mutex> lock(mutex);
  return openStage ? openStage->record.name : std::string();
}

llvm::Expected<MemorySnapshot> ProfilingSession::snapshot(llvm::StringRef label,
                                                          bool withSmaps) {
  auto s = takeSnapshot(label, 0, withSmaps);
  if (!s)
    return s.takeError();
  std::lock_guard<std::mutex> lock(mutex);
  noteHWM(s->status.vmHWM);
  snaps.push_back(*s);
  return *s;
}

IRMetrics ProfilingSession::measureIRCached(mlir::Operation *op) {
  mlir::OperationFingerPrint print(op);
  if (lastIR.target == op && lastIR.print && *lastIR.print == print)
    return lastIR.metrics;
  IRMetrics m = measureIR(op, opts.irOptions);
  lastIR.target = op;
  lastIR.print.emplace(print);
  lastIR.metrics = m;
  return m;
}

std::vector<PassRecord> ProfilingSession::passes() const {
  std::lock_guard<std::mutex> lock(mutex);
  return passRecords;
}

std::vector<StageRecord> ProfilingSession::stages() const {
  std::lock_guard<std::mutex> lock(mutex);
  return stageRecords;
}

std::vector<MemorySnapshot> ProfilingSession::snapshots() const {
  std::lock_guard<std::mutex> lock(mutex);
  return snaps;
}

std::vector<std::string> ProfilingSession::warnings() const {
  std::lock_guard<std::mutex> lock(mutex);
  return warningList;
}

uint64_t ProfilingSession::lifetimePeakRSS() const {
  uint64_t hwm = 0;
  if (auto st = readProcStatus())
    hwm = st->vmHWM;
  else
    llvm::consumeError(st.takeError());
  std::lock_guard<std::mutex> lock(mutex);
  return std::max(maxHWM, hwm);
}

nlohmann::json ProfilingSession::toJSON(bool withSamples) const {
  nlohmann::json j;
  nlohmann::json stagesJ = nlohmann::json::array(),
                 passesJ = nlohmann::json::array(),
                 snapsJ = nlohmann::json::array();
  for (const StageRecord &s : stages())
    stagesJ.push_back(s.toJSON());
  std::vector<PassRecord> records = passes();
  for (const PassRecord &p : records)
    passesJ.push_back(p.toJSON());
  for (const MemorySnapshot &s : snapshots())
    snapsJ.push_back(s.toJSON());
  // A peak sampled between passes (typically at a stage's end, the only
  // sample of a short stage) names the stage's pass that finished last: it
  // is the one whose allocations are still held.
  auto nameLastPass = [&](nlohmann::json &sample) {
    if (!sample.is_object() || !sample.contains("t_s") ||
        !sample.value("pass", std::string()).empty())
      return;
    double t = sample["t_s"].get<double>();
    std::string stage = sample.value("stage", std::string());
    const PassRecord *last = nullptr;
    for (const PassRecord &r : records)
      if (r.finished && !r.isAdaptor && r.stage == stage && r.endS <= t &&
          (!last || r.endS > last->endS))
        last = &r;
    if (last) {
      sample["last_pass"] = last->label();
      sample["last_pass_record"] = last->index;
    }
  };
  for (nlohmann::json &st : stagesJ)
    if (st.contains("sampled_peak"))
      nameLastPass(st["sampled_peak"]);
  j["stages"] = std::move(stagesJ);
  j["passes"] = std::move(passesJ);
  j["snapshots"] = std::move(snapsJ);
  j["timeline"] = sampler ? sampler->toJSON(withSamples) : nlohmann::json();
  if (j["timeline"].is_object() && j["timeline"].contains("peak"))
    nameLastPass(j["timeline"]["peak"]);
  j["warnings"] = warnings();
  j["lifetime_peak_rss_bytes"] = lifetimePeakRSS();
  {
    std::lock_guard<std::mutex> lock(mutex);
    j["profiler_overhead_s"] = totalProfilerS;
  }
  return j;
}

void ProfilingSession::exportTrace(ChromeTrace &trace) const {
  trace.setThreadName(0, "compiler");
  for (const StageRecord &s : stages())
    trace.addComplete(s.name, "stage", s.begin.elapsedS, s.wallS, 0,
                      {{"peak_rss_mb", double(s.peakRSS) / (1 << 20)},
                       {"peak_source", s.peakSource},
                       {"cpu_s", s.cpuS}});
  // Passes on worker threads (multithreaded context) get their own track so
  // that spans on each track nest.
  for (const PassRecord &p : passes()) {
    if (!p.finished)
      continue;
    nlohmann::json args = {{"op", p.opName},
                           {"rss_delta_mb", double(p.rssDelta) / (1 << 20)},
                           {"cpu_s", p.cpuS}};
    if (p.irAfter)
      args["ir_bytes"] = p.irAfter->bytes;
    trace.addComplete(p.label(), "pass", p.startS, p.endS - p.startS, p.thread,
                      std::move(args));
  }
  for (const MemorySnapshot &s : snapshots())
    trace.addInstant(s.label, s.elapsedS,
                     {{"rss_mb", double(s.status.vmRSS) / (1 << 20)},
                      {"heap_mb", double(s.heap.inUse) / (1 << 20)}});
  if (sampler)
    sampler->exportTrace(trace);
}

//===----------------------------------------------------------------------===//
// ProfilingInstrumentation
//===----------------------------------------------------------------------===//

void ProfilingInstrumentation::runBeforePipeline(
    std::optional<mlir::OperationName> name,
    const PipelineParentInfo &parentInfo) {
  ProfilingSession &s = session;
  std::lock_guard<std::mutex> lock(s.mutex);
  ProfilingSession::ThreadState &ts = s.threadState();
  // The adaptor that owns this pipeline: its open record.
  int64_t owner = -1;
  auto it = s.openByPass.find(parentInfo.parentPass);
  if (it != s.openByPass.end() && !it->second.empty())
    owner = it->second.back();
  else if (!ts.stack.empty())
    owner = ts.stack.back().index;
  ts.stack.push_back({owner, /*marker=*/true});
  if (owner >= 0 && name) {
    // "pipeline()" -> "pipeline(func.func)" -> "pipeline(func.func,llvm.func)"
    PassRecord &r = s.passRecords[owner];
    std::string op = name->getStringRef().str();
    if (r.name.find("(" + op + ")") == std::string::npos &&
        r.name.find("(" + op + ",") == std::string::npos &&
        r.name.find("," + op + ",") == std::string::npos &&
        r.name.find("," + op + ")") == std::string::npos)
      r.name.insert(r.name.size() - 1, r.name == "pipeline()" ? op : "," + op);
  }
}

void ProfilingInstrumentation::runAfterPipeline(
    std::optional<mlir::OperationName>, const PipelineParentInfo &) {
  ProfilingSession &s = session;
  std::lock_guard<std::mutex> lock(s.mutex);
  ProfilingSession::ThreadState &ts = s.threadState();
  if (!ts.stack.empty() && ts.stack.back().marker)
    ts.stack.pop_back();
}

void ProfilingInstrumentation::runBeforePass(mlir::Pass *pass,
                                             mlir::Operation *op) {
  ProfilingSession &s = session;
  // Profiler overhead is measured in wall time only (it is CPU-bound work on
  // this thread); thread-CPU clocks are syscalls and would double the cost.
  double p0 = elapsedSeconds();
  if (op->getContext()->isMultithreadingEnabled()) {
    bool first;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      first = !s.warnedThreading;
      s.warnedThreading = true;
    }
    if (first)
      s.warn("MLIR multithreading is enabled: per-pass RSS and the pass "
             "named at the peak are not exact (call "
             "MLIRContext::disableMultithreading() before running)");
  }

  PassRecord r;
  r.name = pass->getName().str();
  r.argument = pass->getArgument().str();
  r.isAdaptor = isAdaptor(pass);
  if (r.isAdaptor)
    r.name = "pipeline()"; // completed by runBeforePipeline
  r.opName = op->getName().getStringRef().str();
  if (auto sym = op->getAttrOfType<mlir::StringAttr>(
          mlir::SymbolTable::getSymbolAttrName()))
    r.opSymbol = sym.getValue().str();
  r.rssBefore = currentRSSOrZero(s.rssReader);
  std::string label = r.label();
  int64_t idx;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    ProfilingSession::ThreadState &ts = s.threadState();
    idx = int64_t(s.passRecords.size());
    r.index = idx;
    r.parent = ts.stack.empty() ? -1 : ts.stack.back().index;
    r.depth = r.parent < 0 ? 0 : s.passRecords[r.parent].depth + 1;
    r.thread = ts.tid;
    if (s.openStage)
      r.stage = s.openStage->record.name;
    s.passRecords.push_back(std::move(r));
    s.passAux.emplace_back();
    s.passAux.back().pass = pass;
    s.openByPass[pass].push_back(idx);
    ts.stack.push_back({idx, /*marker=*/false});
  }
  s.tracker.setPass(label, idx);

  // Charge our own cost to the profiler, then start the pass's clocks last.
  double overheadW = elapsedSeconds() - p0;
  std::lock_guard<std::mutex> lock(s.mutex);
  ProfilingSession::ThreadState &ts = s.threadState();
  ts.profilerWall += overheadW;
  s.totalProfilerS += overheadW;
  ProfilingSession::PassAux &aux = s.passAux[idx];
  aux.profWall0 = ts.profilerWall;
  aux.cpu0 = processCPUSeconds();
  s.passRecords[idx].startS = elapsedSeconds();
}

void ProfilingInstrumentation::runAfterPass(mlir::Pass *pass,
                                            mlir::Operation *op) {
  finish(pass, op, /*failed=*/false);
}

void ProfilingInstrumentation::runAfterPassFailed(mlir::Pass *pass,
                                                  mlir::Operation *op) {
  finish(pass, op, /*failed=*/true);
}

void ProfilingInstrumentation::finish(mlir::Pass *pass, mlir::Operation *op,
                                      bool failed) {
  ProfilingSession &s = session;
  double t1 = elapsedSeconds(), cpu1 = processCPUSeconds();
  uint64_t rssAfter = currentRSSOrZero(s.rssReader);

  int64_t idx = -1;
  bool adaptor = false;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    ProfilingSession::ThreadState &ts = s.threadState();
    if (!ts.stack.empty() && !ts.stack.back().marker &&
        s.passAux[ts.stack.back().index].pass == pass) {
      idx = ts.stack.back().index;
      adaptor = s.passRecords[idx].isAdaptor;
      // Pop now: measuring the IR below may run other pipelines on this
      // thread (the printer verifies in parallel, and a waiting worker
      // thread executes queued tasks).
      ts.stack.pop_back();
      std::vector<int64_t> &open = s.openByPass[pass];
      auto pos = std::find(open.begin(), open.end(), idx);
      if (pos != open.end())
        open.erase(pos);
      if (open.empty())
        s.openByPass.erase(pass);
    }
  }
  if (idx < 0)
    return; // not ours (attached mid-run); nothing to close

  std::optional<IRMetrics> ir;
  if (s.opts.irMetricsPerPass && !adaptor && !failed) {
    mlir::Operation *target = op;
    bool opOnly = s.opts.irMetricsOfPassOpOnly ||
                  op->getContext()->isMultithreadingEnabled();
    if (!opOnly)
      while (mlir::Operation *parent = target->getParentOp())
        target = parent;
    // The cache is for one thread; other threads may be rewriting IR.
    ir = op->getContext()->isMultithreadingEnabled()
             ? measureIR(target, s.opts.irOptions)
             : s.measureIRCached(target);
  }

  int64_t parent;
  std::string parentLabel;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    ProfilingSession::ThreadState &ts = s.threadState();
    PassRecord &r = s.passRecords[idx];
    const ProfilingSession::PassAux &aux = s.passAux[idx];
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
    r.irAfter = std::move(ir);
    parent = r.parent;
    if (parent >= 0) {
      s.passAux[parent].childWall += r.wallS;
      parentLabel = s.passRecords[parent].label();
    }
  }
  s.tracker.setPass(parentLabel, parent);

  double overheadW = elapsedSeconds() - t1;
  std::lock_guard<std::mutex> lock(s.mutex);
  ProfilingSession::ThreadState &ts = s.threadState();
  ts.profilerWall += overheadW;
  s.totalProfilerS += overheadW;
}

void q2::profiling::attachProfiling(mlir::PassManager &pm,
                                    ProfilingSession &session,
                                    bool disableThreading) {
  mlir::MLIRContext *ctx = pm.getContext();
  // Multithreading is checked when passes run (the caller may still turn it
  // off between attaching and running); a warning is recorded then.
  if (disableThreading && ctx->isMultithreadingEnabled())
    ctx->disableMultithreading();
  pm.addInstrumentation(std::make_unique<ProfilingInstrumentation>(session));
}
