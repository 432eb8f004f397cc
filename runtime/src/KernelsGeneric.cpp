//===- KernelsGeneric.cpp - baseline-ISA kernels ---------------------------===//
#include "Kernels.h"


namespace q2::runtime::generic {
#define Q2_KERNEL_NAME "generic"
#include "KernelsImpl.inc"
} // namespace q2::runtime::generic
