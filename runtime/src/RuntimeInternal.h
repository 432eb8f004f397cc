//===- RuntimeInternal.h - runtime internals (private) ----------*- C++ -*-===//
//
// The register layout behind the opaque C handles, the decoded form of a gate
// (Op), the handle registry and the block engine's entry points, for the
// runtime's own sources, its unit tests and benchmarks. Not installed, not
// part of the ABI.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_RUNTIME_RUNTIMEINTERNAL_H
#define Q2_RUNTIME_RUNTIMEINTERNAL_H

#include "Kernels.h"
#include "q2/Runtime/QuantumRuntime.h"

#include <Eigen/Core>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace q2::runtime {

//===-- decoded operations (Ops.cpp) --------------------------------------===//
/// One gate or rotation call, decoded into the kernel call that applies it
/// (same numbers as the direct path, so replaying an Op is bit-identical to
/// the call). Masks are over qubit bits of the space the Op lives in (the
/// register, or a block's local space after translate()).
enum OpKind : uint8_t {
  kOp2x2,   // apply2x2(set, a = target bit, m[0..3])
  kOpScale, // scale(set, m[0])
  kOpSwap,  // swapFlip(set, a = flip)
  kOpPairs, // pauliPairs(set, a = xm, b = zm, c = m[0].re, k = m[1], eta = m[0].im)
  kOpDiag,  // pauliDiag(set, b = zm, c = m[0].re, s = m[0].im)
  kOpNest,  // nested block: the next `len` Ops, applied `count` times
};
constexpr uint8_t kGatePauli = 254; // Op::gate of a q2_rt_pauli_rot call

struct Op {
  uint8_t kind = kOpScale;
  uint8_t gate = 0;    // Q2Gate, or kGatePauli
  uint8_t adjoint = 0; // as passed (hash only)
  uint64_t ctrl = 0;   // the call's control qubits
  /// Effective controls: every amplitude the Op changes has these bits 1
  /// (its controls, CNOT's control, a phase gate's own qubit, ...), so it
  /// acts as the identity where any of them is 0. Blocks take C from these.
  uint64_t ones = 0;
  uint64_t touch = 0;  // every qubit the call acts on or is controlled by
  uint64_t setMask = 0, setValue = 0; // kernel index set
  uint64_t a = 0, b = 0;
  double param = 0; // the call's angle (hash only)
  Cplx m[4] = {};
  int64_t count = 0, len = 0; // kOpNest
};
bool sameOp(const Op &x, const Op &y);
/// exp(-i theta/2 P) for P = i^ny X^xm Z^zm (ny = number of Y factors),
/// controlled by cm, as an Op (c = cos, s = sin of theta/2).
Op rotationOp(uint64_t xm, uint64_t zm, int ny, uint64_t cm, double c,
              double s);
/// Sets op.ones from the kernel index set (call after filling the Op).
void setEffectiveControls(Op &op);
/// Applies one non-nested Op to an interleaved amplitude array of 2^n.
void applyOp(double *v, int n, const Op &op);
/// op in the local space of a block: bits of `common` dropped (they are 1
/// throughout), the bits of `targets` renumbered 0.. in ascending order.
Op translateOp(const Op &op, uint64_t common, uint64_t targets);
/// Software pext: the bits of x under mask, packed into the low bits.
uint64_t extractBitsOf(uint64_t x, uint64_t mask);
/// Applies ops[0, len) `count` times (nested blocks recursively, replayed).
void replayOps(double *v, int n, const Op *ops, size_t len, int64_t count);

//===-- rotation / gate fusion (Fusion.cpp) -------------------------------===//
/// Pending fused work: consecutive Ops with the same controls whose other
/// qubits stay within kMaxFusedQubits. Kept as a list; at flush the cost
/// model (fusionPays) decides between one dense 2^k x 2^k sweep and applying
/// the Ops one by one.
struct Fusion {
  static constexpr int kMaxFusedQubits = 4;
  static constexpr size_t kMaxOps = 256;
  bool active = false;
  uint64_t targetMask = 0; // qubits besides the controls
  uint64_t ctrlMask = 0;
  std::vector<Op> ops;     // capacity kept between groups
  std::vector<std::complex<double>> matrix, scratch;
};

