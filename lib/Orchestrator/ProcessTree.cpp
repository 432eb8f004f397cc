//===- ProcessTree.cpp - a measured command's process tree ----------------===//
//
// The /proc walk behind measure() and sampleProcessTree(): plain syscalls,
// since it runs every poll for every process on the machine.
//
//===----------------------------------------------------------------------===//

#include "ProcessTree.h"

#include "q2/Orchestrator/Measure.h"
#include "q2/Profiling/Memory.h"

#include "llvm/Support/Error.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <unordered_map>

using namespace q2::orch;
using namespace q2::orch::proc_tree;

namespace {

/// Reads a small /proc/PID/stat with plain syscalls: this runs every 10 ms
/// for every process on the machine, so no streams and no allocation churn.
/// (Memory is read by the profiling library's readers, q2/Profiling/Memory.h.)
bool readSmallFile(const char *Path, char *Buf, size_t Cap, size_t &Len) {
  int Fd = ::open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return false;
  ssize_t N = ::read(Fd, Buf, Cap - 1);
  ::close(Fd);
  if (N <= 0)
    return false;
  Buf[N] = '\0';
  Len = size_t(N);
  return true;
}

std::vector<ProcStat> readAllProcs(const std::string &Root) {
  std::vector<ProcStat> Out;
  DIR *D = opendir(Root.c_str());
  if (!D)
    return Out;
  while (dirent *E = readdir(D)) {
    if (E->d_name[0] < '0' || E->d_name[0] > '9')
      continue;
    ProcStat S;
    if (readProcStat(Root, atoi(E->d_name), S))
      Out.push_back(S);
  }
  closedir(D);
  return Out;
}

} // namespace

namespace q2::orch::proc_tree {

std::atomic<int> ActiveCount{0};

bool readProcStat(const std::string &Root, int Pid, ProcStat &S) {
  char Path[4096], Buf[1024];
  size_t Len;
  snprintf(Path, sizeof(Path), "%s/%d/stat", Root.c_str(), Pid);
  if (!readSmallFile(Path, Buf, sizeof(Buf), Len))
    return false;
  // comm may contain spaces and parentheses: fields start after the last ')'.
  char *P = strrchr(Buf, ')');
  if (!P)
    return false;
  S.pid = Pid;
  // After ')': state ppid pgrp session tty tpgid flags minflt cminflt majflt
  // cmajflt utime stime cutime cstime priority nice threads itrealvalue
  // starttime (field 22 overall, the 20th after the comm).
  char State;
  int PPid, Pgrp;
  if (sscanf(P + 1, " %c %d %d", &State, &PPid, &Pgrp) != 3)
    return false;
  S.state = State;
  S.ppid = PPid;
  S.pgrp = Pgrp;
  const char *Q = P + 1;
  for (int Field = 0; Field < 20 && *Q; ++Q)
    if (*Q == ' ')
      ++Field;
  S.startTime = strtoull(Q, nullptr, 10);
  return true;
}

ProcMemory readProcMemory(const std::string &Root, int Pid) {
  llvm::Expected<q2::profiling::ProcStatus> S =
      q2::profiling::readProcStatus(Pid, Root);
  if (!S) {
    llvm::consumeError(S.takeError());
    return {};
  }
  return {S->vmRSS, S->vmHWM};
}

std::vector<TreeTracker::Member> TreeTracker::scan() {
  std::vector<ProcStat> All = readAllProcs(ProcRoot);
  std::unordered_map<int, std::vector<size_t>> Children;
  std::unordered_map<int, size_t> ByPid;
  for (size_t I = 0; I < All.size(); ++I) {
    Children[All[I].ppid].push_back(I);
    ByPid[All[I].pid] = I;
  }
  std::deque<size_t> Work;
  std::set<int> Seen;
  auto Push = [&](size_t I) {
    if (Seen.insert(All[I].pid).second)
      Work.push_back(I);
  };
  const int Self = ::getpid();
  bool Adopt = AdoptOrphans && ActiveCount.load() == 1;
  for (size_t I = 0; I < All.size(); ++I) {
    const ProcStat &S = All[I];
    auto K = Known.find(S.pid);
    if (Adopt && S.ppid == Self && S.pid != Root &&
        S.startTime >= RootStart) {
      Push(I);
      continue;
    }
    // Root, our process group, and everything tracked before.
    // Once the root is reaped its pid (and so its process group id) may
    // belong to somebody else, e.g. another point's root in a parallel
    // sweep: from then on only processes identified before count.
    bool Ours = !RootReaped && (S.pid == Root || S.pgrp == Root);
    if (Ours || (K != Known.end() && K->second == S.startTime))
      Push(I);
  }
  while (!Work.empty()) {
    size_t I = Work.front();
    Work.pop_front();
    auto It = Children.find(All[I].pid);
    if (It != Children.end())
      for (size_t C : It->second)
        Push(C);
  }
  std::vector<Member> Out;
  for (int Pid : Seen) {
    const ProcStat &S = All[ByPid[Pid]];
    Known[Pid] = S.startTime;
    Out.push_back({Pid, S.state == 'Z' || S.state == 'X'});
  }
  return Out;
}

void TreeTracker::noteRootStart() {
  ProcStat S;
  if (readProcStat(ProcRoot, Root, S))
    RootStart = S.startTime;
}

void TreeTracker::reapKnown(int Except) {
  for (auto &KV : Known) {
    if (KV.first == Except)
      continue;
    ProcStat S;
    if (!readProcStat(ProcRoot, KV.first, S) || S.startTime != KV.second ||
        S.state != 'Z' || S.ppid != ::getpid())
      continue;
    while (::waitpid(KV.first, nullptr, WNOHANG) < 0 && errno == EINTR) {
    }
  }
}

void signalTree(int Pgid, const std::vector<TreeTracker::Member> &Members,
                int Sig) {
  if (Pgid > 0)
    ::killpg(Pgid, Sig);
  for (const auto &M : Members)
    if (!M.zombie)
      ::kill(M.pid, Sig);
}

void becomeSubreaper() {
  // Orphaned grandchildren are reparented to us instead of init, so a
  // daemonizing descendant stays visible (and reapable) until it is gone.
  static std::once_flag Once;
  std::call_once(Once, [] { ::prctl(PR_SET_CHILD_SUBREAPER, 1); });
}

} // namespace q2::orch::proc_tree

TreeSample q2::orch::sampleProcessTree(int RootPid,
                                      const std::string &ProcRoot) {
  TreeTracker T(RootPid, ProcRoot);
  TreeSample S;
  for (const auto &M : T.scan()) {
    S.pids.push_back(M.pid);
    if (!M.zombie)
      S.rssBytes += readProcMemory(ProcRoot, M.pid).rss;
  }
  return S;
}
