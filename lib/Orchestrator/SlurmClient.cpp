//===- SlurmClient.cpp - Slurm's tools and what they print ----------------===//
//
// The budgets a task asks Slurm for, running sbatch/squeue/sacct/scontrol/
// scancel, reading their output (and slurmstepd's lines in a task's
// output), and what a task that ended without a result means for its
// point. The controller that uses them is SweepSlurm.cpp.
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/SweepSlurm.h"

#include "SweepInternal.h"
#include "q2/Orchestrator/RecordFields.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>

using namespace q2::orch;
using namespace q2::orch::sweep_detail;
using llvm::createStringError;
using llvm::Expected;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Budgets
//===----------------------------------------------------------------------===//

uint64_t q2::orch::slurmMemMiB(const MeasureBudget &phase) {
  double mb = 1.1 * phase.rssBudgetMB + 100;
  return uint64_t(std::ceil(mb * 1e6 / (1024.0 * 1024.0)));
}

uint64_t q2::orch::slurmTimeMinutes(const MeasureBudget &phase) {
  double s = 2 * (phase.wallBudgetS + phase.killGraceS) + 60;
  return uint64_t(std::ceil(s / 60));
}

//===----------------------------------------------------------------------===//
// Parsers
//===----------------------------------------------------------------------===//

std::optional<double> q2::orch::parseSlurmDuration(StringRef text) {
  text = text.trim();
  double days = 0;
  size_t dash = text.find('-');
  if (dash != StringRef::npos) {
    unsigned d;
    if (text.take_front(dash).getAsInteger(10, d))
      return std::nullopt;
    days = d;
    text = text.drop_front(dash + 1);
  }
  llvm::SmallVector<StringRef, 3> parts;
  text.split(parts, ':');
  if (parts.empty() || parts.size() > 3 || text.empty())
    return std::nullopt;
  // "D-HH" has one part (hours); otherwise the last part is seconds.
  if (parts.size() == 1 && dash == StringRef::npos)
    return std::nullopt;
  double v[3] = {0, 0, 0};
  for (size_t i = 0; i < parts.size(); ++i) {
    double x;
    if (parts[i].empty() || parts[i].getAsDouble(x) || x < 0)
      return std::nullopt;
    v[i] = x;
  }
  double h = 0, m = 0, s = 0;
  if (parts.size() == 3)
    h = v[0], m = v[1], s = v[2];
  else if (parts.size() == 2)
    m = v[0], s = v[1];
  else
    h = v[0];
  return days * 86400 + h * 3600 + m * 60 + s;
}

std::optional<double> q2::orch::parseSlurmSizeMB(StringRef text,
                                                 bool bareIsBytes) {
  text = text.trim();
  if (text.empty())
    return std::nullopt;
  // Per node / per CPU (ReqMem of older sacct).
  if (text.ends_with("n") || text.ends_with("c"))
    text = text.drop_back();
  double scale = bareIsBytes ? 1 : 1024;
  if (!text.empty() && llvm::isAlpha(text.back())) {
    switch (llvm::toUpper(text.back())) {
    case 'K':
      scale = 1024.0;
      break;
    case 'M':
      scale = 1024.0 * 1024;
      break;
    case 'G':
      scale = 1024.0 * 1024 * 1024;
      break;
    case 'T':
      scale = 1024.0 * 1024 * 1024 * 1024;
      break;
    default:
      return std::nullopt;
    }
    text = text.drop_back();
  }
  double x;
  if (text.empty() || text.getAsDouble(x) || x < 0)
    return std::nullopt;
  return x * scale / 1e6;
}