struct BlockCache; // BlockEngine.h
struct BlockCacheDeleter {
  void operator()(BlockCache *c) const;
};

namespace subspace {
struct Tape; // Subspace.h
}
struct TapeDeleter {
  void operator()(subspace::Tape *t) const;
};

struct Register {
  int64_t numQubits = 0;
  int64_t gateCount = 0;
  uint64_t handle = 0; // tagged id given out as Q2Register*
  /// 2^numQubits amplitudes; qubit k is bit k of the index. Empty while the
  /// register is deferred.
  Eigen::VectorXcd amps;
  Fusion fusion;
  std::unique_ptr<BlockCache, BlockCacheDeleter> cache; // per register life
  /// A deferred register keeps its calls on `tape` (Subspace.h) until the
  /// state is needed.
  bool deferred = false;
  std::unique_ptr<subspace::Tape, TapeDeleter> tape;
};

inline double *data(Register *r) {
  return reinterpret_cast<double *>(r->amps.data());
}

//===-- handles (Handles.cpp) ---------------------------------------------===//
/// Q2Register * and Q2Qubit * are tagged ids (bit 0 set, so never an aligned
/// pointer), validated against the live-register table with a generation
/// counter: stale, double-freed and foreign handles are detected.
enum class HandleStatus { Ok, Null, Foreign, WrongKind, Stale, BadIndex };
Register *lookupRegister(const Q2Register *h, HandleStatus *status = nullptr);
Register *lookupQubit(const Q2Qubit *h, int64_t *index,
                      HandleStatus *status = nullptr);
const char *handleStatusText(HandleStatus s);
/// Bits of a handle's slot number: at most 2^kHandleSlotBits live registers.
constexpr int kHandleSlotBits = 24;
/// Gives reg a slot and its handle (Handles.cpp); false when
/// 2^kHandleSlotBits registers are alive.
bool registerRegister(Register *reg);
/// Frees reg's slot: its handles become stale.
void unregisterRegister(Register *reg);

//===-- errors (thread-local slot, see QuantumRuntime.cpp) ----------------===//
bool errorPending();
__attribute__((format(printf, 1, 2))) void setError(const char *fmt, ...);

/// Default of q2_rt_set_max_qubits: largest n with 16 * 2^n bytes <= 80 % of
/// physical memory (sysconf).
int64_t defaultMaxQubits();
/// The limit in force (q2_rt_set_max_qubits, else the default).
int64_t effectiveMaxQubits();
/// Allocates reg's 2^numQubits amplitudes in |0..0> (huge pages where
/// offered); false with the error set (naming fn) when that fails.
bool allocateState(Register *reg, const char *fn);
/// A decoded gate call outside a block: taped on a deferred register, else
/// applied (or fused).
void applyCall(Register *reg, const Op &op);
/// Physical memory in bytes (sysconf), 0 when unknown.
double physicalMemoryBytes();

/// Fusion (on by default; env Q2_RT_FUSION=0 turns it off). Whether a group
/// is applied densely is decided by fusionPays(). Setters return the
/// previous value.
bool getFusionEnabled();
bool setFusionEnabled(bool on);
/// Registers below this many qubits never fuse (default 1: the cost model
/// decides everywhere; tests set it).
int64_t getFusionMinQubits();
int64_t setFusionMinQubits(int64_t n);
/// Applies pending fused work to the state (no-op when there is none).
void flushFusion(Register *reg);
/// Applies a decoded call: joins the fusion group, or flushes it and
/// applies the call.
void applyOrFuse(Register *reg, const Op &op);
/// Cost model: is one dense 2^k x 2^k sweep over `amps` amplitudes (of a
/// 2^n state) cheaper than the `ops` one by one?
bool fusionPays(int k, int n, uint64_t amps, const Op *ops, size_t numOps,
                uint64_t lowestFixedBit);
