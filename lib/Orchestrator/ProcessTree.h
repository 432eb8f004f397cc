//===- ProcessTree.h - a measured command's process tree --------*- C++ -*-===//
//
// Finding the processes of one measured command in /proc every poll (its
// process group, its descendants, and those once seen after reparenting),
// their memory, and signalling them: what measure() (Measure.cpp) watches
// and stops with.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_LIB_ORCHESTRATOR_PROCESSTREE_H
#define Q2_LIB_ORCHESTRATOR_PROCESSTREE_H

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace q2::orch::proc_tree {

struct ProcStat {
  int pid = 0, ppid = 0, pgrp = 0;
  char state = '?';
  unsigned long long startTime = 0;
};
bool readProcStat(const std::string &root, int pid, ProcStat &s);

/// VmRSS and VmHWM of one process from one read of /proc/PID/status (the
/// profiling library's allocation-free reader); zeros when it is gone or
/// has no memory (a zombie).
struct ProcMemory {
  uint64_t rss = 0, hwm = 0;
};
ProcMemory readProcMemory(const std::string &root, int pid);

/// Measurements in progress in this process, counted from before their
/// spawn until after their last reap. A descendant that detaches and is
/// orphaned between two polls is reparented to us (child subreaper) without
/// ever having been seen; it can be attributed to a tree only when a single
/// measurement is in progress (otherwise it could even be the just spawned
/// root of another one).
extern std::atomic<int> ActiveCount;

/// Tracks the processes of one measured tree across polls. A process once
/// seen stays tracked (by pid + start time, so a reused pid is not mistaken
/// for it) even after its parent died and it was reparented.
class TreeTracker {
public:
  TreeTracker(int rootPid, std::string procRoot)
      : Root(rootPid), ProcRoot(std::move(procRoot)) {}

  struct Member {
    int pid;
    bool zombie;
  };

  /// One /proc walk: the current members of the tree.
  std::vector<Member> scan();

  void setRootReaped() { RootReaped = true; }
  /// From now on also take unseen orphans reparented to us (see
  /// ActiveCount); set once the root has exited or the tree is stopped.
  void adoptOrphans() { AdoptOrphans = true; }
  void noteRootStart();

  /// Reaps tracked zombies that were reparented to us (child subreaper).
  /// The pid is checked to still be the same process (start time) and our
  /// child: a blind waitpid could reap a reused pid, i.e. the root of
  /// another measurement running in another thread.
  void reapKnown(int except);

private:
  int Root;
  bool RootReaped = false;
  bool AdoptOrphans = false;
  unsigned long long RootStart = 0;
  std::string ProcRoot;
  std::map<int, unsigned long long> Known;
};

/// Pgid <= 0: the group may no longer be ours; signal members only.
void signalTree(int pgid, const std::vector<TreeTracker::Member> &members,
                int sig);
/// Orphaned grandchildren are reparented to us instead of init.
void becomeSubreaper();

} // namespace q2::orch::proc_tree

#endif // Q2_LIB_ORCHESTRATOR_PROCESSTREE_H
