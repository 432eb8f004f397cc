//===- Psi4.cpp - Molecule -> RHF -> FCIDUMP through psi4 -----------------===//
#include "q2/Hamiltonian/Psi4.h"
#include "Support.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;
using namespace q2::hamiltonian::detail;

namespace q2::hamiltonian {

Expected<Psi4Job> validatePsi4Request(const Psi4Request &r) {
  Psi4Job job;
  job.xyzPath = r.xyzPath;
  if (!r.charge)
    return plainError("--molecule needs --charge (total charge, an integer)");
  if (StringRef(*r.charge).trim().getAsInteger(10, job.charge))
    return plainError("--charge must be an integer, got '" + *r.charge + "'");
  if (r.multiplicity != 1)
    return plainError("--multiplicity " + Twine(r.multiplicity) +
                      " is not supported: the psi4 path runs closed-shell RHF "
                      "(multiplicity 1)");
  job.multiplicity = r.multiplicity;
  if (!r.active)
    return plainError("--molecule needs --active NE,NO");
  auto active = parseActiveSpace(*r.active);
  if (!active)
    return active.takeError();
  job.active = *active;
  StringRef basis = StringRef(r.basis).trim();
  if (basis.empty() || basis.find_first_of("\"'\n\\") != StringRef::npos)
    return plainError("--basis: bad basis set name '" + r.basis + "'");
  job.basis = basis.str();
  auto mol = parseXYZ(r.xyzPath);
  if (!mol)
    return mol.takeError();
  job.molecule = std::move(*mol);
  auto n = countElectrons(job.molecule, r.xyzPath, job.charge);
  if (!n)
    return n.takeError();
  job.totalElectrons = *n;
  if (Error e = checkActiveSpace(job.active, *n))
    return std::move(e);
  job.frozenCore = (*n - job.active.electrons) / 2;
  return job;
}

Expected<std::string> findPsi4() {
  ErrorOr<std::string> psi4 = sys::findProgramByName("psi4");
  if (!psi4)
    return plainError("--molecule needs psi4 (not found on PATH); install it "
                      "with `apt-get install psi4` (Debian), or pass an FCIDUMP");
  return *psi4;
}

std::string defaultPsi4Script(const char *argv0, void *mainAddress) {
  std::string exe = sys::fs::getMainExecutable(argv0, mainAddress);
  SmallString<256> script(sys::path::parent_path(exe));
  sys::path::append(script, "psi4_fcidump.py");
  return std::string(script);
}

//===----------------------------------------------------------------------===//
// Signal handling
//===----------------------------------------------------------------------===//

namespace {

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

/// State of the handler that removes a finished run's FCIDUMP and directory.
/// Plain arrays: the handler may only use async-signal-safe calls.
char gFile[PATH_MAX];
char gDir[PATH_MAX];
volatile sig_atomic_t gArmed = 0;
struct sigaction gOld[3];

int signalSlot(int sig) {
  for (int i = 0; i < 3; ++i)
    if (kCleanupSignals[i] == sig)
      return i;
  return 0;
}

extern "C" void cleanupHandler(int sig) {
  if (gArmed) {
    gArmed = 0;
    ::unlink(gFile);
    ::rmdir(gDir);
  }
  // Chain: the previous disposition handles the re-raised signal once this
  // handler returns (the signal is blocked while it runs).
  ::sigaction(sig, &gOld[signalSlot(sig)], nullptr);
  ::raise(sig);
}

bool armCleanup(const std::string &file, const std::string &dir) {
  if (gArmed || file.size() >= PATH_MAX || dir.size() >= PATH_MAX)
    return false; // one armed run at a time
  std::memcpy(gFile, file.c_str(), file.size() + 1);
  std::memcpy(gDir, dir.c_str(), dir.size() + 1);
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = cleanupHandler;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i)
    ::sigaction(kCleanupSignals[i], &sa, &gOld[i]);
  gArmed = 1;
  return true;
}

void disarmCleanup() {
  if (!gArmed)
    return;
  gArmed = 0;
  for (int i = 0; i < 3; ++i) {
    struct sigaction cur;
    ::sigaction(kCleanupSignals[i], nullptr, &cur);
    if (cur.sa_handler == cleanupHandler)
      ::sigaction(kCleanupSignals[i], &gOld[i], nullptr);
  }
}

std::string tailOfFile(StringRef path, unsigned nLines) {
  auto buf = readFile(path);
  if (!buf) {
    consumeError(buf.takeError());
    return "";
  }
  SmallVector<StringRef> lines;
  (*buf)->getBuffer().rtrim().split(lines, '\n');
  std::string out;
  unsigned from = lines.size() > nLines ? lines.size() - nLines : 0;
  for (unsigned i = from; i < lines.size(); ++i)
    out += ("    " + lines[i] + "\n").str();
  return out;
}

/// Removes \p dir on every exit path of runPsi4 unless released.
struct DirGuard {
  std::string path;
  ~DirGuard() {
    if (!path.empty())
      sys::fs::remove_directories(path);
  }
};

struct ChildOutcome {
  bool started = false;
  int exitCode = -1; ///< >= 0 if it exited
  int signal = 0;    ///< killed by this signal
  std::string error; ///< could not start
};

/// fork + exec with the child in its own process group; collects
/// SIGINT/SIGTERM/SIGHUP while waiting (see the header). \p interrupted is
/// set to the signal that ended the wait, after the group was killed.
ChildOutcome runChild(const std::vector<std::string> &args,
                      const std::string &log, int &interrupted) {
  ChildOutcome out;
  interrupted = 0;
  std::vector<char *> argv;
  for (const std::string &a : args)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);

