//===- ProgramPlan.cpp - A program request resolved -----------------------===//
#include "q2/QPE/ProgramPlan.h"

#include "llvm/ADT/STLExtras.h"
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
  auto params =
      qpe::computeQPEParameters(h, req.nEst, req.resolution, req.window);
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
  qpe::TrotterPower power = req.power == Power::Time
                                ? qpe::TrotterPower::Time
                                : qpe::TrotterPower::Repeat;
  auto c = qpe::trotterCommutators(h, req.order);
  if (!c)
    return c.takeError();
  out.automatic = !req.nTrotter;
  auto plan = req.nTrotter ? qpe::trotterPlanForSteps(*c, out.params, req.order,
                                                      power, *req.nTrotter)
                           : qpe::chooseTrotterSteps(*c, out.params, req.order,
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

llvm::Expected<QPEOptions>
q2::qpe::checkQPEProgram(const hamiltonian::QubitHamiltonian &h,
                         const qpe::QPEParameters &params,
                         const QPEOptions &givenOptions) {
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  QPEOptions options = givenOptions;
  if (!options.trotterSteps.empty()) {
    if (options.trotterSteps.size() != params.nEst)
      return fail(llvm::formatv("{0} Trotter step counts for {1} estimation "
                                "wires",
                                options.trotterSteps.size(), params.nEst));
    uint64_t lo = *llvm::min_element(options.trotterSteps);
    uint64_t hi = *llvm::max_element(options.trotterSteps);
    if (lo < 1 || hi > kMaxWireSteps)
      return fail(llvm::formatv("Trotter step counts must be in [1, {0}]",
                                kMaxWireSteps));
    options.nTrotter = unsigned(hi);
    // One count for every wire needs no table (the program stays as small).
    if (lo == hi)
      options.trotterSteps.clear();
  }
  if (h.numQubits == 0 || h.terms.empty())
    return fail("the Hamiltonian has no qubits or no terms");
  if (params.nEst < 1 || params.nEst > qpe::kMaxEstimationQubits)
    return fail(llvm::formatv("n_est must be in [1, {0}], got {1}",
                              qpe::kMaxEstimationQubits, params.nEst));
  if (options.nTrotter < 1)
    return fail("n_trotter must be >= 1");
  if (options.order != 1 && options.order != 2)
    return fail(llvm::formatv("Trotter order must be 1 or 2, got {0}",
                              options.order));
  unsigned total = h.numQubits + params.nEst;
  if (total > hamiltonian::kMaxQubits)
    return fail(llvm::formatv("{0} system + {1} estimation qubits = {2} "
                              "qubits, above the limit of {3}",
                              h.numQubits, params.nEst, total,
                              hamiltonian::kMaxQubits));
  if (options.unroll) {
    // Straight-line code of every step, sized before anything is built
    // (regression: one Trotter count for all wires skipped this check, and
    // n_est 14, n_trotter 50 ran out of memory building the IR).
    uint64_t steps = 0;
    for (unsigned k = 0; k < params.nEst; ++k) {
      uint64_t s = options.trotterSteps.empty() ? options.nTrotter
                                                : options.trotterSteps[k];
      if (options.power == Power::Repeat)
        s <<= k; // nEst <= kMaxEstimationQubits, s < 2^32: no overflow
      steps += s;
    }
    // A step is every term once (order 1) or the symmetric product (order
    // 2: twice, minus the shared middle term).
    uint64_t perStep = options.order == 2 ? 2 * h.terms.size() - 1
                                          : h.terms.size();
    unsigned __int128 rotations = (unsigned __int128)steps * perStep;
    if (steps > kMaxUnrolledSteps || rotations > kMaxUnrolledRotations)
      return fail(llvm::formatv(
          "--unroll would emit {0} Trotter steps, {1} Pauli rotations; the "
          "limit is {2} steps and {3} rotations: do not unroll, or give "
          "fewer steps or a smaller n_est",
          steps, uint64_t(std::min<unsigned __int128>(rotations, UINT64_MAX)),
          kMaxUnrolledSteps, kMaxUnrolledRotations));
  }
  if (!options.unroll && options.rotations == QPEOptions::Rotations::Table) {
    // A record is 7 integers plus one per letter; the table's records are
    // an int32-indexed array.
    uint64_t applied = options.order == 2 ? 2 * h.terms.size() + 1
                                          : h.terms.size() + 1;
    if (applied * (7 + uint64_t(h.numQubits)) > uint64_t(INT32_MAX))
      return fail(llvm::formatv("{0} terms do not fit one Trotter step's "
                                "gate table (at most {1} integers)",
                                h.terms.size(), INT32_MAX));
  }
  for (const ham::PauliTerm &t : h.terms)
    if (t.word.size() != h.numQubits)
      return fail("Pauli word '" + t.word + "' does not have " +
                  llvm::Twine(h.numQubits) + " letters");
  return options;
}
