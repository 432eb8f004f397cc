//===- Driver.cpp - the q2-opt QPE driver ---------------------------------===//
//
// Runs the six stages of lib/Pipeline on a QPE program, one PassManager per
// stage (so each stage is timed and measured on its own), and writes what
// was asked: the IR of any stage, LLVM IR or the object.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include "q2/Pipeline/Pipeline.h"
#include "q2/QPE/QPEProgram.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace q2;
using namespace q2::pipeline;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory &category() {
  static cl::OptionCategory cat("q2 QPE driver options");
  return cat;
}

enum class Emit { Default, MLIR, LLVM, Obj };

struct DriverOptions {
  cl::opt<bool> qpePipeline{"qpe-pipeline",
                            cl::desc("Run the six-stage QPE pipeline"),
                            cl::cat(category())};
  cl::opt<Emit> emit{
      "emit", cl::desc("What to write to -o (default: what --stop-after "
                       "produces; obj for the whole pipeline)"),
      cl::values(clEnumValN(Emit::MLIR, "mlir", "MLIR after the last MLIR stage"),
                 clEnumValN(Emit::LLVM, "llvm", "LLVM IR (stage 5)"),
                 clEnumValN(Emit::Obj, "obj", "ELF object (stage 6)")),
      cl::init(Emit::Default), cl::cat(category())};
  cl::opt<unsigned> optLevel{"O", cl::desc("LLVM optimization level (-O0..-O3)"),
                             cl::Prefix, cl::init(2), cl::cat(category())};
  cl::opt<bool> keepNativePauli{
      "keep-native-pauli",
      cl::desc("Keep controlled Pauli rotations for the runtime's native "
               "kernel instead of decomposing them"),
      cl::cat(category())};
  cl::opt<bool> unroll{"unroll", cl::desc("Fully unroll loops in QuantumLowering"),
                       cl::cat(category())};
  cl::opt<std::string> irDir{
      "ir-dir",
      cl::desc("Write each stage's output here: 0_Input.mlir, "
               "1_HLOLowering.mlir, ..., 5_LLVMIR.ll, 6_ObjectCode.o"),
      cl::value_desc("dir"), cl::cat(category())};
};

DriverOptions &opts() {
  static DriverOptions o;
  return o;
}

/// libLLVM already owns a global `--stop-after` (codegen's, a string). We
/// adopt it as the stage selector instead of registering a clashing option,
/// and clear it before code generation, which would otherwise read it.
cl::opt<std::string> *stopAfterOption() {
  auto &all = cl::getRegisteredOptions();
  auto it = all.find("stop-after");
  return it == all.end() ? nullptr
                         : static_cast<cl::opt<std::string> *>(it->second);
}

int fail(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "q2-opt") << msg << "\n";
  return 1;
}

std::string formatLoc(Location loc) {
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}", fl.getFilename().getValue(),
                         fl.getLine(), fl.getColumn());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (std::string s = formatLoc(l); !s.empty())
        return s;
  if (auto name = dyn_cast<NameLoc>(loc))
    return formatLoc(name.getChildLoc());
  if (auto cs = dyn_cast<CallSiteLoc>(loc))
    return formatLoc(cs.getCallee());
  return "";
}

/// Tracks the stage and pass running now, so that a diagnostic can say
/// where in the pipeline it came from.
struct WhereAmI : PassInstrumentation {
  std::string stage, pass;
  void runBeforePass(Pass *p, Operation *) override {
    pass = p->getArgument().empty() ? p->getName().str()
                                    : p->getArgument().str();
  }
};

/// Writes `write`'s output to `path` through a temporary file and rename.
LogicalResult writeAtomically(llvm::StringRef path,
                              llvm::function_ref<void(llvm::raw_ostream &)> write) {
  if (llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        write(os);
        return llvm::Error::success();
      })) {
    fail("cannot write '" + path + "': " + llvm::toString(std::move(e)));
    return failure();
  }
  return success();
}

std::string stageFileName(unsigned i) {
  if (i == 0)
    return "0_Input.mlir";
  Stage s = stageAt(i);
  const char *ext = s == Stage::LLVMIR ? ".ll" : s == Stage::ObjectCode ? ".o" : ".mlir";
  return llvm::formatv("{0}_{1}{2}", i, stageName(s), ext);
}
} // namespace

void q2::driver::registerDriverOptions() {
  (void)opts();
  if (cl::opt<std::string> *stop = stopAfterOption()) {
    stop->setDescription("With --qpe-pipeline: stop after this stage (name or "
                         "number: HLOLowering, QuantumLowering, "
                         "Bufferization, LLVMDialect, LLVMIR, ObjectCode)");
    stop->setValueStr("stage");
    stop->setHiddenFlag(cl::NotHidden);
    stop->addCategory(category());
  }
}

bool q2::driver::driverRequested() { return opts().qpePipeline; }

