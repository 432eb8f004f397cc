/*===- q2/Runtime/QuantumRuntime.h - simulator runtime C ABI ----*- C -*-===*
 *
 * The one header shared by the compiler (the LLVMDialect stage lowers quantum
 * ops to calls of these functions) and the state-vector simulator runtime
 * (runtime/, libq2_runtime). docs/runtime-abi.md documents every function.
 *
 * Conventions
 *  - Qubit k of a register is bit k of the amplitude index (little endian).
 *  - q2_rt_probs(qubits, n, out): the FIRST listed qubit is the MOST
 *    significant bit of the outcome index (textbook / PennyLane order).
 *  - Errors never abort: the failing call records a message (see
 *    q2_rt_last_error) and returns a neutral value; while an error is pending
 *    every state-changing call is a no-op, so compiled code runs to its end
 *    and the host reports the error.
 *  - Not thread-safe per register; the error slot is thread-local.
 *===----------------------------------------------------------------------===*/
#ifndef Q2_RUNTIME_QUANTUMRUNTIME_H
#define Q2_RUNTIME_QUANTUMRUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A register: a state vector of 2^n complex<double> amplitudes. Owned by the
 * runtime; created by q2_rt_alloc, destroyed by q2_rt_dealloc. Handles are
 * opaque ids checked on every call: a stale (deallocated), double-freed or
 * foreign handle is an error, never undefined behaviour. */
typedef struct Q2Register Q2Register;
/* A qubit handle, valid while its register lives. Gates act in place, so the
 * value-semantic !quantum.bit SSA chain maps to one stable handle. */
typedef struct Q2Qubit Q2Qubit;

/* Named gates. Targets per gate: 1, except CNOT/CZ/SWAP (2). Parameterized:
 * RX, RY, RZ (exp(-i theta/2 P)) and PHASESHIFT (diag(1, e^{i phi})). */
typedef enum Q2Gate {
  Q2_GATE_IDENTITY = 0,
  Q2_GATE_H = 1,
  Q2_GATE_X = 2,
  Q2_GATE_Y = 3,
  Q2_GATE_Z = 4,
  Q2_GATE_S = 5,
  Q2_GATE_T = 6,
  Q2_GATE_RX = 7,
  Q2_GATE_RY = 8,
  Q2_GATE_RZ = 9,
  Q2_GATE_PHASESHIFT = 10,
  Q2_GATE_CNOT = 11,
  Q2_GATE_CZ = 12,
  Q2_GATE_SWAP = 13
} Q2Gate;

/* Allocates a register of num_qubits qubits in |0...0>. Returns NULL (with
 * an error naming the bytes needed) when num_qubits <= 0, above the limit
 * (q2_rt_set_max_qubits) or when memory cannot be had. */
Q2Register *q2_rt_alloc(int64_t num_qubits);
/* Frees a register; NULL is ignored, an invalid handle is an error. */
void q2_rt_dealloc(Q2Register *reg);
/* Handle of qubit `index`; NULL (with an error) when out of range. */
Q2Qubit *q2_rt_qubit(Q2Register *reg, int64_t index);

/* Applies a named gate (or its adjoint when adjoint != 0) to targets,
 * conditioned on all ctrls being |1>. Arrays may be NULL when the count is 0. */
void q2_rt_gate(int32_t gate, double param, Q2Qubit *const *targets,
                int64_t num_targets, Q2Qubit *const *ctrls, int64_t num_ctrls,
                int32_t adjoint);

/* exp(-i theta/2 P), P = pauli[0] on targets[0] (x) ... ; pauli is a string
 * of num_targets letters from "IXYZ" (not necessarily NUL-terminated). */
void q2_rt_pauli_rot(double theta, const char *pauli, Q2Qubit *const *targets,
                     int64_t num_targets, Q2Qubit *const *ctrls,
                     int64_t num_ctrls);

/* Measures in the computational basis, collapses the state, returns 0/1
 * (-1 on error). Uses the runtime's seeded generator (q2_rt_seed). */
int32_t q2_rt_measure(Q2Qubit *qubit);

/* Writes the 2^num marginal probabilities of `qubits` into out (caller owned,
 * 2^num doubles). */
void q2_rt_probs(Q2Qubit *const *qubits, int64_t num, double *out);

/* Called by compiled code instead of running a quantum.gate_table whose
 * largest parameter index is outside its parameter array (of a size known
 * only at run time): sets the pending error. */
