//===- Options.cpp - q2-opt's command line --------------------------------===//
//
// The driver's flags, the rules that decide the mode (mlir-opt or the QPE
// driver), and the refusal of flags that cannot act in the mode given.
//
//===----------------------------------------------------------------------===//
#include "DriverInternal.h"

#include "q2/QPE/ProgramRequestFlags.h"
#include "q2/Support/CommandLine.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <list>
#include <sstream>

using namespace q2;
using namespace q2::driver;
namespace cl = llvm::cl;
using Backend = session::TimelineBackend;
using session::TimelineBackend;

namespace {
// LLVM prints categories in name order: "Driver ..." before "MLIR ..."
// before "Other options" (q2/Support/CommandLine.h).
cl::OptionCategory &category() {
  static cl::OptionCategory cat(
      "Driver options",
      "The QPE driver: any of these selects it (so does an input that is not "
      "MLIR: an FCIDUMP, a qubit-Hamiltonian JSON, OpenFermion terms, an "
      "object).");
  return cat;
}

/// A help text that lives as long as the options (cl::desc keeps a
/// StringRef).
llvm::StringRef kept(std::string text) {
  static std::list<std::string> texts;
  return texts.emplace_back(std::move(text));
}

/// A flag's help as its .def says it, then its default (switches are off,
/// an empty text is no value).
llvm::StringRef withDefault(const char *help, bool) { return help; }
llvm::StringRef withDefault(const char *help, const std::string &dflt) {
  if (dflt.empty())
    return help;
  return kept(std::string(help) + " (default " + dflt + ")");
}
template <class T> llvm::StringRef withDefault(const char *help, T dflt) {
  std::string text;
  if constexpr (std::is_enum_v<T>)
    text = session::toString(dflt).str();
  else
    text = (std::ostringstream() << dflt).str();
  return kept(std::string(help) + " (default " + text + ")");
}

struct CLOptions {
  // The pipeline's own options (PipelineOptions.def).
#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H)                              \
  cl::opt<T> F{D, cl::desc(H), cl::init(DEF), M, cl::cat(category())};
#include "q2/Pipeline/PipelineOptions.def"

  cl::opt<bool> qpePipeline{"qpe-pipeline",
                            cl::desc("Run the six-stage QPE pipeline (the "
                                     "driver); other driver flags imply it"),
                            cl::cat(category())};
  cl::opt<std::string> stopAfter{
      "stop-after-stage",
      cl::desc("Stop after this stage (name or number: HLOLowering, "
               "QuantumLowering, Bufferization, LLVMDialect, LLVMIR, "
               "ObjectCode)"),
      cl::value_desc("stage"), cl::cat(category())};
  cl::opt<Emit> emit{
      "emit",
      cl::desc("What to write to -o (default: what --stop-after-stage "
               "produces; obj for the whole pipeline)"),
      cl::values(clEnumValN(Emit::MLIR, "mlir", "MLIR after the last MLIR stage"),
                 clEnumValN(Emit::LLVM, "llvm", "LLVM IR (stage 5)"),
                 clEnumValN(Emit::Obj, "obj", "ELF object (stage 6)")),
      cl::init(Emit::Default), cl::cat(category())};
  cl::opt<bool> profileStages{
      "profile-stages",
      cl::desc(kept(llvm::formatv(
          "Measure every stage (time, memory layers, IR size) and print the "
          "table; runs the object {0} times unless --run says otherwise (a "
          "program too large to run is profiled and its Phase C reported as "
          "skipped; with --run N it is an error)",
          execution::kImpliedRuns))),
      cl::cat(category())};
  cl::opt<std::string> report{
      "report",
      cl::desc("Write the JSON report (schema q2.profile/3, docs/report.md); "
               "implies --profile-stages"),
      cl::value_desc("file.json"), cl::cat(category())};
  cl::opt<std::string> trace{
      "trace",
      cl::desc("Write a Chrome trace (stages and passes as spans, RSS as a "
               "counter; opens in Perfetto); implies --profile-stages"),
      cl::value_desc("file.json"), cl::cat(category())};
  cl::opt<std::string> html{
      "html",
      cl::desc("Write the profile as one self-contained HTML page (plotly.js "
               "inline, opens offline: summary, memory timeline, stages, "
               "passes; docs/reading-a-profile.md); implies --profile-stages"),
      cl::value_desc("file.html"), cl::cat(category())};
  cl::opt<std::string> cacheDir{
      "cache-dir",
      cl::desc("Keep stage-6 objects here, keyed by the input, every "
               "pipeline option, the tool's build id and the host CPU; a hit "
               "skips Phase B; entries are checksummed"),
      cl::value_desc("dir"), cl::cat(category())};
  // Phase A (a Hamiltonian input): the options of ProgramRequest.def that
  // matter most; the others (--order, --power, --window, ...) stay
  // q2-qpe's (--unroll is the pipeline's here).
  qpe::ProgramRequestFlags program{
      category(), {"n-est", "n-trotter", "resolution", "mode"},
      "Hamiltonian input: "};

