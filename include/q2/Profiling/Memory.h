//===- Memory.h - Memory layers of a process --------------------*- C++ -*-===//
//
// Readers for the memory layers q2 reports: the kernel's view
// (/proc/<pid>/status, /proc/<pid>/smaps_rollup), getrusage, and glibc's
// heap (mallinfo2). All sizes are bytes; all times are seconds.
//
//===----------------------------------------------------------------------===//

#ifndef Q2_PROFILING_MEMORY_H
#define Q2_PROFILING_MEMORY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>

namespace q2::profiling {

/// Seconds on the monotonic clock since the process-wide profiling epoch
/// (fixed the first time anything in this library asks for it, which is at
/// static-initialization time when the library is linked in).
double elapsedSeconds();
/// CLOCK_MONOTONIC seconds of the epoch itself, to convert other timestamps.
double epochMonotonicSeconds();
/// Process CPU time (user + system of all threads) of the calling process.
double processCPUSeconds();
/// CPU time of the calling thread only.
double threadCPUSeconds();

/// Fields of /proc/<pid>/status, converted from kB to bytes.
struct ProcStatus {
  uint64_t vmRSS = 0;   ///< resident set now
  uint64_t vmHWM = 0;   ///< peak resident set ("high water mark"); resettable
  uint64_t vmPeak = 0;  ///< peak virtual size
  uint64_t vmSize = 0;  ///< virtual size now
  uint64_t rssAnon = 0; ///< resident anonymous memory (heap, stacks, mmap)
  uint64_t rssFile = 0; ///< resident file-backed memory (code, mapped files)
};

/// Reads /proc/<pid>/status; pid 0 means the calling process. `procRoot`
/// is where procfs is mounted (tests point it elsewhere). Allocation-free
/// on success, so an orchestrator may call it for every process every poll.
llvm::Expected<ProcStatus> readProcStatus(pid_t pid = 0,
                                          llvm::StringRef procRoot = "/proc");

/// Cheap current RSS from /proc/<pid>/statm (one short line; no parsing of
/// the ~50 lines of status). pid 0 means the calling process.
llvm::Expected<uint64_t> readCurrentRSS(pid_t pid = 0,
                                        llvm::StringRef procRoot = "/proc");

/// MemAvailable of /proc/meminfo in bytes (the kernel's estimate of what can
/// be allocated without swapping).
llvm::Expected<uint64_t> readMemAvailable(llvm::StringRef procRoot = "/proc");

/// RSS in bytes from the text of a statm file ("size resident ..." in
/// pages); nullopt if it is not that. Allocation-free, so a signal handler
/// may call it.
std::optional<uint64_t> parseStatmRSS(llvm::StringRef text);

/// Reads the current RSS of one process repeatedly through a descriptor of
/// /proc/<pid>/statm kept open (pread at offset 0 regenerates the file), so a
/// read costs one syscall instead of open + read + close. Thread-safe.
class RSSReader {
public:
  explicit RSSReader(pid_t pid = 0);
  ~RSSReader();
  RSSReader(const RSSReader &) = delete;
  RSSReader &operator=(const RSSReader &) = delete;
  /// Fails if the file could not be opened or the process is gone.
  llvm::Expected<uint64_t> read() const;
  bool isOpen() const { return fd >= 0; }

private:
  pid_t pid;
  int fd = -1;
  int openErrno = 0;
};

/// /proc/<pid>/smaps_rollup as "Rss" -> bytes, "Pss" -> bytes, ... (every
/// "Key: N kB" line). Walks all mappings in the kernel: costs more than status.
using SmapsRollup = std::map<std::string, uint64_t>;
llvm::Expected<SmapsRollup> readSmapsRollup(pid_t pid = 0);
/// Parses the text of a smaps_rollup file (e.g. one read by q2-sampler).
SmapsRollup parseSmapsRollup(llvm::StringRef text);

/// getrusage(2) peaks. RUSAGE_CHILDREN covers only waited-for descendants.
struct RUsage {
  uint64_t maxRSSSelf = 0;     ///< ru_maxrss of this process, bytes
  uint64_t maxRSSChildren = 0; ///< largest ru_maxrss of reaped children
  double userS = 0, systemS = 0;
};
RUsage readRUsage();

/// glibc heap of the calling process via mallinfo2(). inUse = arena bytes in
/// use (uordblks, all arenas) + bytes of live mmapped chunks (hblkhd), so
/// large allocations served by mmap are counted too.
struct HeapInfo {
  uint64_t inUse = 0;
  uint64_t arenaInUse = 0; ///< uordblks
  uint64_t mmapped = 0;    ///< hblkhd
  uint64_t arenaFree = 0;  ///< fordblks: held by malloc but free
};
HeapInfo readHeap();

/// All layers at one instant. For another process only the /proc layers are
/// available (rusage/heap are of the caller and are omitted: `self` false).
struct MemorySnapshot {
  std::string label;
  int pid = 0;
  bool self = true;
  double elapsedS = 0;  ///< since the profiling epoch (monotonic)
  double unixTimeS = 0; ///< CLOCK_REALTIME, to correlate with logs
  double cpuS = 0;      ///< process CPU (self: user+sys; other: /proc stat)
  ProcStatus status;
  RUsage rusage;                    ///< self only
  HeapInfo heap;                    ///< self only
  std::optional<SmapsRollup> smaps; ///< when asked for
};

/// Takes a snapshot of `pid` (0 = self). Fails only if /proc cannot be read
/// (e.g. the process is gone).
llvm::Expected<MemorySnapshot>
takeSnapshot(llvm::StringRef label, pid_t pid = 0, bool withSmaps = false);

/// Resets the kernel's peak RSS (VmHWM) of `pid` (0 = self) to the current
/// RSS by writing "5" to /proc/<pid>/clear_refs. Returns whether the kernel
/// accepted it; if not, `whyNot` gets the reason and callers should fall back
/// to a sampled peak. Note: getrusage's ru_maxrss of a live process is derived
/// from the same counter, so it drops too.
bool resetPeakRSS(pid_t pid = 0, std::string *whyNot = nullptr);

} // namespace q2::profiling

#endif // Q2_PROFILING_MEMORY_H
