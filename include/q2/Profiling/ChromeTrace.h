//===- ChromeTrace.h - Chrome trace-event writer ----------------*- C++ -*-===//
//
// Builds a Chrome trace-event JSON file ("JSON Object Format": an object with
// a "traceEvents" array) that loads in Perfetto and chrome://tracing.
// Timestamps are given in seconds since the profiling epoch and written in
// microseconds, as the format requires.
//
//===----------------------------------------------------------------------===//

#ifndef Q2_PROFILING_CHROMETRACE_H
#define Q2_PROFILING_CHROMETRACE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace q2::profiling {

/// Arguments shown when an event is selected: name -> number or text.
using TraceArgs =
    std::vector<std::pair<std::string, std::variant<double, std::string>>>;

class ChromeTrace {
public:
  /// Events go to process `pid` (default: this process's id).
  explicit ChromeTrace(int pid = 0);

  /// A span ("ph":"X"). Spans on one `tid` must nest properly; Perfetto
  /// draws them as a flame chart.
  void addComplete(llvm::StringRef name, llvm::StringRef category,
                   double startS, double durationS, int tid = 0,
                   TraceArgs args = {});
  /// A counter sample ("ph":"C"): one track per name, one series per key.
  void addCounter(llvm::StringRef name, double tS,
                  const std::vector<std::pair<std::string, double>> &values);
  /// An instant event ("ph":"i", process scope).
  void addInstant(llvm::StringRef name, double tS, TraceArgs args = {});
  /// Metadata ("ph":"M") naming the process / a thread track.
  void setProcessName(llvm::StringRef name);
  void setThreadName(int tid, llvm::StringRef name);

  size_t size() const { return events.size(); }
  /// The whole trace as JSON text.
  llvm::Expected<std::string> toJSONText() const;
  /// Writes atomically (q2::writeFileAtomically); "-" writes to stdout.
  llvm::Error write(llvm::StringRef path) const;

private:
  struct Event {
    char phase; ///< 'X', 'C', 'i', 'M'
    std::string name, category;
    double ts = 0, dur = 0;
    int tid = 0;
    TraceArgs args;
  };
  int pid;
  std::vector<Event> events;
};

} // namespace q2::profiling

#endif // Q2_PROFILING_CHROMETRACE_H
