//===- ProgramPlan.cpp - A program request resolved -----------------------===//
#include "q2/QPE/ProgramPlan.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace q2;
using namespace q2::qpe;
namespace ham = q2::hamiltonian;

llvm::Expected<ProgramPlan>
q2::qpe::planProgram(const ham::QubitHamiltonian &h, const ProgramRequest &req,
                     double fraction, size_t maxSectorDim) {
  if (llvm::Error e = req.validate())
    return std::move(e);
  ProgramPlan out;
  out.request = req;
  auto params = ham::computeQPEParameters(h, req.nEst, req.resolution,
                                          req.window);
  if (!params)
    return params.takeError();
  out.params = std::move(*params);
  if (req.baseTime) {
    out.params.baseTime = *req.baseTime;
    // The bins follow t: resolution = 2 pi / (2^n_est t).
    out.params.resolution =
        2 * M_PI /
        (std::ldexp(1.0, int(out.params.nEst)) * out.params.baseTime);
  }
  if (req.energyShift)
    out.params.energyShift = *req.energyShift;

  QPEOptions &options = out.options;
  options.mode = req.mode;
  options.order = req.order;
  options.power = req.power;
  options.unroll = req.unroll;
  ham::TrotterPower power = req.power == Power::Time ? ham::TrotterPower::Time
                                                     : ham::TrotterPower::Repeat;
  auto c = ham::trotterCommutators(h, req.order);
  if (!c)
    return c.takeError();
  out.automatic = !req.nTrotter;
  auto plan = req.nTrotter
                  ? ham::trotterPlanForSteps(*c, out.params, req.order, power,
                                             *req.nTrotter)
                  : ham::chooseTrotterSteps(*c, out.params, req.order, power,
                                            fraction);
  if (!plan)
    return plan.takeError();
  out.trotter = std::move(*plan);
  uint64_t most = *llvm::max_element(out.trotter.steps);
  if (most > kMaxWireSteps)
    return llvm::createStringError(llvm::formatv(
        "the Trotter bound needs {0} steps on one wire, more than a program "
        "holds ({1}); use --power repeat, a coarser --resolution or an "
        "explicit --n-trotter",
        most, kMaxWireSteps));
  options.trotterSteps = out.trotter.steps;
  options.nTrotter = unsigned(most);
  options.trotterBound = out.trotter.maxEnergyError;
  // What the builder would refuse, before the (possibly long) exact solve.
  if (auto checked = checkQPEProgram(h, out.params, options); !checked)
    return checked.takeError();

  auto exact = ham::exactSectorEnergies(h, maxSectorDim);
  if (exact) {
    out.exact = *exact;
    out.hfEnergy = exact->hfEnergy;
    out.hasHF = true;
    options.exactEnergy = exact->groundEnergy;
    options.hfEnergy = exact->hfEnergy;
  } else {
    out.exactError = llvm::toString(exact.takeError());
    if (auto hf = ham::hartreeFockEnergy(h)) {
      out.hfEnergy = *hf;
      out.hasHF = true;
      options.hfEnergy = *hf;
    } else {
      llvm::consumeError(hf.takeError());
    }
  }
  return std::move(out);
}

std::optional<std::string> ProgramPlan::warning() const {
  if (automatic || !trotter.exceedsResolution())
    return std::nullopt;
  return llvm::formatv("--n-trotter {0}: the Trotter error bound {1:E3} Ha "
                       "exceeds the resolution {2:E3} Ha ({3:F1} "
                       "resolutions); the energy may be off by more than one "
                       "bin (--n-trotter auto picks enough steps)",
                       request.get("n-trotter"), trotter.maxEnergyError,
                       trotter.resolution,
                       trotter.maxEnergyError / trotter.resolution)
      .str();
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
q2::qpe::buildProgram(mlir::MLIRContext &ctx, const ham::QubitHamiltonian &h,
                      const ProgramPlan &plan) {
  return buildQPEProgram(ctx, h, plan.params, plan.options);
}