std::vector<SlurmQueuedTask> q2::orch::parseSqueue(StringRef text) {
  std::vector<SlurmQueuedTask> out;
  llvm::SmallVector<StringRef, 16> lines;
  text.split(lines, '\n', -1, false);
  for (StringRef line : lines) {
    llvm::SmallVector<StringRef, 6> f;
    line.trim().split(f, '|');
    if (f.size() < 3)
      continue;
    SlurmQueuedTask t;
    t.arrayJobId = f[0].trim().str();
    if (f[1].trim().getAsInteger(10, t.taskId) || t.arrayJobId.empty())
      continue; // "N/A": not an array task, or a range not split
    t.state = f[2].trim().str();
    if (f.size() > 3)
      t.elapsedS = parseSlurmDuration(f[3]).value_or(0);
    if (f.size() > 4)
      t.node = f[4].trim().str();
    if (f.size() > 5)
      t.reason = f[5].trim().str();
    out.push_back(std::move(t));
  }
  return out;
}

namespace {

/// "CANCELLED by 0" -> "CANCELLED".
std::string stateWord(StringRef s) { return s.trim().split(' ').first.str(); }

/// "N:S" -> (N, S); (0, 0) when malformed.
std::pair<int, int> splitExitCode(StringRef code) {
  auto [n, s] = code.split(':');
  int a = 0, b = 0;
  if (n.getAsInteger(10, a))
    a = 0;
  if (s.getAsInteger(10, b))
    b = 0;
  return {a, b};
}

/// Seconds between two "YYYY-MM-DDTHH:MM:SS" times (both local).
std::optional<double> secondsBetween(StringRef from, StringRef to) {
  auto parse = [](StringRef t) -> std::optional<time_t> {
    struct tm tm = {};
    std::string s = t.str();
    const char *end = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end || *end)
      return std::nullopt;
    tm.tm_isdst = -1;
    return mktime(&tm);
  };
  auto a = parse(from), b = parse(to);
  if (!a || !b || *b < *a)
    return std::nullopt;
  return double(*b - *a);
}

} // namespace

std::map<std::string, SlurmTaskRecord> q2::orch::parseSacct(StringRef text) {
  std::map<std::string, SlurmTaskRecord> out;
  std::set<std::string> oomStep;
  llvm::SmallVector<StringRef, 64> lines;
  text.split(lines, '\n', -1, false);
  for (StringRef line : lines) {
    llvm::SmallVector<StringRef, 8> f;
    line.trim().split(f, '|');
    if (f.size() < 7)
      continue;
    auto [task, step] = f[0].trim().split('.');
    // Array tasks only ("4711_3"); "4711_[4-9]" are pending ones.
    if (!task.contains('_') || task.contains('['))
      continue;
    SlurmTaskRecord &r = out[task.str()];
    r.jobId = task.str();
    r.source = "sacct";
    if (std::optional<double> rss = parseSlurmSizeMB(f[4]))
      r.maxRssMB = std::max(r.maxRssMB.value_or(0), *rss);
    std::string state = stateWord(f[1]);
    if (step.empty()) {
      r.state = state;
      r.exitCode = f[2].trim().str();
      r.elapsedS = parseSlurmDuration(f[3]);
      r.memLimitMB = parseSlurmSizeMB(f[5], /*bareIsBytes=*/false);
      r.node = f[6].trim().str();
    } else if (state == "OUT_OF_MEMORY") {
      oomStep.insert(task.str());
    }
  }
  // A step killed for memory makes the task's FAILED an OUT_OF_MEMORY.
  for (const std::string &t : oomStep) {
    SlurmTaskRecord &r = out[t];
    if (r.state.empty() || r.state == "FAILED" || r.state == "CANCELLED")
      r.state = "OUT_OF_MEMORY";
  }
  return out;
}

