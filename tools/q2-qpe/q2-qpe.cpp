//===- q2-qpe.cpp - Hamiltonian -> stage-0 QPE program --------------------===//
//
//   q2-qpe h2.FCIDUMP -o h2.mlir        (defaults: --n-trotter auto, power
//                                        repeat, n_est for 3 mHa)
//   q2-qpe h2.FCIDUMP --mode dynamic --n-est 8 --n-trotter 10 -o h2.mlir
//   q2-qpe h2.FCIDUMP --info [--json]
//   q2-qpe --molecule lih.xyz --basis sto-3g --charge 0 --active 2,3 --info
//     (runs psi4, if installed, through psi4_fcidump.py next to the binary)
//
//===----------------------------------------------------------------------===//
#include "q2/Hamiltonian/Hamiltonian.h"
#include "q2/QPE/ProgramPlan.h"
#include "q2/QPE/QPEProgram.h"
#include "q2/Support/CommandLine.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>

using namespace llvm;
namespace ham = q2::hamiltonian;

// Named to sort before "Other options" (q2/Support/CommandLine.h).
static cl::OptionCategory cat("Hamiltonian and program options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<hamiltonian>"),
                                      cl::cat(cat));
static cl::opt<std::string>
    outputFile("o", cl::desc("Output MLIR file ('-' for stdout)"),
               cl::value_desc("file"), cl::init("-"), cl::cat(cat));
static cl::opt<q2::qpe::Mode> mode(
    "mode", cl::desc("Coefficients as constants or as a function argument"),
    cl::values(clEnumValN(q2::qpe::Mode::Fixed, "fixed", "constants"),
               clEnumValN(q2::qpe::Mode::Dynamic, "dynamic",
                          "func argument tensor<N x f64> (default)")),
    cl::init(q2::qpe::Mode::Dynamic), cl::cat(cat));
static cl::opt<unsigned> order("order",
                               cl::desc("Trotter order: 1 or 2 (default 2)"),
                               cl::init(2), cl::cat(cat));
static cl::opt<unsigned> nEst("n-est",
                              cl::desc("Estimation qubits (default: from "
                                       "--resolution and the window)"),
                              cl::cat(cat));
static cl::opt<std::string> nTrotter(
    "n-trotter",
    cl::desc("Trotter steps per controlled evolution: 'auto' (default) "
             "picks per wire the fewest steps whose rigorous error bound "
             "stays below 1/4 of the resolution; a number N uses N on every "
             "wire and warns when its bound exceeds the resolution"),
    cl::value_desc("auto|N"), cl::init("auto"), cl::cat(cat));
static cl::opt<q2::qpe::Power> power(
    "power", cl::desc("How estimation wire k gets U^(2^k)"),
    cl::values(clEnumValN(q2::qpe::Power::Time, "time",
                          "evolve for 2^k t (with auto: ~2^k steps)"),
               clEnumValN(q2::qpe::Power::Repeat, "repeat",
                          "repeat U(t) 2^k times (default)")),
    cl::init(q2::qpe::Power::Repeat), cl::cat(cat));
static cl::opt<bool> unroll("unroll",
                            cl::desc("Fully unroll all loops (stress case)"),
                            cl::cat(cat));
static cl::opt<double> resolution(
    "resolution", cl::desc("Target energy resolution in Hartree (default "
                           "0.003); picks n_est when --n-est is not given"),
    cl::init(3e-3), cl::cat(cat));
static cl::list<double> window("window",
                               cl::desc("Energy window lo,hi in Hartree "
                                        "(default: the 1-norm bound)"),
                               cl::CommaSeparated, cl::cat(cat));
static cl::opt<double> baseTime("base-time",
                                cl::desc("Override the base time t"),
                                cl::cat(cat));
static cl::opt<double> energyShift("energy-shift",
                                   cl::desc("Override the energy shift"),
                                   cl::cat(cat));