  sigset_t waitSet, oldMask;
  sigemptyset(&waitSet);
  for (int s : kCleanupSignals)
    sigaddset(&waitSet, s);
  sigaddset(&waitSet, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &waitSet, &oldMask);

  int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int logFd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    // Child: async-signal-safe calls only.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(127);
    for (int s : kCleanupSignals)
      ::signal(s, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (devNull >= 0)
      ::dup2(devNull, 0);
    if (logFd >= 0) {
      ::dup2(logFd, 1);
      ::dup2(logFd, 2);
    }
    ::execv(argv[0], argv.data());
    const char msg[] = "q2: cannot execute psi4\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  if (devNull >= 0)
    ::close(devNull);
  if (logFd >= 0)
    ::close(logFd);
  if (pid < 0) {
    out.error = std::string("cannot fork: ") + std::strerror(errno);
    pthread_sigmask(SIG_SETMASK, &oldMask, nullptr);
    return out;
  }
  ::setpgid(pid, pid); // also here: no window in which the group is ours
  out.started = true;
  for (;;) {
    int status = 0;
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      if (WIFEXITED(status))
        out.exitCode = WEXITSTATUS(status);
      else if (WIFSIGNALED(status))
        out.signal = WTERMSIG(status);
      break;
    }
    if (w < 0 && errno != EINTR) {
      // E.g. SIGCHLD inherited as ignored: the child is reaped for us and
      // its exit status is lost.
      out.started = false;
      out.error = std::string("cannot wait for psi4: ") + std::strerror(errno);
      break;
    }
    struct timespec tick = {0, 100 * 1000 * 1000};
    siginfo_t info;
    int sig = ::sigtimedwait(&waitSet, &info, &tick);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
      interrupted = sig;
      out.signal = SIGKILL;
      break;
    }
  }
  // Other members of the group (psi4's own children) go with it.
  ::kill(-pid, SIGKILL);
  pthread_sigmask(SIG_SETMASK, &oldMask, nullptr);
  return out;
}

} // namespace

Psi4Run::~Psi4Run() {
  disarmCleanup();
  if (!dir.empty())
    sys::fs::remove_directories(dir);
}

