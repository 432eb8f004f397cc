//===- FileIO.h - Bounded reads, safe atomic writes -------------*- C++ -*-===//
//
// The one place where q2 tools read whole input files and write outputs.
//
// Reading: only regular files (or "-" for stdin) are read; directories,
// FIFOs, sockets and devices are refused before any read, so a FIFO or
// /dev/zero given as input is an error instead of a read that blocks or
// never ends. A size limit bounds what is read.
//
// Writing: a regular file is replaced atomically (temporary file in the same
// directory, then rename; an existing file is swapped with it by
// renameat2(RENAME_EXCHANGE) and removed, which ext4 does not flush), so an
// interrupted run leaves the old file or none.
// Temporary names carry the owner's pid ("<name>.q2tmp-<pid>-<n>") so that a
// later write to the same target removes temporaries whose owner died (e.g.
// by SIGKILL). An existing character device or FIFO is written through (it
// is never replaced by a regular file, even as root); directories, sockets
// and block devices are refused.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_SUPPORT_FILEIO_H
#define Q2_SUPPORT_FILEIO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>

namespace q2 {

/// Default limit of readInputFile: 1 GiB.
inline constexpr uint64_t kDefaultMaxInputBytes = uint64_t(1) << 30;

/// Reads all of `path` ("-" = stdin). Errors (one line, naming the file):
/// missing, not a regular file, larger than `maxBytes`, unreadable.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(llvm::StringRef path, uint64_t maxBytes = kDefaultMaxInputBytes);

/// Writes what `write` produces to `path` ("-" = stdout) as described in the
/// file comment. An error returned by `write` (or a write error) leaves the
/// target untouched. The message names the path.
llvm::Error
writeFileAtomically(llvm::StringRef path,
                    llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);
/// Convenience: writes `contents`.
llvm::Error writeFileAtomically(llvm::StringRef path,
                                llvm::StringRef contents);

/// Refuses, before anything is written, an output that cannot be created:
/// "-" is fine; an existing directory, socket or block device, or a missing
/// or unwritable parent directory is an error naming `flag`.
llvm::Error checkOutputPath(llvm::StringRef path, llvm::StringRef flag);

/// One path of a run and the flag that named it ("-o", "--report", "input").
struct NamedPath {
  std::string path;
  std::string flag;
};

/// Refuses a run whose outputs clobber one of its inputs or each other: two
/// paths are the same when they name the same existing file (device and
/// inode) or, for files not created yet, the same canonical path (symlinks
/// and ".." resolved). "-" and empty paths are ignored, and so
/// are character devices (writing /dev/null twice is fine).
llvm::Error checkDistinctPaths(llvm::ArrayRef<NamedPath> inputs,
                               llvm::ArrayRef<NamedPath> outputs);

/// Claims, for the rest of the process, an output the host will write after
/// the passes ran (q2-opt's -o in mlir-opt mode): passes that write files of
/// their own (q2-profile's report=) refuse it through checkNotHostOutput.
void claimHostOutput(llvm::StringRef path, llvm::StringRef flag);
/// Refuses `path` (naming `flag`) when it is the same file as a claimed host
/// output, or a file this process holds open for writing (stock mlir-opt
/// opens its -o before the passes run).
llvm::Error checkNotHostOutput(llvm::StringRef path, llvm::StringRef flag);

/// Removes temporaries "<name>.q2tmp-<pid>-*" of `target` whose owner process
/// no longer exists. Returns how many were removed. writeFileAtomically does
/// this itself; exposed for directories written by other means.
unsigned removeStaleTemporaries(llvm::StringRef target);

/// Whether `name` is a temporary made by writeFileAtomically.
bool isTemporaryName(llvm::StringRef name);

/// An exclusive advisory lock (flock) on `lockPath`, which is created if
/// missing and removed again on release (destruction); the kernel releases
/// it when the process dies, so a killed holder never leaves it stuck, only
/// an unlocked file that the next holder takes over and removes. Removal is
/// safe: a holder unlinks before unlocking, and acquire() retries when the
/// file it locked is no longer the one at `lockPath`.
class FileLock {
public:
  /// `wait` false: fail at once (naming `what`) when another holder has it.
  static llvm::Expected<FileLock> acquire(llvm::StringRef lockPath,
                                          bool wait = true,
                                          llvm::StringRef what = "");
  FileLock(FileLock &&other) noexcept
      : fd(other.fd), path(std::move(other.path)) {
    other.fd = -1;
  }
  FileLock &operator=(FileLock &&other) noexcept;
  ~FileLock();

private:
  FileLock(int fd, std::string path) : fd(fd), path(std::move(path)) {}
  void release();
  int fd = -1;
  std::string path;
};

} // namespace q2

#endif // Q2_SUPPORT_FILEIO_H
