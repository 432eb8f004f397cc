//===- ProfilePass.h - q2-profile: profile any pass pipeline ----*- C++ -*-===//
//
// `q2-profile{pipeline="P" report=r.json trace=t.json}` runs the textual
// pipeline P on the module (any upstream or q2 passes; nested pipelines such
// as func.func(...) included) and records what q2-opt's --profile-passes
// records: each top-level element of P is a stage (wall/CPU, RSS, kernel
// peak after a VmHWM reset, heap, IR after), every pass execution inside it
// a pass record (wall/CPU, RSS before/after, IR after). The module it leaves
// is the module P alone leaves. Prints a pass tree like --mlir-timing's
// (table=, by default to stderr), writes a q2.profile/3 report
// (docs/report.md) and/or a Chrome/Perfetto trace; docs/compare.md.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PROFILING_MLIR_PROFILEPASS_H
#define Q2_PROFILING_MLIR_PROFILEPASS_H

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace mlir {
class Pass;
} // namespace mlir

namespace q2::profiling {

struct ProfilePassOptions {
  /// Passes on builtin.module: "canonicalize,func.func(cse)" or
  /// "builtin.module(canonicalize,func.func(cse))".
  std::string pipeline;
  std::string report; ///< q2.profile/3 report to write, or ""
  std::string trace;  ///< Chrome trace to write, or ""
  /// The pass tree as text: a file, "-" for stderr, or "" (then stderr only
  /// when neither report nor trace is written).
  std::string table;
  /// IR bytes/lines/ops of the module before the pipeline and after every
  /// top-level element, and of the op each pass ran on after it (printing
  /// costs time); false records time and memory only.
  bool irMetrics = true;
};

std::unique_ptr<mlir::Pass> createProfilePass(ProfilePassOptions options);

/// Registers `q2-profile` (idempotent).
void registerProfilePass();

} // namespace q2::profiling

#endif // Q2_PROFILING_MLIR_PROFILEPASS_H
