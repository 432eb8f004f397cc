// libFuzzer target: the profile report readers (q2.profile/3 and /2 reports and
// q2.snapshots/1 files: profiling::readReport, readSnapshotFile).
#include "FuzzUtil.h"
#include "q2/Profiling/Report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = q2::fuzz::scratchPath("report");
  if (!q2::fuzz::writeScratch(path, data, size))
    return 0;
  auto report = q2::profiling::readReport(path);
  if (report) {
    // What a reader accepted is used: the derived figures and the tables.
    (void)report->compileSeconds();
    (void)report->compilePeakRSS();
    (void)q2::profiling::formatStageTable(report->phaseB.stages);
    (void)q2::profiling::formatPassTable(report->phaseB.passes);
  } else {
    llvm::consumeError(report.takeError());
  }
  q2::fuzz::discard(q2::profiling::readSnapshotFile(path));
  return 0;
}