std::map<std::string, SlurmTaskRecord>
q2::orch::parseScontrolJobs(StringRef text, StringRef source,
                            StringRef arrayJobId) {
  std::map<std::string, SlurmTaskRecord> out;
  llvm::SmallVector<StringRef, 64> lines;
  text.split(lines, '\n', -1, false);
  for (StringRef line : lines) {
    // "Key=Value Key=Value ..."; a word without '=' continues the value
    // before it (values with spaces, e.g. Reason or Comment).
    std::map<std::string, std::string> kv;
    std::string last;
    llvm::SmallVector<StringRef, 64> words;
    line.trim().split(words, ' ', -1, false);
    for (StringRef w : words) {
      size_t eq = w.find('=');
      if (eq == StringRef::npos || eq == 0) {
        if (!last.empty())
          kv[last] += " " + w.str();
        continue;
      }
      last = w.take_front(eq).str();
      kv[last] = w.drop_front(eq + 1).str();
    }
    auto get = [&](const char *k) -> StringRef {
      auto it = kv.find(k);
      return it == kv.end() ? StringRef() : StringRef(it->second);
    };
    StringRef array = get("ArrayJobId");
    unsigned taskId;
    if (array.empty() || get("ArrayTaskId").getAsInteger(10, taskId))
      continue; // Not an array task, or pending tasks as a range.
    if (!arrayJobId.empty() && array != arrayJobId)
      continue;
    std::string id = array.str() + "_" + std::to_string(taskId);
    SlurmTaskRecord r; // The last line of a task wins (requeued: runs).
    r.jobId = id;
    r.source = source.str();
    r.state = stateWord(get("JobState"));
    r.exitCode = get("ExitCode").str();
    r.elapsedS = parseSlurmDuration(get("RunTime"));
    if (!r.elapsedS)
      r.elapsedS = secondsBetween(get("StartTime"), get("EndTime"));
    r.node = get("NodeList").str();
    if (r.node == "(null)")
      r.node.clear();
    r.log = get("StdOut").str();
    r.memLimitMB = parseSlurmSizeMB(get("MinMemoryNode"));
    // ReqTRES (scontrol) / Tres (jobcomp): "cpu=1,mem=100M,node=1".
    for (const char *tresKey : {"ReqTRES", "Tres", "TRES"}) {
      if (r.memLimitMB)
        break;
      llvm::SmallVector<StringRef, 8> items;
      get(tresKey).split(items, ',');
      for (StringRef item : items)
        if (item.consume_front("mem="))
          r.memLimitMB = parseSlurmSizeMB(item);
    }
    out[id] = std::move(r);
  }
  return out;
}

void q2::orch::readTaskLog(StringRef text, SlurmTaskRecord &r) {
  bool stateOpen =
      r.state.empty() || r.state == "FAILED" || r.state == "CANCELLED";
  static const llvm::Regex mem(
      R"(exceeded memory limit \(([0-9]+) > ([0-9]+)\))");
  llvm::SmallVector<StringRef, 3> m;
  if (mem.match(text, &m)) {
    double used = 0, limit = 0;
    m[1].getAsDouble(used);
    m[2].getAsDouble(limit);
    used /= 1e6;
    limit /= 1e6;
    if (!r.maxRssMB || *r.maxRssMB < used)
      r.maxRssMB = used;
    if (!r.memLimitMB)
      r.memLimitMB = limit;
    if (stateOpen)
      r.state = "OUT_OF_MEMORY";
    return;
  }
  if (!stateOpen)
    return;
  if (text.contains("DUE TO TIME LIMIT"))
    r.state = "TIMEOUT";
  else if (text.contains("DUE TO NODE FAILURE"))
    r.state = "NODE_FAIL";
  else if (text.contains("DUE TO PREEMPTION"))
    r.state = "PREEMPTED";
}

SlurmOutcome q2::orch::classifySlurmTask(const SlurmTaskRecord &r) {
  StringRef s = r.state;
  if (s == "OUT_OF_MEMORY")
    return SlurmOutcome::MemoryKill;
  if (s == "TIMEOUT" || s == "DEADLINE")
    return SlurmOutcome::TimeKill;
  if (s == "NODE_FAIL" || s == "BOOT_FAIL")
    return SlurmOutcome::NodeFailure;
  if (s == "PREEMPTED")
    return SlurmOutcome::Preempted;
  if (s == "CANCELLED" || s == "REVOKED")
    return SlurmOutcome::Cancelled;
  if (s == "COMPLETED")
    return SlurmOutcome::Ended;
  if (s == "FAILED") {
    auto [status, signal] = splitExitCode(r.exitCode);
    return status == 0 && signal != 0 ? SlurmOutcome::Killed
                                      : SlurmOutcome::Ended;
  }
  return SlurmOutcome::Unknown;
}

