// libFuzzer target: the QPE metadata JSON an object carries in .q2.qpe
// (qpe::fromObjectJSON: parse + QPEMetadata::validate).
#include "FuzzUtil.h"
#include "q2/QPE/QPEMetadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto md = q2::qpe::fromObjectJSON(text, "fuzz.q2.qpe");
  if (!md) {
    llvm::consumeError(md.takeError());
    return 0;
  }
  // Accepted metadata is written and read back unchanged.
  auto again = q2::qpe::fromObjectJSON(q2::qpe::toObjectJSON(*md), "again");
  if (!again) {
    llvm::errs() << llvm::toString(again.takeError()) << "\n";
    __builtin_trap();
  }
  return 0;
}
