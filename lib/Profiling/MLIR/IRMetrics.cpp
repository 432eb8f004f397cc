//===- IRMetrics.cpp - Size of IR in bytes, lines and operations ----------===//

#include "q2/Profiling/MLIR/IRMetrics.h"

#include "q2/Support/FileIO.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

using namespace q2::profiling;

CountingOStream::CountingOStream(llvm::raw_ostream *forward)
    : forward(forward) {
  // A large buffer batches the printer's many tiny writes into few
  // write_impl calls.
  SetBufferSize(1 << 16);
}

CountingOStream::~CountingOStream() { flush(); }

void CountingOStream::write_impl(const char *ptr, size_t size) {
  if (forward)
    forward->write(ptr, size);
  nBytes += size;
  nLines += uint64_t(std::count(ptr, ptr + size, '\n'));
}

uint64_t CountingOStream::bytes() {
  flush();
  return nBytes;
}

uint64_t CountingOStream::lines() {
  flush();
  return nLines;
}

IRMetrics q2::profiling::measureIR(mlir::Operation *op,
                                   const IRMetricsOptions &options) {
  IRMetrics m;
  m.kind = "mlir";
  if (options.print) {
    CountingOStream os(options.alsoWriteTo);
    op->print(os, options.flags);
    if (options.trailingNewline)
      os << '\n';
    m.bytes = os.bytes();
    m.lines = os.lines();
  }
  if (options.countOps) {
    // Histogram keyed by interned dialect name first, strings at the end.
    llvm::StringMap<uint64_t> perDialect;
    op->walk([&](mlir::Operation *nested) {
      ++m.ops;
      ++perDialect[nested->getName().getDialectNamespace()];
    });
    for (const auto &entry : perDialect)
      m.histogram[entry.getKey().empty() ? std::string("(unregistered)")
                                         : entry.getKey().str()] =
          entry.getValue();
  }
  return m;
}

static void countText(IRMetrics &m, llvm::StringRef text) {
  m.bytes = text.size();
  m.lines = uint64_t(std::count(text.begin(), text.end(), '\n'));
}

IRMetrics q2::profiling::measureIRFromText(mlir::Operation *op,
                                           llvm::StringRef printed,
                                   const IRMetricsOptions &options) {
  IRMetricsOptions opsOnly = options;
  opsOnly.print = false;
  IRMetrics m = measureIR(op, opsOnly);
  countText(m, printed);
  return m;
}

IRMetrics q2::profiling::measureIR(const llvm::Module &module, bool countOps,
                                   llvm::raw_ostream *alsoWriteTo) {
  IRMetrics m;
  m.kind = "llvm-ir";
  {
    CountingOStream os(alsoWriteTo);
    module.print(os, nullptr);
    m.bytes = os.bytes();
    m.lines = os.lines();
  }
  if (countOps) {
    std::map<unsigned, uint64_t> perOpcode;
    for (const llvm::Function &f : module)
      for (const llvm::BasicBlock &bb : f)
        for (const llvm::Instruction &inst : bb) {
          ++m.ops;
          ++perOpcode[inst.getOpcode()];
        }
    for (const auto &[opcode, n] : perOpcode)
      m.histogram[llvm::Instruction::getOpcodeName(opcode)] = n;
  }
  return m;
}

IRMetrics q2::profiling::measureBuffer(llvm::StringRef data,
                                       llvm::StringRef kind) {
  IRMetrics m;
  m.kind = kind.str();
  countText(m, data);
  return m;
}

llvm::Expected<IRMetrics> q2::profiling::measureFile(llvm::StringRef path,
                                                     llvm::StringRef kind) {
  auto buf = q2::readInputFile(path);
  if (!buf)
    return buf.takeError();
  return measureBuffer((*buf)->getBuffer(), kind);
}

struct IRMetricsCache::Print {
  mlir::OperationFingerPrint value;
};

IRMetricsCache::IRMetricsCache(IRMetricsOptions options)
    : opts(std::move(options)) {}
IRMetricsCache::~IRMetricsCache() = default;

IRMetrics IRMetricsCache::measure(mlir::Operation *op) {
  mlir::OperationFingerPrint fp(op);
  if (target == op && print && print->value == fp)
    return metrics;
  metrics = measureIR(op, opts);
  target = op;
  print = std::make_unique<Print>(Print{fp});
  return metrics;
}