/// 0 = cost model (default), 1 = always dense, -1 = never dense (tests,
/// benchmarks). Returns the previous value.
int setFusionPolicy(int policy);

//===-- blocks (Blocks.cpp, BlockEngine.h) --------------------------------===//
/// Records `op` when a block recording is open on this thread: returns true
/// (recorded, or an error set). False: apply it now.
bool recordOp(const char *fn, Register *reg, const Op &op);
/// True while this thread records a block (probs/measure/alloc/dealloc are
/// errors then).
bool recording();
/// Drops any open recording of this thread (q2_rt_clear_error, dealloc).
void resetRecording();
/// Applies ops[0, len) `count` times to reg by the chosen method; fills the
/// stats (`recorded`: the gate calls recorded, when ops were folded before,
/// as a deferred register's tape keeps them). mode: 0 replay, 1 cost
/// model, 2 dense when it fits.
void executeBlock(Register *reg, const Op *ops, size_t len, int64_t count,
                  int64_t recorded = -1);

/// Pauli-frame folding (CliffordFold.cpp): the uncontrolled Clifford gates
/// of ops[0, len) are pushed through its Pauli rotations (which take the
/// conjugated words) and dropped where they multiply to the identity, so a
/// decomposed rotation (basis change, CNOT ladder, RZ, mirror) becomes one
/// rotation Op. Exact up to rounding. False when nothing folds away (out is
/// then meaningless). On by default; env Q2_RT_CLIFFORD_FOLD=0 turns it off.
bool foldCliffords(const Op *ops, size_t len, std::vector<Op> &out);
/// Returns the previous value.
bool setCliffordFolding(bool on);
/// A closed frame's global phase is measured on |0..0> as a sparse vector
/// of at most this many states (default 4096), else densely; tests lower it
/// to reach the dense path. Returns the previous value.
size_t setCliffordFoldSparseLimit(size_t states);

/// Cost-model constants (ns), measured by bench-runtime --calibrate.
struct CostModel {
  double gateInCache;  // per amplitude and Op, buffer in L2
  double gateOutCache; // per amplitude and Op, state beyond the L3 budget
  double opOverhead;   // per kernel call (index set, run plan, dispatch)
  double gatherAmp;    // gather + scatter, per amplitude
  double gemmMac;      // per complex multiply-add, AVX2+FMA Eigen GEMM
  double gemmMacBaseline; // the same, baseline-ISA Eigen (no AVX2 CPU)
  double denseAmp[7];  // fused dense sweep (applyDense), per amplitude, k=0..6
  double cacheBytes;   // state size below which gateInCache applies
};
const CostModel &costModel();
void setCostModel(const CostModel &m);

/// Method chosen for a block (also Q2BlockStat::method).
enum BlockMethod { kReplay = 0, kSliceReplay = 1, kDense = 2 };
int getBlockMode();
/// C = A * B (column major, contiguous, no aliasing) as the dense block path
/// computes it (for bench-runtime).
void denseProduct(const std::complex<double> *A, const std::complex<double> *B,
                  std::complex<double> *C, long m, long k, long n);
/// Dense block GEMMs through the AVX2+FMA build of Eigen (default on, used
/// only when the CPU has AVX2); false: the baseline build. Returns the
/// previous value (false when the AVX2 file is not built).
bool setGemmAVX2(bool on);
/// Tests: use this BlockMethod for every top-level block (dense only when it
/// fits; -1 = the cost model). Returns the previous value.
int setForcedBlockMethod(int method);
/// Blocks of at least this many qubits are searched for invariant cosets
/// (dense then works per coset); tests set 0 (always) or 64 (never).
/// Returns the previous value.
int setCosetMinQubits(int m);
/// Amplitudes per slice-replay buffer (2^bits); tests shrink it.
int setSliceBufferBits(int bits);
/// Work (estimated ns) above which block code uses the pool.
double setBlockParallelWork(double ns);

} // namespace q2::runtime

#endif // Q2_RUNTIME_RUNTIMEINTERNAL_H
