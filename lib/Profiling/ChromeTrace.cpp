//===- ChromeTrace.cpp - Chrome trace-event writer ------------------------===//

#include "q2/Profiling/ChromeTrace.h"

#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace q2::profiling;

static double toMicros(double s) { return s * 1e6; }

ChromeTrace::ChromeTrace(int pid) : pid(pid ? pid : int(getpid())) {}

void ChromeTrace::addComplete(llvm::StringRef name, llvm::StringRef category,
                              double startS, double durationS, int tid,
                              nlohmann::json args) {
  nlohmann::json e = {{"name", name.str()},
                      {"cat", category.str()},
                      {"ph", "X"},
                      {"ts", toMicros(startS)},
                      {"dur", toMicros(std::max(0.0, durationS))},
                      {"pid", pid},
                      {"tid", tid}};
  if (!args.is_null())
    e["args"] = std::move(args);
  events.push_back(std::move(e));
}

void ChromeTrace::addCounter(
    llvm::StringRef name, double tS,
    const std::vector<std::pair<std::string, double>> &values) {
  nlohmann::json args = nlohmann::json::object();
  for (const auto &[k, v] : values)
    args[k] = v;
  events.push_back({{"name", name.str()},
                    {"ph", "C"},
                    {"ts", toMicros(tS)},
                    {"pid", pid},
                    {"args", std::move(args)}});
}

void ChromeTrace::addInstant(llvm::StringRef name, double tS,
                             nlohmann::json args) {
  nlohmann::json e = {{"name", name.str()}, {"ph", "i"},  {"s", "p"},
                      {"ts", toMicros(tS)}, {"pid", pid}, {"tid", 0}};
  if (!args.is_null())
    e["args"] = std::move(args);
  events.push_back(std::move(e));
}

void ChromeTrace::setProcessName(llvm::StringRef name) {
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", pid},
                    {"args", {{"name", name.str()}}}});
}

void ChromeTrace::setThreadName(int tid, llvm::StringRef name) {
  events.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", pid},
                    {"tid", tid},
                    {"args", {{"name", name.str()}}}});
}

nlohmann::json ChromeTrace::toJSON() const {
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

llvm::Error ChromeTrace::write(llvm::StringRef path) const {
  std::string text = toJSON().dump();
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << text << '\n';
    return llvm::Error::success();
  });
}
