//===- FileIO.cpp - Bounded reads, safe atomic writes ---------------------===//
#include "q2/Support/FileIO.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <vector>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace {

constexpr StringLiteral kTempTag = ".q2tmp-";

Error fileError(StringRef path, const Twine &what) {
  return createStringError("'" + path + "': " + what);
}

Error errnoError(StringRef path, const Twine &action, int err) {
  return createStringError(std::error_code(err, std::generic_category()),
                           action + " '" + path + "': " + std::strerror(err));
}

const char *kindOf(mode_t m) {
  if (S_ISDIR(m))
    return "a directory";
  if (S_ISFIFO(m))
    return "a FIFO";
  if (S_ISSOCK(m))
    return "a socket";
  if (S_ISCHR(m))
    return "a character device";
  if (S_ISBLK(m))
    return "a block device";
  return "not a regular file";
}

/// Reads at most `maxBytes` from `fd` until EOF (for stdin).
Expected<std::unique_ptr<MemoryBuffer>> readStream(int fd, StringRef name,
                                                   uint64_t maxBytes) {
  std::string data;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return errnoError(name, "cannot read", errno);
    }
    if (n == 0)
      break;
    if (data.size() + uint64_t(n) > maxBytes)
      return fileError(name, formatv("more than {0} bytes (the input limit)",
                                     maxBytes));
    data.append(buf, size_t(n));
  }
  return MemoryBuffer::getMemBufferCopy(data, name);
}

bool processAlive(long pid) {
  return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno != ESRCH);
}

std::string tempNameFor(StringRef path) {
  static std::atomic<unsigned> counter{0};
  return formatv("{0}{1}{2}-{3}", path, kTempTag, ::getpid(), counter++).str();
}

/// Writes through an existing character device or FIFO.
Error writeThrough(StringRef path, bool fifo,
                   function_ref<Error(raw_ostream &)> write) {
  SmallString<256> p(path);
  int flags = O_WRONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0);
  int fd = ::open(p.c_str(), flags);
  if (fd < 0) {
    if (fifo && errno == ENXIO)
      return fileError(path, "is a FIFO with no reader");
    return errnoError(path, "cannot open", errno);
  }
  if (fifo)
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  raw_fd_ostream os(fd, /*shouldClose=*/true);
  Error e = write(os);
  os.flush();
  if (e) {
    os.clear_error();
    return e;
  }
  if (std::error_code ec = os.error()) {
    os.clear_error();
    return createStringError(ec, "cannot write '" + path + "': " + ec.message());
  }
  return Error::success();
}

} // namespace

