//===- Passes.td - quantum dialect passes ------------------*- tablegen -*-===//
#ifndef Q2_QUANTUM_PASSES
#define Q2_QUANTUM_PASSES

include "mlir/Pass/PassBase.td"

def QuantumCancelInverses : Pass<"quantum-cancel-inverses"> {
  let summary = "Remove adjacent gate pairs that multiply to the identity";
  let description = [{
    A gate whose results feed, in the same order, exactly the matching
    operands of its inverse (same targets, same controls) is removed with it:
    `H·H`, `X·X`, `CNOT·CNOT`, `S·S†`, `G·G†`, `pauli_rot P(θ)·pauli_rot P(θ)†`.
    Rotations with opposite angles are handled by `quantum-merge-rotations`.
  }];
  let dependentDialects = ["::q2::quantum::QuantumDialect"];
}

def QuantumMergeRotations : Pass<"quantum-merge-rotations"> {
  let summary = "Merge consecutive rotations on the same qubits";
  let description = [{
    `RX/RY/RZ/PhaseShift(a)` followed by the same gate on the same targets and
    controls becomes one gate with angle `a + b` (adjoints count as `-a`);
    likewise `pauli_rot` with the same word. A merged rotation whose angle is
    a constant zero is removed.
  }];
  let dependentDialects = ["::q2::quantum::QuantumDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // Q2_QUANTUM_PASSES
