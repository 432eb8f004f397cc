//===- ProgramPlan.cpp - Trotter steps and reference energies -------------===//
#include "q2/QPE/ProgramPlan.h"

#include "llvm/Support/FormatVariadic.h"

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
