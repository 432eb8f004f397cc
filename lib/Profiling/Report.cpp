//===- Report.cpp - JSON report building blocks ---------------------------===//

#include "q2/Profiling/Report.h"
#include "q2/Profiling/Instrumentation.h"
#include "q2/Profiling/Memory.h"

#include "llvm/Support/Format.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace q2::profiling;

llvm::Error q2::profiling::writeJSONAtomically(llvm::StringRef path,
                                               const nlohmann::json &value,
                                               int indent) {
  // Serialize first: a serialization failure must not create the file.
  std::string text;
  try {
    text = value.dump(indent);
  } catch (const nlohmann::json::exception &e) {
    return llvm::createStringError(path +
                                   ": cannot serialize JSON: " + e.what());
  }
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << text << '\n';
    return llvm::Error::success();
  });
}

llvm::Expected<nlohmann::json>
q2::profiling::readJSONFile(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return llvm::createStringError(buf.getError(),
                                   path + ": " + buf.getError().message());
  try {
    return nlohmann::json::parse((*buf)->getBuffer().begin(),
                                 (*buf)->getBuffer().end());
  } catch (const nlohmann::json::parse_error &e) {
    return llvm::createStringError(path + ": invalid JSON: " + e.what());
  }
}

llvm::Error q2::profiling::appendJSONRecord(llvm::StringRef path,
                                            const nlohmann::json &record,
                                            llvm::StringRef arrayKey,
                                            llvm::StringRef schema) {
  nlohmann::json doc;
  if (llvm::sys::fs::exists(path)) {
    auto existing = readJSONFile(path);
    if (!existing)
      return existing.takeError();
    doc = std::move(*existing);
    if (!doc.is_object() || !doc.contains(arrayKey.str()) ||
        !doc[arrayKey.str()].is_array())
      return llvm::createStringError(path + ": not a report with a \"" +
                                     arrayKey +
                                     "\" array; refusing to overwrite it");
  } else {
    doc = {{"schema", schema.str()}, {arrayKey.str(), nlohmann::json::array()}};
  }
  doc[arrayKey.str()].push_back(record);
  return writeJSONAtomically(path, doc);
}

llvm::Expected<nlohmann::json>
q2::profiling::snapshotWithIR(llvm::StringRef label, mlir::Operation *op,
                              const IRMetricsOptions &options, bool withSmaps) {
  auto snap = takeSnapshot(label, 0, withSmaps);
  if (!snap)
    return snap.takeError();
  nlohmann::json j = snap->toJSON();
  if (op)
    j["ir"] = measureIR(op, options).toJSON();
  return j;
}

static double mib(uint64_t bytes) { return double(bytes) / (1 << 20); }

std::string
q2::profiling::formatStageTable(llvm::ArrayRef<StageRecord> stages) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format("%-16s %9s %9s %9s %13s %9s %10s %9s %9s %8s\n", "Stage",
                     "Wall s", "CPU s", "RSS MB", "Peak MB", "Heap MB", "IR KB",
                     "Lines", "Ops", "Ampl.");
  const IRMetrics *prev = nullptr;
  for (const StageRecord &s : stages) {
    os << llvm::format(
        "%-16s %9.3f %9.3f %9.1f %9.1f %3s %9.1f ", s.name.c_str(), s.wallS,
        s.cpuS, mib(s.end.status.vmRSS), mib(s.peakRSS),
        s.peakSource == "kernel_hwm" ? "hwm" : "smp", mib(s.end.heap.inUse));
    if (s.ir) {
      os << llvm::format("%10.1f %9llu %9llu ", double(s.ir->bytes) / 1024,
                         (unsigned long long)s.ir->lines,
                         (unsigned long long)s.ir->ops);
      if (prev && prev->bytes)
        os << llvm::format("%7.2fx", double(s.ir->bytes) / double(prev->bytes));
      else
        os << llvm::format("%8s", "-");
      prev = &*s.ir;
    } else {
      os << llvm::format("%10s %9s %9s %8s", "-", "-", "-", "-");
    }
    os << "\n";
  }
  return out;
}

std::string q2::profiling::formatPassTable(llvm::ArrayRef<PassRecord> passes,
                                           size_t top) {
  std::vector<const PassRecord *> sorted;
  for (const PassRecord &p : passes)
    if (!p.isAdaptor && p.finished)
      sorted.push_back(&p);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const PassRecord *a, const PassRecord *b) {
                     return a->wallS > b->wallS;
                   });
  if (sorted.size() > top)
    sorted.resize(top);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format("%-32s %-16s %-16s %10s %10s %10s %10s\n", "Pass", "Op",
                     "Stage", "Wall ms", "CPU ms", "dRSS MB", "IR KB");
  for (const PassRecord *p : sorted) {
    std::string op = p->opName;
    if (!p->opSymbol.empty())
      op += " @" + p->opSymbol;
    os << llvm::format("%-32s %-16s %-16s %10.3f %10.3f %10.1f ",
                       p->label().c_str(), op.c_str(), p->stage.c_str(),
                       p->wallS * 1e3, p->cpuS * 1e3,
                       double(p->rssDelta) / (1 << 20));
    if (p->irAfter)
      os << llvm::format("%10.1f", double(p->irAfter->bytes) / 1024);
    else
      os << llvm::format("%10s", "-");
    os << "\n";
  }
  return out;
}
