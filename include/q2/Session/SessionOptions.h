//===- SessionOptions.h - What a compile session takes ----------*- C++ -*-===//
//
// The session's options: the pipeline's (PipelineOptions.def), those of
// SessionOptions.def (declared once there: fields, defaults, flags, help),
// and what a front end decides itself (profiling, the last stage, whether
// the process is the session's own, the program request of Phase A).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_SESSION_SESSIONOPTIONS_H
#define Q2_SESSION_SESSIONOPTIONS_H

#include "q2/Pipeline/Pipeline.h"
#include "q2/Profiling/Timeline.h"
#include "q2/QPE/ProgramRequest.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace q2::session {

/// What --ir-dir keeps: the IR after each stage, or also after each pass.
enum class Keep { Stage, Pass };
using TimelineBackend = profiling::TimelineSampler::Options::Backend;

/// An option's value as q2-opt spells it ("stage", "auto", ...).
llvm::StringRef toString(Keep k);
llvm::StringRef toString(TimelineBackend b);

struct SessionOptions {
#define Q2_SESSION_OPTION(Type, Field, Default, Flag, ValueDesc, Help)         \
  Type Field = Default;
#include "q2/Session/SessionOptions.def"

  pipeline::PipelineOptions pipeline;
  pipeline::Stage last = pipeline::Stage::ObjectCode;
  /// Per-stage (and with profilePasses per-pass) measurements, the
  /// timeline and the report.
  bool profile = false;
  /// Build the report at the end (it copies every pass and sample; q2-opt
  /// builds it only for --report).
  bool buildReport = true;
  /// In a process that is not the session's own (Python): the host's
  /// VmHWM is not reset per stage (per-stage peaks come from the sampler
  /// thread instead), the sampler is a thread without smaps at peaks, and
  /// profiler warnings are not printed; a timeline that cannot start is a
  /// warning, not an error.
  bool hosted = false;
  /// Apply MLIR's pass-manager command-line options to every stage (only
  /// for tools that registered them).
  bool mlirCommandLine = false;
  /// What to build from a Hamiltonian input (Phase A).
  qpe::ProgramRequest program;
};

} // namespace q2::session

#endif // Q2_SESSION_SESSIONOPTIONS_H
