//===- Q2Plugin.cpp - mlir-opt dialect + pass plugin ----------------------===//
//
// Usage (both entry points live in the same module):
//   mlir-opt-22 --load-dialect-plugin=Q2Plugin.so --load-pass-plugin=Q2Plugin.so
//               --pass-pipeline='builtin.module(quantum-cancel-inverses)'
//
//===----------------------------------------------------------------------===//
#include "q2/InitQ2.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ABI DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Q2Quantum", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            // A host that already has a "quantum" dialect (q2-opt itself)
            // would abort on a second registration under another TypeID.
            if (!registry->getDialectAllocator("quantum"))
              q2::registerQuantumDialect(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ABI PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Q2Passes", LLVM_VERSION_STRING,
          []() { q2::registerQ2PassesOnce(); }};
}
