//===- FuzzUtil.h - helpers shared by the libFuzzer targets -----*- C++ -*-===//
//
// The readers under fuzz take a path (they read through q2::readInputFile,
// which refuses anything but a regular file), so a target writes each input
// to one scratch file per process and hands the reader its path. The file
// lives in $TMPDIR (/dev/shm when it exists: no disk traffic).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_FUZZ_FUZZUTIL_H
#define Q2_FUZZ_FUZZUTIL_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace q2::fuzz {

/// The scratch path of this process for `tag` (created on first use).
inline const std::string &scratchPath(const char *tag) {
  static std::string path = [&] {
    const char *dir = std::getenv("TMPDIR");
    std::string d = dir && *dir ? dir : (access("/dev/shm", W_OK) == 0
                                             ? "/dev/shm"
                                             : "/tmp");
    return d + "/q2fuzz-" + tag + "-" + std::to_string(getpid());
  }();
  return path;
}

/// Writes the input to the scratch file; false if that failed (the input is
/// then skipped, never reported as a crash).
inline bool writeScratch(const std::string &path, const uint8_t *data,
                         size_t size) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return false;
  bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

/// Consumes an Expected's error or value: a reader may refuse any input, it
/// must only never crash, leak, throw or read out of bounds.
template <class T> void discard(llvm::Expected<T> v) {
  if (!v)
    llvm::consumeError(v.takeError());
}
inline void discard(llvm::Error e) { llvm::consumeError(std::move(e)); }

} // namespace q2::fuzz

#endif // Q2_FUZZ_FUZZUTIL_H
