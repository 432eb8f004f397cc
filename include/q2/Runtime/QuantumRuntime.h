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
 * runtime; created by q2_rt_alloc, destroyed by q2_rt_dealloc. */
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
/* Frees a register; NULL is ignored. */
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

/* --- host-side control ---------------------------------------------------*/
/* Last error message of this thread, or NULL when none is pending. */
const char *q2_rt_last_error(void);
void q2_rt_clear_error(void);
/* Largest register q2_rt_alloc accepts; <= 0 restores the default (what fits
 * in 80 % of physical memory). Returns the previous limit. */
int64_t q2_rt_set_max_qubits(int64_t max_qubits);
/* Threads used by kernels on states above the threading threshold (<= 0:
 * hardware concurrency). Returns the previous value. */
int32_t q2_rt_set_num_threads(int32_t num_threads);
void q2_rt_seed(uint64_t seed);

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
