//===- Driver.cpp - the q2-opt QPE driver ---------------------------------===//
//
// Runs the six stages of lib/Pipeline on a QPE program, one PassManager per
// stage (so each stage is timed and measured on its own), and writes what
// was asked: the IR of any stage, LLVM IR or the object.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include "q2/Pipeline/Pipeline.h"
#include "q2/JIT/QPEExecutable.h"
#include "q2/Profiling/Profiling.h"
#include "q2/QPE/QPEProgram.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

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
enum class Keep { Stage, Pass };

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
  cl::opt<bool> profileStages{
      "profile-stages",
      cl::desc("Run the six stages with per-stage snapshots and print the "
               "profile table (implies --qpe-pipeline)"),
      cl::cat(category())};
  cl::opt<bool> profilePasses{
      "profile-passes",
      cl::desc("Also measure IR bytes/lines/ops after every pass (implies "
               "--profile-stages)"),
      cl::cat(category())};
  cl::opt<std::string> report{"report",
                              cl::desc("Write the JSON report (schema "
                                       "q2.profile/1, docs/report.md)"),
                              cl::value_desc("file.json"), cl::cat(category())};
  cl::opt<std::string> trace{"trace",
                             cl::desc("Write a Chrome trace (stages and passes "
                                      "as spans, RSS as a counter; Perfetto)"),
                             cl::value_desc("file.json"), cl::cat(category())};
  cl::opt<int> timelineInterval{
      "timeline-interval",
      cl::desc("Memory timeline sampling period in ms (>= 1; default 100)"),
      cl::init(100), cl::cat(category())};
  cl::opt<profiling::TimelineSampler::Options::Backend> timelineSampler{
      "timeline-sampler",
      cl::desc("How the memory timeline is sampled (docs/profiling-api.md)"),
      cl::values(
          clEnumValN(profiling::TimelineSampler::Options::Backend::Auto, "auto",
                     "signal if available, else thread (default)"),
          clEnumValN(profiling::TimelineSampler::Options::Backend::Signal,
                     "signal",
                     "a timer signal on the compiler thread: no second "
                     "thread, lowest overhead"),
          clEnumValN(profiling::TimelineSampler::Options::Backend::Thread,
                     "thread", "a sampler thread (e.g. under a debugger)")),
      cl::init(profiling::TimelineSampler::Options::Backend::Auto),
      cl::cat(category())};
  cl::opt<int> run{"run",
                   cl::desc("Phase C: execute the object N times through the "
                            "JIT and decode the energy (default 5 with "
                            "--profile-stages, else 0)"),
                   cl::value_desc("N"), cl::init(-1), cl::cat(category())};
  cl::opt<std::string> coeffs{
      "coeffs",
      cl::desc("Dynamic mode: coefficient sets to run, JSON: [c...], "
               "[[c...], ...] or {\"sets\": [{\"label\": s, \"coeffs\": [c...]}]}"),
      cl::value_desc("file.json"), cl::cat(category())};
  cl::opt<int64_t> maxQubits{
      "max-qubits",
      cl::desc("Largest register the runtime may allocate during --run "
               "(default: what fits in 80% of RAM)"),
      cl::init(0), cl::cat(category())};
  cl::opt<std::string> runtimeLib{
      "runtime-lib",
      cl::desc("Simulator runtime for --run (default: $Q2_RUNTIME_LIB, else "
               "<bin>/../lib/libq2_runtime.so)"),
      cl::value_desc("path"), cl::cat(category())};
  cl::opt<std::string> cacheDir{
      "cache-dir",
      cl::desc("Keep stage-6 objects here, keyed by a hash of (input IR, "
               "pipeline options, tool version, host CPU); a hit skips "
               "Phase B"),
      cl::value_desc("dir"), cl::cat(category())};
  cl::opt<Keep> keepIntermediate{
      "keep-intermediate",
      cl::desc("What --ir-dir keeps (default: stage)"),
      cl::values(clEnumValN(Keep::Stage, "stage",
                            "each stage's output: 0_Input.mlir ... "
                            "6_ObjectCode.o"),
                 clEnumValN(Keep::Pass, "pass",
                            "also the module after every pass of stages 1-4, "
                            "in N_Stage/KK_pass[_function].mlir")),
      cl::init(Keep::Stage), cl::cat(category())};
  cl::opt<std::string> irDir{
      "ir-dir",
      cl::desc("Write each stage's output here: 0_Input.mlir, "
               "1_HLOLowering.mlir, ..., 5_LLVMIR.ll, 6_ObjectCode.o"),
      cl::value_desc("dir"), cl::cat(category())};
  /// mlir-opt's -o defaults to "-".
  bool outputIsDefault(llvm::StringRef output) const { return output == "-"; }
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
struct WhereAmI {
  std::string stage, pass;
};