  // The session's and Phase C's options (SessionOptions.def,
  // ExecuteOptions.def): name, default and help from there.
#define Q2_SESSION_OPTION(T, F, DEF, FLAG, VD, H)                              \
  cl::opt<T> F{FLAG, cl::desc(withDefault(H, T(DEF))), cl::init(T(DEF)),      \
               cl::cat(category())};
#include "q2/Session/SessionOptions.def"
#define Q2_EXECUTE_OPTION(T, F, DEF, FLAG, VD, H)                              \
  cl::opt<T> F{FLAG, cl::desc(withDefault(H, T(DEF))), cl::init(T(DEF)),      \
               cl::cat(category())};
#include "q2/Execution/ExecuteOptions.def"

  CLOptions() {
#define Q2_SESSION_OPTION(T, F, DEF, FLAG, VD, H)                              \
  if (*VD)                                                                     \
    F.setValueStr(VD);
#define Q2_SESSION_VALUE(T, V, NAME, H) add(V, NAME, H);
#include "q2/Session/SessionOptions.def"
#define Q2_EXECUTE_OPTION(T, F, DEF, FLAG, VD, H)                              \
  if (*VD)                                                                     \
    F.setValueStr(VD);
#include "q2/Execution/ExecuteOptions.def"
    // Profiling implies some runs: "(default 0; 5 with profiling)".
    runs.setDescription(kept(runs.HelpStr.drop_back().str() +
                             llvm::formatv("; {0} with profiling)",
                                           execution::kImpliedRuns)
                                 .str()));
  }
  void add(Keep v, const char *name, const char *help) {
    keep.getParser().addLiteralOption(name, v, help);
  }
  void add(Backend v, const char *name, const char *help) {
    timelineBackend.getParser().addLiteralOption(name, v, help);
  }
};

CLOptions &clOptions() {
  // libLLVM registers a hidden global --threads (ThinLTO's backend threads),
  // which nothing in q2-opt reads. Unregister it before ours takes the name
  // (registering a name twice is fatal).
  static bool freed = [] {
    if (cl::Option *llvmThreads = cl::getRegisteredOptions().lookup("threads"))
      llvmThreads->removeArgument();
    return true;
  }();
  (void)freed;
  static CLOptions o;
  return o;
}

/// "-O" for one-letter flags, "--unroll" for the others: the name the
/// option was registered with.
std::string flagName(const cl::Option &o) {
  return (o.ArgStr.size() == 1 ? "-" : "--") + o.ArgStr.str();
}

/// The flags only the driver understands.
std::vector<const cl::Option *> driverFlags() {
  CLOptions &o = clOptions();
  std::vector<const cl::Option *> flags = {&o.qpePipeline,
                                           &o.profileStages,
                                           &o.profilePasses,
                                           &o.stopAfter,
                                           &o.emit,
                                           &o.report,
                                           &o.trace,
                                           &o.html,
                                           &o.timelineIntervalMs,
                                           &o.timelineBackend,
                                           &o.runs,
                                           &o.coeffsPath,
                                           &o.maxQubits,
                                           &o.runtimeLib,
                                           &o.threads,
                                           &o.quiet,
                                           &o.progressAfterS,
                                           &o.cacheDir,
                                           &o.irDir,
                                           &o.keep};
  for (const auto &[name, opt] : o.program.flags())
    flags.push_back(opt);
#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H) flags.push_back(&o.F);
#include "q2/Pipeline/PipelineOptions.def"
  return flags;
}

bool given(const cl::Option &o) { return o.getNumOccurrences() > 0; }

/// Occurrences of an mlir-opt option by name (0 if not registered).
unsigned occurrences(llvm::StringRef name) {
  auto &all = cl::getRegisteredOptions();
  auto it = all.find(name);
  return it == all.end() ? 0 : it->second->getNumOccurrences();
}

llvm::Error needs(llvm::StringRef flag, const llvm::Twine &what) {
  return llvm::createStringError(flag + " " + what);
}
} // namespace

