//===- ProgramRequest.h - What to build from a Hamiltonian ------*- C++ -*-===//
//
// A light header (no MLIR, no Hamiltonian code): q2-opt's options and the
// Python module hold a request; q2::qpe::prepareProgram (ProgramPlan.h)
// resolves it.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_QPE_PROGRAMREQUEST_H
#define Q2_QPE_PROGRAMREQUEST_H

#include "q2/QPE/QPEMetadata.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace q2::qpe {

/// What to build from a Hamiltonian, with q2-qpe's defaults. The one request
/// of q2-qpe, q2-opt's Hamiltonian inputs (Phase A) and Python
/// (driver::ProgramSpec is this type).
struct ProgramRequest {
  std::optional<unsigned> nEst;     ///< none: chosen from `resolution`
  std::optional<uint64_t> nTrotter; ///< none: from the Trotter bound (auto)
  Mode mode = Mode::Dynamic;
  unsigned order = 2;
  Power power = Power::Repeat;
  bool unroll = false;
  double resolution = 3e-3; ///< Hartree
  std::optional<std::pair<double, double>> window; ///< none: 1-norm bound
  std::optional<double> baseTime;    ///< overrides t (and so the resolution)
  std::optional<double> energyShift; ///< overrides the shift
};

} // namespace q2::qpe

#endif // Q2_QPE_PROGRAMREQUEST_H
