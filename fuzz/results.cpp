// libFuzzer target: the q2-profile record readers (a sweep point's
// result.json: orch::readPointRecord; a measure record:
// readMeasureRecord), and the summary writers over what they accept.
#include "FuzzUtil.h"
#include "q2/Orchestrator/Measure.h"
#include "q2/Orchestrator/Sweep.h"

using namespace q2::orch;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = q2::fuzz::scratchPath("results");
  if (!q2::fuzz::writeScratch(path, data, size))
    return 0;
  auto point = readPointRecord(path);
  if (point) {
    std::vector<PointRecord> all{*point};
    (void)summaryCsv(all);
    (void)summaryTable(all);
    (void)toJSONText(*point);
  } else {
    llvm::consumeError(point.takeError());
  }
  q2::fuzz::discard(readMeasureRecord(path));
  return 0;
}