void q2::driver::registerCLOptions() { (void)clOptions(); }

void q2::driver::detail::organizeHelp() {
  auto &all = cl::getRegisteredOptions();
  // The q2 passes (quantum-*, convert-quantum-to-llvm, q2-*), from the
  // pass-list option's names; the upstream passes stay in --help-hidden.
  static std::string passes = [&] {
    std::string text =
        "Without driver flags q2-opt is mlir-opt on the pipeline's dialects "
        "and passes.\nq2's passes (as flags, or in --pass-pipeline; the "
        "upstream ones and every pass option:\n--help-hidden):";
    auto it = all.find("canonicalize");
    if (it == all.end())
      return text;
    llvm::SmallVector<llvm::StringRef, 128> names;
    it->second->getExtraOptionNames(names);
    llvm::sort(names);
    for (llvm::StringRef n : names) {
      if (!n.starts_with("quantum-") && !n.starts_with("q2-") &&
          !n.contains("-quantum-"))
        continue;
      // A pass, or a pipeline (the stages, q2-qpe-pipeline).
      llvm::StringRef desc;
      if (const mlir::PassInfo *info = mlir::PassInfo::lookup(n))
        desc = info->getPassDescription();
      else if (const mlir::PassPipelineInfo *p =
                   mlir::PassPipelineInfo::lookup(n))
        desc = p->getPassDescription();
      text += llvm::formatv("\n  --{0,-36} - {1}", n, desc).str();
    }
    return text;
  }();
  static cl::OptionCategory mlirCat("MLIR options", passes);
  // mlir-opt's flags a q2 user needs; MLIR's pass-manager flags also act on
  // every driver stage.
  for (const char *name :
       {"pass-pipeline", "split-input-file", "verify-diagnostics",
        "allow-unregistered-dialect", "show-dialects", "dump-pass-pipeline",
        "emit-bytecode", "mlir-print-ir-after-all", "mlir-print-ir-before-all",
        "mlir-print-ir-after-change", "mlir-print-ir-after-failure",
        "mlir-print-debuginfo", "mlir-print-op-on-diagnostic", "mlir-timing",
        "mlir-timing-display", "mlir-pass-statistics",
        "mlir-disable-threading"}) {
    auto it = all.find(name);
    if (it != all.end())
      it->second->addCategory(mlirCat);
  }
  q2::organizeHelp({&category(), &mlirCat});
}

bool q2::driver::driverFlagsGiven() {
  for (const cl::Option *f : driverFlags())
    if (given(*f))
      return true;
  return false;
}

static std::string firstCompileOnlyFlag(CLOptions &o);

