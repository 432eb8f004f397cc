//===- SupportTest.cpp - file I/O and JSON helpers ------------------------===//
#include "q2/Support/BuildID.h"
#include "q2/Support/FileIO.h"

#include "q2/Support/JSON.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "UnitTestUtil.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace q2;

namespace {

using q2::test::errorText;
using q2::test::put;
using q2::test::TempDir;
std::vector<std::string> listDir(const TempDir &d) {
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(d.path, ec), end; !ec && it != end;
       it.increment(ec))
    names.push_back(llvm::sys::path::filename(it->path()).str());
  std::sort(names.begin(), names.end());
  return names;
}

/// A pid that is certainly not running: a child that exited and was reaped.
pid_t deadPid() {
  pid_t p = fork();
  if (p == 0)
    _exit(0);
  int st;
  waitpid(p, &st, 0);
  return p;
}

static mode_t currentUmask() {
  mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

TEST(SupportRead, RegularFileAndLimits) {
  TempDir d("q2-sup");
  std::string f = d.file("a.txt");
  put(f, "hello\n");
  auto buf = readInputFile(f);
  ASSERT_TRUE(bool(buf)) << errorText(buf.takeError());
  EXPECT_EQ((*buf)->getBuffer(), "hello\n");
  std::string msg = errorText(readInputFile(f, 3).takeError());
  EXPECT_NE(msg.find("is 6 bytes, above the input limit of 3 bytes"),
            std::string::npos)
      << msg;
  msg = errorText(readInputFile(d.file("missing")).takeError());
  EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
}

TEST(SupportRead, RefusesDirectoriesFifosAndDevices) {
  TempDir d("q2-sup");
  std::string msg = errorText(readInputFile(std::string(d.path)).takeError());
  EXPECT_NE(msg.find("is a directory, not a regular file"), std::string::npos)
      << msg;
  // A FIFO without a writer: refused at once, not a blocking read.
  std::string fifo = d.file("f");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  msg = errorText(readInputFile(fifo).takeError());
  EXPECT_NE(msg.find("is a FIFO"), std::string::npos) << msg;
  msg = errorText(readInputFile("/dev/zero").takeError());
  EXPECT_NE(msg.find("is a character device"), std::string::npos) << msg;
}

TEST(SupportWrite, ReplacesAtomicallyAndKeepsTargetOnError) {
  TempDir d("q2-sup");
  std::string f = d.file("out.txt");
  put(f, "old");
  llvm::Error e = writeFileAtomically(f, [](llvm::raw_ostream &os) {
    os << "partial";
    return llvm::createStringError("writer failed");
  });
  EXPECT_EQ(errorText(std::move(e)), "writer failed");
  auto buf = readInputFile(f);
  ASSERT_TRUE(bool(buf));
  EXPECT_EQ((*buf)->getBuffer(), "old");
  EXPECT_EQ(listDir(d), std::vector<std::string>{"out.txt"});
  ASSERT_FALSE(bool(writeFileAtomically(f, "new")));
  buf = readInputFile(f);
  EXPECT_EQ((*buf)->getBuffer(), "new");
  EXPECT_EQ(listDir(d), std::vector<std::string>{"out.txt"});
}

// An existing file is replaced by exchanging names, not by rename (ext4
// flushes a file renamed over another). What a user sees must be rename's:
// another hard link and an open descriptor keep the old contents, a symlink
// is replaced (its target untouched), the mode is the new file's, and no
// temporary is left behind.
TEST(SupportWrite, ReplacingAFileKeepsRenameSemantics) {
  TempDir d("q2-sup");
  std::string f = d.file("r.json"), hard = d.file("hard.json");
  put(f, "old");
  ASSERT_EQ(::link(f.c_str(), hard.c_str()), 0);
  ASSERT_EQ(::chmod(f.c_str(), 0600), 0);
  int fd = ::open(f.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_FALSE(bool(writeFileAtomically(f, "new")));
  EXPECT_EQ((*readInputFile(f))->getBuffer(), "new");
  EXPECT_EQ((*readInputFile(hard))->getBuffer(), "old");
  char buf[8] = {};
  EXPECT_EQ(::pread(fd, buf, sizeof buf, 0), 3);
  EXPECT_STREQ(buf, "old");
  ::close(fd);
  struct stat a, b;
  ASSERT_EQ(::stat(f.c_str(), &a), 0);
  ASSERT_EQ(::stat(hard.c_str(), &b), 0);
  EXPECT_NE(a.st_ino, b.st_ino);
  EXPECT_EQ(b.st_nlink, 1u);
  EXPECT_EQ(a.st_mode & 0777, 0666u & ~currentUmask());

  std::string target = d.file("target.json"), sym = d.file("sym.json");
  put(target, "kept");
  ASSERT_EQ(::symlink(target.c_str(), sym.c_str()), 0);
  ASSERT_FALSE(bool(writeFileAtomically(sym, "through")));
  struct stat l;
  ASSERT_EQ(::lstat(sym.c_str(), &l), 0);
  EXPECT_TRUE(S_ISREG(l.st_mode));
  EXPECT_EQ((*readInputFile(sym))->getBuffer(), "through");
  EXPECT_EQ((*readInputFile(target))->getBuffer(), "kept");
  EXPECT_EQ(listDir(d), (std::vector<std::string>{"hard.json", "r.json",
                                                  "sym.json", "target.json"}));
}

TEST(SupportWrite, DevicesAreWrittenThroughNotReplaced) {
  ASSERT_FALSE(bool(writeFileAtomically("/dev/null", "x")));
  struct stat st;
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  std::string msg = errorText(writeFileAtomically("/dev/full", "x"));
  EXPECT_NE(msg.find("No space left"), std::string::npos) << msg;
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  TempDir d("q2-sup");
  msg = errorText(writeFileAtomically(std::string(d.path), "x"));
  EXPECT_NE(msg.find("is a directory; refusing to replace it"),
            std::string::npos)
      << msg;
  // A FIFO with no reader is an error, not a hang.
  std::string fifo = d.file("f");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  msg = errorText(writeFileAtomically(fifo, "x"));
  EXPECT_NE(msg.find("is a FIFO with no reader"), std::string::npos) << msg;
}

TEST(SupportWrite, StaleTemporariesOfDeadOwnersAreRemoved) {
  TempDir d("q2-sup");
  std::string target = d.file("r.json");
  std::string dead = target + ".q2tmp-" + std::to_string(deadPid()) + "-7";
  std::string alive = target + ".q2tmp-1-3"; // init never dies
  std::string other = d.file("x.json.q2tmp-1-0");
  for (const std::string &p : {dead, alive, other})
    put(p, "junk");
  EXPECT_TRUE(isTemporaryName(dead));
  EXPECT_FALSE(isTemporaryName("r.json.q2tmp-x-1"));
  ASSERT_FALSE(bool(writeFileAtomically(target, "{}")));
  EXPECT_FALSE(llvm::sys::fs::exists(dead));
  EXPECT_TRUE(llvm::sys::fs::exists(alive));
  EXPECT_TRUE(llvm::sys::fs::exists(other));
}

// Issue 28: under nohup (SIGHUP ignored) or with a handler of the
// program's own, a signal during the write used to delete the temporary
// (LLVM's remove-on-signal), and the write then failed "No such file". The
// process carries on, so must the write; and no temporary is left.
TEST(SupportWrite, IgnoredOrHandledSignalsDoNotLoseTheOutput) {
  TempDir d("q2-sup");
  static volatile sig_atomic_t handled = 0;
  struct sigaction saved;
  ::sigaction(SIGHUP, nullptr, &saved);
  for (bool ignore : {true, false}) {
    struct sigaction sa = {};
    sa.sa_handler = ignore ? SIG_IGN : +[](int) { handled = 1; };
    ::sigaction(SIGHUP, &sa, nullptr);
    std::string target = d.file(ignore ? "ign.json" : "handled.json");
    llvm::Error e = writeFileAtomically(target, [](llvm::raw_ostream &os) {
      os << "{\"a\": ";
      os.flush();
      ::raise(SIGHUP);
      os << "1}";
      return llvm::Error::success();
    });
    EXPECT_FALSE(bool(e)) << errorText(std::move(e));
    auto buf = llvm::MemoryBuffer::getFile(target);
    ASSERT_TRUE(bool(buf)) << target;
    EXPECT_EQ((*buf)->getBuffer(), "{\"a\": 1}");
    for (const std::string &f : listDir(d))
      EXPECT_EQ(f.find("q2tmp"), std::string::npos) << f;
  }
  EXPECT_EQ(handled, 1);
  ::sigaction(SIGHUP, &saved, nullptr);
}

TEST(SupportPaths, OutputsMayNotClobberInputsOrEachOther) {
  TempDir d("q2-sup");
  std::string in = d.file("in.mlir");
  put(in, "x");
  std::string link = d.file("link.mlir");
  ASSERT_EQ(::symlink(in.c_str(), link.c_str()), 0);
  std::string msg = errorText(checkDistinctPaths({{in, "input"}}, {{link, "-o"}}));
  EXPECT_NE(msg.find("-o '" + link + "' would overwrite the input"),
            std::string::npos)
      << msg;
  msg = errorText(checkDistinctPaths({}, {{d.file("a.json"), "--report"},
                                     {d.file("sub/../a.json"), "--trace"}}));
  EXPECT_NE(msg.find("--report and --trace name the same file"),
            std::string::npos)
      << msg;
  EXPECT_FALSE(bool(checkDistinctPaths({{in, "input"}},
                                       {{"/dev/null", "-o"},
                                        {"/dev/null", "--report"},
                                        {"-", "--trace"}})));
}

// Issue 40: files not created yet are compared by their canonical path,
// through symlinked directories and "..", not by spelling.
TEST(SupportPaths, NotYetCreatedFilesAreComparedCanonically) {
  TempDir d("q2-sup");
  ASSERT_FALSE(llvm::sys::fs::create_directories(d.file("real/sub")));
  ASSERT_EQ(::symlink(d.file("real").c_str(), d.file("link").c_str()), 0);
  // A dangling symlink names where its target would be created.
  ASSERT_EQ(::symlink(d.file("real/t.json").c_str(), d.file("dangling").c_str()),
            0);
  auto same = [&](const std::string &a, const std::string &b) {
    return bool(errorText(checkDistinctPaths({}, {{a, "report"}, {b, "trace"}}))
                    .find("name the same file") != std::string::npos);
  };
  EXPECT_TRUE(same(d.file("real/r.json"), d.file("link/r.json")));
  EXPECT_TRUE(same(d.file("real/r.json"), d.file("real/sub/../r.json")));
  EXPECT_TRUE(same(d.file("link/sub/../r.json"), d.file("real/./r.json")));
  EXPECT_TRUE(same(d.file("dangling"), d.file("link/t.json")));
  EXPECT_FALSE(same(d.file("real/r.json"), d.file("real/t.json")));
}

// Issue 40: a host's output (claimed, or open for writing in this process
// as mlir-opt's -o is) is refused to a pass's own outputs.
TEST(SupportPaths, HostOutputsAreRefused) {
  TempDir d("q2-sup");
  std::string open = d.file("open.mlir");
  int fd = ::open(open.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  std::string msg = errorText(checkNotHostOutput(d.file("./open.mlir"), "report"));
  EXPECT_NE(msg.find("is open for writing in this process"), std::string::npos)
      << msg;
  ::close(fd);
  EXPECT_FALSE(bool(checkNotHostOutput(open, "report")));
  // Read-only descriptors are inputs, not outputs.
  fd = ::open(open.c_str(), O_RDONLY);
  EXPECT_FALSE(bool(checkNotHostOutput(open, "report")));
  ::close(fd);
  claimHostOutput(d.file("claimed.mlir"), "-o");
  msg = errorText(checkNotHostOutput(d.file("x/../claimed.mlir"), "trace"));
  EXPECT_NE(msg.find("is the output file of the host (-o '"), std::string::npos)
      << msg;
  EXPECT_FALSE(bool(checkNotHostOutput(d.file("other.mlir"), "trace")));
  EXPECT_FALSE(bool(checkNotHostOutput("-", "trace")));
}

TEST(SupportLock, SecondHolderIsRefusedWithoutWaiting) {
  TempDir d("q2-sup");
  std::string lockPath = d.file(".lock");
  auto first = FileLock::acquire(lockPath, /*wait=*/false, "sweep dir");
  ASSERT_TRUE(bool(first)) << errorText(first.takeError());
  std::string msg =
      errorText(FileLock::acquire(lockPath, /*wait=*/false, "sweep dir").takeError());
  EXPECT_NE(msg.find("sweep dir is in use by another process"),
            std::string::npos)
      << msg;
  EXPECT_TRUE(llvm::sys::fs::exists(lockPath));
  { FileLock released = std::move(*first); }
  // Released: the file is gone, and the lock can be taken again.
  EXPECT_FALSE(llvm::sys::fs::exists(lockPath));
  auto again = FileLock::acquire(lockPath, false);
  EXPECT_TRUE(bool(again)) << errorText(again.takeError());
  FileLock moved(std::move(*again));
  moved = FileLock(std::move(*FileLock::acquire(d.file("other.lock"))));
  EXPECT_FALSE(llvm::sys::fs::exists(lockPath)); // released by the assignment
  EXPECT_TRUE(llvm::sys::fs::exists(d.file("other.lock")));
}

TEST(SupportLock, HoldersOfARemovedFileRetry) {
  // Threads taking and releasing one lock: each acquisition must be
  // exclusive although every release removes the file. A waiter blocked in
  // flock() on the removed file would get it while the next taker creates
  // and locks a new one: acquire() must notice and retry. (The sleep keeps
  // holders inside long enough for such an overlap to be seen.)
  TempDir d("q2-sup");
  std::string lockPath = d.file("x.lock");
  std::atomic<int> inside{0}, overlaps{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        auto l = FileLock::acquire(lockPath);
        ASSERT_TRUE(bool(l)) << errorText(l.takeError());
        if (inside.fetch_add(1) != 0)
          ++overlaps;
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        inside.fetch_sub(1);
      }
    });
  for (std::thread &t : ts)
    t.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_FALSE(llvm::sys::fs::exists(lockPath));
}

TEST(SupportBuildID, IsStableAndNotEmpty) {
  EXPECT_FALSE(buildID().empty());
  EXPECT_NE(buildID(), "unknown");
  EXPECT_EQ(&buildID(), &buildID());
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

enum class Color { Red, Blue };
llvm::StringRef toString(Color c) { return c == Color::Red ? "red" : "blue"; }
std::optional<Color> parseEnum(llvm::StringRef s, Color *) {
  if (s == "red")
    return Color::Red;
  if (s == "blue")
    return Color::Blue;
  return std::nullopt;
}

struct Inner {
  double x = 0;
  std::optional<std::string> note;
};
Q2_JSON_FIELDS(Inner) {
  v("x", r.x);
  v.optional("note", r.note);
}

struct Outer {
  int64_t n = 0;
  uint32_t small = 0;
  Color color = Color::Red;
  std::vector<Inner> items;
  std::map<std::string, uint64_t> counts;
  std::variant<bool, int64_t, double, std::string> any = false;
};
Q2_JSON_FIELDS(Outer) {
  v("n", r.n);
  v("small", r.small);
  v("color", r.color);
  v("items", r.items);
  v("counts", r.counts);
  v("any", r.any);
}

llvm::Expected<Outer> readOuter(llvm::StringRef text) {
  auto v = json::parse(text, "t.json");
  if (!v)
    return v.takeError();
  Outer o;
  if (llvm::Error e = json::fromValue(json::Cursor(*v, "t.json"), o))
    return std::move(e);
  return o;
}

TEST(SupportJSON, RoundTripThroughOneFieldList) {
  Outer o;
  o.n = -3;
  o.small = 7;
  o.color = Color::Blue;
  o.items = {{1.5, "a"}, {-2.25, std::nullopt}};
  o.counts = {{"func", 2}, {"arith", 9}};
  o.any = std::string("text");
  auto text = json::dump(json::toValue(o), -1);
  ASSERT_TRUE(bool(text));
  auto back = readOuter(*text);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  auto again = json::dump(json::toValue(*back), -1);
  EXPECT_EQ(*again, *text);
  EXPECT_EQ(std::get<std::string>(back->any), "text");
  EXPECT_FALSE(back->items[1].note.has_value());
  // Variants keep their JSON type.
  back = readOuter(R"({"n":1,"small":1,"color":"red","items":[],"counts":{},"any":2.5})");
  ASSERT_TRUE(bool(back));
  EXPECT_DOUBLE_EQ(std::get<double>(back->any), 2.5);
}

TEST(SupportJSON, ErrorsNameFileAndKey) {
  auto err = [](llvm::StringRef t) {
    auto o = readOuter(t);
    return o ? std::string() : llvm::toString(o.takeError());
  };
  const char *base = R"("small":1,"color":"red","counts":{},"any":true)";
  EXPECT_EQ(err(std::string(R"({"n":1,"items":[{"x":"no"}],)") + base + "}"),
            "t.json: items[0].x: expected a number, got string");
  EXPECT_EQ(err(std::string(R"({"n":1,"items":[{}],)") + base + "}"),
            "t.json: items[0]: missing \"x\"");
  EXPECT_EQ(err(R"({"n":1,"items":[],"small":-1,"color":"red","counts":{},"any":true})"),
            "t.json: small: expected a non-negative integer");
  EXPECT_EQ(err(R"({"n":1,"items":[],"small":5000000000,"color":"red","counts":{},"any":true})"),
            "t.json: small: integer out of range");
  EXPECT_EQ(err(R"({"n":1,"items":[],"small":1,"color":"green","counts":{},"any":true})"),
            "t.json: color: unknown value 'green'");
  // 1e400 overflows a double: an error, never an exception.
  std::string msg = err(R"({"n":1e400})");
  EXPECT_EQ(msg.rfind("t.json: invalid JSON: ", 0), 0u) << msg;
  msg = err("{\"n\": [1, 2");
  EXPECT_EQ(msg.rfind("t.json: invalid JSON: ", 0), 0u) << msg;
}

TEST(SupportJSON, NonFiniteNumbersAreWrittenAsNullAndReadAsNaN) {
  Inner in{std::nan(""), std::nullopt};
  auto text = json::dump(json::toValue(in), -1);
  ASSERT_TRUE(bool(text));
  EXPECT_EQ(*text, R"({"x":null})");
  auto v = json::parse(*text, "n.json");
  Inner back{1.0, std::nullopt};
  ASSERT_FALSE(bool(json::fromValue(json::Cursor(*v, "n.json"), back)));
  EXPECT_TRUE(std::isnan(back.x));
}

/// A field list that writes one key twice and a temporary of its own.
struct Odd {
  bool finished = true;
  std::string name;
  float f = 0.1f;
  std::vector<std::vector<int>> nested;
  std::map<std::string, Inner> byName;
  q2::json::RawObject raw;
};
Q2_JSON_FIELDS(Odd) {
  v("name", r.name);
  bool unfinished = !r.finished;
  v.unlessDefault("unfinished", unfinished, false);
  if constexpr (std::remove_reference_t<decltype(v)>::reading)
    r.finished = !unfinished;
  v("f", r.f);
  v("nested", r.nested);
  v("by_name", r.byName);
  v("raw", r.raw);
  v.derived("name", std::string("second"));
}

struct Nothing {
  std::vector<Inner> none;
};
Q2_JSON_FIELDS(Nothing) {
  v.when(!r.none.empty(), "none", r.none);
}

/// Four optional members: sixteen key sequences of one record type (the
/// writer keeps the order of a few per type and recomputes the others).
struct Sparse {
  std::optional<int> z, a, m, b;
};
Q2_JSON_FIELDS(Sparse) {
  v.optional("z", r.z);
  v.optional("a", r.a);
  v.optional("m", r.m);
  v.optional("b", r.b);
}

TEST(SupportJSON, StreamingWriterKeepsKeyOrderAcrossKeySequences) {
  std::vector<Sparse> all;
  for (int round = 0; round < 2; ++round)
    for (int mask = 15; mask >= 0; --mask) {
      Sparse s;
      if (mask & 1) s.z = mask;
      if (mask & 2) s.a = mask;
      if (mask & 4) s.m = mask;
      if (mask & 8) s.b = mask;
      all.push_back(s);
    }
  for (int indent : {-1, 2}) {
    auto tree = json::dump(json::toValue(all), indent);
    auto text = json::dumpRecord(all, indent);
    ASSERT_TRUE(bool(tree) && bool(text));
    EXPECT_EQ(*text, *tree);
  }
  EXPECT_EQ(json::dumpRecord(all, -1)->substr(0, 29),
            R"([{"a":15,"b":15,"m":15,"z":15)");
}

TEST(SupportJSON, StreamingWriterPrintsWhatTheTreePrints) {
  // nlohmann's dump of toValue() is the reference: the same bytes for
  // every indent, key order, escape and number format.
  Outer o;
  o.n = std::numeric_limits<int64_t>::min();
  o.small = 4000000000u;
  o.color = Color::Blue;
  o.items = {{1.5, "a\"q\\\b\f\n\r\t\x01\x1f\x7f e\xcc\x81 \xe2\x82\xac"},
             {-2.25e-7, std::nullopt},
             {1e300, ""},
             {std::nan(""), std::nullopt},
             {-std::numeric_limits<double>::infinity(), "x"},
             {0.1 + 0.2, "y"},
             {-0.0, "z"},
             {123456789012345678.0, std::nullopt},
             {5e-324, std::nullopt}};
  o.counts = {{"func", 2}, {"arith", 9}, {"Z", 0}, {"\xc3\xa9", 1}, {"", 3}};
  o.any = 2.5;
  Outer empty;
  empty.any = std::string("");
  Odd odd;
  odd.finished = false;
  odd.nested = {{}, {1, -2}, {}};
  odd.byName = {{"b", {1, std::nullopt}}, {"a", {2, "n"}}};
  odd.raw.text = R"({"b":[1,{"c":2}],"a":"\u00e9","e":{}})";
  Odd plain;
  plain.raw.text = "not json";
  for (int indent : {-1, 0, 2, 4}) {
    SCOPED_TRACE(indent);
    auto check = [&](const auto &r) {
      auto tree = json::dump(json::toValue(r), indent);
      auto text = json::dumpRecord(r, indent);
      ASSERT_TRUE(bool(tree)) << llvm::toString(tree.takeError());
      ASSERT_TRUE(bool(text)) << llvm::toString(text.takeError());
      EXPECT_EQ(*text, *tree);
    };
    check(o);
    check(empty);
    check(odd);
    check(plain);
    check(Inner{});
    check(Nothing{}); // {}
    check(std::vector<Nothing>(2));
    Nothing some;
    some.none = {{1, std::nullopt}, {2, std::nullopt}};
    check(std::vector<Nothing>{Nothing{}, some, Nothing{}, some});
  }
  // The second "name" wins, as the second j[key] = ... does.
  EXPECT_NE(json::dumpRecord(odd, -1)->find(R"("name":"second")"),
            std::string::npos);
}

TEST(SupportJSON, StreamingWriterRefusesStringsThatAreNotUTF8) {
  for (const char *bad : {"\xff", "ab\xc3", "\xed\xa0\x80" /* surrogate */,
                          "\xc0\xaf" /* overlong */}) {
    Inner in{1.0, std::string(bad)};
    auto tree = json::dump(json::toValue(in), 2);
    auto text = json::dumpRecord(in, 2);
    EXPECT_FALSE(bool(tree)) << bad;
    ASSERT_FALSE(bool(text)) << bad;
    EXPECT_NE(llvm::toString(text.takeError()).find("not UTF-8"),
              std::string::npos);
    llvm::consumeError(tree.takeError());
  }
  TempDir dir;
  std::string f = dir.file("bad.json");
  Inner in{1.0, std::string("\xff")};
  llvm::Error e = json::writeRecordFile(f, in);
  ASSERT_TRUE(bool(e));
  EXPECT_EQ(llvm::toString(std::move(e)).rfind(f + ": cannot serialize", 0), 0u);
  EXPECT_FALSE(llvm::sys::fs::exists(f)); // nothing half-written
}

} // namespace