/// Keeps WhereAmI::pass current. The PassManager owns its instrumentations,
/// so this one only points at the driver's WhereAmI.
struct TrackPass : PassInstrumentation {
  WhereAmI &where;
  explicit TrackPass(WhereAmI &where) : where(where) {}
  void runBeforePass(Pass *p, Operation *) override {
    where.pass = p->getArgument().empty() ? p->getName().str()
                                          : p->getArgument().str();
  }
};

/// --keep-intermediate=pass: writes the module after every pass execution to
/// `dir`/KK_<pass>[_<symbol>].mlir (KK counts executions in the stage; the
/// symbol names the function a nested pass ran on), printed exactly as the
/// per-pass IR metrics count it. Failures are kept for the driver to report
/// after the stage (an instrumentation cannot fail a pass).
struct DumpAfterPass : PassInstrumentation {
  std::string dir;
  OpPrintingFlags flags;
  unsigned count = 0;
  std::string error;
  DumpAfterPass(std::string dir, OpPrintingFlags flags)
      : dir(std::move(dir)), flags(flags) {}
  void runAfterPass(Pass *p, Operation *op) override {
    // Nested-pipeline adaptors have no argument; their passes are dumped.
    if (p->getArgument().empty() || !error.empty())
      return;
    // Two digits at least, so that `ls` lists them in order.
    ++count;
    std::string name = llvm::formatv("{0}{1}_{2}", count < 10 ? "0" : "",
                                     count, p->getArgument());
    if (auto sym = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      name += "_" + sym.getValue().str();
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name + ".mlir");
    Operation *top = op;
    while (Operation *parent = top->getParentOp())
      top = parent;
    if (llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
          top->print(os, flags);
          os << "\n";
          return llvm::Error::success();
        }))
      error = "cannot write '" + std::string(path) +
              "': " + llvm::toString(std::move(e));
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

bool q2::driver::driverRequested() {
  return opts().qpePipeline || opts().profileStages || opts().profilePasses;
}