llvm::Expected<DriverOptions>
q2::driver::optionsFromCommandLine(llvm::StringRef input,
                                   llvm::StringRef output) {
  CLOptions &o = clOptions();
  DriverOptions d;
  d.input = input.str();
  d.output = output.str();
  d.outputGiven = output != "-";
  d.mlirCommandLine = true;

  // mlir-opt's own pipeline flags have no meaning in the driver, which runs
  // the six stages (LLVM's codegen --stop-after included).
  for (const char *name : {"pass-pipeline", "split-input-file",
                           "verify-diagnostics", "dump-pass-pipeline",
                           "stop-after"})
    if (occurrences(name))
      return llvm::createStringError(
          llvm::formatv("--{0} is not a QPE driver option (the driver runs "
                        "the six stages; {1})",
                        name,
                        llvm::StringRef(name) == "stop-after"
                            ? "use --stop-after-stage"
                            : "without driver flags q2-opt is mlir-opt"));
  // Every pass flag (--cse, --canonicalize, ...) is one option: mlir-opt's
  // pass list.
  if (occurrences("canonicalize"))
    return llvm::createStringError(
        "pass flags (e.g. --canonicalize) are mlir-opt options, not QPE driver "
        "options (the driver runs the six stages; without driver flags "
        "q2-opt is mlir-opt)");

#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H) d.pipeline.F = o.F;
#include "q2/Pipeline/PipelineOptions.def"
  if (llvm::Error e = d.pipeline.validate())
    return std::move(e);

  if (!o.stopAfter.empty()) {
    std::optional<pipeline::Stage> s = pipeline::parseStage(o.stopAfter);
    if (!s)
      return llvm::createStringError(
          "unknown stage '" + o.stopAfter +
          "' for --stop-after-stage (HLOLowering, QuantumLowering, "
          "Bufferization, LLVMDialect, LLVMIR, ObjectCode or 1-6)");
    d.last = *s;
    d.lastGiven = true;
  }
  d.emit = o.emit;
  unsigned last = pipeline::stageIndex(d.last);
  if ((d.emit == Emit::LLVM && last < 5) || (d.emit == Emit::Obj && last < 6))
    return needs("--emit", "needs the stage that produces it; "
                           "--stop-after-stage " +
                               o.stopAfter + " stops before it");
  if (!d.lastGiven && d.emit == Emit::MLIR)
    d.last = pipeline::Stage::LLVMDialect;
  if (!d.lastGiven && d.emit == Emit::LLVM)
    d.last = pipeline::Stage::LLVMIR;
  if (d.emit == Emit::Default)
    d.emit = d.last <= pipeline::Stage::LLVMDialect ? Emit::MLIR
             : d.last == pipeline::Stage::LLVMIR    ? Emit::LLVM
                                                    : Emit::Obj;

  // --report and --trace ask for a profile: they turn profiling on.
  d.reportPath = o.report;
  d.tracePath = o.trace;
  d.htmlPath = o.html;
  d.profilePasses = o.profilePasses;
  d.profile = o.profileStages || o.profilePasses || !d.reportPath.empty() ||
              !d.tracePath.empty() || !d.htmlPath.empty();
  if (o.timelineIntervalMs < 1)
    return llvm::createStringError(
        "--timeline-interval must be >= 1 ms, got " +
        llvm::Twine(o.timelineIntervalMs.getValue()));
  if (!d.profile && (given(o.timelineIntervalMs) || given(o.timelineBackend)))
    return needs(given(o.timelineIntervalMs) ? "--timeline-interval"
                                           : "--timeline-sampler",
                 "needs profiling (--profile-stages, --report, --trace or "
                 "--html)");
  d.timelineIntervalMs = o.timelineIntervalMs;
  d.timelineBackend = o.timelineBackend;

  if (given(o.runs) && o.runs < 0)
    return needs("--run", "must be >= 0, got " + llvm::Twine(o.runs.getValue()));
  d.runs = given(o.runs) ? o.runs.getValue()
                         : (d.profile ? execution::kImpliedRuns : 0);
  d.skipUnrunnable = d.runs > 0 && !given(o.runs) && !given(o.coeffsPath) &&
                     !given(o.threads) && !given(o.runtimeLib);
  d.runGiven = given(o.runs);
  if (d.runs > 0 && d.last != pipeline::Stage::ObjectCode)
    return needs("--run", "needs the object: do not stop before ObjectCode");
  d.coeffsPath = o.coeffsPath;
  if (!d.coeffsPath.empty() && d.runs == 0)
    return needs("--coeffs", "needs --run N (N > 0)");
  if (given(o.maxQubits) && o.maxQubits <= 0)
    return needs("--max-qubits", "must be > 0, got " +
                                     llvm::Twine(o.maxQubits.getValue()));
  d.maxQubits = o.maxQubits;
  d.runtimeLib = o.runtimeLib;
  if (given(o.threads) && o.threads <= 0)
    return needs("--threads", "must be > 0, got " +
                                  llvm::Twine(o.threads.getValue()));
  d.threads = o.threads;
  d.quiet = o.quiet;
  if (given(o.progressAfterS) && !(o.progressAfterS >= 0))
    return needs("--progress-after",
                 "must be >= 0 seconds, got " +
                     llvm::Twine(std::to_string(o.progressAfterS.getValue())));
  if (given(o.progressAfterS) && o.quiet)
    return needs("--progress-after", "sets when the progress line starts: "
                                     "it cannot be combined with --quiet");
  d.progressAfterS = o.progressAfterS;
  for (const cl::Option *opt : std::initializer_list<const cl::Option *>{
           &o.maxQubits, &o.runtimeLib, &o.threads, &o.quiet,
           &o.progressAfterS})
    if (d.runs == 0 && given(*opt))
      return needs(flagName(*opt), "acts in Phase C: it needs --run N (N > 0)");

  d.irDir = o.irDir;
  d.keep = o.keep;
  if (d.keep == Keep::Pass && d.irDir.empty())
    return needs("--keep-intermediate=pass", "needs --ir-dir");
  d.cacheDir = o.cacheDir;
  if (!d.cacheDir.empty() && d.last != pipeline::Stage::ObjectCode)
    return needs("--cache-dir", "caches objects: it needs the whole pipeline "
                                "(no --stop-after-stage before ObjectCode)");
  if (!d.cacheDir.empty() && !d.irDir.empty())
    return needs("--cache-dir",
                 "cannot be combined with --ir-dir (a cache hit runs no "
                 "stage, so there would be no stage files)");
  // Phase A: checked here, refused later unless the input is a Hamiltonian.
  for (const auto &[flag, opt] : o.program.flags())
    if (given(*opt) && d.programFlag.empty())
      d.programFlag = flag;
  llvm::Expected<qpe::ProgramRequest> program = o.program.request();
  if (!program)
    return program.takeError();
  if (llvm::Error e = program->validate())
    return std::move(e);
  d.program = std::move(*program);

  // A profile prints a table; an object on the terminal would bury it.
  if (d.profile && !d.outputGiven && given(o.emit))
    return needs("--emit", "with profiling needs -o <file>");
  d.compileFlag = firstCompileOnlyFlag(o);
  return d;
}