const char *q2::orch::slurmOutcomeName(SlurmOutcome o) {
  switch (o) {
  case SlurmOutcome::Ended:
    return "ended";
  case SlurmOutcome::MemoryKill:
    return "memory_kill";
  case SlurmOutcome::TimeKill:
    return "time_kill";
  case SlurmOutcome::NodeFailure:
    return "node_failure";
  case SlurmOutcome::Preempted:
    return "preempted";
  case SlurmOutcome::Cancelled:
    return "cancelled";
  case SlurmOutcome::Killed:
    return "killed";
  case SlurmOutcome::Unknown:
    return "unknown";
  }
  return "unknown";
}

//===----------------------------------------------------------------------===//
// A point whose task ended without a result
//===----------------------------------------------------------------------===//

namespace {

std::string mb(double v) { return llvm::formatv("{0:f1} MB", v).str(); }

/// The last non-empty line of a file (a task's output: q2-profile's error).
std::string lastLine(const std::string &path) {
  if (path.empty())
    return "";
  Expected<std::string> text = readTextFile(path, 1 << 20);
  if (!text) {
    llvm::consumeError(text.takeError());
    return "";
  }
  StringRef t = StringRef(*text).rtrim();
  return t.substr(t.rfind('\n') + 1).trim().str();
}

} // namespace

