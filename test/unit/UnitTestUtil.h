//===- UnitTestUtil.h - helpers shared by the unit tests --------*- C++ -*-===//
//
// A scratch directory, file contents in and out, and the text of an error:
// the helpers every test area wrote for itself before.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_TEST_UNIT_UNITTESTUTIL_H
#define Q2_TEST_UNIT_UNITTESTUTIL_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>

namespace q2::test {

/// A fresh directory under the system temp dir, removed with its contents
/// at destruction.
struct TempDir {
  std::string path;
  explicit TempDir(llvm::StringRef prefix = "q2-test") {
    llvm::SmallString<128> p;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory(prefix, p))
        << "cannot create a temp dir";
    path = std::string(p);
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  /// The path of `name` inside the directory.
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> p(path);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }
  /// Writes `contents` to `name` inside the directory; its path.
  std::string write(llvm::StringRef name, llvm::StringRef contents) const {
    std::string f = file(name);
    std::ofstream(f, std::ios::binary) << contents.str();
    return f;
  }
};

/// Writes `contents` to `path` (replacing it).
inline void put(const std::string &path, llvm::StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec) << path << ": " << ec.message();
  os << contents;
}

/// The whole file ("" when it cannot be read).
inline std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The message of an error (consuming it).
inline std::string errorText(llvm::Error e) {
  return llvm::toString(std::move(e));
}

/// `s` as a gtest parameter name: anything but letters and digits becomes
/// '_' (molecule names such as "h3o+_4e4o").
inline std::string testName(llvm::StringRef s) {
  std::string n = s.str();
  for (char &c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return n;
}

} // namespace q2::test

#endif // Q2_TEST_UNIT_UNITTESTUTIL_H