Expected<std::unique_ptr<Psi4Run>> runPsi4(const Psi4Job &job, StringRef psi4,
                                           StringRef script) {
  if (!sys::fs::exists(script))
    return plainError("psi4 driver script '" + script +
                      "' not found (it is installed next to q2-qpe)");
  DirGuard guard;
  SmallString<128> work;
  if (std::error_code ec = sys::fs::createUniqueDirectory("q2-qpe-psi4", work))
    return plainError("cannot create a temporary directory: " + ec.message());
  guard.path = std::string(work);
  auto inWork = [&](StringRef name) {
    SmallString<256> p(work);
    sys::path::append(p, name);
    return std::string(p);
  };
  std::string fcidump =
      inWork((sys::path::stem(job.xyzPath) + ".FCIDUMP").str());
  std::string result = inWork("result.json"), output = inWork("output.dat");
  std::string input = inWork("input.py"), log = inWork("psi4.log");
  nlohmann::json params = {{"atoms", job.molecule.geometryLines()},
                           {"charge", job.charge},
                           {"multiplicity", job.multiplicity},
                           {"basis", job.basis},
                           {"active_electrons", job.active.electrons},
                           {"active_orbitals", job.active.orbitals},
                           {"fcidump", fcidump},
                           {"result", result},
                           {"psi4_output", output},
                           {"workdir", std::string(work)}};
  std::string paramsPath = inWork("params.json");
  if (Error e = writeToOutput(paramsPath, [&](raw_ostream &os) {
        os << params.dump(2) << "\n";
        return Error::success();
      }))
    return std::move(e);
  // The psi4 input: plain Python (run with -k), paths as JSON strings, which
  // are valid Python string literals.
  if (Error e = writeToOutput(input, [&](raw_ostream &os) {
        os << "Q2_PARAMS_FILE = " << nlohmann::json(paramsPath).dump() << "\n"
           << "_q2_script = " << nlohmann::json(script.str()).dump() << "\n"
           << "exec(compile(open(_q2_script).read(), _q2_script, 'exec'))\n";
        return Error::success();
      }))
    return std::move(e);

  int interrupted = 0;
  ChildOutcome child =
      runChild({psi4.str(), "-k", "-n", "1", "-s", std::string(work), "-i",
                input, "-o", output},
               log, interrupted);
  if (interrupted) {
    // The group is dead and reaped; remove the directory, then let the
    // signal take its course (LLVM's handler or the default action).
    sys::fs::remove_directories(guard.path);
    guard.path.clear();
    ::raise(interrupted);
    return plainError("psi4 was interrupted by signal " + Twine(interrupted));
  }
  if (!child.started || child.exitCode != 0 || !sys::fs::exists(result)) {
    std::string msg =
        "psi4 failed (" +
        (!child.started ? child.error
         : child.signal ? "killed by signal " + std::to_string(child.signal)
                        : "exit code " + std::to_string(child.exitCode)) +
        ")";
    std::string why = tailOfFile(result + ".err", 5);
    if (!why.empty())
      msg += "\n  " + StringRef(why).trim().str();
    std::string tail = tailOfFile(output, 15);
    if (!tail.empty())
      msg += "\n  tail of psi4's output:\n" + tail;
    tail = tailOfFile(log, 10);
    if (!tail.empty())
      msg += "  tail of psi4's stdout/stderr:\n" + tail;
    return plainError(StringRef(msg).rtrim());
  }
  auto resBuf = readFile(result);
  if (!resBuf)
    return resBuf.takeError();
  nlohmann::json res = nlohmann::json::parse((*resBuf)->getBuffer().str(),
                                             nullptr, /*allow_exceptions=*/false);
  if (res.is_discarded() || !res.contains("ci_energy") ||
      !res["ci_energy"].is_number() || !res.contains("scf_energy") ||
      !res["scf_energy"].is_number() || !sys::fs::exists(fcidump))
    return plainError(result + ": malformed psi4 result");

  std::unique_ptr<Psi4Run> run(new Psi4Run);
  run->result = (*resBuf)->getBuffer().str();
  run->scf = res["scf_energy"].get<double>();
  run->ci = res["ci_energy"].get<double>();
  run->nCore = res.value("n_core", 0);
  // Keep only the FCIDUMP, so that a signal handler can remove the rest
  // with unlink + rmdir.
  std::error_code ec;
  std::vector<std::string> others;
  for (sys::fs::directory_iterator it(work, ec), end; it != end && !ec;
       it.increment(ec))
    if (it->path() != fcidump)
      others.push_back(it->path());
  for (const std::string &p : others) {
    if (sys::fs::is_directory(p))
      sys::fs::remove_directories(p);
    else
      sys::fs::remove(p);
  }
  run->dir = guard.path;
  run->fcidump = fcidump;
  guard.path.clear();
  armCleanup(run->fcidump, run->dir);
  return run;
}

Expected<std::unique_ptr<Psi4Run>> runPsi4(const Psi4Request &request,
                                           StringRef script,
                                           std::string &summary) {
  Expected<Psi4Job> job = validatePsi4Request(request);
  if (!job)
    return job.takeError();
  Expected<std::string> psi4 = findPsi4();
  if (!psi4)
    return psi4.takeError();
  auto run = runPsi4(*job, *psi4, script);
  if (!run)
    return run.takeError();
  summary = formatv("psi4 ({0}, {1}): RHF {2:F10} Ha, CI ({3}e,{4}o, {5} "
                    "frozen core) {6:F10} Ha",
                    request.xyzPath, job->basis, (*run)->scfEnergy(),
                    job->active.electrons, job->active.orbitals,
                    (*run)->frozenCore(), (*run)->ciEnergy())
                .str();
  return run;
}

} // namespace q2::hamiltonian
