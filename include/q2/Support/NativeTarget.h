//===- NativeTarget.h - The host target, set up once ------------*- C++ -*-===//
#ifndef Q2_SUPPORT_NATIVETARGET_H
#define Q2_SUPPORT_NATIVETARGET_H

#include "llvm/Support/Error.h"

#include <memory>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace q2 {

/// Registers the host target and its asm printer (once per process).
void initializeNativeTarget();

/// A TargetMachine for the host CPU (PIC, code generation at -O`optLevel`).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostTargetMachine(unsigned optLevel);

} // namespace q2

#endif // Q2_SUPPORT_NATIVETARGET_H
