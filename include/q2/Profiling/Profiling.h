//===- Profiling.h - Umbrella header of the MLIR-free profiler --*- C++ -*-===//
//
// See docs/profiling-api.md. The MLIR part (pass instrumentation, IR
// metrics, the q2-snapshot pass) is under q2/Profiling/MLIR/.
//
//===----------------------------------------------------------------------===//

#ifndef Q2_PROFILING_PROFILING_H
#define Q2_PROFILING_PROFILING_H

#include "q2/Profiling/ChromeTrace.h"
#include "q2/Profiling/Memory.h"
#include "q2/Profiling/Records.h"
#include "q2/Profiling/Report.h"
#include "q2/Profiling/Session.h"
#include "q2/Profiling/Timeline.h"
#include "q2/Profiling/Timing.h"

#endif // Q2_PROFILING_PROFILING_H
