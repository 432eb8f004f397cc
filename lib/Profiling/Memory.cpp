//===- Memory.cpp - Memory layers of a process ----------------------------===//

#include "q2/Profiling/Memory.h"

#include "llvm/ADT/StringExtras.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace q2::profiling;

namespace {

double clockSeconds(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

double epochValue() {
  static const double epoch = clockSeconds(CLOCK_MONOTONIC);
  return epoch;
}

// Fix the epoch at load time so "elapsed" means "since the process started
// using the profiler", not "since the first snapshot".
[[maybe_unused]] const double epochInit = epochValue();

std::string procPath(pid_t pid, llvm::StringRef file,
                     llvm::StringRef root = "/proc") {
  if (pid == 0)
    return (root + "/self/" + file).str();
  return (root + "/" + std::to_string(pid) + "/" + file).str();
}

/// Reads a small /proc file into `buf` with plain syscalls (no allocation):
/// status, statm and meminfo are read for every process at every poll of
/// the orchestrator. Returns the length, or -errno.
ssize_t readSmallProcFile(pid_t pid, llvm::StringRef file, llvm::StringRef root,
                          char *buf, size_t cap) {
  char path[512];
  int len = pid == 0 ? std::snprintf(path, sizeof path, "%.*s/self/%.*s",
                                     int(root.size()), root.data(),
                                     int(file.size()), file.data())
                     : std::snprintf(path, sizeof path, "%.*s/%d/%.*s",
                                     int(root.size()), root.data(), int(pid),
                                     int(file.size()), file.data());
  if (len <= 0 || size_t(len) >= sizeof path)
    return -ENAMETOOLONG;
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  size_t total = 0;
  while (total < cap) {
    ssize_t n = ::read(fd, buf + total, cap - total);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return -err;
    }
    if (n == 0)
      break;
    total += size_t(n);
  }
  ::close(fd);
  return ssize_t(total);
}

llvm::Error procError(pid_t pid, llvm::StringRef file, llvm::StringRef root,
                      int err) {
  return llvm::createStringError(std::error_code(err, std::generic_category()),
                                 procPath(pid, file, root) + ": " +
                                     std::strerror(err));
}

// /proc files report size 0, so read until EOF rather than stat-and-read.
llvm::Expected<std::string> readProcFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return llvm::createStringError(
        std::error_code(errno, std::generic_category()),
        path + ": " + std::strerror(errno));
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int err = errno;
      ::close(fd);
      return llvm::createStringError(
          std::error_code(err, std::generic_category()),
          path + ": " + std::strerror(err));
    }
    if (n == 0)
      break;
    out.append(buf, size_t(n));
  }
  ::close(fd);
  return out;
}

// Parses "Key:   1234 kB" lines into key -> bytes; calls `fn` for each.
template <typename Fn> void forEachKBLine(llvm::StringRef text, Fn fn) {
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    auto [key, value] = line.split(':');
    if (value.empty())
      continue;
    value = value.trim();
    bool kB = value.consume_back("kB");
    value = value.trim();
    uint64_t n;
    if (value.getAsInteger(10, n))
      continue; // not numeric (Name:, State:, ranges ...)
    if (!kB)
      continue; // counts like Threads: are not sizes
    fn(key.trim(), n * 1024);
  }
}

} // namespace

double q2::profiling::elapsedSeconds() {
  return clockSeconds(CLOCK_MONOTONIC) - epochValue();
}
double q2::profiling::epochMonotonicSeconds() { return epochValue(); }
double q2::profiling::processCPUSeconds() {
  return clockSeconds(CLOCK_PROCESS_CPUTIME_ID);
}
double q2::profiling::threadCPUSeconds() {
  return clockSeconds(CLOCK_THREAD_CPUTIME_ID);
}