void q2_rt_param_out_of_range(int64_t index, int64_t num_params);

/* --- host-side control ---------------------------------------------------*/
/* Last error message of this thread, or NULL when none is pending. */
const char *q2_rt_last_error(void);
void q2_rt_clear_error(void);
/* Largest register q2_rt_alloc accepts; <= 0 restores the default (what fits
 * in 80 % of physical memory). Returns the previous limit. */
int64_t q2_rt_set_max_qubits(int64_t max_qubits);
/* Threads used by every parallel path (kernels on states above the
 * threading threshold, block slice replay, dense block GEMMs); <= 0:
 * hardware concurrency. Returns the previous value. */
int32_t q2_rt_set_num_threads(int32_t num_threads);
/* The thread count in force. */
int32_t q2_rt_get_num_threads(void);
void q2_rt_seed(uint64_t seed);

/* --- powered blocks (docs/runtime-abi.md, docs/runtime-blocks.md) --------*/
/* Brackets ONE execution of a loop body whose gates are loop-invariant.
 * Between q2_rt_block_begin and the matching q2_rt_block_end, q2_rt_gate and
 * q2_rt_pauli_rot calls are checked and RECORDED, not applied (all on one
 * register). The outermost q2_rt_block_end applies the recorded sequence
 * `count` times (0 <= count <= Q2_MAX_POWER_COUNT = 2^32; 0 is the
 * identity; a larger count is an error, the power would not be exact to
 * 1e-6) and returns when the state
 * is updated. A begin inside a recording opens a nested block with its own
 * count, at most 16 levels deep. q2_rt_probs, q2_rt_measure, q2_rt_alloc and
 * q2_rt_dealloc while recording are errors. The recording state is
 * thread-local, like the error slot; q2_rt_clear_error drops an open
 * recording. */
#define Q2_MAX_POWER_COUNT ((int64_t)1 << 32)
void q2_rt_block_begin(int64_t count);
void q2_rt_block_end(void);

/* How a block's power is applied: 0 = replay the gates count times with
 * the whole-state kernels (reference), 1 = cost model (default), 2 = dense
 * U^count whenever it fits the memory limit. Returns the previous mode. */
int32_t q2_rt_set_block_mode(int32_t mode);
/* Most bytes of dense block matrices a register may hold (cache included);
 * dense is refused when 3 matrices of 16 * 4^d bytes exceed it (d = m, or
 * the dimension of the block's invariant cosets). <= 0 restores the
 * default min(1 GiB, physical memory / 8, max(64 MiB, state bytes / 16)).
 * Returns the previous effective limit (the default for a 0-qubit
 * state when none is set). */
int64_t q2_rt_set_block_memory_limit(int64_t bytes);

/* One line of the block report: blocks with the same (num_qubits,
 * num_controls, count, num_gates, num_ops, method) share one entry. */
typedef struct Q2BlockStat {
  int64_t num_qubits;   /* m: qubits the block acts on besides its common
                           controls; -1 in the overflow entry */
  int64_t num_controls; /* controls common to every gate of the block */
  int64_t count;        /* repetitions (q2_rt_block_begin's count) */
  int64_t num_gates;    /* gate/rotation calls recorded (nested bodies once) */
  int64_t occurrences;  /* blocks folded into this entry */
  int32_t method;       /* 0 replay, 1 slice replay, 2 dense */
  int32_t reused;       /* occurrences that took U or a power from the cache */
  double seconds;       /* wall time of q2_rt_block_end, summed */
  int64_t num_ops;      /* operations applied per repetition: num_gates
                           after Clifford folding (a decomposed rotation
                           counts 1), nested bodies once */
  int64_t products;     /* dense matrix products computed (powers and
                           nested blocks; 0 when a cached power was applied
                           as is), summed */
  int64_t dense_dim;    /* dense: size of the matrices used, 2^m, or 2^d
                           when U is block diagonal on invariant cosets of
                           2^d states (proved from the gates' flips); 0 for
                           the other methods */
  int64_t cosets;       /* dense: cosets the state had amplitude on (one
                           matrix power each); 0 for the other methods */
  int32_t path;         /* where the block ran: Q2_PATH_STATE_VECTOR, or a
                           deferred register's Q2_PATH_LIVE_SUBSPACE /
                           Q2_PATH_EIGENPHASES (q2_rt_set_subspace_mode) */
  int32_t reserved;     /* 0 */
  int64_t subspace_dim; /* live subspace path: amplitudes of the restricted
                           register; eigenphase path: states of the system
                           register's live subspace (the eigenproblem's
                           size); 0 on the state vector */
} Q2BlockStat;
/* Q2BlockStat::method of a block whose power the eigenphase path applied as
 * phases of U's eigenvectors (docs/runtime-blocks.md). */