std::optional<PointRecord>
q2::orch::slurmFailureRecord(const SweepSpec &spec, const PointId &id,
                             const SlurmTaskRecord &task) {
  SlurmOutcome outcome = classifySlurmTask(task);
  if (outcome == SlurmOutcome::Cancelled || outcome == SlurmOutcome::Unknown)
    return std::nullopt;
  const Molecule *mol = findMolecule(spec, id.molecule);
  PointRecord r = recordFor(id, mol);
  r.status = "failed";
  r.slurm = task;
  if (mol && mol->nTerms) {
    r.nTerms = mol->nTerms;
    r.x = double(id.nEst) * id.nTrotter * mol->nTerms;
  }
  // What our own polls saw: the phases the task finished, and the peak so
  // far of the phase it was killed in (live.json).
  std::string dir = pointDir(spec, id);
  double livePeak = 0;
  for (const char *phase : {"A", "BC"}) {
    std::string phaseDir = joinPath(dir, phase);
    if (!llvm::sys::fs::is_directory(phaseDir))
      break;
    std::optional<MeasureRecord> &slot =
        StringRef(phase) == "A" ? r.phases.a : r.phases.bc;
    Expected<MeasureRecord> rec =
        readMeasureRecord(joinPath(phaseDir, "record.json"));
    if (rec) {
      r.wallS += rec->wallS;
      r.peakRssMB = std::max(r.peakRssMB, rec->peakTreeRssMB);
      bool stopped = rec->reason == StopReason::Cancelled;
      slot = std::move(*rec);
      if (!stopped)
        continue;
      // Slurm's SIGTERM (time limit, node failure) stopped this phase.
      r.failedPhase = phase;
      break;
    }
    llvm::consumeError(rec.takeError());
    r.failedPhase = phase;
    if (Expected<q2::json::Value> live =
            q2::json::readFile(joinPath(phaseDir, kLiveRecordFile))) {
      q2::json::Cursor c(*live, phaseDir);
      auto number = [&](const char *key) {
        std::optional<q2::json::Cursor> m = c.find(key);
        if (!m)
          return 0.0;
        Expected<double> x = m->number();
        if (!x) {
          llvm::consumeError(x.takeError());
          return 0.0;
        }
        return *x;
      };
      double wall = number("wall_s");
      livePeak = number("peak_tree_rss_mb");
      r.wallS += wall;
      r.peakRssMB = std::max(r.peakRssMB, livePeak);
    } else {
      llvm::consumeError(live.takeError());
    }
    break;
  }

  std::string figures;
  auto add = [&](const std::string &s) {
    figures += (figures.empty() ? "" : ", ") + s;
  };
  if (task.maxRssMB)
    add("Slurm MaxRSS " + mb(*task.maxRssMB));
  if (task.memLimitMB)
    add("--mem " + mb(*task.memLimitMB));
  if (task.elapsedS)
    add(llvm::formatv("Elapsed {0:f0} s", *task.elapsedS).str());
  add("our peak " + mb(r.peakRssMB) +
      (livePeak > 0 ? " (seen up to a second before the kill)" : ""));
  std::string what =
      "Slurm task " + task.jobId + " " + task.state +
      (task.exitCode.empty() ? "" : " (exit " + task.exitCode + ")");
  switch (outcome) {
  case SlurmOutcome::MemoryKill:
    r.reason = "rss_budget";
    r.message =
        "killed by Slurm for its memory limit: " + what + "; " + figures;
    break;
  case SlurmOutcome::TimeKill:
    r.reason = "wall_budget";
    r.message = "killed by Slurm at its time limit: " + what + "; " + figures;
    break;
  case SlurmOutcome::NodeFailure:
    r.reason = "node_failure";
    r.retryable = true;
    r.message = what + " (node " + (task.node.empty() ? "?" : task.node) +
                "); --resume reruns it";
    break;
  case SlurmOutcome::Preempted:
    r.reason = "preempted";
    r.retryable = true;
    r.message = what + "; --resume reruns it";
    break;
  case SlurmOutcome::Killed:
  case SlurmOutcome::Ended: {
    r.reason = "task_failed";
    r.retryable = true;
    std::string last = lastLine(task.log);
    r.message = what + " without writing a result" +
                (last.empty() ? std::string() : ": '" + last + "'") +
                (task.log.empty() ? std::string() : " (" + task.log + ")") +
                "; --resume reruns it";
    break;
  }
  case SlurmOutcome::Cancelled:
  case SlurmOutcome::Unknown:
    break;
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Running the tools
//===----------------------------------------------------------------------===//

SlurmCommandRunner q2::orch::defaultSlurmCommandRunner() {
  return [](const std::vector<std::string> &argv) -> Expected<std::string> {
    std::string shown = llvm::join(argv, " ");
    llvm::ErrorOr<std::string> program =
        llvm::sys::findProgramByName(argv.front());
    if (!program)
      return createStringError(
          std::make_error_code(std::errc::no_such_file_or_directory),
          "'" + argv.front() +
              "' not found in PATH (the slurm executor needs Slurm's "
              "client tools on this machine)");
    llvm::SmallString<128> outFile, errFile;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("q2-slurm", "out", outFile))
      return createStringError(ec, "cannot create a temporary file: " +
                                       ec.message());
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("q2-slurm", "err", errFile)) {
      llvm::sys::fs::remove(outFile);
      return createStringError(ec, "cannot create a temporary file: " +
                                       ec.message());
    }
    std::vector<StringRef> args(argv.begin(), argv.end());
    std::optional<StringRef> redirects[] = {StringRef(""), StringRef(outFile),
                                            StringRef(errFile)};
    std::string execErr;
    int rc = llvm::sys::ExecuteAndWait(*program, args, std::nullopt, redirects,
                                       /*SecondsToWait=*/60, 0, &execErr);
    auto slurp = [](StringRef f) {
      auto buf = llvm::MemoryBuffer::getFile(f);
      return buf ? (*buf)->getBuffer().str() : std::string();
    };
    std::string out = slurp(outFile), err = slurp(errFile);
    llvm::sys::fs::remove(outFile);
    llvm::sys::fs::remove(errFile);
    if (rc != 0) {
      std::string why = StringRef(err).trim().str();
      if (why.empty())
        why = execErr.empty() ? "exit status " + std::to_string(rc) : execErr;
      std::replace(why.begin(), why.end(), '\n', ' ');
      return createStringError(std::make_error_code(std::errc::io_error),
                               "'" + shown + "' failed: " + why);
    }
    return out;
  };
}
