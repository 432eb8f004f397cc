//===- Measure.cpp - Budgeted, isolated execution of one command ----------===//
//
// measure(): spawn the command in its own process group, poll its process
// tree (ProcessTree.cpp) against the wall and RSS budgets, stop it, and
// write the evidence directory and its record.
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/Measure.h"

#include "ProcessTree.h"
#include "q2/Orchestrator/RecordFields.h"
#include "q2/Profiling/Memory.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <deque>
#include <dirent.h>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <set>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>

extern char **environ;

using namespace q2::orch;
using namespace q2::orch::proc_tree;
using llvm::createStringError;
using llvm::Error;
using llvm::Expected;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

bool hasNul(const std::string &s) { return s.find('\0') != std::string::npos; }

/// The error code of a refusal, so that embedders can tell a bad value
/// (invalid_argument) from an existing evidence directory (file_exists) and
/// a missing file or directory (the Python module maps them to ValueError,
/// FileExistsError and OSError).
enum class Refusal { Invalid, Exists, NotFound, NotDir };
std::error_code refusal(Refusal r) {
  switch (r) {
  case Refusal::Invalid:
    return std::make_error_code(std::errc::invalid_argument);
  case Refusal::Exists:
    return std::make_error_code(std::errc::file_exists);
  case Refusal::NotFound:
    return std::make_error_code(std::errc::no_such_file_or_directory);
  case Refusal::NotDir:
    return std::make_error_code(std::errc::not_a_directory);
  }
  return std::make_error_code(std::errc::invalid_argument);
}

/// Resolves argv[0] the way execvp would, honouring a PATH override in the
/// environment overrides and a relative path against cwd.
Expected<std::string> resolveProgram(const MeasureOptions &opts) {
  const std::string &prog = opts.argv[0];
  if (prog.empty())
    return createStringError(refusal(Refusal::Invalid), "empty program name");
  if (prog.find('/') != std::string::npos) {
    llvm::SmallString<256> p(prog);
    if (!llvm::sys::path::is_absolute(p)) {
      llvm::SmallString<256> base;
      if (!opts.cwd.empty())
        base = opts.cwd;
      else
        llvm::sys::fs::current_path(base);
      llvm::sys::path::append(base, prog);
      p = base;
    }
    if (!llvm::sys::fs::can_execute(p) || llvm::sys::fs::is_directory(p))
      return createStringError(refusal(Refusal::NotFound),
                               "'" + prog + "' is not an executable file");
    return std::string(p);
  }
  llvm::SmallVector<llvm::StringRef, 16> paths;
  std::string pathVar;
  for (const auto &kv : opts.env)
    if (kv.first == "PATH")
      pathVar = kv.second;
  if (!pathVar.empty())
    llvm::SplitString(pathVar, paths, ":");
  auto found = llvm::sys::findProgramByName(prog, paths);
  if (!found)
    return createStringError(refusal(Refusal::NotFound),
                             "'" + prog + "' not found in PATH");
  return *found;
}

} // namespace

const char *const q2::orch::kMeasureScope =
    "process tree: the command (own process group) and all its descendants, "
    "found every poll by walking the ppid links of /proc/*/stat (processes "
    "once seen stay tracked after reparenting); RSS summed over them from "
    "VmRSS of /proc/PID/status";
const char *const q2::orch::kMeasureLimitation =
    "polling cannot bound transient spikes: memory that rises and falls "
    "between two polls is neither limited nor recorded in the tree sum "
    "(max_vmhwm_mb, the kernel high-water mark of single processes, is the "
    "check); "
    "shared pages are counted once per process; a descendant that detaches "
    "(orphaned, new session) within one poll interval is still caught when "
    "the command ends, but not while several measurements run in one "
    "process (parallel sweeps), and escapes the budget until then";

const char *q2::orch::stopReasonName(StopReason r) {
  switch (r) {
  case StopReason::Exit:
    return "exit";
  case StopReason::Signal:
    return "signal";
  case StopReason::WallBudget:
    return "wall_budget";
  case StopReason::RssBudget:
    return "rss_budget";
  case StopReason::Cancelled:
    return "cancelled";
  }
  return "unknown";
}

llvm::StringRef q2::orch::toString(StopReason r) { return stopReasonName(r); }

std::optional<StopReason> q2::orch::parseEnum(llvm::StringRef s,
                                              StopReason *) {
  for (StopReason r : {StopReason::Exit, StopReason::Signal,
                       StopReason::WallBudget, StopReason::RssBudget,
                       StopReason::Cancelled})
    if (s == stopReasonName(r))
      return r;
  return std::nullopt;
}

