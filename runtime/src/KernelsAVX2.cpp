//===- KernelsAVX2.cpp - AVX2+FMA kernels ----------------------------------===//
// Built with -mavx2 -mfma when the compiler supports them (see CMakeLists);
// only called after a CPUID check, see Kernels.cpp. No std:: templates in
// KernelsImpl.inc: an out-of-line copy compiled with AVX2 could be picked by
// the linker for baseline code (ODR), and fault on CPUs without AVX2.
#include "Kernels.h"


#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace q2::runtime::avx2 {
#define Q2_KERNEL_NAME "avx2"
#include "KernelsImpl.inc"
} // namespace q2::runtime::avx2
