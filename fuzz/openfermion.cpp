// libFuzzer target: the OpenFermion QubitOperator text reader
// (q2::hamiltonian::parseOpenFermionTermsBuffer).
#include "FuzzUtil.h"
#include "q2/Hamiltonian/QubitHamiltonian.h"

using namespace q2::hamiltonian;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  q2::fuzz::discard(parseOpenFermionTermsBuffer(text, "fuzz.txt"));
  return 0;
}