static cl::opt<bool> info("info", cl::desc("Print what a chemist checks "
                                           "before compiling, then exit"),
                          cl::cat(cat));
static cl::opt<bool> json("json", cl::desc("With --info: print JSON"),
                          cl::cat(cat));

// The psi4 path: molecule -> RHF -> FCIDUMP (built by psi4_fcidump.py).
static cl::opt<std::string>
    molecule("molecule",
             cl::desc("Run psi4 on this XYZ geometry (Angstrom) to build the "
                      "FCIDUMP instead of reading <hamiltonian>"),
             cl::value_desc("file.xyz"), cl::cat(cat));
static cl::opt<std::string> basis("basis",
                                  cl::desc("With --molecule: basis set "
                                           "(default sto-3g)"),
                                  cl::init("sto-3g"), cl::cat(cat));
static cl::opt<std::string> charge("charge",
                                   cl::desc("With --molecule: total charge "
                                            "(integer, required)"),
                                   cl::cat(cat));
static cl::opt<unsigned> multiplicity("multiplicity",
                                      cl::desc("With --molecule: spin "
                                               "multiplicity (only 1: RHF)"),
                                      cl::init(1), cl::cat(cat));
static cl::opt<std::string>
    active("active",
           cl::desc("With --molecule: active space NE,NO (electrons, "
                    "orbitals); the lowest (N-NE)/2 orbitals are frozen"),
           cl::value_desc("NE,NO"), cl::cat(cat));
static cl::opt<std::string>
    fcidumpOut("fcidump-out",
               cl::desc("With --molecule: also keep the FCIDUMP here"),
               cl::value_desc("file"), cl::cat(cat));

static int fail(const Twine &msg) {
  WithColor::error(errs(), "q2-qpe") << msg << "\n";
  return 1;
}

/// Runs psi4 (via psi4_fcidump.py, see q2/Hamiltonian/Psi4.h) for the
/// --molecule options; returns the path of the FCIDUMP, which `run` owns, and
/// psi4's own energies in `psi4Result`.
static Expected<std::string> runPsi4(const char *argv0,
                                     std::unique_ptr<ham::Psi4Run> &run,
                                     nlohmann::json &psi4Result) {
  if (!inputFile.empty())
    return createStringError(inconvertibleErrorCode(),
                             "give either a Hamiltonian file or --molecule, "
                             "not both");
  // Validate everything before running anything.
  ham::Psi4Request req;
  req.xyzPath = molecule;
  if (charge.getNumOccurrences())
    req.charge = charge;
  req.multiplicity = multiplicity;
  if (active.getNumOccurrences())
    req.active = active;
  req.basis = basis;
  Expected<ham::Psi4Job> job = ham::validatePsi4Request(req);
  if (!job)
    return job.takeError();
  Expected<std::string> psi4 = ham::findPsi4();
  if (!psi4)
    return psi4.takeError();
  auto r = ham::runPsi4(
      *job, *psi4,
      ham::defaultPsi4Script(argv0, reinterpret_cast<void *>(&fail)));
  if (!r)
    return r.takeError();
  run = std::move(*r);
  psi4Result = nlohmann::json::parse(run->resultJSON(), nullptr,
                                     /*allow_exceptions=*/false);
  errs() << formatv("q2-qpe: psi4 ({0}, {1}): RHF {2:F10} Ha, CI ({3}e,{4}o, "
                    "{5} frozen core) {6:F10} Ha\n",
                    molecule, job->basis, run->scfEnergy(),
                    job->active.electrons, job->active.orbitals,
                    run->frozenCore(), run->ciEnergy());
  return run->fcidumpPath();
}

/// An energy for the --info table: fixed point where that is readable,
/// scientific beyond 1e6 Ha (a corrupt integral must not print as a
/// 250-digit number).
static std::string ha(double v) {
  if (std::isfinite(v) && std::fabs(v) < 1e6)
    return formatv("{0:F10}", v).str();
  return formatv("{0:E10}", v).str();
}

