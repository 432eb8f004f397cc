//===- ProgramPlan.cpp - Trotter steps and reference energies -------------===//
#include "q2/QPE/ProgramPlan.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace q2;
using namespace q2::qpe;
namespace ham = q2::hamiltonian;

llvm::Expected<ProgramPlan>
q2::qpe::planProgram(const ham::QubitHamiltonian &h,
                     const ham::QPEParameters &params,
                     std::optional<uint64_t> nTrotter, QPEOptions &options,
                     double fraction, size_t maxSectorDim) {
  ProgramPlan out;
  ham::TrotterPower power = options.power == Power::Time
                                ? ham::TrotterPower::Time
                                : ham::TrotterPower::Repeat;
  auto c = ham::trotterCommutators(h, options.order);
  if (!c)
    return c.takeError();
  out.automatic = !nTrotter;
  auto plan = nTrotter ? ham::trotterPlanForSteps(*c, params, options.order,
                                                  power, *nTrotter)
                       : ham::chooseTrotterSteps(*c, params, options.order,
                                                 power, fraction);
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

  auto exact = ham::exactSectorEnergies(h, maxSectorDim);
  if (exact) {
    out.exact = *exact;
    out.hfEnergy = exact->hfEnergy;
    out.hasHF = true;
    options.exactEnergy = exact->groundEnergy;
    options.hfEnergy = exact->hfEnergy;
  } else {
    out.exactError = llvm::toString(exact.takeError());
    options.exactEnergy.reset();
    if (auto hf = ham::hartreeFockEnergy(h)) {
      out.hfEnergy = *hf;
      out.hasHF = true;
      options.hfEnergy = *hf;
    } else {
      llvm::consumeError(hf.takeError());
      options.hfEnergy.reset();
    }
  }
  return out;
}

llvm::Expected<PreparedProgram>
q2::qpe::prepareProgram(const ham::QubitHamiltonian &h,
                        const ProgramRequest &req) {
  if (req.order != 1 && req.order != 2)
    return llvm::createStringError(
        llvm::formatv("Trotter order must be 1 or 2, got {0}", req.order));
  auto params = ham::computeQPEParameters(h, req.nEst, req.resolution,
                                          req.window);
  if (!params)
    return params.takeError();
  PreparedProgram out;
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
  out.options.mode = req.mode;
  out.options.order = req.order;
  out.options.power = req.power;
  out.options.unroll = req.unroll;
  auto plan = planProgram(h, out.params, req.nTrotter, out.options);
  if (!plan)
    return plan.takeError();
  out.plan = std::move(*plan);
  return std::move(out);
}