std::string q2::orch::signalName(int sig) {
  if (const char *abbrev = sigabbrev_np(sig))
    return std::string("SIG") + abbrev;
  return "SIG" + std::to_string(sig);
}

int q2::orch::signalNumber(llvm::StringRef name) {
  for (int sig = 1; sig < NSIG; ++sig)
    if (name == signalName(sig))
      return sig;
  return 0;
}

static std::string shortNumber(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

Error q2::orch::checkPollInterval(double pollS, double wallBudgetS) {
  auto ms = [](double s) { return shortNumber(s * 1000); };
  if (!std::isfinite(pollS) || pollS < kMinPollS || pollS > kMaxPollS)
    return createStringError(refusal(Refusal::Invalid),
                             "poll interval must be between " + ms(kMinPollS) +
                                 " and " + ms(kMaxPollS) + " ms, got " +
                                 ms(pollS) + " ms");
  if (std::isfinite(wallBudgetS) && wallBudgetS > 0 && pollS > wallBudgetS)
    return createStringError(refusal(Refusal::Invalid),
                             "poll interval of " + ms(pollS) +
                                 " ms is longer than the wall budget of " +
                                 shortNumber(wallBudgetS) + " s");
  return Error::success();
}

Error q2::orch::validateMeasureOptions(const MeasureOptions &opts) {
  if (opts.argv.empty())
    return createStringError(refusal(Refusal::Invalid),
                             "no command given (empty argv)");
  for (size_t i = 0; i < opts.argv.size(); ++i)
    if (hasNul(opts.argv[i]))
      return createStringError(refusal(Refusal::Invalid),
                               "argument " + llvm::Twine(i) +
                                   " contains a NUL character");
  for (const auto &kv : opts.env) {
    if (kv.first.empty() || kv.first.find('=') != std::string::npos)
      return createStringError(refusal(Refusal::Invalid),
                               "bad environment variable name '" + kv.first +
                                   "'");
    if (hasNul(kv.first) || hasNul(kv.second))
      return createStringError(refusal(Refusal::Invalid),
                               "environment variable '" + kv.first +
                                   "' contains a NUL character");
  }
  auto checkBudget = [](double v, const char *what) -> Error {
    if (!std::isfinite(v) || v <= 0)
      return createStringError(refusal(Refusal::Invalid),
                               llvm::Twine(what) +
                                   " must be a finite positive number, got " +
                                   std::to_string(v));
    return Error::success();
  };
  if (Error e = checkBudget(opts.wallBudgetS, "wall budget (s)"))
    return e;
  if (Error e = checkBudget(opts.rssBudgetMB, "RSS budget (MB)"))
    return e;
  if (Error e = checkPollInterval(opts.pollS, opts.wallBudgetS))
    return e;
  if (!std::isfinite(opts.killGraceS) || opts.killGraceS < 0)
    return createStringError(refusal(Refusal::Invalid),
                             "kill grace must be a finite non-negative number");
  if (opts.outDir.empty() || hasNul(opts.outDir))
    return createStringError(refusal(Refusal::Invalid),
                             "no (or invalid) output directory given");
  struct stat st;
  if (::lstat(opts.outDir.c_str(), &st) == 0)
    return createStringError(
        refusal(Refusal::Exists),
        "output directory '" + opts.outDir +
            "' already exists; refusing to overwrite evidence");
  llvm::StringRef parent = llvm::sys::path::parent_path(opts.outDir);
  if (!parent.empty() && !llvm::sys::fs::is_directory(parent))
    return createStringError(refusal(Refusal::NotFound),
                             "parent directory '" + parent + "' of '" +
                                 opts.outDir + "' does not exist");
  if (!opts.cwd.empty() &&
      (hasNul(opts.cwd) || !llvm::sys::fs::is_directory(opts.cwd)))
    return createStringError(refusal(Refusal::NotDir),
                             "working directory '" + opts.cwd +
                                 "' is not a directory");
  if (::access((opts.procRoot + "/self/stat").c_str(), R_OK) != 0)
    return createStringError(
        refusal(Refusal::NotFound),
        opts.procRoot + " is not available; cannot watch the process tree");
  if (auto p = resolveProgram(opts); !p)
    return p.takeError();
  return Error::success();
}

Expected<MeasureRecord> q2::orch::measure(const MeasureOptions &opts) {
  if (Error e = validateMeasureOptions(opts))
    return std::move(e);
  Expected<std::string> program = resolveProgram(opts);
  if (!program)
    return program.takeError();

  if (std::error_code ec = llvm::sys::fs::create_directory(
          opts.outDir, /*IgnoreExisting=*/false))
    return createStringError("cannot create '" + opts.outDir + "': " + ec.message());
  // Until the command runs, a failure removes what we created.
  auto abandon = [&](const llvm::Twine &msg) -> Error {
    llvm::sys::fs::remove_directories(opts.outDir);
    return createStringError(msg);
  };

  MeasureRecord r;
  r.command = opts.argv;
  r.cwd = opts.cwd;
  r.env = opts.env;
  r.pollS = opts.pollS;
  r.wallBudgetS = opts.wallBudgetS;
  r.rssBudgetMB = opts.rssBudgetMB;

  auto openOut = [&](const std::string &name) {
    llvm::SmallString<256> p(opts.outDir);
    llvm::sys::path::append(p, name);
    return ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  };
  int outFd = openOut(r.stdoutFile), errFd = openOut(r.stderrFile);
  int nullFd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  auto closeFds = [&] {
    for (int fd : {outFd, errFd, nullFd})
      if (fd >= 0)
        ::close(fd);
  };
  if (outFd < 0 || errFd < 0 || nullFd < 0) {
    closeFds();
    return abandon("cannot open output files in '" + opts.outDir + "'");
  }

  // Environment: inherited, with overrides replacing same-named variables.
  std::vector<std::string> envStore;
  for (char **e = environ; e && *e; ++e) {
    llvm::StringRef var(*e);
    llvm::StringRef name = var.split('=').first;
    bool overridden = false;
    for (const auto &kv : opts.env)
      overridden |= (name == kv.first);
    if (!overridden)
      envStore.push_back(var.str());
  }
  for (const auto &kv : opts.env)
    envStore.push_back(kv.first + "=" + kv.second);
  std::vector<char *> envp, argv;
  for (auto &s : envStore)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argStore = opts.argv;
  for (auto &s : argStore)
    argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&fa, nullFd, 0);
  posix_spawn_file_actions_adddup2(&fa, outFd, 1);
  posix_spawn_file_actions_adddup2(&fa, errFd, 2);
  if (!opts.cwd.empty())
    posix_spawn_file_actions_addchdir_np(&fa, opts.cwd.c_str());
  // Own process group (so the tree can be signalled at once and a terminal
  // ^C aimed at us does not reach it), default signal dispositions and an
  // empty mask whatever the orchestrator does with its own signals.
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGCHLD, SIGUSR1,
                  SIGUSR2, SIGALRM})
    sigaddset(&defaults, sig);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
                                      POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  becomeSubreaper();
  pid_t pid = -1;
  Clock::time_point start = Clock::now();
  ++ActiveCount;
  int spawnErr = posix_spawn(&pid, program->c_str(), &fa, &attr, argv.data(),
                             envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  closeFds();
  if (spawnErr != 0) {
    --ActiveCount;
    return abandon("cannot start '" + *program + "': " + strerror(spawnErr));
  }

  TreeTracker tracker(pid, opts.procRoot);
  tracker.noteRootStart();
  // The root is left a zombie until everything else is gone: while it is
  // unreaped its pid and process group id cannot be reused, so killpg()
  // and the pgrp match in the tree scan stay safe.
  bool rootExited = false;
  double endS = 0;
  auto pollRootExit = [&] {
    if (rootExited)
      return true;
    siginfo_t info;
    memset(&info, 0, sizeof(info));
    int w;
    do
      w = ::waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    while (w < 0 && errno == EINTR);
    if (w == 0 && info.si_pid == pid) {
      rootExited = true;
      endS = secondsSince(start);
    }
    return rootExited;
  };

  const auto poll = std::chrono::duration<double>(opts.pollS);
  bool stopping = false;
  Clock::time_point nextPoll = start;
  llvm::SmallString<256> livePath(opts.outDir);
  llvm::sys::path::append(livePath, kLiveRecordFile);
  double nextLiveS = 0, livePeakMB = 0;
  auto writeLive = [&](double elapsed) {
    q2::json::Value j = q2::json::Value::object();
    j["wall_s"] = elapsed;
    j["peak_tree_rss_mb"] = r.peakTreeRssMB;
    j["max_vmhwm_mb"] = r.maxVmHwmMB;
    j["polls"] = r.polls;
    // Best effort: the record at the end is what counts.
    llvm::consumeError(q2::json::writeFile(livePath, j));
    livePeakMB = r.peakTreeRssMB;
    nextLiveS = elapsed + 1.0;
  };
  while (!pollRootExit()) {
    auto members = tracker.scan();
    uint64_t rss = 0;
    unsigned procs = 0;
    for (const auto &m : members)
      if (!m.zombie) {
        ProcMemory mem = readProcMemory(opts.procRoot, m.pid);
        rss += mem.rss;
        r.maxVmHwmMB = std::max(r.maxVmHwmMB, double(mem.hwm) / 1e6);
        ++procs;
      }
    ++r.polls;
    double rssMb = double(rss) / 1e6;
    if (rssMb > r.peakTreeRssMB) {
      r.peakTreeRssMB = rssMb;
      r.peakTreeProcs = procs;
    }
    double elapsed = secondsSince(start);
    // Once a second, and within 0.1 s of a peak 10% above the last one
    // written (memory that grows fast is what gets a task killed).
    if (opts.liveRecord &&
        (elapsed >= nextLiveS ||
         (r.peakTreeRssMB > 1.1 * livePeakMB && elapsed >= nextLiveS - 0.9)))
      writeLive(elapsed);
    if (elapsed > opts.wallBudgetS) {
      r.reason = StopReason::WallBudget;
      stopping = true;
    } else if (rssMb > opts.rssBudgetMB) {
      r.reason = StopReason::RssBudget;
      stopping = true;
    } else if (opts.cancel && opts.cancel->load()) {
      r.reason = StopReason::Cancelled;
      if (int sig = opts.cancelSignal ? opts.cancelSignal->load() : 0)
        r.cancelledBy = signalName(sig);
      stopping = true;
    }
    if (stopping)
      break;
    nextPoll += std::chrono::duration_cast<Clock::duration>(poll);
    auto now = Clock::now();
    if (nextPoll < now)
      nextPoll = now; // Fell behind (slow /proc walk): don't burst.
    std::this_thread::sleep_until(nextPoll);
  }

  // Stop whatever is left: on an overrun the whole tree, after a normal end
  // any stray descendant (an isolated run must not leave processes behind).
  auto alive = [&] {
    auto members = tracker.scan();
    std::vector<TreeTracker::Member> live;
    for (const auto &m : members)
      if (!m.zombie)
        live.push_back(m);
    return live;
  };
  tracker.adoptOrphans();
  auto live = alive();
  if (rootExited)
    r.strayProcsKilled = live.size();
  if (!live.empty() || !rootExited) {
    signalTree(pid, live, SIGTERM);
    Clock::time_point deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(opts.killGraceS));
    while (Clock::now() < deadline) {
      pollRootExit();
      tracker.reapKnown(pid);
      live = alive();
      if (rootExited && live.empty())
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // Anything left ignores SIGTERM: SIGKILL until the tree is empty.
    for (int round = 0; round < 400; ++round) {
      pollRootExit();
      tracker.reapKnown(pid);
      live = alive();
      if (live.empty() && rootExited)
        break;
      signalTree(pid, live, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  int status = 0;
  pid_t w;
  do
    w = ::wait4(pid, &status, 0, nullptr);
  while (w < 0 && errno == EINTR);
  if (!rootExited)
    endS = secondsSince(start);
  tracker.setRootReaped();
  tracker.reapKnown(pid);
  --ActiveCount;

  r.wallS = endS;
  if (WIFEXITED(status)) {
    r.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.signalName = signalName(r.signal);
  }
  if (!stopping)
    r.reason = WIFSIGNALED(status) ? StopReason::Signal : StopReason::Exit;

  llvm::SmallString<256> recordPath(opts.outDir);
  llvm::sys::path::append(recordPath, "record.json");
  if (Error e = q2::json::writeFile(recordPath, q2::json::toValue(r)))
    return std::move(e);
  if (opts.liveRecord)
    llvm::sys::fs::remove(livePath);
  return r;
}

std::string q2::orch::toJSONText(const MeasureRecord &r, int indent) {
  Expected<std::string> text = q2::json::dump(q2::json::toValue(r), indent);
  if (!text) { // Only strings that are not UTF-8 fail.
    llvm::consumeError(text.takeError());
    return "null";
  }
  return std::move(*text);
}

Expected<MeasureRecord> q2::orch::readMeasureRecord(llvm::StringRef path) {
  Expected<q2::json::Value> v = q2::json::readFile(path);
  if (!v)
    return v.takeError();
  q2::json::Cursor c(*v, path.str());
  Expected<q2::json::Cursor> schema = c.at("schema");
  if (!schema)
    return schema.takeError();
  Expected<std::string> name = schema->string();
  if (!name)
    return name.takeError();
  if (*name != kMeasureSchema)
    return schema->error("not a " + llvm::Twine(kMeasureSchema) +
                         " record (schema \"" + *name + "\")");
  MeasureRecord r;
  if (Error e = q2::json::fromValue(c, r))
    return std::move(e);
  return r;
}