int q2::driver::runDriver(llvm::StringRef input, llvm::StringRef output,
                          DialectRegistry &registry) {
  DriverOptions &o = opts();
  // Validate everything before doing any work.
  unsigned last = kNumStages;
  std::string stopAfter;
  if (cl::opt<std::string> *stop = stopAfterOption()) {
    stopAfter = stop->getValue();
    stop->setValue("");
  }
  if (!stopAfter.empty()) {
    std::optional<Stage> s = parseStage(stopAfter);
    if (!s)
      return fail("unknown stage '" + stopAfter +
                  "' for --stop-after (HLOLowering, QuantumLowering, "
                  "Bufferization, LLVMDialect, LLVMIR, ObjectCode or 1-6)");
    last = static_cast<unsigned>(*s);
  }
  Emit emit = o.emit;
  if (emit == Emit::Default)
    emit = last <= 4 ? Emit::MLIR : last == 5 ? Emit::LLVM : Emit::Obj;
  if ((emit == Emit::LLVM && last < 5) || (emit == Emit::Obj && last < 6))
    return fail("--emit needs the stage that produces it; --stop-after " +
                stopAfter + " stops before it");
  if (emit == Emit::MLIR && stopAfter.empty())
    last = 4;
  if (emit == Emit::LLVM && stopAfter.empty())
    last = 5;
  if (o.optLevel > 3)
    return fail("-O must be 0, 1, 2 or 3");
  if (!o.irDir.empty()) {
    if (llvm::sys::fs::exists(o.irDir) && !llvm::sys::fs::is_directory(o.irDir))
      return fail("--ir-dir '" + o.irDir + "' exists and is not a directory");
    if (std::error_code ec = llvm::sys::fs::create_directories(o.irDir))
      return fail("cannot create --ir-dir '" + o.irDir + "': " + ec.message());
  }

  MLIRContext ctx(registry);
  // One pass at a time: the stages are measured, and attribution of time and
  // memory to a pass needs a single thread.
  ctx.disableMultithreading();
  WhereAmI where;
  bool hadError = false;
  ScopedDiagnosticHandler diagHandler(&ctx, [&](Diagnostic &d) {
    std::string loc = formatLoc(d.getLocation());
    llvm::raw_ostream &os = llvm::errs();
    if (!loc.empty())
      os << loc << ": ";
    const char *kind = d.getSeverity() == DiagnosticSeverity::Error     ? "error"
                       : d.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                                                                        : "note";
    os << kind << ": ";
    if (!where.stage.empty())
      os << "[" << where.stage << " / " << where.pass << "] ";
    os << d.str() << "\n";
    hadError |= d.getSeverity() == DiagnosticSeverity::Error;
    return success();
  });

  llvm::SourceMgr sourceMgr;
  std::string errorMessage;
  auto file = mlir::openInputFile(input, &errorMessage);
  if (!file)
    return fail(errorMessage);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return 1; // the parser reported where
  if (auto md = qpe::readQPEMetadata(*module); !md) {
    (*module)->emitError(llvm::toString(md.takeError()));
    return 1;
  }

  auto writeIR = [&](unsigned i) -> LogicalResult {
    if (o.irDir.empty())
      return success();
    llvm::SmallString<256> path(o.irDir.getValue());
    llvm::sys::path::append(path, stageFileName(i));
    return writeAtomically(path, [&](llvm::raw_ostream &os) { (*module)->print(os); });
  };
  if (failed(writeIR(0)))
    return 1;

  PipelineOptions popts;
  popts.keepNativePauli = o.keepNativePauli;
  popts.unroll = o.unroll;
  popts.optLevel = o.optLevel;
  auto artifacts = std::make_shared<Artifacts>();

  for (unsigned i = 1; i <= last; ++i) {
    Stage s = stageAt(i);
    PassManager pm(&ctx);
    buildStage(pm, s, popts, artifacts);
    where.stage = stageName(s).str();
    // WhereAmI is owned here; the PassManager gets a forwarding shim.
    struct Forward : PassInstrumentation {
      WhereAmI &w;
      explicit Forward(WhereAmI &w) : w(w) {}
      void runBeforePass(Pass *p, Operation *op) override { w.runBeforePass(p, op); }
    };
    pm.addInstrumentation(std::make_unique<Forward>(where));
    if (failed(pm.run(*module)) || hadError)
      return fail(llvm::formatv("stage {0} ({1}) failed in pass '{2}'", i,
                                stageName(s), where.pass));
    if (o.irDir.empty())
      continue;
    llvm::SmallString<256> path(o.irDir.getValue());
    llvm::sys::path::append(path, stageFileName(i));
    LogicalResult written =
        s == Stage::LLVMIR
            ? writeAtomically(path, [&](llvm::raw_ostream &os) {
                artifacts->llvmModule->print(os, nullptr);
              })
        : s == Stage::ObjectCode
            ? writeAtomically(path, [&](llvm::raw_ostream &os) {
                os.write(artifacts->object.data(), artifacts->object.size());
              })
            : writeIR(i);
    if (failed(written))
      return 1;
  }
  where.stage.clear();

  LogicalResult written = success();
  if (emit == Emit::MLIR)
    written = writeAtomically(output, [&](llvm::raw_ostream &os) { (*module)->print(os); });
  else if (emit == Emit::LLVM)
    written = writeAtomically(output, [&](llvm::raw_ostream &os) {
      artifacts->llvmModule->print(os, nullptr);
    });
  else
    written = writeAtomically(output, [&](llvm::raw_ostream &os) {
      os.write(artifacts->object.data(), artifacts->object.size());
    });
  return failed(written) ? 1 : 0;
}