llvm::Expected<ProcStatus> q2::profiling::readProcStatus(pid_t pid,
                                                         llvm::StringRef root) {
  char buf[8192];
  ssize_t n = readSmallProcFile(pid, "status", root, buf, sizeof buf);
  if (n < 0)
    return procError(pid, "status", root, int(-n));
  ProcStatus s;
  bool sawRSS = false;
  forEachKBLine(llvm::StringRef(buf, size_t(n)), [&](llvm::StringRef key,
                                                     uint64_t bytes) {
    if (key == "VmRSS") {
      s.vmRSS = bytes;
      sawRSS = true;
    } else if (key == "VmHWM")
      s.vmHWM = bytes;
    else if (key == "VmPeak")
      s.vmPeak = bytes;
    else if (key == "VmSize")
      s.vmSize = bytes;
    else if (key == "RssAnon")
      s.rssAnon = bytes;
    else if (key == "RssFile")
      s.rssFile = bytes;
  });
  // Zombies and kernel threads have no Vm* lines; say so rather than
  // reporting a zero-byte process.
  if (!sawRSS)
    return llvm::createStringError(procPath(pid, "status", root) +
                                   ": no VmRSS (process exited or has no mm)");
  return s;
}

// At load time, so that parseStatmRSS() needs no guarded static (a signal
// handler calls it).
static const uint64_t kPageSize = uint64_t(sysconf(_SC_PAGESIZE));

std::optional<uint64_t> q2::profiling::parseStatmRSS(llvm::StringRef text) {
  // "size resident shared text lib data dt", in pages.
  llvm::StringRef resident = text.split(' ').second.split(' ').first.trim();
  uint64_t pages;
  if (resident.empty() || resident.getAsInteger(10, pages))
    return std::nullopt;
  return pages * kPageSize;
}

llvm::Expected<uint64_t> q2::profiling::readCurrentRSS(pid_t pid,
                                                       llvm::StringRef root) {
  char buf[256];
  ssize_t n = readSmallProcFile(pid, "statm", root, buf, sizeof buf);
  if (n < 0)
    return procError(pid, "statm", root, int(-n));
  if (std::optional<uint64_t> rss = parseStatmRSS(llvm::StringRef(buf, size_t(n))))
    return *rss;
  return llvm::createStringError(procPath(pid, "statm", root) +
                                 ": unexpected format");
}

llvm::Expected<uint64_t> q2::profiling::readMemAvailable(llvm::StringRef root) {
  char buf[8192];
  std::string path = (root + "/meminfo").str();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return llvm::createStringError(std::error_code(errno, std::generic_category()),
                                   path + ": " + std::strerror(errno));
  ssize_t len = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (len <= 0)
    return llvm::createStringError(path + ": cannot read");
  std::optional<uint64_t> avail;
  forEachKBLine(llvm::StringRef(buf, size_t(len)),
                [&](llvm::StringRef key, uint64_t bytes) {
                  if (key == "MemAvailable")
                    avail = bytes;
                });
  if (!avail)
    return llvm::createStringError(path + ": no MemAvailable line");
  return *avail;
}

RSSReader::RSSReader(pid_t pid) : pid(pid) {
  std::string path = procPath(pid, "statm");
  fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    openErrno = errno;
}

RSSReader::~RSSReader() {
  if (fd >= 0)
    ::close(fd);
}