/// The first flag given that only acts on compilation (a saved object
/// accepts only Phase C and reporting flags).
static std::string firstCompileOnlyFlag(CLOptions &o) {
  std::vector<const cl::Option *> compileOnly = {
      &o.stopAfter, &o.emit,  &o.profilePasses,
      &o.cacheDir,  &o.irDir, &o.keep};
  for (const auto &[name, opt] : o.program.flags())
    compileOnly.push_back(opt);
#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H) compileOnly.push_back(&o.F);
#include "q2/Pipeline/PipelineOptions.def"
  for (const cl::Option *opt : compileOnly)
    if (given(*opt))
      return flagName(*opt);
  return "";
}

llvm::Error
q2::driver::detail::checkObjectInputFlags(const DriverOptions &opts) {
  if (!opts.compileFlag.empty())
    return llvm::createStringError(
        llvm::Twine(opts.compileFlag) +
        " acts on compilation; the input is an object file that is only "
        "run (--run N, --coeffs, --max-qubits, --runtime-lib, --threads, "
        "--profile-stages, --report, --trace, --html)");
  if (!opts.runGiven && !opts.profile && opts.reportPath.empty() &&
      opts.tracePath.empty() && opts.htmlPath.empty())
    return llvm::createStringError(
        "the input is an object file: say what to do with it (--run N)");
  return llvm::Error::success();
}
