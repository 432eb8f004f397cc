// libFuzzer target: the qubit-Hamiltonian JSON reader
// (q2::hamiltonian::parseQubitHamiltonianJSONBuffer) and format detection.
#include "FuzzUtil.h"
#include "q2/Hamiltonian/QubitHamiltonian.h"

using namespace q2::hamiltonian;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  (void)detectFormat(text);
  q2::fuzz::discard(parseQubitHamiltonianJSONBuffer(text, "fuzz.json"));
  return 0;
}