llvm::Expected<uint64_t> RSSReader::read() const {
  // The path is built only for an error: this runs twice per pass.
  auto error = [&](int err, const llvm::Twine &what) {
    return llvm::createStringError(std::error_code(err, std::generic_category()),
                                   procPath(pid, "statm") + ": " + what);
  };
  if (fd < 0)
    return error(openErrno, std::strerror(openErrno));
  char buf[256];
  ssize_t n;
  do
    n = ::pread(fd, buf, sizeof(buf), 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return error(errno, std::strerror(errno));
  if (n == 0)
    return error(ESRCH, "empty (process exited)");
  if (std::optional<uint64_t> rss = parseStatmRSS(llvm::StringRef(buf, size_t(n))))
    return *rss;
  return error(EINVAL, "unexpected format");
}

llvm::Expected<SmapsRollup> q2::profiling::readSmapsRollup(pid_t pid) {
  auto text = readProcFile(procPath(pid, "smaps_rollup"));
  if (!text)
    return text.takeError();
  SmapsRollup out = parseSmapsRollup(*text);
  if (out.empty())
    return llvm::createStringError(procPath(pid, "smaps_rollup") +
                                   ": no entries (process exited?)");
  return out;
}

SmapsRollup q2::profiling::parseSmapsRollup(llvm::StringRef text) {
  SmapsRollup out;
  forEachKBLine(text, [&](llvm::StringRef key, uint64_t bytes) {
    out[key.str()] = bytes;
  });
  return out;
}

RUsage q2::profiling::readRUsage() {
  RUsage r;
  rusage ru{};
  // ru_maxrss is in kilobytes on Linux.
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    r.maxRSSSelf = uint64_t(ru.ru_maxrss) * 1024;
    r.userS = double(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec * 1e-6;
    r.systemS = double(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec * 1e-6;
  }
  if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
    r.maxRSSChildren = uint64_t(ru.ru_maxrss) * 1024;
  return r;
}

HeapInfo q2::profiling::readHeap() {
  struct mallinfo2 mi = mallinfo2();
  HeapInfo h;
  h.arenaInUse = mi.uordblks;
  h.mmapped = mi.hblkhd;
  h.arenaFree = mi.fordblks;
  h.inUse = h.arenaInUse + h.mmapped;
  return h;
}

// CPU seconds of another process from /proc/<pid>/stat (utime + stime).
static std::optional<double> readOtherCPU(pid_t pid) {
  auto text = readProcFile(procPath(pid, "stat"));
  if (!text) {
    llvm::consumeError(text.takeError());
    return std::nullopt;
  }
  // comm (field 2) may contain spaces and parentheses: skip past the last ')'.
  llvm::StringRef s(*text);
  size_t close = s.rfind(')');
  if (close == llvm::StringRef::npos)
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef, 64> fields;
  s.drop_front(close + 1).trim().split(fields, ' ', -1, false);
  // fields[0] is field 3 (state); utime is field 14, stime field 15.
  uint64_t ut, st;
  if (fields.size() < 13 || fields[11].getAsInteger(10, ut) ||
      fields[12].getAsInteger(10, st))
    return std::nullopt;
  static const double tick = double(sysconf(_SC_CLK_TCK));
  return double(ut + st) / tick;
}

llvm::Expected<MemorySnapshot>
q2::profiling::takeSnapshot(llvm::StringRef label, pid_t pid, bool withSmaps) {
  MemorySnapshot snap;
  snap.label = label.str();
  snap.self = pid == 0 || pid == getpid();
  snap.pid = snap.self ? int(getpid()) : int(pid);
  snap.elapsedS = elapsedSeconds();
  snap.unixTimeS = clockSeconds(CLOCK_REALTIME);
  auto status = readProcStatus(snap.self ? 0 : pid);
  if (!status)
    return status.takeError();
  snap.status = *status;
  if (snap.self) {
    snap.cpuS = processCPUSeconds();
    snap.rusage = readRUsage();
    snap.heap = readHeap();
  } else if (auto cpu = readOtherCPU(pid)) {
    snap.cpuS = *cpu;
  }
  if (withSmaps) {
    auto smaps = readSmapsRollup(snap.self ? 0 : pid);
    if (!smaps)
      return smaps.takeError();
    snap.smaps = std::move(*smaps);
  }
  return snap;
}

bool q2::profiling::resetPeakRSS(pid_t pid, std::string *whyNot) {
  std::string path = procPath(pid, "clear_refs");
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    if (whyNot)
      *whyNot = path + ": " + std::strerror(errno);
    return false;
  }
  ssize_t n;
  do
    n = ::write(fd, "5", 1);
  while (n < 0 && errno == EINTR);
  int err = errno;
  ::close(fd);
  if (n != 1) {
    if (whyNot)
      *whyNot = path + ": write refused: " + std::strerror(err);
    return false;
  }
  return true;
}