Expected<std::unique_ptr<MemoryBuffer>>
q2::readInputFile(StringRef path, uint64_t maxBytes) {
  if (path == "-")
    return readStream(STDIN_FILENO, "<stdin>", maxBytes);
  SmallString<256> p(path);
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return errnoError(path, "cannot read", errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return errnoError(path, "cannot read", err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fileError(path, Twine("is ") + kindOf(st.st_mode) +
                               ", not a regular file");
  }
  if (uint64_t(st.st_size) > maxBytes) {
    ::close(fd);
    return fileError(path, formatv("is {0} bytes, above the input limit of "
                                   "{1} bytes",
                                   uint64_t(st.st_size), maxBytes));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  auto buf = MemoryBuffer::getOpenFile(sys::fs::convertFDToNativeFile(fd), path,
                                       uint64_t(st.st_size));
  ::close(fd);
  if (!buf)
    return createStringError(buf.getError(), "cannot read '" + path +
                                                 "': " + buf.getError().message());
  return std::move(*buf);
}

bool q2::isTemporaryName(StringRef name) {
  size_t at = name.rfind(kTempTag);
  if (at == StringRef::npos)
    return false;
  StringRef rest = name.drop_front(at + kTempTag.size());
  auto [pid, n] = rest.split('-');
  unsigned long long x;
  return !pid.getAsInteger(10, x) && !n.getAsInteger(10, x);
}

unsigned q2::removeStaleTemporaries(StringRef target) {
  SmallString<256> dir(sys::path::parent_path(target));
  if (dir.empty())
    dir = ".";
  std::string prefix = (sys::path::filename(target) + kTempTag).str();
  unsigned removed = 0;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    if (!name.starts_with(prefix) || !isTemporaryName(name))
      continue;
    long pid = 0;
    if (name.drop_front(prefix.size()).split('-').first.getAsInteger(10, pid))
      continue;
    if (pid == ::getpid() || processAlive(pid))
      continue;
    if (!sys::fs::remove(it->path()))
      ++removed;
  }
  return removed;
}

/// Puts the complete temporary `tmp` in place of an existing `target` by
/// exchanging the two names, then removes the old file. Why not rename: ext4
/// starts writing back a file renamed over another before rename returns
/// (auto_da_alloc), 0.4-2 ms for a 160 KB report on this machine, on every
/// profiled run; after an exchange the data is written back later, as for
/// any new file. Readers see the old file or the new one, as with rename; a
/// process killed in between leaves the old file under a temporary name of a
/// dead pid, which the next write removes. False when the names were not
/// exchanged (no target, or a file system without RENAME_EXCHANGE): the
/// caller renames.
static bool replaceByExchange(const std::string &tmp, const char *target) {
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target,
                  RENAME_EXCHANGE) != 0)
    return false;
  if (::unlink(tmp.c_str()) != 0 && errno == EISDIR) {
    // The target became a directory after it was checked: put it back and
    // let rename refuse, as it would have.
    ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target, RENAME_EXCHANGE);
    return false;
  }
  return true;
}

Error q2::writeFileAtomically(StringRef path,
                              function_ref<Error(raw_ostream &)> write) {
  if (path.empty())
    return createStringError("no output path given");
  if (path == "-") {
    Error e = write(outs());
    outs().flush();
    return e;
  }
  SmallString<256> p(path);
  struct stat st;
  if (::stat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
      return writeThrough(path, S_ISFIFO(st.st_mode), write);
    return fileError(path, Twine("is ") + kindOf(st.st_mode) +
                               "; refusing to replace it");
  }
  removeStaleTemporaries(path);
  std::string tmp = tempNameFor(path);
  // Preferably the data goes into an unnamed file (O_TMPFILE) that gets a
  // name only when complete: a signal that kills the process leaves nothing
  // behind, and one that is ignored or handled (nohup's SIGHUP) removes
  // nothing either. LLVM's remove-on-signal, the fallback where O_TMPFILE
  // is unsupported, deletes the file on any such signal even when the
  // process carries on.
  SmallString<256> dir(sys::path::parent_path(p));
  if (dir.empty())
    dir = ".";
  bool unnamed = true;
  int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd >= 0 && ::access("/proc/self/fd", X_OK) != 0) {
    ::close(fd);
    fd = -1;
  }
  if (fd < 0) {
    unnamed = false;
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
      return errnoError(path, "cannot write", errno);
    sys::RemoveFileOnSignal(tmp);
  }
  auto discard = [&] {
    if (unnamed)
      return;
    sys::fs::remove(tmp);
    sys::DontRemoveFileOnSignal(tmp);
  };
  Error e = Error::success();
  std::error_code ec;
  {
    raw_fd_ostream os(fd, /*shouldClose=*/!unnamed);
    e = write(os);
    os.flush();
    if (unnamed && !e && !os.has_error()) {
      // The complete file gets its temporary name, then the real one.
      std::string self = "/proc/self/fd/" + std::to_string(fd);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmp.c_str(),
                   AT_SYMLINK_FOLLOW) != 0)
        ec = std::error_code(errno, std::generic_category());
    }
    if (!unnamed)
      os.close();
    if (!ec)
      ec = os.error();
    os.clear_error();
  }
  if (unnamed)
    ::close(fd);
  if (e) {
    discard();
    return e;
  }
  if (ec) {
    if (unnamed)
      sys::fs::remove(tmp);
    discard();
    return createStringError(ec, "cannot write '" + path + "': " + ec.message());
  }
  if (!replaceByExchange(tmp, p.c_str()) && ::rename(tmp.c_str(), p.c_str()) != 0) {
    int err = errno;
    if (unnamed)
      sys::fs::remove(tmp);
    discard();
    return errnoError(path, "cannot write", err);
  }
  if (!unnamed)
    sys::DontRemoveFileOnSignal(tmp);
  return Error::success();
}