namespace {
/// Checks that `path` can be created (its directory exists and is
/// writable) before any work is done.
bool checkWritable(llvm::StringRef path, llvm::StringRef what) {
  if (path.empty() || path == "-")
    return true;
  if (llvm::sys::fs::is_directory(path)) {
    fail(what + " '" + path + "' is a directory");
    return false;
  }
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  if (!llvm::sys::fs::is_directory(dir) ||
      llvm::sys::fs::access(dir, llvm::sys::fs::AccessMode::Write)) {
    fail(what + " '" + path + "' cannot be written (directory '" + dir +
         "' is missing or not writable)");
    return false;
  }
  return true;
}

struct CoeffSet {
  std::string label;
  std::vector<double> coeffs;
};

/// Reads --coeffs: a flat array (one set), an array of arrays, or
/// {"sets": [{"label": ..., "coeffs": [...]}, ...]}.
llvm::Expected<std::vector<CoeffSet>> readCoeffSets(llvm::StringRef path,
                                                    unsigned nTerms) {
  auto err = [&](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " + msg);
  };
  auto json = profiling::readJSONFile(path);
  if (!json)
    return json.takeError();
  std::vector<CoeffSet> sets;
  auto addSet = [&](const nlohmann::json &arr, std::string label) -> llvm::Error {
    if (!arr.is_array())
      return err("a coefficient set must be an array of numbers");
    CoeffSet set{std::move(label), {}};
    for (const auto &v : arr) {
      if (!v.is_number())
        return err("coefficients must be numbers");
      set.coeffs.push_back(v.get<double>());
    }
    if (set.coeffs.size() != nTerms)
      return err(llvm::formatv("set '{0}' has {1} coefficients; the program "
                               "has {2} terms",
                               set.label, set.coeffs.size(), nTerms));
    sets.push_back(std::move(set));
    return llvm::Error::success();
  };
  const nlohmann::json &j = *json;
  if (j.is_object() && j.contains("sets") && j["sets"].is_array()) {
    for (size_t i = 0; i < j["sets"].size(); ++i) {
      const auto &e = j["sets"][i];
      std::string label = e.is_object() && e.contains("label") && e["label"].is_string()
                              ? e["label"].get<std::string>()
                              : "set" + std::to_string(i);
      if (!e.is_object() || !e.contains("coeffs"))
        return err("each entry of \"sets\" needs \"coeffs\"");
      if (llvm::Error e2 = addSet(e["coeffs"], label))
        return std::move(e2);
    }
  } else if (j.is_array() && !j.empty() && j[0].is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      if (llvm::Error e = addSet(j[i], "set" + std::to_string(i)))
        return std::move(e);
  } else if (llvm::Error e = addSet(j, "set0")) {
    return std::move(e);
  }
  if (sets.empty())
    return err("no coefficient sets");
  return sets;
}

nlohmann::json parametersJSON(const qpe::QPEMetadata &md) {
  return {{"molecule", md.molecule},
          {"n_system_qubits", md.nSystem},
          {"n_estimation_wires", md.nEst},
          {"n_trotter", md.nTrotter},
          {"n_terms", md.nTerms},
          {"ir_scale", md.irScale()},
          {"mode", qpe::toString(md.mode).str()},
          {"order", md.order},
          {"power", qpe::toString(md.power).str()},
          {"unroll", md.unroll},
          {"base_time", md.baseTime},
          {"energy_shift", md.energyShift},
          {"resolution", md.resolution}};
}
} // namespace

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
  bool profiling = o.profileStages || o.profilePasses;
  if (o.timelineInterval < 1)
    return fail("--timeline-interval must be >= 1 ms, got " +
                llvm::Twine(o.timelineInterval.getValue()));
  if (!checkWritable(o.report, "--report") || !checkWritable(o.trace, "--trace"))
    return 1;
  // Without -o, profiling runs do not dump binary objects on the terminal.
  bool writeOutput = !(profiling && o.outputIsDefault(output));
  if (writeOutput && !checkWritable(output, "-o"))
    return 1;
  if (o.keepIntermediate == Keep::Pass && o.irDir.empty())
    return fail("--keep-intermediate=pass needs --ir-dir");
  if (!o.irDir.empty()) {
    if (llvm::sys::fs::exists(o.irDir) && !llvm::sys::fs::is_directory(o.irDir))
      return fail("--ir-dir '" + o.irDir + "' exists and is not a directory");
    if (std::error_code ec = llvm::sys::fs::create_directories(o.irDir))
      return fail("cannot create --ir-dir '" + o.irDir + "': " + ec.message());
  }

  if (!o.cacheDir.empty()) {
    if (llvm::sys::fs::exists(o.cacheDir) && !llvm::sys::fs::is_directory(o.cacheDir))
      return fail("--cache-dir '" + o.cacheDir + "' exists and is not a directory");
    if (std::error_code ec = llvm::sys::fs::create_directories(o.cacheDir))
      return fail("cannot create --cache-dir '" + o.cacheDir + "': " + ec.message());
  }

  MLIRContext ctx(registry);
  // One pass at a time: the stages are measured, and attribution of time and
  // memory to a pass needs a single thread.
  ctx.disableMultithreading();
  WhereAmI where;
  std::string firstError;
  ScopedDiagnosticHandler diagHandler(&ctx, [&](Diagnostic &d) {
    std::string line;
    llvm::raw_string_ostream os(line);
    if (std::string loc = formatLoc(d.getLocation()); !loc.empty())
      os << loc << ": ";
    os << (d.getSeverity() == DiagnosticSeverity::Error     ? "error"
           : d.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                                                            : "note")
       << ": ";
    if (!where.stage.empty())
      os << "[" << where.stage << " / " << where.pass << "] ";
    os << d.str();
    llvm::errs() << line << "\n";
    if (d.getSeverity() == DiagnosticSeverity::Error && firstError.empty())
      firstError = line;
    return success();
  });

  // The report is written on every exit path once profiling started, with
  // the error that ended the run.
  std::unique_ptr<profiling::ProfilingSession> session;
  nlohmann::json reportJSON = {{"schema", "q2.profile/1"},
                               {"tool", "q2-opt"},
                               {"input", input.str()},
                               {"error", nullptr}};
  auto finishReport = [&](int code) -> int {
    if (!session)
      return code;
    session->stopTimeline();
    if (code != 0 && reportJSON["error"].is_null())
      reportJSON["error"] = firstError.empty() ? "failed" : firstError;
    if (!o.report.empty()) {
      // Built only when asked for: it copies every pass and sample.
      reportJSON["phase_b"] = session->toJSON();
      reportJSON["lifetime_peak_rss_bytes"] = session->lifetimePeakRSS();
    }
    if (!o.report.empty())
      if (llvm::Error e = profiling::writeJSONAtomically(o.report, reportJSON)) {
        fail(llvm::toString(std::move(e)));
        code = code ? code : 1;
      }
    if (!o.trace.empty()) {
      profiling::ChromeTrace trace;
      session->exportTrace(trace);
      if (llvm::Error e = trace.write(o.trace)) {
        fail(llvm::toString(std::move(e)));
        code = code ? code : 1;
      }
    }
    return code;
  };

  if (profiling) {
    profiling::ProfilingOptions po;
    po.irMetricsPerPass = o.profilePasses;
    // The pass manager verifies after every pass; the printer need not
    // verify again (same bytes for valid IR, much less time on big modules).
    po.irOptions.flags = OpPrintingFlags().assumeVerified();
    session = std::make_unique<profiling::ProfilingSession>(po);
    profiling::TimelineSampler::Options to;
    to.intervalMs = o.timelineInterval;
    to.backend = o.timelineSampler;
    if (llvm::Error e = session->startTimeline(to)) {
      fail(llvm::toString(std::move(e)));
      session.reset();
      return 1;
    }
    if (auto snap = session->snapshot("start"); !snap)
      llvm::consumeError(snap.takeError());
  }

  // Stage outputs are verified by the pass manager; printing them for the
  // metrics need not verify again.
  profiling::IRMetricsOptions verifiedIR;
  verifiedIR.flags = OpPrintingFlags().assumeVerified();

  llvm::SourceMgr sourceMgr;
  std::string errorMessage;
  auto file = mlir::openInputFile(input, &errorMessage);
  if (!file) {
    firstError = errorMessage;
    fail(errorMessage);
    return finishReport(1);
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  auto sourceText = [&] {
    return sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  };
  OwningOpRef<ModuleOp> module;
  {
    std::optional<profiling::ScopedStage> parse;
    if (session)
      parse.emplace(*session, "Input");
    module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
    if (module && parse)
      if (profiling::StageRecord *rec = parse->finish())
        // The Input stage's text is the file as given (0_Input.mlir is a
        // copy of it): counted, not printed again.
        rec->ir = profiling::measureIRFromText(*module, sourceText(), verifiedIR);
  }
  if (!module)
    return finishReport(1); // the parser reported where
  auto md = qpe::readQPEMetadata(*module);
  if (!md) {
    (*module)->emitError(llvm::toString(md.takeError()));
    return finishReport(1);
  }
  reportJSON["parameters"] = parametersJSON(*md);
  // Phase C inputs are checked before compiling.
  int runs = o.run >= 0 ? o.run.getValue() : (session ? 5 : 0);
  std::vector<CoeffSet> sets;
  auto failEarly = [&](const llvm::Twine &msg) {
    firstError = msg.str();
    return finishReport(fail(msg));
  };
  if (runs > 0 && last < kNumStages)
    return failEarly("--run needs the object: do not stop before ObjectCode");
  if (o.maxQubits < 0)
    return failEarly("--max-qubits must be > 0");
  if (!o.coeffs.empty()) {
    if (md->mode != qpe::Mode::Dynamic)
      return failEarly("--coeffs needs a dynamic-mode program (this one is fixed)");
    auto read = readCoeffSets(o.coeffs, md->nTerms);
    if (!read)
      return failEarly(llvm::toString(read.takeError()));
    sets = std::move(*read);
  } else {
    sets.push_back({"default", md->mode == qpe::Mode::Dynamic
                                   ? md->defaultCoeffs
                                   : std::vector<double>{}});
  }
  reportJSON["options"] = {{"opt_level", o.optLevel.getValue()},
                           {"keep_native_pauli", o.keepNativePauli.getValue()},
                           {"unroll", o.unroll.getValue()},
                           {"profile_passes", o.profilePasses.getValue()},
                           {"timeline_interval_ms", o.timelineInterval.getValue()},
                           {"last_stage", stageName(stageAt(last)).str()}};

  // mlir-opt prints a trailing newline; the IR metrics count it too, so
  // reported sizes equal the --ir-dir files byte for byte.
  auto printModule = [&](llvm::raw_ostream &os) {
    (*module)->print(os, verifiedIR.flags);
    os << "\n";
  };
  auto stagePath = [&](unsigned i) {
    llvm::SmallString<256> path(o.irDir.getValue());
    llvm::sys::path::append(path, stageFileName(i));
    return std::string(path);
  };
  if (!o.irDir.empty() &&
      failed(writeAtomically(stagePath(0), [&](llvm::raw_ostream &os) {
        os << sourceText();
      })))
    return finishReport(1);

  PipelineOptions popts;
  popts.keepNativePauli = o.keepNativePauli;
  popts.unroll = o.unroll;
  popts.optLevel = o.optLevel;
  auto artifacts = std::make_shared<Artifacts>();
  // One writer for --ir-dir files and -o: MLIR text, LLVM IR or the object.
  auto writeProduct = [&](llvm::StringRef path, Emit kind) {
    return writeAtomically(path, [&](llvm::raw_ostream &os) {
      if (kind == Emit::LLVM)
        artifacts->llvmModule->print(os, nullptr);
      else if (kind == Emit::Obj)
        os.write(artifacts->object.data(), artifacts->object.size());
      else
        printModule(os);
    });
  };

  // Compile cache: only for runs that end with the object.
  std::string cachePath;
  bool cacheHit = false;
  if (!o.cacheDir.empty() && last == kNumStages && o.irDir.empty()) {
    llvm::StringRef text = sourceText();
    std::string key = llvm::formatv(
        "q2-opt/1 llvm {0} cpu {1} O{2} native {3} unroll {4}\n", LLVM_VERSION_STRING,
        llvm::sys::getHostCPUName(), o.optLevel.getValue(),
        o.keepNativePauli.getValue(), o.unroll.getValue());
    uint64_t h = llvm::xxh3_64bits(llvm::StringRef(key + text.str()));
    llvm::SmallString<256> path(o.cacheDir.getValue());
    llvm::sys::path::append(path, llvm::formatv("{0:x16}.o", h).str());
    cachePath = std::string(path);
    if (auto buf = llvm::MemoryBuffer::getFile(cachePath, /*IsText=*/false)) {
      llvm::StringRef data = (*buf)->getBuffer();
      artifacts->object.assign(data.begin(), data.end());
      cacheHit = !artifacts->object.empty();
    }
    reportJSON["cache"] = {{"path", cachePath}, {"status", cacheHit ? "hit" : "miss"}};
    llvm::outs() << "cache: " << (cacheHit ? "hit" : "miss") << " (" << cachePath
                 << ")\n";
  }

  for (unsigned i = 1; i <= last && !cacheHit; ++i) {
    Stage s = stageAt(i);
    PassManager pm(&ctx);
    pm.addInstrumentation(std::make_unique<TrackPass>(where));
    if (session)
      profiling::attachProfiling(pm, *session);
    // Per-pass dumps for the MLIR stages; stages 5 and 6 are one pass each,
    // whose output is the stage file.
    DumpAfterPass *dump = nullptr;
    if (o.keepIntermediate == Keep::Pass && i <= 4) {
      llvm::SmallString<256> dir(o.irDir.getValue());
      llvm::sys::path::append(dir, llvm::formatv("{0}_{1}", i, stageName(s)).str());
      if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
        firstError = "cannot create '" + std::string(dir) + "': " + ec.message();
        fail(firstError);
        return finishReport(1);
      }
      auto owned = std::make_unique<DumpAfterPass>(std::string(dir),
                                                   verifiedIR.flags);
      dump = owned.get();
      pm.addInstrumentation(std::move(owned));
    }
    buildStage(pm, s, popts, artifacts);
    where.stage = stageName(s).str();
    where.pass = "(stage setup)";
    std::optional<profiling::ScopedStage> scope;
    if (session)
      scope.emplace(*session, stageName(s));
    if (failed(pm.run(*module)) || !firstError.empty()) {
      fail(llvm::formatv("stage {0} ({1}) failed in pass '{2}'", i,
                         stageName(s), where.pass));
      return finishReport(1);
    }
    if (dump && !dump->error.empty()) {
      firstError = dump->error;
      fail(firstError);
      return finishReport(1);
    }
    profiling::StageRecord *rec = scope ? scope->finish() : nullptr;
    Emit kind = s == Stage::LLVMIR       ? Emit::LLVM
                : s == Stage::ObjectCode ? Emit::Obj
                                         : Emit::MLIR;
    if (kind == Emit::Obj) {
      if (rec)
        rec->ir = profiling::measureBuffer(
            llvm::StringRef(artifacts->object.data(), artifacts->object.size()));
      if (!o.irDir.empty() && failed(writeProduct(stagePath(i), Emit::Obj)))
        return finishReport(1);
      continue;
    }
    if (o.irDir.empty()) {
      // With --profile-passes the module was usually just measured after
      // the stage's last pass: the session reuses that.
      if (rec)
        rec->ir = kind == Emit::LLVM ? profiling::measureIR(*artifacts->llvmModule)
                                     : session->measureIRCached(*module);
      continue;
    }
    // With --ir-dir the metrics are counted while the file is written: one
    // print, no copy of the text, the file's size by construction.
    if (!rec) {
      if (failed(writeProduct(stagePath(i), kind)))
        return finishReport(1);
      continue;
    }
    profiling::IRMetricsOptions tee = verifiedIR;
    if (failed(writeAtomically(stagePath(i), [&](llvm::raw_ostream &file) {
          tee.alsoWriteTo = &file;
          rec->ir = kind == Emit::LLVM
                        ? profiling::measureIR(*artifacts->llvmModule,
                                               /*countOps=*/true, &file)
                        : profiling::measureIR(*module, tee);
        })))
      return finishReport(1);
  }
  where.stage.clear();
  if (!cachePath.empty() && !cacheHit &&
      failed(writeProduct(cachePath, Emit::Obj)))
    return finishReport(1);


  if (session) {
    llvm::outs() << "q2-opt profile: " << md->molecule << ", " << md->numQubits()
                 << " qubits (" << md->nSystem << " system + " << md->nEst
                 << " estimation), n_trotter " << md->nTrotter << ", "
                 << md->nTerms << " terms, " << qpe::toString(md->mode)
                 << " mode, ir_scale " << md->irScale() << "\n\n"
                 << profiling::formatStageTable(session->stages());
    if (o.profilePasses)
      llvm::outs() << "\n" << profiling::formatPassTable(session->passes());
  }


  // Phase C: run the very object stage 6 produced.
  if (runs > 0) {
    jit::ExecutableOptions eo;
    eo.runtimeLibrary = o.runtimeLib.empty() ? jit::defaultRuntimeLibrary()
                                             : o.runtimeLib.getValue();
    std::optional<profiling::ScopedStage> load;
    if (session)
      load.emplace(*session, "Load");
    auto exe = jit::QPEExecutable::load(
        artifacts->object,
        md->mode == qpe::Mode::Dynamic ? md->nTerms : 0, md->nEst, eo);
    if (load)
      load->finish();
    if (!exe) {
      firstError = llvm::toString(exe.takeError());
      fail(firstError);
      return finishReport(1);
    }
    if (o.maxQubits > 0) {
      // The limit lives in the runtime the object is linked against.
      auto setMax = (*exe)->lookup("q2_rt_set_max_qubits");
      if (!setMax) {
        firstError = llvm::toString(setMax.takeError());
        fail(firstError);
        return finishReport(1);
      }
      reinterpret_cast<int64_t (*)(int64_t)>(*setMax)(o.maxQubits);
    }
    nlohmann::json phaseC = {{"runtime", eo.runtimeLibrary},
                             {"calls_per_set", runs},
                             {"sets", nlohmann::json::array()}};
    std::optional<profiling::ScopedStage> exec;
    if (session)
      exec.emplace(*session, "Execute");
    llvm::outs() << "\nPhase C: " << runs << " call(s) per coefficient set, "
                 << "runtime " << eo.runtimeLibrary << "\n";
    for (const CoeffSet &set : sets) {
      profiling::Stats callTimes;
      std::vector<double> probs;
      for (int c = 0; c < runs; ++c) {
        double t0 = profiling::elapsedSeconds();
        auto result = (*exe)->run(set.coeffs);
        callTimes.add(profiling::elapsedSeconds() - t0);
        if (!result) {
          firstError = llvm::toString(result.takeError());
          fail(firstError);
          phaseC["error"] = firstError;
          reportJSON["phase_c"] = phaseC;
          return finishReport(1);
        }
        probs = std::move(*result);
      }
      jit::QPEResult r = jit::decode(probs, *md);
      llvm::outs() << llvm::formatv(
          "  [{0}] prob_sum {1:F12}  call {2}  argmax m={3}  phase {4:F6}  "
          "energy {5:F6} Ha (resolution {6:F6} Ha)\n",
          set.label, r.probSum, callTimes.summary(1e3, "ms"), r.argmax,
          r.phase, r.energy, md->resolution);
      // The few most likely outcomes, which is what a reader checks.
      std::vector<size_t> order(r.probs.size());
      for (size_t k = 0; k < order.size(); ++k)
        order[k] = k;
      size_t top = std::min<size_t>(4, order.size());
      std::partial_sort(order.begin(), order.begin() + top, order.end(),
                        [&](size_t a, size_t b) { return r.probs[a] > r.probs[b]; });
      llvm::outs() << "      top outcomes:";
      for (size_t k = 0; k < top; ++k)
        llvm::outs() << llvm::formatv("  m={0} p={1:F4} E={2:F5}", order[k],
                                      r.probs[order[k]],
                                      md->energyShift - 2 * M_PI * double(order[k]) /
                                          (std::ldexp(1.0, md->nEst) * md->baseTime));
      llvm::outs() << "\n";
      phaseC["sets"].push_back({{"label", set.label},
                                {"prob_sum", r.probSum},
                                {"argmax", r.argmax},
                                {"phase", r.phase},
                                {"energy", r.energy},
                                {"call_s", callTimes.toJSON()},
                                {"probabilities", r.probs}});
    }
    // Stop sampling while Execute is still open, so the last sample carries
    // a stage tag.
    if (session)
      session->stopTimeline();
    if (exec)
      exec->finish();
    reportJSON["phase_c"] = phaseC;
  }
  if (session)
    llvm::outs() << "\nlifetime peak RSS: "
                 << llvm::formatv("{0:F1}", session->lifetimePeakRSS() / 1e6)
                 << " MB (stages Load/Execute are in the report)\n";

  if (writeOutput && failed(writeProduct(output, emit)))
    return finishReport(1);
  return finishReport(0);
}
