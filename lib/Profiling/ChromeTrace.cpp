//===- ChromeTrace.cpp - Chrome trace-event writer ------------------------===//

#include "q2/Profiling/ChromeTrace.h"

#include "q2/Support/JSON.h"
#include "q2/Support/FileIO.h"

#include <unistd.h>

using namespace q2::profiling;

static double toMicros(double s) { return s * 1e6; }

ChromeTrace::ChromeTrace(int pid) : pid(pid ? pid : int(getpid())) {}

void ChromeTrace::addComplete(llvm::StringRef name, llvm::StringRef category,
                              double startS, double durationS, int tid,
                              TraceArgs args) {
  events.push_back({'X', name.str(), category.str(), toMicros(startS),
                    toMicros(std::max(0.0, durationS)), tid, std::move(args)});
}

void ChromeTrace::addCounter(
    llvm::StringRef name, double tS,
    const std::vector<std::pair<std::string, double>> &values) {
  TraceArgs args;
  for (const auto &[k, v] : values)
    args.emplace_back(k, v);
  events.push_back({'C', name.str(), "", toMicros(tS), 0, 0, std::move(args)});
}

void ChromeTrace::addInstant(llvm::StringRef name, double tS, TraceArgs args) {
  events.push_back({'i', name.str(), "", toMicros(tS), 0, 0, std::move(args)});
}

void ChromeTrace::setProcessName(llvm::StringRef name) {
  events.push_back({'M', "process_name", "", 0, 0, -1, {{"name", name.str()}}});
}

void ChromeTrace::setThreadName(int tid, llvm::StringRef name) {
  events.push_back({'M', "thread_name", "", 0, 0, tid, {{"name", name.str()}}});
}

llvm::Expected<std::string> ChromeTrace::toJSONText() const {
  q2::json::Value list = q2::json::Value::array();
  for (const Event &e : events) {
    q2::json::Value j(q2::json::Value::value_t::object);
    j["name"] = e.name;
    j["ph"] = std::string(1, e.phase);
    j["pid"] = pid;
    if (e.phase != 'M')
      j["ts"] = e.ts;
    if (e.phase == 'X') {
      j["cat"] = e.category;
      j["dur"] = e.dur;
    }
    if (e.phase == 'i')
      j["s"] = "p";
    if (e.phase == 'X' || e.phase == 'i' || (e.phase == 'M' && e.tid >= 0))
      j["tid"] = e.tid;
    if (!e.args.empty() || e.phase == 'C') {
      q2::json::Value a = q2::json::Value::object();
      for (const auto &[k, v] : e.args)
        std::visit([&, key = &k](const auto &x) { a[*key] = x; }, v);
      j["args"] = std::move(a);
    }
    list.push_back(std::move(j));
  }
  q2::json::Value doc(q2::json::Value::value_t::object);
  doc["traceEvents"] = std::move(list);
  doc["displayTimeUnit"] = "ms";
  return q2::json::dump(doc, -1);
}

llvm::Error ChromeTrace::write(llvm::StringRef path) const {
  auto text = toJSONText();
  if (!text)
    return text.takeError();
  return q2::writeFileAtomically(path, [&](llvm::raw_ostream &os) {
    os << *text << '\n';
    return llvm::Error::success();
  });
}
