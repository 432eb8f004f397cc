//===- QPEMetadata.cpp - The metadata struct and its rules ----------------===//
//
// Kept apart from the object code and the decoder: the `qpe` dialect's
// attribute verifier applies these rules too.
//
//===----------------------------------------------------------------------===//
#include "q2/QPE/QPEMetadata.h"

#include "q2/QPE/QPEParameters.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace q2::qpe;

llvm::Error QPEMetadata::validate() const {
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(msg);
  };
  constexpr unsigned kMaxQubits = q2::hamiltonian::kMaxQubits;
  constexpr unsigned kMaxEst = qpe::kMaxEstimationQubits;
  if (nSystem < 1)
    return fail("n_system must be >= 1");
  if (nEst < 1 || nEst > kMaxEst)
    return fail(llvm::formatv("n_est must be in [1, {0}], got {1}", kMaxEst,
                              nEst));
  if (nSystem > kMaxQubits || nSystem + nEst > kMaxQubits)
    return fail(llvm::formatv("n_system + n_est = {0} + {1} qubits, above the "
                              "limit of {2}",
                              nSystem, nEst, kMaxQubits));
  if (nTrotter < 1)
    return fail("n_trotter must be >= 1");
  if (order != 1 && order != 2)
    return fail(llvm::formatv("order must be 1 or 2, got {0}", order));
  if (!std::isfinite(baseTime) || baseTime <= 0)
    return fail("base_time must be finite and > 0");
  if (!std::isfinite(energyShift))
    return fail("energy_shift must be finite");
  if (!std::isfinite(resolution) || resolution <= 0)
    return fail("resolution must be finite and > 0");
  if (nTerms < 1)
    return fail("n_terms must be >= 1");
  if (words.size() != nTerms)
    return fail(llvm::formatv("words has {0} entries, n_terms is {1}",
                              words.size(), nTerms));
  if (defaultCoeffs.size() != nTerms)
    return fail(llvm::formatv("default_coeffs has {0} entries, n_terms is {1}",
                              defaultCoeffs.size(), nTerms));
  for (size_t i = 0; i < words.size(); ++i)
    if (words[i].size() != nSystem ||
        words[i].find_first_not_of("IXYZ") != std::string::npos)
      return fail(llvm::formatv("words[{0}] must be {1} letters from IXYZ", i,
                                nSystem));
  for (size_t i = 0; i < defaultCoeffs.size(); ++i)
    if (!std::isfinite(defaultCoeffs[i]))
      return fail(llvm::formatv("default_coeffs[{0}] is not finite", i));
  if (!trotterSteps.empty()) {
    if (trotterSteps.size() != nEst)
      return fail(llvm::formatv("trotter_steps has {0} entries, n_est is {1}",
                                trotterSteps.size(), nEst));
    uint64_t most = 0;
    for (size_t k = 0; k < trotterSteps.size(); ++k) {
      if (trotterSteps[k] < 1 || trotterSteps[k] > kMaxWireSteps)
        return fail(llvm::formatv("trotter_steps[{0}] must be in [1, {1}]", k,
                                  kMaxWireSteps));
      most = std::max(most, trotterSteps[k]);
    }
    if (most != nTrotter)
      return fail(llvm::formatv("n_trotter ({0}) must be the largest entry of "
                                "trotter_steps ({1})",
                                nTrotter, most));
  }
  auto finiteIfSet = [](const std::optional<double> &v) {
    return !v || std::isfinite(*v);
  };
  if (!finiteIfSet(trotterBound) || (trotterBound && *trotterBound < 0))
    return fail("trotter_bound must be finite and >= 0");
  if (!finiteIfSet(exactEnergy))
    return fail("exact_energy must be finite");
  if (!finiteIfSet(hfEnergy))
    return fail("hf_energy must be finite");
  return llvm::Error::success();
}
