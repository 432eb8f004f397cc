//===- Subspace.h - deferred registers and their paths (private) -*- C++ -*-===//
//
// Registers that hold no amplitudes until the state is needed: their gate
// calls and powered blocks are kept on a tape, and q2_rt_probs runs the
// program on the register's live affine subspace or, for a QPE-shaped
// program, from the eigenphases of its powered unitary without the
// estimation register (docs/runtime-blocks.md, "Beyond the state vector").
//   SubspaceTape.cpp    deferral, the tape, materialising, settings, stats
//   SubspaceAffine.cpp  the live affine subspace and Ops in its coordinates
//   SubspacePaths.cpp   which path, the live-subspace register, eigenphases
//   UnitaryEigen.cpp    eigenvectors and eigenphases of a unitary matrix
// Only for runtime/src: not installed, not part of the ABI.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_RUNTIME_SUBSPACE_H
#define Q2_RUNTIME_SUBSPACE_H

#include "BlockEngine.h"
#include "RuntimeInternal.h"

#include <Eigen/Core>

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace q2::runtime::subspace {

//===-- the tape (SubspaceTape.cpp) ---------------------------------------===//
/// One call on a deferred register: a gate (count < 0, one Op) or a powered
/// block (its Ops, nested blocks as kOpNest, applied `count` times).
struct TapeItem {
  size_t begin = 0, len = 0;
  int64_t count = -1;
  int64_t recorded = 1; // gate calls recorded (a block's, before folding)
  bool isBlock() const { return count >= 0; }
};
struct Tape {
  std::vector<Op> ops;
  std::vector<TapeItem> items;
};
/// Ops a tape may hold; past it the register is materialised (a program
/// without powered blocks records every gate of every Trotter step).
constexpr size_t kMaxTapeOps = size_t(1) << 18;
/// Registers from this many qubits are deferred in mode 1 (below, the state
/// is a few MiB and the state-vector path costs less than the analysis).
constexpr int64_t kDeferMinQubits = 18;

/// q2_rt_set_subspace_mode: 0 off, 1 auto, 2 every register.
int mode();
/// Whether q2_rt_alloc defers a register of n qubits.
bool defers(int64_t n);
void record(Register *reg, const Op &op);
void recordBlock(Register *reg, const Op *ops, size_t len, int64_t count);
/// Allocates the state vector of a deferred register and replays its tape
/// through the state-vector paths. False (error set, naming fn) when the
/// state does not fit; `why` says why no subspace path took it.
bool materialize(Register *reg, const char *fn, const std::string &why = "");
/// q2_rt_probs of a deferred register (SubspacePaths.cpp).
void probs(Register *reg, const int64_t *idx, int64_t num, double *out);

/// The resolution of the last deferred register on this thread
/// (q2_rt_path_stats) and the stage callback.
Q2PathStat &pathStat();
void notifyStage(int path, const char *stage, int64_t dim);
/// Path and subspace dimension the block stats of this thread are tagged
/// with while a deferred register is resolved.
extern thread_local int statPath;
extern thread_local int64_t statDim;

//===-- the live affine subspace (SubspaceAffine.cpp) ---------------------===//
/// The states a program can reach, x = offset ^ (sum of basis vectors):
/// every Op maps a basis state x only to x or x ^ f for its flip f, so the
/// state stays on offset + span(flips). Coordinate i of a state is the
/// coefficient of basis[i] (reduced echelon form, ascending pivots: bit i
/// of the compact index is the pivot bit of basis[i], up to the offset).
struct Affine {
  uint64_t offset = 0;
  blocks::Cosets span; // m = 64: never "full"
  Affine() { span.m = 64; }
  int dim() const { return span.d; }
  const std::vector<uint64_t> &basis() const { return span.basis; }
  void add(uint64_t f) { span.add(f); }
  /// Coordinates of v (a member of the span; check with inSpan).
  uint64_t coords(uint64_t v) const;
  bool inSpan(uint64_t v) const;
  /// Coordinates whose basis vector has qubit bit q: bit q of a state is
  /// offset_q ^ parity(c & row(q)).
  uint64_t row(int q) const;
  /// x = offset ^ (basis vectors of c's bits).
  uint64_t state(uint64_t c) const;
};
/// ops[0, len) in the coordinates of a (Ops that act as the identity on it
/// dropped); false when an Op is controlled by a qubit that is a parity of
/// several coordinates there (no kernel index set describes it).
bool translate(const Op *ops, size_t len, const Affine &a,
               std::vector<Op> &out);

//===-- eigenvectors of a unitary (UnitaryEigen.cpp) ----------------------===//
/// U = Q diag(exp(i theta)) Q^dagger with Q unitary, through the
/// eigenvectors of a Hermitian matrix with U's eigenvectors (real symmetric
/// when U = U^T, as for a symmetric Trotter step); near-degenerate groups
/// are resolved on U itself. False (with `why`) when the residual
/// |U q - e^{i theta} q| stays above 1e-9 for some column.
bool unitaryEigen(const Eigen::MatrixXcd &U, Eigen::MatrixXcd &Q,
                  std::vector<double> &theta, std::string &why);

} // namespace q2::runtime::subspace

#endif // Q2_RUNTIME_SUBSPACE_H