#define Q2_METHOD_EIGENPHASES 3
/* Number of entries since the last reset (at most 256; the 256th collects
 * everything past the cap); copies min(that, capacity) entries to out (out
 * may be NULL). This thread's blocks only. */
int64_t q2_rt_block_stats(Q2BlockStat *out, int64_t capacity);
void q2_rt_reset_block_stats(void);

/* Progress: called on the thread that runs the block, after each outermost
 * q2_rt_block_end, with the number of blocks finished since the callback
 * was set, the block's wall time and its method (as Q2BlockStat::method).
 * NULL removes it. The callback must not call the runtime. */
typedef void (*Q2BlockProgressFn)(void *user, int64_t blocks_done,
                                  double block_seconds, int32_t method);
void q2_rt_set_block_progress(Q2BlockProgressFn fn, void *user);

/* --- execution paths beyond the state vector (docs/runtime-blocks.md) -----*/
/* A *deferred* register holds no amplitudes: its gates and powered blocks
 * are kept as a tape until something needs the state. q2_rt_probs then runs
 * the program on the register's live subspace when it can (the affine span
 * of the states its gates can reach, proved from the gates' flips), and for
 * a QPE-shaped program (estimation wires in |+>, each controlling powers of
 * one unitary U on the other qubits, then gates on the estimation wires
 * only) from the eigenphases of U and the start state's overlaps with its
 * eigenvectors, without the estimation register. Anything else (measure,
 * state_data, a program the paths cannot take) materialises the state
 * vector and replays the tape. Results equal the state-vector path's to
 * rounding. */
#define Q2_PATH_STATE_VECTOR 0
#define Q2_PATH_LIVE_SUBSPACE 1
#define Q2_PATH_EIGENPHASES 2
/* 0 = every register is a state vector (the reference); 1 = auto
 * (default): registers of at least 18 qubits are deferred (also those above
 * q2_rt_set_max_qubits, up to 59); 2 = every register is deferred (tests).
 * Returns the previous mode; another value is an error. Process-wide. */
int32_t q2_rt_set_subspace_mode(int32_t mode);

/* How this thread's last deferred register was resolved (the last
 * q2_rt_probs, measure or state_data that needed it). */
typedef struct Q2PathStat {
  int32_t path;          /* Q2_PATH_* */
  int32_t num_qubits;    /* the register's qubits */
  int64_t live_qubits;   /* dimension of the register's live affine subspace
                            (the qubits a live-subspace register holds) */
  int64_t subspace_dim;  /* eigenphases: states of the system register's
                            live subspace (U is subspace_dim^2); live
                            subspace: 2^live_qubits; state vector: 2^n */
  double seconds;        /* wall time of the resolution */
  double eigen_seconds;  /* eigenphases: building U and its eigenvectors */
  int64_t bytes;         /* bytes of the path's amplitudes and matrices */
  char note[256];        /* why this path, e.g. why not a cheaper one */
} Q2PathStat;
/* 1 and *out filled when a deferred register was resolved on this thread
 * since the last reset, else 0. */
int64_t q2_rt_path_stats(Q2PathStat *out);
void q2_rt_reset_path_stats(void);
/* Called on the running thread when a long stage of a deferred register's
 * path starts (e.g. "eigendecomposition of U"), with the path and its
 * subspace dimension. NULL removes it. Thread-local; must not call the
 * runtime. */
typedef void (*Q2StageProgressFn)(void *user, int32_t path, const char *stage,
                                  int64_t subspace_dim);
void q2_rt_set_stage_progress(Q2StageProgressFn fn, void *user);

/* --- inspection (tests, host) --------------------------------------------*/
int64_t q2_rt_num_qubits(const Q2Register *reg);
/* Interleaved (re, im) amplitudes, 2 * 2^n doubles, owned by the register. */
double *q2_rt_state_data(Q2Register *reg);
/* Number of gate/rotation calls applied since allocation. */
int64_t q2_rt_gate_count(const Q2Register *reg);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* Q2_RUNTIME_QUANTUMRUNTIME_H */