/// "13 on every wire" or "13, 26, ..., 13338 (wire 0 .. n_est-1)".
static std::string stepsText(const std::vector<uint64_t> &steps) {
  if (steps.empty())
    return "";
  if (llvm::all_equal(steps))
    return formatv("{0} on every wire", steps.front()).str();
  std::string s;
  for (size_t k = 0; k < steps.size(); ++k)
    s += (k ? ", " : "") + std::to_string(steps[k]);
  return s + " (wire 0 .. " + std::to_string(steps.size() - 1) + ")";
}

/// The QPE part of --info: what the program would be with these flags.
struct InfoPlan {
  std::optional<ham::QPEParameters> params;
  std::optional<q2::qpe::ProgramPlan> plan;
  std::string error; ///< why params/plan are unset
};

static int printInfo(const ham::QubitHamiltonian &h,
                     const nlohmann::json &psi4Result, const InfoPlan &qp) {
  Expected<ham::ExactResult> exact =
      qp.plan && qp.plan->exact
          ? Expected<ham::ExactResult>(*qp.plan->exact)
          : ham::exactSectorEnergies(h);
  std::string exactErr;
  if (!exact)
    exactErr = toString(exact.takeError());
  const ham::TrotterPlan *tp = qp.plan ? &qp.plan->trotter : nullptr;
  if (json) {
    nlohmann::json j = {{"name", h.name},
                        {"n_qubits", h.numQubits},
                        {"n_electrons", h.numElectrons},
                        {"ms2", h.ms2},
                        {"n_terms", h.terms.size()},
                        {"identity_coeff", h.identityCoeff()},
                        {"one_norm", h.oneNorm()}};
    if (exact) {
      j["hf_energy"] = exact->hfEnergy;
      j["ground_energy"] = exact->groundEnergy;
      j["sector_dim"] = exact->sectorDim;
      j["n_alpha"] = exact->nAlpha;
      j["n_beta"] = exact->nBeta;
    } else {
      j["exact_error"] = exactErr;
    }
    if (!psi4Result.is_null())
      j["psi4"] = psi4Result;
    if (tp) {
      j["qpe"] = {{"n_est", qp.params->nEst},
                  {"resolution", qp.params->resolution},
                  {"base_time", qp.params->baseTime},
                  {"order", tp->order},
                  {"power", tp->power == ham::TrotterPower::Time ? "time"
                                                                 : "repeat"},
                  {"n_trotter", qp.plan->automatic ? "auto" : "explicit"},
                  {"trotter_steps", tp->steps},
                  {"trotter_bound", tp->maxEnergyError},
                  {"total_steps", tp->totalSteps}};
      if (qp.plan->automatic)
        j["qpe"]["trotter_target"] = tp->targetEnergyError;
      if (exact)
        j["qpe"]["hf_error_resolutions"] =
            (exact->hfEnergy - exact->groundEnergy) / qp.params->resolution;
    } else {
      j["qpe_error"] = qp.error;
    }
    outs() << j.dump(2) << "\n";
    return 0;
  }
  outs() << formatv("Hamiltonian      {0}\n", h.name)
         << formatv("qubits           {0}\n", h.numQubits)
         << formatv("electrons        {0} (2*Sz = {1})\n", h.numElectrons,
                    h.ms2)
         << formatv("Pauli terms      {0}\n", h.terms.size())
         << formatv("identity coeff   {0} Ha\n", ha(h.identityCoeff()))
         << formatv("1-norm           {0} Ha (non-identity terms)\n",
                    ha(h.oneNorm()));
  if (exact)
    outs() << formatv("HF energy        {0} Ha\n", ha(exact->hfEnergy))
           << formatv("exact ground     {0} Ha (sector n_alpha={1}, "
                      "n_beta={2}, dim {3})\n",
                      ha(exact->groundEnergy), exact->nAlpha, exact->nBeta,
                      exact->sectorDim);
  else
    outs() << "exact ground     unavailable: " << exactErr << "\n";
  if (tp) {
    outs() << formatv("QPE              n_est {0}, resolution {1:F6} Ha, "
                      "order {2}, power {3}\n",
                      qp.params->nEst, qp.params->resolution, tp->order,
                      tp->power == ham::TrotterPower::Time ? "time"
                                                           : "repeat")
           << formatv("Trotter steps    {0} ({1})\n", stepsText(tp->steps),
                      qp.plan->automatic ? "auto" : "--n-trotter")
           << formatv("Trotter bound    {0:E3} Ha = {1:F3} resolutions{2}\n",
                      tp->maxEnergyError,
                      tp->maxEnergyError / qp.params->resolution,
                      qp.plan->automatic
                          ? formatv(" (target {0:F2})", tp->fraction).str()
                          : std::string());
    // What a run of this program should print, so the reader knows how
    // far to trust it (docs/energies.md).
    if (exact)
      outs() << formatv("expected energy  {0} Ha +- {1:F6} Ha (exact +- one "
                        "resolution; HF is {2:F2} resolutions above exact)\n",
                        ha(exact->groundEnergy), qp.params->resolution,
                        (exact->hfEnergy - exact->groundEnergy) /
                            qp.params->resolution);
  } else {
    outs() << "QPE plan         unavailable: " << qp.error << "\n";
  }
  if (!psi4Result.is_null())
    outs() << formatv("psi4 RHF         {0} Ha\n",
                      ha(psi4Result.value("scf_energy", NAN)))
           << formatv("psi4 CI          {0} Ha (detci, same active "
                      "space)\n",
                      ha(psi4Result.value("ci_energy", NAN)));
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  q2::organizeHelp({&cat});
  cl::ParseCommandLineOptions(
      argc, argv,
      "q2-qpe: writes the stage-0 QPE program (MLIR) for a Hamiltonian\n\n"
      "Inputs: FCIDUMP (psi4, PySCF, Molpro), qubit-Hamiltonian JSON, or\n"
      "OpenFermion-style term lines ('-0.045 X0 X1 Y2 Y3').\n");
  // Refuse clobbering before anything runs: `-o f.FCIDUMP` on f.FCIDUMP, or
  // two outputs on one file, would lose data.
  {
    std::vector<q2::NamedPath> ins, outs;
    if (!inputFile.empty())
      ins.push_back({inputFile, "input"});
    if (!molecule.empty())
      ins.push_back({molecule, "--molecule"});
    if (!info)
      outs.push_back({outputFile, "-o"});
    if (!fcidumpOut.empty())
      outs.push_back({fcidumpOut, "--fcidump-out"});
    if (Error e = q2::checkDistinctPaths(ins, outs))
      return fail(toString(std::move(e)));
    for (const q2::NamedPath &o : outs)
      if (Error e = q2::checkOutputPath(o.path, o.flag))
        return fail(toString(std::move(e)));
  }
  auto finite = [](double v) { return std::isfinite(v); };
  if (!finite(resolution) || resolution <= 0)
    return fail("--resolution must be finite and > 0");
  if (energyShift.getNumOccurrences() && !finite(energyShift))
    return fail("--energy-shift must be finite");
  if (baseTime.getNumOccurrences() && (!finite(baseTime) || baseTime <= 0))
    return fail("--base-time must be finite and > 0");
  if (!window.empty() &&
      (window.size() != 2 || !finite(window[0]) || !finite(window[1]) ||
       !finite(window[1] - window[0]) || !(window[1] - window[0] > 1e-9)))
    return fail("--window needs finite lo,hi with lo < hi and 1e-9 Ha < hi - lo "
                "< inf");
  // --n-trotter: 'auto' (unset) or a positive integer, checked before any
  // work.
  std::optional<uint64_t> explicitSteps;
  if (nTrotter != "auto") {
    uint64_t n = 0;
    if (StringRef(nTrotter).getAsInteger(10, n) || n < 1 ||
        n > q2::qpe::kMaxWireSteps)
      return fail(formatv("--n-trotter must be 'auto' or an integer in "
                          "[1, {0}], got '{1}'",
                          q2::qpe::kMaxWireSteps, std::string(nTrotter)));
    explicitSteps = n;
  }
  if (order != 1 && order != 2)
    return fail(formatv("Trotter order must be 1 or 2, got {0}",
                        unsigned(order)));
  std::unique_ptr<ham::Psi4Run> psi4Run;
  nlohmann::json psi4Result;
  std::string hamFile = inputFile;
  if (molecule.getNumOccurrences()) {
    Expected<std::string> f = runPsi4(argv[0], psi4Run, psi4Result);
    if (!f)
      return fail(toString(f.takeError()));
    hamFile = *f;
  } else if (charge.getNumOccurrences() || active.getNumOccurrences() ||
             fcidumpOut.getNumOccurrences()) {
    return fail("--charge, --active and --fcidump-out need --molecule");
  }
  if (hamFile.empty())
    return fail("no input Hamiltonian given (see --help)");

  Expected<ham::QubitHamiltonian> h = ham::loadHamiltonian(hamFile);
  if (!h)
    return fail(toString(h.takeError()));
  if (!fcidumpOut.empty()) {
    auto buf = MemoryBuffer::getFile(hamFile);
    if (!buf)
      return fail("cannot read '" + hamFile + "'");
    if (Error e = q2::writeFileAtomically(fcidumpOut, [&](raw_ostream &os) {
          os << (*buf)->getBuffer();
          return Error::success();
        }))
      return fail(toString(std::move(e))); // names the file
  }
  // One request, planned by the same function as q2-opt's Hamiltonian
  // inputs and Python (q2::qpe::prepareProgram).
  q2::qpe::ProgramRequest req;
  if (nEst.getNumOccurrences())
    req.nEst = nEst;
  req.nTrotter = explicitSteps;
  req.mode = mode;
  req.order = order;
  req.power = power;
  req.unroll = unroll;
  req.resolution = resolution;
  if (!window.empty())
    req.window = std::make_pair(window[0], window[1]);
  if (baseTime.getNumOccurrences())
    req.baseTime = baseTime;
  if (energyShift.getNumOccurrences())
    req.energyShift = energyShift;

  // Plan before writing anything: parameters, steps, reference energies.
  InfoPlan qp;
  Expected<q2::qpe::PreparedProgram> prepared = q2::qpe::prepareProgram(*h, req);
  if (prepared) {
    qp.params = prepared->params;
    qp.plan = prepared->plan;
  } else {
    qp.error = toString(prepared.takeError());
  }
  if (info)
    return printInfo(*h, psi4Result, qp);
  if (!qp.plan)
    return fail(qp.error);
  const ham::TrotterPlan &tp = qp.plan->trotter;
  if (!qp.plan->automatic && tp.exceedsResolution())
    WithColor::warning(errs(), "q2-qpe")
        << formatv("--n-trotter {0}: the Trotter error bound {1:E3} Ha "
                   "exceeds the resolution {2:E3} Ha ({3:F1} resolutions); "
                   "the energy may be off by more than one bin "
                   "(--n-trotter auto picks enough steps)\n",
                   std::string(nTrotter), tp.maxEnergyError, tp.resolution,
                   tp.maxEnergyError / tp.resolution);

  mlir::MLIRContext ctx;
  // Temporary file + rename: a failed or killed run leaves no partial file.
  // The program is streamed (writeQPEProgram), not built and printed.
  if (Error e = q2::writeFileAtomically(outputFile, [&](raw_ostream &os) {
        return q2::qpe::writeQPEProgram(os, ctx, *h, prepared->params,
                                        prepared->options);
      }))
    return fail(toString(std::move(e))); // names the file
  return 0;
}
