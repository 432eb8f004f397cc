//===- Measure.cpp - Budgeted, isolated execution of one command ----------===//
//
// measure(): spawn the command in its own process group, poll its process
// tree (ProcessTree.cpp) against the wall and RSS budgets, stop it, and
// write the evidence directory and its record.
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/Measure.h"

#include "ProcessTree.h"
#include "RecordFields.h"
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

double secondsSince(Clock::time_point T0) {
  return std::chrono::duration<double>(Clock::now() - T0).count();
}

bool hasNul(const std::string &S) { return S.find('\0') != std::string::npos; }

/// The error code of a refusal, so that embedders can tell a bad value
/// (invalid_argument) from an existing evidence directory (file_exists) and
/// a missing file or directory (the Python module maps them to ValueError,
/// FileExistsError and OSError).
enum class Refusal { Invalid, Exists, NotFound, NotDir };
std::error_code refusal(Refusal R) {
  switch (R) {
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
Expected<std::string> resolveProgram(const MeasureOptions &Opts) {
  const std::string &Prog = Opts.argv[0];
  if (Prog.empty())
    return createStringError(refusal(Refusal::Invalid), "empty program name");
  if (Prog.find('/') != std::string::npos) {
    llvm::SmallString<256> P(Prog);
    if (!llvm::sys::path::is_absolute(P)) {
      llvm::SmallString<256> Base;
      if (!Opts.cwd.empty())
        Base = Opts.cwd;
      else
        llvm::sys::fs::current_path(Base);
      llvm::sys::path::append(Base, Prog);
      P = Base;
    }
    if (!llvm::sys::fs::can_execute(P) || llvm::sys::fs::is_directory(P))
      return createStringError(refusal(Refusal::NotFound),
                               "'" + Prog + "' is not an executable file");
    return std::string(P);
  }
  llvm::SmallVector<llvm::StringRef, 16> Paths;
  std::string PathVar;
  for (const auto &KV : Opts.env)
    if (KV.first == "PATH")
      PathVar = KV.second;
  if (!PathVar.empty())
    llvm::SplitString(PathVar, Paths, ":");
  auto Found = llvm::sys::findProgramByName(Prog, Paths);
  if (!Found)
    return createStringError(refusal(Refusal::NotFound),
                             "'" + Prog + "' not found in PATH");
  return *Found;
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

const char *q2::orch::stopReasonName(StopReason R) {
  switch (R) {
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

llvm::StringRef q2::orch::toString(StopReason R) { return stopReasonName(R); }

std::optional<StopReason> q2::orch::parseEnum(llvm::StringRef S,
                                              StopReason *) {
  for (StopReason R : {StopReason::Exit, StopReason::Signal,
                       StopReason::WallBudget, StopReason::RssBudget,
                       StopReason::Cancelled})
    if (S == stopReasonName(R))
      return R;
  return std::nullopt;
}

std::string q2::orch::signalName(int Sig) {
  if (const char *Abbrev = sigabbrev_np(Sig))
    return std::string("SIG") + Abbrev;
  return "SIG" + std::to_string(Sig);
}

int q2::orch::signalNumber(llvm::StringRef Name) {
  for (int Sig = 1; Sig < NSIG; ++Sig)
    if (Name == signalName(Sig))
      return Sig;
  return 0;
}

static std::string shortNumber(double V) {
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "%g", V);
  return Buf;
}

Error q2::orch::checkPollInterval(double PollS, double WallBudgetS) {
  auto Ms = [](double S) { return shortNumber(S * 1000); };
  if (!std::isfinite(PollS) || PollS < kMinPollS || PollS > kMaxPollS)
    return createStringError(refusal(Refusal::Invalid),
                             "poll interval must be between " + Ms(kMinPollS) +
                                 " and " + Ms(kMaxPollS) + " ms, got " +
                                 Ms(PollS) + " ms");
  if (std::isfinite(WallBudgetS) && WallBudgetS > 0 && PollS > WallBudgetS)
    return createStringError(refusal(Refusal::Invalid),
                             "poll interval of " + Ms(PollS) +
                                 " ms is longer than the wall budget of " +
                                 shortNumber(WallBudgetS) + " s");
  return Error::success();
}

Error q2::orch::validateMeasureOptions(const MeasureOptions &Opts) {
  if (Opts.argv.empty())
    return createStringError(refusal(Refusal::Invalid),
                             "no command given (empty argv)");
  for (size_t I = 0; I < Opts.argv.size(); ++I)
    if (hasNul(Opts.argv[I]))
      return createStringError(refusal(Refusal::Invalid),
                               "argument " + llvm::Twine(I) +
                                   " contains a NUL character");
  for (const auto &KV : Opts.env) {
    if (KV.first.empty() || KV.first.find('=') != std::string::npos)
      return createStringError(refusal(Refusal::Invalid),
                               "bad environment variable name '" + KV.first +
                                   "'");
    if (hasNul(KV.first) || hasNul(KV.second))
      return createStringError(refusal(Refusal::Invalid),
                               "environment variable '" + KV.first +
                                   "' contains a NUL character");
  }
  auto CheckBudget = [](double V, const char *What) -> Error {
    if (!std::isfinite(V) || V <= 0)
      return createStringError(refusal(Refusal::Invalid),
                               llvm::Twine(What) +
                                   " must be a finite positive number, got " +
                                   std::to_string(V));
    return Error::success();
  };
  if (Error E = CheckBudget(Opts.wallBudgetS, "wall budget (s)"))
    return E;
  if (Error E = CheckBudget(Opts.rssBudgetMB, "RSS budget (MB)"))
    return E;
  if (Error E = checkPollInterval(Opts.pollS, Opts.wallBudgetS))
    return E;
  if (!std::isfinite(Opts.killGraceS) || Opts.killGraceS < 0)
    return createStringError(refusal(Refusal::Invalid),
                             "kill grace must be a finite non-negative number");
  if (Opts.outDir.empty() || hasNul(Opts.outDir))
    return createStringError(refusal(Refusal::Invalid),
                             "no (or invalid) output directory given");
  struct stat St;
  if (::lstat(Opts.outDir.c_str(), &St) == 0)
    return createStringError(
        refusal(Refusal::Exists),
        "output directory '" + Opts.outDir +
            "' already exists; refusing to overwrite evidence");
  llvm::StringRef Parent = llvm::sys::path::parent_path(Opts.outDir);
  if (!Parent.empty() && !llvm::sys::fs::is_directory(Parent))
    return createStringError(refusal(Refusal::NotFound),
                             "parent directory '" + Parent + "' of '" +
                                 Opts.outDir + "' does not exist");
  if (!Opts.cwd.empty() &&
      (hasNul(Opts.cwd) || !llvm::sys::fs::is_directory(Opts.cwd)))
    return createStringError(refusal(Refusal::NotDir),
                             "working directory '" + Opts.cwd +
                                 "' is not a directory");
  if (::access((Opts.procRoot + "/self/stat").c_str(), R_OK) != 0)
    return createStringError(
        refusal(Refusal::NotFound),
        Opts.procRoot + " is not available; cannot watch the process tree");
  if (auto P = resolveProgram(Opts); !P)
    return P.takeError();
  return Error::success();
}

Expected<MeasureRecord> q2::orch::measure(const MeasureOptions &Opts) {
  if (Error E = validateMeasureOptions(Opts))
    return std::move(E);
  Expected<std::string> Program = resolveProgram(Opts);
  if (!Program)
    return Program.takeError();

  if (std::error_code EC = llvm::sys::fs::create_directory(
          Opts.outDir, /*IgnoreExisting=*/false))
    return createStringError("cannot create '" + Opts.outDir + "': " + EC.message());
  // Until the command runs, a failure removes what we created.
  auto Abandon = [&](const llvm::Twine &Msg) -> Error {
    llvm::sys::fs::remove_directories(Opts.outDir);
    return createStringError(Msg);
  };

  MeasureRecord R;
  R.command = Opts.argv;
  R.cwd = Opts.cwd;
  R.env = Opts.env;
  R.pollS = Opts.pollS;
  R.wallBudgetS = Opts.wallBudgetS;
  R.rssBudgetMB = Opts.rssBudgetMB;

  auto OpenOut = [&](const std::string &Name) {
    llvm::SmallString<256> P(Opts.outDir);
    llvm::sys::path::append(P, Name);
    return ::open(P.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  };
  int OutFd = OpenOut(R.stdoutFile), ErrFd = OpenOut(R.stderrFile);
  int NullFd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  auto CloseFds = [&] {
    for (int Fd : {OutFd, ErrFd, NullFd})
      if (Fd >= 0)
        ::close(Fd);
  };
  if (OutFd < 0 || ErrFd < 0 || NullFd < 0) {
    CloseFds();
    return Abandon("cannot open output files in '" + Opts.outDir + "'");
  }

  // Environment: inherited, with overrides replacing same-named variables.
  std::vector<std::string> EnvStore;
  for (char **E = environ; E && *E; ++E) {
    llvm::StringRef Var(*E);
    llvm::StringRef Name = Var.split('=').first;
    bool Overridden = false;
    for (const auto &KV : Opts.env)
      Overridden |= (Name == KV.first);
    if (!Overridden)
      EnvStore.push_back(Var.str());
  }
  for (const auto &KV : Opts.env)
    EnvStore.push_back(KV.first + "=" + KV.second);
  std::vector<char *> Envp, Argv;
  for (auto &S : EnvStore)
    Envp.push_back(S.data());
  Envp.push_back(nullptr);
  std::vector<std::string> ArgStore = Opts.argv;
  for (auto &S : ArgStore)
    Argv.push_back(S.data());
  Argv.push_back(nullptr);

  posix_spawn_file_actions_t FA;
  posix_spawnattr_t Attr;
  posix_spawn_file_actions_init(&FA);
  posix_spawnattr_init(&Attr);
  posix_spawn_file_actions_adddup2(&FA, NullFd, 0);
  posix_spawn_file_actions_adddup2(&FA, OutFd, 1);
  posix_spawn_file_actions_adddup2(&FA, ErrFd, 2);
  if (!Opts.cwd.empty())
    posix_spawn_file_actions_addchdir_np(&FA, Opts.cwd.c_str());
  // Own process group (so the tree can be signalled at once and a terminal
  // ^C aimed at us does not reach it), default signal dispositions and an
  // empty mask whatever the orchestrator does with its own signals.
  sigset_t Empty, Defaults;
  sigemptyset(&Empty);
  sigemptyset(&Defaults);
  for (int Sig : {SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGCHLD, SIGUSR1,
                  SIGUSR2, SIGALRM})
    sigaddset(&Defaults, Sig);
  posix_spawnattr_setflags(&Attr, POSIX_SPAWN_SETPGROUP |
                                      POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&Attr, 0);
  posix_spawnattr_setsigmask(&Attr, &Empty);
  posix_spawnattr_setsigdefault(&Attr, &Defaults);

  becomeSubreaper();
  pid_t Pid = -1;
  Clock::time_point Start = Clock::now();
  ++ActiveCount;
  int SpawnErr = posix_spawn(&Pid, Program->c_str(), &FA, &Attr, Argv.data(),
                             Envp.data());
  posix_spawn_file_actions_destroy(&FA);
  posix_spawnattr_destroy(&Attr);
  CloseFds();
  if (SpawnErr != 0) {
    --ActiveCount;
    return Abandon("cannot start '" + *Program + "': " + strerror(SpawnErr));
  }

  TreeTracker Tracker(Pid, Opts.procRoot);
  Tracker.noteRootStart();
  // The root is left a zombie until everything else is gone: while it is
  // unreaped its pid and process group id cannot be reused, so killpg()
  // and the pgrp match in the tree scan stay safe.
  bool RootExited = false;
  double EndS = 0;
  auto PollRootExit = [&] {
    if (RootExited)
      return true;
    siginfo_t Info;
    memset(&Info, 0, sizeof(Info));
    int W;
    do
      W = ::waitid(P_PID, id_t(Pid), &Info, WEXITED | WNOHANG | WNOWAIT);
    while (W < 0 && errno == EINTR);
    if (W == 0 && Info.si_pid == Pid) {
      RootExited = true;
      EndS = secondsSince(Start);
    }
    return RootExited;
  };

  const auto Poll = std::chrono::duration<double>(Opts.pollS);
  bool Stopping = false;
  Clock::time_point NextPoll = Start;
  while (!PollRootExit()) {
    auto Members = Tracker.scan();
    uint64_t Rss = 0;
    unsigned Procs = 0;
    for (const auto &M : Members)
      if (!M.zombie) {
        ProcMemory Mem = readProcMemory(Opts.procRoot, M.pid);
        Rss += Mem.rss;
        R.maxVmHwmMB = std::max(R.maxVmHwmMB, double(Mem.hwm) / 1e6);
        ++Procs;
      }
    ++R.polls;
    double RssMB = double(Rss) / 1e6;
    if (RssMB > R.peakTreeRssMB) {
      R.peakTreeRssMB = RssMB;
      R.peakTreeProcs = Procs;
    }
    double Elapsed = secondsSince(Start);
    if (Elapsed > Opts.wallBudgetS) {
      R.reason = StopReason::WallBudget;
      Stopping = true;
    } else if (RssMB > Opts.rssBudgetMB) {
      R.reason = StopReason::RssBudget;
      Stopping = true;
    } else if (Opts.cancel && Opts.cancel->load()) {
      R.reason = StopReason::Cancelled;
      if (int Sig = Opts.cancelSignal ? Opts.cancelSignal->load() : 0)
        R.cancelledBy = signalName(Sig);
      Stopping = true;
    }
    if (Stopping)
      break;
    NextPoll += std::chrono::duration_cast<Clock::duration>(Poll);
    auto Now = Clock::now();
    if (NextPoll < Now)
      NextPoll = Now; // Fell behind (slow /proc walk): don't burst.
    std::this_thread::sleep_until(NextPoll);
  }

  // Stop whatever is left: on an overrun the whole tree, after a normal end
  // any stray descendant (an isolated run must not leave processes behind).
  auto Alive = [&] {
    auto Members = Tracker.scan();
    std::vector<TreeTracker::Member> Live;
    for (const auto &M : Members)
      if (!M.zombie)
        Live.push_back(M);
    return Live;
  };
  Tracker.adoptOrphans();
  auto Live = Alive();
  if (RootExited)
    R.strayProcsKilled = Live.size();
  if (!Live.empty() || !RootExited) {
    signalTree(Pid, Live, SIGTERM);
    Clock::time_point Deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(Opts.killGraceS));
    while (Clock::now() < Deadline) {
      PollRootExit();
      Tracker.reapKnown(Pid);
      Live = Alive();
      if (RootExited && Live.empty())
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // Anything left ignores SIGTERM: SIGKILL until the tree is empty.
    for (int Round = 0; Round < 400; ++Round) {
      PollRootExit();
      Tracker.reapKnown(Pid);
      Live = Alive();
      if (Live.empty() && RootExited)
        break;
      signalTree(Pid, Live, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  int Status = 0;
  pid_t W;
  do
    W = ::wait4(Pid, &Status, 0, nullptr);
  while (W < 0 && errno == EINTR);
  if (!RootExited)
    EndS = secondsSince(Start);
  Tracker.setRootReaped();
  Tracker.reapKnown(Pid);
  --ActiveCount;

  R.wallS = EndS;
  if (WIFEXITED(Status)) {
    R.exitCode = WEXITSTATUS(Status);
  } else if (WIFSIGNALED(Status)) {
    R.signal = WTERMSIG(Status);
    R.signalName = signalName(R.signal);
  }
  if (!Stopping)
    R.reason = WIFSIGNALED(Status) ? StopReason::Signal : StopReason::Exit;

  llvm::SmallString<256> RecordPath(Opts.outDir);
  llvm::sys::path::append(RecordPath, "record.json");
  if (Error E = q2::json::writeFile(RecordPath, q2::json::toValue(R)))
    return std::move(E);
  return R;
}

std::string q2::orch::toJSONText(const MeasureRecord &R, int Indent) {
  Expected<std::string> Text = q2::json::dump(q2::json::toValue(R), Indent);
  if (!Text) { // Only strings that are not UTF-8 fail.
    llvm::consumeError(Text.takeError());
    return "null";
  }
  return std::move(*Text);
}

Expected<MeasureRecord> q2::orch::readMeasureRecord(llvm::StringRef Path) {
  Expected<q2::json::Value> V = q2::json::readFile(Path);
  if (!V)
    return V.takeError();
  q2::json::Cursor C(*V, Path.str());
  Expected<q2::json::Cursor> Schema = C.at("schema");
  if (!Schema)
    return Schema.takeError();
  Expected<std::string> Name = Schema->string();
  if (!Name)
    return Name.takeError();
  if (*Name != kMeasureSchema)
    return Schema->error("not a " + llvm::Twine(kMeasureSchema) +
                         " record (schema \"" + *Name + "\")");
  MeasureRecord R;
  if (Error E = q2::json::fromValue(C, R))
    return std::move(E);
  return R;
}
