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
bool readSmallFile(const char *path, char *buf, size_t cap, size_t &len) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t n = ::read(fd, buf, cap - 1);
  ::close(fd);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  len = size_t(n);
  return true;
}

std::vector<ProcStat> readAllProcs(const std::string &root) {
  std::vector<ProcStat> out;
  DIR *d = opendir(root.c_str());
  if (!d)
    return out;
  while (dirent *e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9')
      continue;
    ProcStat s;
    if (readProcStat(root, atoi(e->d_name), s))
      out.push_back(s);
  }
  closedir(d);
  return out;
}

} // namespace

namespace q2::orch::proc_tree {

std::atomic<int> ActiveCount{0};

bool readProcStat(const std::string &root, int pid, ProcStat &s) {
  char path[4096], buf[1024];
  size_t len;
  snprintf(path, sizeof(path), "%s/%d/stat", root.c_str(), pid);
  if (!readSmallFile(path, buf, sizeof(buf), len))
    return false;
  // comm may contain spaces and parentheses: fields start after the last ')'.
  char *p = strrchr(buf, ')');
  if (!p)
    return false;
  s.pid = pid;
  // After ')': state ppid pgrp session tty tpgid flags minflt cminflt majflt
  // cmajflt utime stime cutime cstime priority nice threads itrealvalue
  // starttime (field 22 overall, the 20th after the comm).
  char state;
  int pPid, pgrp;
  if (sscanf(p + 1, " %c %d %d", &state, &pPid, &pgrp) != 3)
    return false;
  s.state = state;
  s.ppid = pPid;
  s.pgrp = pgrp;
  const char *q = p + 1;
  for (int field = 0; field < 20 && *q; ++q)
    if (*q == ' ')
      ++field;
  s.startTime = strtoull(q, nullptr, 10);
  return true;
}

ProcMemory readProcMemory(const std::string &root, int pid) {
  llvm::Expected<q2::profiling::ProcStatus> s =
      q2::profiling::readProcStatus(pid, root);
  if (!s) {
    llvm::consumeError(s.takeError());
    return {};
  }
  return {s->vmRSS, s->vmHWM};
}

std::vector<TreeTracker::Member> TreeTracker::scan() {
  std::vector<ProcStat> all = readAllProcs(ProcRoot);
  std::unordered_map<int, std::vector<size_t>> children;
  std::unordered_map<int, size_t> byPid;
  for (size_t i = 0; i < all.size(); ++i) {
    children[all[i].ppid].push_back(i);
    byPid[all[i].pid] = i;
  }
  std::deque<size_t> Work;
  std::set<int> Seen;
  auto push = [&](size_t i) {
    if (Seen.insert(all[i].pid).second)
      Work.push_back(i);
  };
  const int self = ::getpid();
  bool adopt = AdoptOrphans && ActiveCount.load() == 1;
  for (size_t i = 0; i < all.size(); ++i) {
    const ProcStat &s = all[i];
    auto k = Known.find(s.pid);
    if (adopt && s.ppid == self && s.pid != Root &&
        s.startTime >= RootStart) {
      push(i);
      continue;
    }
    // Root, our process group, and everything tracked before.
    // Once the root is reaped its pid (and so its process group id) may
    // belong to somebody else, e.g. another point's root in a parallel
    // sweep: from then on only processes identified before count.
    bool ours = !RootReaped && (s.pid == Root || s.pgrp == Root);
    if (ours || (k != Known.end() && k->second == s.startTime))
      push(i);
  }
  while (!Work.empty()) {
    size_t i = Work.front();
    Work.pop_front();
    auto it = children.find(all[i].pid);
    if (it != children.end())
      for (size_t c : it->second)
        push(c);
  }
  std::vector<Member> out;
  for (int pid : Seen) {
    const ProcStat &s = all[byPid[pid]];
    Known[pid] = s.startTime;
    out.push_back({pid, s.state == 'Z' || s.state == 'X'});
  }
  return out;
}

void TreeTracker::noteRootStart() {
  ProcStat s;
  if (readProcStat(ProcRoot, Root, s))
    RootStart = s.startTime;
}

void TreeTracker::reapKnown(int except) {
  for (auto &kv : Known) {
    if (kv.first == except)
      continue;
    ProcStat s;
    if (!readProcStat(ProcRoot, kv.first, s) || s.startTime != kv.second ||
        s.state != 'Z' || s.ppid != ::getpid())
      continue;
    while (::waitpid(kv.first, nullptr, WNOHANG) < 0 && errno == EINTR) {
    }
  }
}

void signalTree(int pgid, const std::vector<TreeTracker::Member> &members,
                int sig) {
  if (pgid > 0)
    ::killpg(pgid, sig);
  for (const auto &m : members)
    if (!m.zombie)
      ::kill(m.pid, sig);
}

void becomeSubreaper() {
  // Orphaned grandchildren are reparented to us instead of init, so a
  // daemonizing descendant stays visible (and reapable) until it is gone.
  static std::once_flag once;
  std::call_once(once, [] { ::prctl(PR_SET_CHILD_SUBREAPER, 1); });
}

} // namespace q2::orch::proc_tree

TreeSample q2::orch::sampleProcessTree(int rootPid,
                                      const std::string &procRoot) {
  TreeTracker t(rootPid, procRoot);
  TreeSample s;
  for (const auto &m : t.scan()) {
    s.pids.push_back(m.pid);
    if (!m.zombie)
      s.rssBytes += readProcMemory(procRoot, m.pid).rss;
  }
  return s;
}