Error q2::writeFileAtomically(StringRef path, StringRef contents) {
  return writeFileAtomically(path, [&](raw_ostream &os) {
    os << contents;
    return Error::success();
  });
}

Error q2::checkOutputPath(StringRef path, StringRef flag) {
  if (path.empty() || path == "-")
    return Error::success();
  SmallString<256> p(path);
  struct stat st;
  if (::stat(p.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
      return Error::success(); // written through
    if (!S_ISREG(st.st_mode))
      return createStringError(flag + " '" + path + "' is " +
                               kindOf(st.st_mode));
  }
  SmallString<256> dir(sys::path::parent_path(path));
  if (dir.empty())
    dir = ".";
  if (!sys::fs::is_directory(dir) ||
      sys::fs::access(dir, sys::fs::AccessMode::Write))
    return createStringError(flag + " '" + path +
                             "' cannot be written (directory '" + dir +
                             "' is missing or not writable)");
  return Error::success();
}

namespace {
/// The canonical absolute form of a path that may not exist yet, as the
/// kernel would resolve it when the file is created: component by
/// component, following symlinks (a dangling one to where its target would
/// be) and applying ".." to what the path resolved to so far.
std::string canonicalPath(StringRef path, unsigned linksLeft = 32) {
  SmallString<256> p(path);
  sys::fs::make_absolute(p);
  SmallString<256> cur("/");
  for (auto it = sys::path::begin(p), end = sys::path::end(p); it != end;
       ++it) {
    StringRef c = *it;
    if (c == "/" || c == ".")
      continue;
    if (c == "..") {
      StringRef parent = sys::path::parent_path(cur);
      cur = parent.empty() ? StringRef("/") : parent;
      continue;
    }
    SmallString<256> next(cur);
    sys::path::append(next, c);
    struct stat st;
    if (linksLeft && ::lstat(next.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      char target[4096];
      ssize_t n = ::readlink(next.c_str(), target, sizeof target - 1);
      if (n > 0) {
        SmallString<256> t(StringRef(target, size_t(n)));
        if (sys::path::is_relative(t)) {
          SmallString<256> base(cur);
          sys::path::append(base, t);
          t = base;
        }
        cur = canonicalPath(t, --linksLeft);
        continue;
      }
    }
    cur = next;
  }
  return std::string(cur);
}

/// Identity of a path for clash checks: device/inode when it exists, else
/// its canonical path (so `r.json`, `./r.json`, `d/../r.json` and a path
/// through a symlinked directory are one file). Character devices have none
/// (empty).
std::string fileIdentity(StringRef path) {
  SmallString<256> p(path);
  struct stat st;
  if (::stat(p.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode))
      return "";
    return formatv("inode:{0}:{1}", uint64_t(st.st_dev), uint64_t(st.st_ino));
  }
  return "path:" + canonicalPath(path);
}

/// Outputs the host process will write after its passes ran.
struct HostOutputs {
  std::mutex lock;
  std::vector<q2::NamedPath> paths;
};
HostOutputs &hostOutputs() {
  static HostOutputs h;
  return h;
}
} // namespace

void q2::claimHostOutput(StringRef path, StringRef flag) {
  if (path.empty() || path == "-")
    return;
  HostOutputs &h = hostOutputs();
  std::lock_guard<std::mutex> g(h.lock);
  h.paths.push_back({path.str(), flag.str()});
}

Error q2::checkNotHostOutput(StringRef path, StringRef flag) {
  if (path.empty() || path == "-")
    return Error::success();
  std::string id = fileIdentity(path);
  if (id.empty())
    return Error::success();
  {
    HostOutputs &h = hostOutputs();
    std::lock_guard<std::mutex> g(h.lock);
    for (const NamedPath &out : h.paths)
      if (fileIdentity(out.path) == id)
        return createStringError(flag + " '" + path +
                                 "' is the output file of the host (" +
                                 out.flag + " '" + out.path +
                                 "'); writing both would lose one");
  }
  // A host that opened its output before running passes (mlir-opt's -o is
  // an llvm::ToolOutputFile, open while the passes run): any descriptor of
  // this process open for writing on the same file.
  std::error_code ec;
  for (sys::fs::directory_iterator it("/proc/self/fd", ec), end;
       it != end && !ec; it.increment(ec)) {
    StringRef fd = sys::path::filename(it->path());
    struct stat st;
    if (::stat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        formatv("inode:{0}:{1}", uint64_t(st.st_dev), uint64_t(st.st_ino))
                .str() != id)
      continue;
    // (/proc files report size 0: read them as streams.)
    auto info = MemoryBuffer::getFileAsStream(("/proc/self/fdinfo/" + fd).str());
    if (!info)
      continue;
    StringRef text = (*info)->getBuffer();
    size_t at = text.find("flags:");
    unsigned flags = 0;
    if (at == StringRef::npos ||
        text.drop_front(at + 6).trim().split('\n').first.getAsInteger(8, flags))
      continue;
    if ((flags & O_ACCMODE) != O_RDONLY)
      return createStringError(
          flag + " '" + path +
          "' is open for writing in this process (the host's output file, "
          "e.g. mlir-opt's -o); writing both would lose one");
  }
  return Error::success();
}

Error q2::checkDistinctPaths(ArrayRef<NamedPath> inputs,
                             ArrayRef<NamedPath> outputs) {
  auto skip = [](const NamedPath &n) { return n.path.empty() || n.path == "-"; };
  std::vector<std::string> outIds;
  for (const NamedPath &out : outputs) {
    std::string id = skip(out) ? "" : fileIdentity(out.path);
    outIds.push_back(id);
    if (id.empty())
      continue;
    for (const NamedPath &in : inputs)
      if (!skip(in) && fileIdentity(in.path) == id)
        return createStringError(out.flag + " '" + out.path +
                                 "' would overwrite the " + in.flag + " '" +
                                 in.path + "'");
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (!outIds[i].empty() && outIds[i] == outIds[j])
        return createStringError(outputs[j].flag + " and " + outputs[i].flag +
                                 " name the same file '" + outputs[i].path +
                                 "'");
  return Error::success();
}

Expected<q2::FileLock> q2::FileLock::acquire(StringRef lockPath, bool wait,
                                             StringRef what) {
  SmallString<256> p(lockPath);
  for (;;) {
    int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
      return errnoError(lockPath, "cannot create lock", errno);
    int rc;
    do
      rc = ::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB));
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK)
        return createStringError(
            (what.empty() ? Twine("'") + lockPath + "'" : Twine(what)) +
            " is in use by another process (lock '" + lockPath + "')");
      return errnoError(lockPath, "cannot lock", err);
    }
    // The previous holder may have removed the file between our open and
    // our flock: then we hold a lock on a file nobody else will open.
    struct stat held, named;
    if (::fstat(fd, &held) == 0 && ::stat(p.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino)
      return FileLock(fd, std::string(p));
    ::close(fd);
  }
}

void q2::FileLock::release() {
  if (fd < 0)
    return;
  // Unlink while still holding the lock (see acquire()), then unlock.
  ::unlink(path.c_str());
  ::close(fd);
  fd = -1;
}

q2::FileLock &q2::FileLock::operator=(FileLock &&other) noexcept {
  if (this != &other) {
    release();
    fd = other.fd;
    path = std::move(other.path);
    other.fd = -1;
  }
  return *this;
}

q2::FileLock::~FileLock() { release(); }
