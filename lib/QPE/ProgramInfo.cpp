//===- ProgramInfo.cpp - q2-qpe --info ------------------------------------===//
#include "q2/QPE/ProgramPlan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <cmath>

using namespace q2;
using namespace q2::qpe;
namespace ham = q2::hamiltonian;
using llvm::formatv;

namespace {

/// An energy: fixed point where that is readable, scientific beyond 1e6 Ha
/// (a corrupt integral must not print as a 250-digit number).
std::string ha(double v) {
  if (std::isfinite(v) && std::fabs(v) < 1e6)
    return formatv("{0:F10}", v).str();
  return formatv("{0:E10}", v).str();
}

/// "13 on every wire" or "13, 26, ..., 13338 (wire 0 .. n_est-1)".
std::string stepsText(const std::vector<uint64_t> &steps) {
  if (steps.empty())
    return "";
  if (llvm::all_equal(steps))
    return formatv("{0} on every wire", steps.front()).str();
  std::string s;
  for (size_t k = 0; k < steps.size(); ++k)
    s += (k ? ", " : "") + std::to_string(steps[k]);
  return s + " (wire 0 .. " + std::to_string(steps.size() - 1) + ")";
}

const char *powerName(qpe::TrotterPower p) {
  return p == qpe::TrotterPower::Time ? "time" : "repeat";
}

} // namespace

std::string q2::qpe::formatProgramInfo(const ham::QubitHamiltonian &h,
                                       const ProgramPlan *plan,
                                       llvm::StringRef planError,
                                       llvm::StringRef psi4JSON, bool json) {
  llvm::Expected<ham::ExactResult> exact =
      plan && plan->exact ? llvm::Expected<ham::ExactResult>(*plan->exact)
                          : ham::exactSectorEnergies(h);
  std::string exactErr;
  if (!exact)
    exactErr = llvm::toString(exact.takeError());
  nlohmann::json psi4 =
      psi4JSON.empty() ? nlohmann::json()
                       : nlohmann::json::parse(psi4JSON.str(), nullptr,
                                               /*allow_exceptions=*/false);
  const qpe::TrotterPlan *tp = plan ? &plan->trotter : nullptr;
  std::string text;
  llvm::raw_string_ostream os(text);
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
    if (!psi4.is_null())
      j["psi4"] = psi4;
    if (tp) {
      j["qpe"] = {{"n_est", plan->params.nEst},
                  {"resolution", plan->params.resolution},
                  {"base_time", plan->params.baseTime},
                  {"order", tp->order},
                  {"power", powerName(tp->power)},
                  {"n_trotter", plan->automatic ? "auto" : "explicit"},
                  {"trotter_steps", tp->steps},
                  {"trotter_bound", tp->maxEnergyError},
                  {"total_steps", tp->totalSteps}};
      if (plan->automatic)
        j["qpe"]["trotter_target"] = tp->targetEnergyError;
      if (exact)
        j["qpe"]["hf_error_resolutions"] =
            (exact->hfEnergy - exact->groundEnergy) / plan->params.resolution;
    } else {
      j["qpe_error"] = planError.str();
    }
    os << j.dump(2) << "\n";
    return text;
  }
  os << formatv("Hamiltonian      {0}\n", h.name)
     << formatv("qubits           {0}\n", h.numQubits)
     << formatv("electrons        {0} (2*Sz = {1})\n", h.numElectrons, h.ms2)
     << formatv("Pauli terms      {0}\n", h.terms.size())
     << formatv("identity coeff   {0} Ha\n", ha(h.identityCoeff()))
     << formatv("1-norm           {0} Ha (non-identity terms)\n",
                ha(h.oneNorm()));
  if (exact)
    os << formatv("HF energy        {0} Ha\n", ha(exact->hfEnergy))
       << formatv("exact ground     {0} Ha (sector n_alpha={1}, n_beta={2}, "
                  "dim {3})\n",
                  ha(exact->groundEnergy), exact->nAlpha, exact->nBeta,
                  exact->sectorDim);
  else
    os << "exact ground     unavailable: " << exactErr << "\n";
  if (tp) {
    double res = plan->params.resolution;
    os << formatv("QPE              n_est {0}, resolution {1:F6} Ha, order "
                  "{2}, power {3}\n",
                  plan->params.nEst, res, tp->order, powerName(tp->power))
       << formatv("Trotter steps    {0} ({1})\n", stepsText(tp->steps),
                  plan->automatic ? "auto" : "--n-trotter")
       << formatv("Trotter bound    {0:E3} Ha = {1:F3} resolutions{2}\n",
                  tp->maxEnergyError, tp->maxEnergyError / res,
                  plan->automatic
                      ? formatv(" (target {0:F2})", tp->fraction).str()
                      : std::string());
    // What a run of this program should print, so the reader knows how far
    // to trust it (docs/energies.md).
    if (exact)
      os << formatv("expected energy  {0} Ha +- {1:F6} Ha (exact +- one "
                    "resolution; HF is {2:F2} resolutions above exact)\n",
                    ha(exact->groundEnergy), res,
                    (exact->hfEnergy - exact->groundEnergy) / res);
  } else {
    os << "QPE plan         unavailable: " << planError << "\n";
  }
  if (!psi4.is_null())
    os << formatv("psi4 RHF         {0} Ha\n",
                  ha(psi4.value("scf_energy", NAN)))
       << formatv("psi4 CI          {0} Ha (detci, same active space)\n",
                  ha(psi4.value("ci_energy", NAN)));
  return text;
}
