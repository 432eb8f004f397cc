//===- q2-qpe.cpp - Hamiltonian -> stage-0 QPE program --------------------===//
//
//   q2-qpe h2.FCIDUMP --mode dynamic --n-est 8 --n-trotter 10 -o h2.mlir
//   q2-qpe h2.FCIDUMP --info [--json]
//
//===----------------------------------------------------------------------===//
#include "q2/Hamiltonian/Hamiltonian.h"
#include "q2/QPE/QPEProgram.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

using namespace llvm;
namespace ham = q2::hamiltonian;

static cl::OptionCategory cat("q2-qpe options");
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
static cl::opt<unsigned> order("order", cl::desc("Trotter order: 1 or 2"),
                               cl::init(2), cl::cat(cat));
static cl::opt<unsigned> nEst("n-est",
                              cl::desc("Estimation qubits (default: from "
                                       "--resolution and the window)"),
                              cl::cat(cat));
static cl::opt<unsigned> nTrotter("n-trotter",
                                  cl::desc("Trotter steps per controlled "
                                           "evolution"),
                                  cl::init(1), cl::cat(cat));
static cl::opt<q2::qpe::Power> power(
    "power", cl::desc("How estimation wire k gets U^(2^k)"),
    cl::values(clEnumValN(q2::qpe::Power::Time, "time",
                          "evolve for 2^k t (default)"),
               clEnumValN(q2::qpe::Power::Repeat, "repeat",
                          "repeat U(t) 2^k times")),
    cl::init(q2::qpe::Power::Time), cl::cat(cat));
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

static int fail(const Twine &msg) {
  WithColor::error(errs(), "q2-qpe") << msg << "\n";
  return 1;
}

static int printInfo(const ham::QubitHamiltonian &h) {
  Expected<ham::ExactResult> exact = ham::exactSectorEnergies(h);
  std::string exactErr;
  if (!exact)
    exactErr = toString(exact.takeError());
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
    outs() << j.dump(2) << "\n";
    return 0;
  }
  outs() << formatv("Hamiltonian      {0}\n", h.name)
         << formatv("qubits           {0}\n", h.numQubits)
         << formatv("electrons        {0} (2*Sz = {1})\n", h.numElectrons,
                    h.ms2)
         << formatv("Pauli terms      {0}\n", h.terms.size())
         << formatv("identity coeff   {0:F10} Ha\n", h.identityCoeff())
         << formatv("1-norm           {0:F10} Ha (non-identity terms)\n",
                    h.oneNorm());
  if (exact)
    outs() << formatv("HF energy        {0:F10} Ha\n", exact->hfEnergy)
           << formatv("exact ground     {0:F10} Ha (sector n_alpha={1}, "
                      "n_beta={2}, dim {3})\n",
                      exact->groundEnergy, exact->nAlpha, exact->nBeta,
                      exact->sectorDim);
  else
    outs() << "exact ground     unavailable: " << exactErr << "\n";
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "q2-qpe: writes the stage-0 QPE program (MLIR) for a Hamiltonian\n\n"
      "Inputs: FCIDUMP (psi4, PySCF, Molpro), qubit-Hamiltonian JSON, or\n"
      "OpenFermion-style term lines ('-0.045 X0 X1 Y2 Y3').\n");
  if (inputFile.empty())
    return fail("no input Hamiltonian given (see --help)");

  Expected<ham::QubitHamiltonian> h = ham::loadHamiltonian(inputFile);
  if (!h)
    return fail(toString(h.takeError()));
  if (info)
    return printInfo(*h);

  std::optional<std::pair<double, double>> win;
  if (!window.empty()) {
    if (window.size() != 2 || !(window[0] < window[1]))
      return fail("--window needs lo,hi with lo < hi");
    win = std::make_pair(window[0], window[1]);
  }
  if (resolution <= 0)
    return fail("--resolution must be > 0");
  std::optional<unsigned> est;
  if (nEst.getNumOccurrences())
    est = nEst;
  Expected<ham::QPEParameters> params =
      ham::computeQPEParameters(*h, est, resolution, win);
  if (!params)
    return fail(toString(params.takeError()));
  if (baseTime.getNumOccurrences()) {
    if (!(baseTime > 0))
      return fail("--base-time must be > 0");
    params->baseTime = baseTime;
  }
  if (energyShift.getNumOccurrences())
    params->energyShift = energyShift;

  q2::qpe::QPEOptions opts;
  opts.mode = mode;
  opts.order = order;
  opts.nTrotter = nTrotter;
  opts.power = power;
  opts.unroll = unroll;

  mlir::MLIRContext ctx;
  auto module = q2::qpe::buildQPEProgram(ctx, *h, *params, opts);
  if (!module)
    return fail(toString(module.takeError()));
  // Temporary file + rename: a failed or killed run leaves no partial file.
  if (Error e = writeToOutput(outputFile, [&](raw_ostream &os) -> Error {
        (**module)->print(os);
        return Error::success();
      }))
    return fail("cannot write '" + outputFile + "': " + toString(std::move(e)));
  return 0;
}
