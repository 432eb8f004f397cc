//===- MemoryTest.cpp - Memory layer readers ------------------------------===//

#include "q2/Profiling/Memory.h"
#include "TestUtil.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#include "TestSanitizers.h"

using namespace q2::profiling;
using namespace q2::profiling::test;

namespace {

MemorySnapshot snap(const char *label, pid_t pid = 0, bool smaps = false) {
  auto s = takeSnapshot(label, pid, smaps);
  EXPECT_TRUE(bool(s)) << (s ? "" : llvm::toString(s.takeError()));
  return s ? *s : MemorySnapshot();
}

double delta(uint64_t after, uint64_t before) {
  return double(after) - double(before);
}

TEST(ProfMemory, StatusFieldsAreConsistent) {
  auto st = readProcStatus();
  ASSERT_TRUE(bool(st)) << llvm::toString(st.takeError());
  EXPECT_GT(st->vmRSS, 0u);
  EXPECT_GE(st->vmHWM, st->vmRSS);
  EXPECT_GE(st->vmPeak, st->vmSize);
  EXPECT_GE(st->vmSize, st->vmRSS);
  // statm and status come from the same counters: agree to a few pages.
  auto rss = readCurrentRSS();
  ASSERT_TRUE(bool(rss)) << llvm::toString(rss.takeError());
  EXPECT_NEAR(double(*rss), double(st->vmRSS), 4.0 * MiB);
}

// allocating and touching 200 MB moves RSS and the
// glibc heap by 200 MB +- 10 %.
TEST(ProfMemory, Allocating200MBMovesRSSAndHeap_OneBlock) {
  Q2_SKIP_UNDER_ASAN("heap statistics come from glibc malloc");
  const size_t n = 200 * MiB; // served by mmap: counted in hblkhd
  MemorySnapshot before = snap("before");
  char *p = allocTouched(n);
  ASSERT_NE(p, nullptr);
  MemorySnapshot during = snap("during");
  EXPECT_NEAR(delta(during.status.vmRSS, before.status.vmRSS), double(n),
              0.1 * n);
  EXPECT_NEAR(delta(during.heap.inUse, before.heap.inUse), double(n), 0.1 * n);
  EXPECT_NEAR(delta(during.heap.mmapped, before.heap.mmapped), double(n),
              0.1 * n);
  EXPECT_GE(during.status.vmHWM, during.status.vmRSS);
  EXPECT_GE(during.rusage.maxRSSSelf + 4 * MiB, during.status.vmRSS);
  std::free(p);
  MemorySnapshot after = snap("after");
  // The mmapped block goes back to the kernel on free.
  EXPECT_NEAR(delta(during.status.vmRSS, after.status.vmRSS), double(n),
              0.1 * n);
  EXPECT_NEAR(delta(during.heap.inUse, after.heap.inUse), double(n), 0.1 * n);
  // The peak remembers it.
  EXPECT_GE(after.status.vmHWM + 4 * MiB, during.status.vmRSS);
  EXPECT_GT(after.elapsedS, before.elapsedS);
}

TEST(ProfMemory, Allocating200MBMovesRSSAndHeap_SmallBlocks) {
  Q2_SKIP_UNDER_ASAN("heap statistics come from glibc malloc");
  const size_t chunk = 64 * 1024; // below the mmap threshold: arena (uordblks)
  const size_t n = 200 * MiB;
  MemorySnapshot before = snap("before");
  std::vector<char *> blocks;
  for (size_t i = 0; i < n / chunk; ++i)
    blocks.push_back(allocTouched(chunk, int(i)));
  MemorySnapshot during = snap("during");
  EXPECT_NEAR(delta(during.status.vmRSS, before.status.vmRSS), double(n),
              0.1 * n);
  EXPECT_NEAR(delta(during.heap.inUse, before.heap.inUse), double(n), 0.1 * n);
  EXPECT_NEAR(delta(during.heap.arenaInUse, before.heap.arenaInUse), double(n),
              0.1 * n);
  for (char *b : blocks)
    std::free(b);
  MemorySnapshot after = snap("after");
  EXPECT_NEAR(delta(during.heap.inUse, after.heap.inUse), double(n), 0.1 * n);
}

TEST(ProfMemory, SmapsRollupOfSelf) {
  auto sm = readSmapsRollup();
  ASSERT_TRUE(bool(sm)) << llvm::toString(sm.takeError());
  ASSERT_TRUE(sm->count("Rss"));
  ASSERT_TRUE(sm->count("Pss"));
  ASSERT_TRUE(sm->count("Anonymous"));
  auto st = readProcStatus();
  ASSERT_TRUE(bool(st));
  EXPECT_NEAR(double(sm->at("Rss")), double(st->vmRSS), 8.0 * MiB);
  MemorySnapshot s = snap("with-smaps", 0, true);
  ASSERT_TRUE(s.smaps.has_value());
  EXPECT_TRUE(test::asJSON(s).contains("smaps_rollup"));
}

// Readers take a pid: a child touches 150 MB, the parent reads its /proc.
TEST(ProfMemory, ReadsAnotherProcess) {
  const size_t n = 150 * MiB;
  int ready[2], go[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(go), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    char *p = allocTouched(n);
    char c = p ? 'r' : 'f';
    (void)!write(ready[1], &c, 1);
    (void)!read(go[0], &c, 1);
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'r');

  auto st = readProcStatus(child);
  ASSERT_TRUE(bool(st)) << llvm::toString(st.takeError());
  EXPECT_GE(double(st->vmRSS), 0.9 * n);
  EXPECT_GE(st->vmHWM, st->vmRSS);
  auto self = readProcStatus();
  ASSERT_TRUE(bool(self));
  // It really is the child's view: the parent never touched 150 MB here.
  EXPECT_GT(double(st->rssAnon), double(self->rssAnon) + 0.8 * n);
  auto sm = readSmapsRollup(child);
  ASSERT_TRUE(bool(sm)) << llvm::toString(sm.takeError());
  EXPECT_GE(double(sm->at("Anonymous")), 0.9 * n);
  MemorySnapshot s = snap("child", child);
  EXPECT_FALSE(s.self);
  EXPECT_EQ(s.pid, int(child));
  EXPECT_GE(double(s.status.vmRSS), 0.9 * n);
  EXPECT_FALSE(test::asJSON(s).contains("heap")); // not ours to report

  ASSERT_EQ(write(go[1], "g", 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  for (int fd : {ready[0], ready[1], go[0], go[1]})
    close(fd);
  // Reaped: the children's peak now includes it, and reading it fails
  // with a message naming the file.
  EXPECT_GE(double(readRUsage().maxRSSChildren), 0.9 * n);
  auto gone = readProcStatus(child);
  ASSERT_FALSE(bool(gone));
  std::string msg = llvm::toString(gone.takeError());
  EXPECT_NE(msg.find("/proc/" + std::to_string(child) + "/status"),
            std::string::npos)
      << msg;
}

TEST(ProfMemory, PeakResetLowersHWM) {
  Q2_SKIP_UNDER_ASAN("the quarantine keeps freed memory resident");
  const size_t n = 100 * MiB;
  char *p = allocTouched(n);
  ASSERT_NE(p, nullptr);
  std::free(p); // mmapped: RSS drops, VmHWM keeps the peak
  auto before = readProcStatus();
  ASSERT_TRUE(bool(before));
  ASSERT_GE(double(before->vmHWM), double(before->vmRSS) + 0.9 * n);

  std::string why;
  bool ok = resetPeakRSS(0, &why);
  if (!ok) {
    EXPECT_FALSE(why.empty());
    GTEST_SKIP() << "kernel refused the VmHWM reset: " << why;
  }
  auto after = readProcStatus();
  ASSERT_TRUE(bool(after));
  EXPECT_LT(double(after->vmHWM), double(before->vmHWM) - 0.8 * n);
  EXPECT_LE(double(after->vmHWM), double(after->vmRSS) + 8.0 * MiB);
}

TEST(ProfMemory, PeakResetRefusalIsReported) {
  std::string why;
  // No such process: the reset cannot be done and says why.
  EXPECT_FALSE(resetPeakRSS(0x3ffffff0, &why));
  EXPECT_NE(why.find("clear_refs"), std::string::npos) << why;
}

TEST(ProfMemory, SnapshotJSONHasAllLayers) {
  MemorySnapshot s = snap("json");
  nlohmann::json j = nlohmann::json::parse(test::asJSON(s).dump());
  EXPECT_EQ(j["label"], "json");
  for (const char *k : {"vm_rss_bytes", "vm_hwm_bytes", "vm_peak_bytes"})
    EXPECT_EQ(j["status"][k].get<uint64_t>(), k[3] == 'r'   ? s.status.vmRSS
                                              : k[3] == 'h' ? s.status.vmHWM
                                                            : s.status.vmPeak)
        << k;
  EXPECT_TRUE(j["rusage"].contains("ru_maxrss_self_bytes"));
  EXPECT_TRUE(j["rusage"].contains("ru_maxrss_children_bytes"));
  EXPECT_EQ(j["heap"]["heap_in_use_bytes"].get<uint64_t>(), s.heap.inUse);
  EXPECT_GE(j["cpu_s"].get<double>(), 0.0);
}

TEST(ProfMemory, EpochClocks) {
  double t0 = elapsedSeconds();
  EXPECT_GE(t0, 0.0);
  sleepMs(20);
  EXPECT_GE(elapsedSeconds() - t0, 0.019);
  EXPECT_GT(epochMonotonicSeconds(), 0.0);
}

} // namespace

namespace {
// The one statm parser serves readCurrentRSS, RSSReader and the signal
// handler of the timeline.
TEST(ProfMemory, ParseStatmRSS) {
  const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  EXPECT_EQ(parseStatmRSS("1000 250 30 5 0 400 0\n"), 250 * page);
  EXPECT_EQ(parseStatmRSS("1000 250"), 250 * page);
  EXPECT_EQ(parseStatmRSS(""), std::nullopt);
  EXPECT_EQ(parseStatmRSS("1000"), std::nullopt);
  EXPECT_EQ(parseStatmRSS("1000 x 3"), std::nullopt);
  // Agrees with the live readers.
  RSSReader reader;
  auto viaReader = reader.read();
  ASSERT_TRUE(bool(viaReader)) << llvm::toString(viaReader.takeError());
  auto viaOpen = readCurrentRSS();
  ASSERT_TRUE(bool(viaOpen)) << llvm::toString(viaOpen.takeError());
  EXPECT_NEAR(double(*viaReader), double(*viaOpen), 4.0 * double(1 << 20));
}
} // namespace
