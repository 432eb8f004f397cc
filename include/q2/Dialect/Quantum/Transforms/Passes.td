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

def QuantumLowerCtrlAdj : Pass<"quantum-lower-ctrl-adj"> {
  let summary = "Lower adjoints and gate-inherent controls to the runtime's gate set";
  let description = [{
    Adjoints disappear: self-inverse gates drop the flag, rotations and
    `pauli_rot` negate their angle, `S†`/`T†` become `PhaseShift(-π/2)` /
    `PhaseShift(-π/4)`. Gates with a built-in control become the controlled
    single-qubit gate: `CNOT(c, t)` → `X(t) ctrls(c)`, `CZ(c, t)` →
    `Z(t) ctrls(c)`, so the runtime needs one controlled kernel per gate.
  }];
  let dependentDialects = ["::q2::quantum::QuantumDialect",
                           "::mlir::arith::ArithDialect"];
}

def QuantumDecomposePauliRot : Pass<"quantum-decompose-pauli-rot"> {
  let summary = "Decompose Pauli rotations into basis change + CNOT ladder + RZ";
  let description = [{
    exp(-iθ/2 P) = B† L† RZ(θ) L B with B the basis change (H for X,
    RX(π/2) for Y, undone by RX(-π/2)), L the CNOT ladder onto the last non-identity qubit.
    Controls move onto the RZ alone. Identity letters are dropped; an
    all-identity word is a (controlled) global phase. With `keep-native`,
    rotations stay for the runtime's native kernel.
  }];
  let options = [
    Option<"keepNative", "keep-native", "bool", "false",
           "Keep pauli_rot for the runtime's native kernel">
  ];
  let dependentDialects = ["::q2::quantum::QuantumDialect",
                           "::mlir::arith::ArithDialect"];
}

def QuantumUnroll : Pass<"quantum-unroll"> {
  let summary = "Fully unroll scf.for loops with constant trip counts";
  let description = [{
    The stress case: every loop whose bounds are constants (after
    canonicalization) is unrolled, innermost first. Loops with dynamic trip
    counts (power = repeat) are left as they are unless `max-trip-count`
    allows it.
  }];
  let options = [
    Option<"maxTripCount", "max-trip-count", "int64_t", "1 << 20",
           "Refuse to unroll loops with more iterations than this">,
    Option<"maxOps", "max-ops", "int64_t", "1 << 24",
           "Refuse to unroll when the function would hold more operations "
           "than this (checked before each loop is unrolled)">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def QuantumOutlineChunks : Pass<"quantum-outline-chunks", "::mlir::ModuleOp"> {
  let summary = "Outline long runs of gates into private functions";
  let description = [{
    Bounds the code LLVM compiles per function (its instruction selection,
    scheduling and register allocation are superlinear in function size).
    In a block of a `func.func` with more than `min-gates` gates, each run
    of gates is cut into chunks; a run ends at an op that uses one of its
    results, has regions or is not free of memory effects. Each chunk of two
    or more gates becomes a private `func.func` called where the chunk's last
    gate was: it takes the qubits the chunk consumes and the other values its
    gates need, returns the qubits used after it, and holds the gates in
    their original order, as one `quantum.gate_table` (with `tabulate`, the
    default: a table costs LLVM data instead of a call site per gate) or as
    the gates themselves. Pure ops of the same block without quantum types
    or regions that compute gate operands (a term's angle) are cloned into
    the chunk, constants always; anything else is an argument. A chunk has
    at most `max-gates` gates and clones at most `max-gates` ops, so its
    function's code is bounded whatever the mix (one angle per gate for
    native Pauli rotations, one per ten gates decomposed). A chunk whose
    gates become a table may hold up to `max-table-gates` gates: they are
    data, its code is still bounded by `max-gates`; fewer, larger tables
    save LLVM a fixed cost per function. If the block
    still has more than `min-gates` gates and calls, the calls are grouped
    the same way (a tree), so no function grows with the number of gates.
    Originals left unused are erased. Linear in the block per level.

    The functions have internal linkage and `passthrough = ["noinline"]`,
    which `convert-func-to-llvm` carries to LLVM (`noinline`), so LLVM does
    not inline them back. `max-gates=0` disables the pass; `max-gates=1` is
    refused (a one-gate chunk is never outlined).
  }];
  let options = [
    Option<"maxGates", "max-gates", "unsigned", "1024",
           "Largest number of gates (or calls) per function; 0 disables">,
    Option<"minGates", "min-gates", "unsigned", "256",
           "Blocks with at most this many gates (or calls) are left alone">,
    Option<"maxTableGates", "max-table-gates", "unsigned", "0",
           "Largest number of gates of a chunk that becomes one "
           "quantum.gate_table (0: max-gates); its code stays bounded by "
           "max-gates">,
    Option<"tabulate", "tabulate", "bool", "true",
           "Put each chunk's gates into one quantum.gate_table">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def QuantumPowerLoops : Pass<"quantum-power-loops"> {
  let summary = "Turn loops that repeat the same gates into quantum.power";
  let description = [{
    An `scf.for` whose induction variable is unused, whose iteration
    arguments are all qubits and whose body holds only gates, nested
    `quantum.power` ops and side-effect-free operations applies the same
    unitary in every iteration: it becomes `quantum.power` with the trip
    count, max(0, ceildiv(ub - lb, step)). Innermost loops first, so a loop
    around a powered loop is powered too. In a QPE program with
    power=repeat, estimation wire k's 2^k * n_trotter Trotter steps become
    one block that the runtime raises to the power instead of replaying it
    (docs/execution.md). Loops that use their induction variable (the
    inverse QFT, the loop over estimation wires) are left alone.
  }];
  let options = [
    Option<"minGates", "min-gates", "unsigned", "1",
           "Leave loops whose body has fewer gates alone">
  ];
  let dependentDialects = ["::q2::quantum::QuantumDialect",
                           "::mlir::arith::ArithDialect"];
}

def ScalarizeElementwiseExtract : Pass<"q2-scalarize-elementwise-extract"> {
  let summary = "Compute extracted elements of elementwise linalg ops as scalars";
  let description = [{
    `tensor.extract %r[%i]` of a 1-D, all-parallel `linalg.generic` with
    identity maps becomes the generic's body applied to the extracted input
    elements. The QPE angle of a term is then computed next to the gate
    that uses it (no temporary angle tensors, no buffers, and short live
    ranges in the generated code). Generics left without users vanish.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def OrderConstantGlobals : Pass<"q2-order-constant-globals", "::mlir::ModuleOp"> {
  let summary = "Order and name bufferization's constant globals by first use";
  let description = [{
    One-shot bufferization with function boundaries visits functions in an
    order taken from a pointer-keyed map, so the `memref.global` constants
    it creates for tensor constants (`__constant_52xf64`, `..._1`, ...) come
    out in a different order and with different suffixes from run to run:
    the same input gave different IR and objects. This pass puts them at
    the top of the module in the order of their first `memref.get_global`
    (module walk order) and renames them `__constant_<type>`, `_1`, `_2`, ...
    in that order. The IR is otherwise unchanged.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

#endif // Q2_QUANTUM_PASSES
