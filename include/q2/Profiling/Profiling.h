//===- Profiling.h - Umbrella header of the profiling library ---*- C++ -*-===//
//
// See docs/profiling-api.md.
//
//===----------------------------------------------------------------------===//

#ifndef Q2_PROFILING_PROFILING_H
#define Q2_PROFILING_PROFILING_H

#include "q2/Profiling/ChromeTrace.h"
#include "q2/Profiling/IRMetrics.h"
#include "q2/Profiling/Instrumentation.h"
#include "q2/Profiling/Memory.h"
#include "q2/Profiling/Report.h"
#include "q2/Profiling/Timeline.h"
#include "q2/Profiling/Timing.h"

#endif // Q2_PROFILING_PROFILING_H
