// libFuzzer target: the FCIDUMP reader (q2::hamiltonian::parseFCIDumpBuffer),
// then, for what it accepts, the round trip through formatFCIDump.
#include "FuzzUtil.h"
#include "q2/Hamiltonian/FCIDump.h"

using namespace q2::hamiltonian;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto d = parseFCIDumpBuffer(text, "fuzz.FCIDUMP");
  if (!d) {
    llvm::consumeError(d.takeError());
    return 0;
  }
  // What was accepted must be written and read back.
  auto again = parseFCIDumpBuffer(formatFCIDump(*d), "roundtrip.FCIDUMP");
  if (!again) {
    llvm::errs() << llvm::toString(again.takeError()) << "\n";
    __builtin_trap();
  }
  return 0;
}
