//===- QuantumOps.td - quantum dialect operations ----------*- tablegen -*-===//
#ifndef Q2_QUANTUM_OPS
#define Q2_QUANTUM_OPS

include "q2/Dialect/Quantum/IR/QuantumDialect.td"
include "q2/Dialect/Quantum/IR/QuantumInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"

//===----------------------------------------------------------------------===//
// Memory: registers and qubits
//===----------------------------------------------------------------------===//

// A resource for register allocation and measurement so that upstream passes
// neither CSE nor reorder them.
def Quantum_RegisterResource
    : Resource<"::q2::quantum::RegisterResource">;

def Quantum_AllocOp : Quantum_Op<"alloc",
    [MemoryEffects<[MemAlloc<Quantum_RegisterResource>]>]> {
  let summary = "allocate a register of qubits in |0...0>";
  let description = [{
    ```mlir
    %r = quantum.alloc(4) : !quantum.reg
    ```
    The size must be in [1, 62] (the largest register whose basis index and
    `probs` result size fit in 64 bits). Whether it fits in memory is the
    runtime's question.
  }];
  let arguments = (ins I64Attr:$size);
  let results = (outs Quantum_RegType:$reg);
  let assemblyFormat = "`(` $size `)` attr-dict `:` type($reg)";
  let hasVerifier = 1;
}

def Quantum_DeallocOp : Quantum_Op<"dealloc",
    [MemoryEffects<[MemFree<Quantum_RegisterResource>]>]> {
  let summary = "free a register";
  let description = [{
    ```mlir
    quantum.dealloc %r : !quantum.reg
    ```
  }];
  let arguments = (ins Quantum_RegType:$reg);
  let assemblyFormat = "$reg attr-dict `:` type($reg)";
}

def Quantum_ExtractOp : Quantum_Op<"extract", [Pure]> {
  let summary = "take qubit `idx` out of a register";
  let description = [{
    The index is either static or an `i64` value:
    ```mlir
    %q0 = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
    %qi = quantum.extract %r[%i] : !quantum.reg -> !quantum.bit
    ```
  }];
  let arguments = (ins Quantum_RegType:$reg, Optional<I64>:$idx,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$idx_attr);
  let results = (outs Quantum_BitType:$qubit);
  let assemblyFormat = [{
    $reg `[` custom<QubitIndex>($idx, $idx_attr) `]` attr-dict `:` type($reg) `->` type($qubit)
  }];
  let hasVerifier = 1;
}

def Quantum_InsertOp : Quantum_Op<"insert", [Pure]> {
  let summary = "put a qubit back into a register";
  let description = [{
    ```mlir
    %r1 = quantum.insert %r0[0], %q : !quantum.reg, !quantum.bit
    ```
  }];
  let arguments = (ins Quantum_RegType:$in_reg, Optional<I64>:$idx,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$idx_attr,
                       Quantum_BitType:$qubit);
  let results = (outs Quantum_RegType:$out_reg);
  let assemblyFormat = [{
    $in_reg `[` custom<QubitIndex>($idx, $idx_attr) `]` `,` $qubit attr-dict `:` type($in_reg) `,` type($qubit)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Gates
//===----------------------------------------------------------------------===//

// Gates implement QuantumGate; the interface verifies the shared rules
// (as many results as qubit operands, no qubit used twice).
class Quantum_GateOp<string mnemonic, list<Trait> traits = []>
    : Quantum_Op<mnemonic, !listconcat(traits,
        [Pure, AttrSizedOperandSegments, AttrSizedResultSegments,
         DeclareOpInterfaceMethods<QuantumGate,
           ["getGateParams", "isSameKind", "cancels", "isAdditiveRotation",
            "cloneWithAngle"]>])>;

def Quantum_CustomOp : Quantum_GateOp<"custom"> {
  let summary = "a named gate, optionally controlled and/or adjoint";
  let description = [{
    Known gates (targets, parameters): Identity, H, X, Y, Z, S, T (1, 0);
    RX, RY, RZ, PhaseShift (1, 1); CNOT, CZ, SWAP (2, 0).
    Each target and control yields a new qubit value.
    ```mlir
    %q1 = quantum.custom "H"() %q0 : !quantum.bit
    %a, %b = quantum.custom "CNOT"() %q0, %q1 : !quantum.bit, !quantum.bit
    %t, %c = quantum.custom "RZ"(%theta) %q ctrls(%k) adj : !quantum.bit ctrls !quantum.bit
    ```
  }];
  let arguments = (ins StrAttr:$gate_name, Variadic<F64>:$params,
                       Variadic<Quantum_BitType>:$in_qubits,
                       Variadic<Quantum_BitType>:$in_ctrl_qubits,
                       UnitAttr:$adjoint);
  let results = (outs Variadic<Quantum_BitType>:$out_qubits,
                      Variadic<Quantum_BitType>:$out_ctrl_qubits);
  let assemblyFormat = [{
    $gate_name `(` $params `)` $in_qubits (`ctrls` `(` $in_ctrl_qubits^ `)`)?
    (`adj` $adjoint^)? attr-dict `:` type($out_qubits)
    (`ctrls` type($out_ctrl_qubits)^)?
  }];
  let hasVerifier = 1;
}

def Quantum_PauliRotOp : Quantum_GateOp<"pauli_rot"> {
  let summary = "exp(-i theta/2 P) for a Pauli word P, optionally controlled";
  let description = [{
    Letter `k` of the word (from `IXYZ`) acts on target `k`.
    ```mlir
    %a, %b = quantum.pauli_rot "XY"(%theta) %q0, %q1 : !quantum.bit, !quantum.bit
    %t:2, %c = quantum.pauli_rot "ZZ"(%theta) %q0, %q1 ctrls(%k)
                 : !quantum.bit, !quantum.bit ctrls !quantum.bit
    ```
  }];
  let arguments = (ins StrAttr:$pauli_word, F64:$theta,
                       Variadic<Quantum_BitType>:$in_qubits,
                       Variadic<Quantum_BitType>:$in_ctrl_qubits,
                       UnitAttr:$adjoint);
  let results = (outs Variadic<Quantum_BitType>:$out_qubits,
                      Variadic<Quantum_BitType>:$out_ctrl_qubits);
  let assemblyFormat = [{
    $pauli_word `(` $theta `)` $in_qubits (`ctrls` `(` $in_ctrl_qubits^ `)`)?
    (`adj` $adjoint^)? attr-dict `:` type($out_qubits)
    (`ctrls` type($out_ctrl_qubits)^)?
  }];
  let hasVerifier = 1;
}

def Quantum_GateTableOp : Quantum_Op<"gate_table",
    [AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "a sequence of gates given as a table";
  let description = [{
    Applies gates one after the other to its qubits, as the `custom` and
    `pauli_rot` ops it stands for would: wire `w` is qubit operand `w`,
    result `w` is that wire's value after the last gate. One op (and one
    loop over a constant table when lowered) instead of one op and one call
    site per gate, so a long gate sequence costs the compiler a table, not
    code. `q2-qpe` writes each Trotter step as one table (a record per
    term, parameters = the step's angle tensor) and `quantum-outline-chunks`
    makes them of long gate runs.
    ```mlir
    %o:3 = quantum.gate_table %q0, %q1, %q2 params(%p : tensor<1xf64>)
             kinds ["H", "X", "pauli_rot"] words "XZ"
             records [0, 0, -1, 1, 0, 0, 0,
                      1, 0, -1, 1, 1, 0, 1, 0,
                      2, 0, 0, 2, 1, 0, 1, 2, 0]
             : !quantum.bit, !quantum.bit, !quantum.bit
    ```
    is `H(q0)`, `X(q1) ctrls(q0)`, `pauli_rot "XZ"(%p[0]) q1, q2 ctrls(q0)`.
    A record is `kind, adjoint, param, nT, nC, word` followed by `nT`
    target wires and `nC` control wires: `kind` indexes `kinds` (a gate of
    `quantum.custom`, `pauli_rot`, or `pauli_rot_ladder`: the same
    rotation, to be executed as its Clifford + RZ decomposition, basis
    change, CNOT ladder, RZ with the controls, undone in reverse, which
    is what `quantum-decompose-pauli-rot` makes of `pauli_rot` records:
    the lowering expands it in the table's loop, so the decomposition
    costs the compiler nothing per term), `adjoint` is 0 or 1, `param` indexes
    the 1-D f64 `params` or is -1 (gates without a parameter), `word` is the
    offset of the rotation's Pauli word (`nT` letters) in `words` (0 for
    other gates). `params` is a tensor before bufferization and a memref
    after (read only). The verifier checks every record as `custom` and
    `pauli_rot` check their ops.
  }];
  let arguments = (ins Variadic<Quantum_BitType>:$in_qubits,
                       Optional<AnyTypeOf<[RankedTensorOf<[F64]>,
                                           MemRefOf<[F64]>]>>:$params,
                       StrArrayAttr:$kinds,
                       DefaultValuedStrAttr<StrAttr, "">:$words,
                       DenseI32ArrayAttr:$records);
  let results = (outs Variadic<Quantum_BitType>:$out_qubits);
  let assemblyFormat = [{
    $in_qubits (`params` `(` $params^ `:` type($params) `)`)?
    `kinds` $kinds (`words` $words^)? `records` custom<GateRecords>($records)
    attr-dict
    `:` type($out_qubits)
  }];
  let extraClassDeclaration = [{
    /// One gate of the table (views into the records).
    struct Record {
      int32_t kind, adjoint, param, numTargets, numCtrls, word;
      llvm::ArrayRef<int32_t> targets, ctrls;
    };
    /// Calls `fn` on every record in order; the op must have verified.
    void forEachRecord(llvm::function_ref<void(const Record &)> fn);
    /// The `kinds` entry for Pauli rotations.
    static constexpr llvm::StringLiteral kPauliRot = "pauli_rot";
    /// The `kinds` entry for Pauli rotations executed decomposed (basis
    /// change, CNOT ladder, controlled RZ; docs/dialect.md).
    static constexpr llvm::StringLiteral kPauliRotLadder = "pauli_rot_ladder";
    /// Whether `kind` is one of the two Pauli-rotation kinds.
    static bool isPauliKind(llvm::StringRef kind) {
      return kind == kPauliRot || kind == kPauliRotLadder;
    }
    /// Number of records (gates) in the table.
    int64_t getNumGates();
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Powered blocks
//===----------------------------------------------------------------------===//

def Quantum_PowerOp : Quantum_Op<"power",
    [SingleBlockImplicitTerminator<"::q2::quantum::YieldOp">,
     RecursiveMemoryEffects]> {
  let summary = "apply a block of gates `count` times, as a unitary power";
  let description = [{
    The body is a loop-invariant block of gates on the qubits it receives;
    the op applies it `count` times (0: identity) to `qubits` and yields the
    resulting qubits. It is what `quantum-power-loops` makes of an `scf.for`
    that repeats the same gates (power=repeat QPE: 2^k * n_trotter Trotter
    steps on estimation wire k). It lowers to one execution of the body
    between `q2_rt_block_begin(count)` and `q2_rt_block_end()`: the runtime
    records the body's gates and applies them `count` times, as a dense
    unitary raised to the power by repeated squaring (reusing U^(2^j) across
    blocks with the same gates) or by replay, as its cost model decides
    (docs/execution.md).
    ```mlir
    %out:2 = quantum.power %n qubits(%c, %q) : !quantum.bit, !quantum.bit {
    ^bb0(%a: !quantum.bit, %b: !quantum.bit):
      %b1, %a1 = quantum.pauli_rot "Z"(%theta) %b ctrls(%a) : !quantum.bit ctrls !quantum.bit
      quantum.yield %a1, %b1 : !quantum.bit, !quantum.bit
    }
    ```
    The body may hold gates, gate tables, side-effect-free ops (the angle
    arithmetic) and calls (the chunks `quantum-outline-chunks` makes of a
    long body); no allocation, measurement or probabilities. The runtime
    refuses those while it records, so a callee cannot break the rule.
  }];
  let arguments = (ins Index:$count, Variadic<Quantum_BitType>:$qubits);
  let results = (outs Variadic<Quantum_BitType>:$out_qubits);
  let regions = (region SizedRegion<1>:$body);
  // The results have the qubits' types; the body's arguments are printed.
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // An empty body block with one argument per qubit (the caller fills it
    // and ends it with quantum.yield).
    OpBuilder<(ins "::mlir::Value":$count, "::mlir::ValueRange":$qubits)>
  ];
}

def Quantum_YieldOp : Quantum_Op<"yield",
    [Pure, Terminator, ReturnLike, HasParent<"::q2::quantum::PowerOp">]> {
  let summary = "the qubits a quantum.power body hands back";
  let arguments = (ins Variadic<Quantum_BitType>:$qubits);
  let assemblyFormat = "($qubits^ `:` type($qubits))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* no qubits */ }]>];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Measurement
//===----------------------------------------------------------------------===//

def Quantum_MeasureOp : Quantum_Op<"measure",
    [MemoryEffects<[MemWrite<Quantum_RegisterResource>]>]> {
  let summary = "computational-basis measurement (collapses the state)";
  let description = [{
    ```mlir
    %m, %q1 = quantum.measure %q0 : i1, !quantum.bit
    ```
  }];
  let arguments = (ins Quantum_BitType:$in_qubit);
  let results = (outs I1:$mres, Quantum_BitType:$out_qubit);
  let assemblyFormat = "$in_qubit attr-dict `:` type($mres) `,` type($out_qubit)";
}

def Quantum_ProbsOp : Quantum_Op<"probs",
    [MemoryEffects<[MemRead<Quantum_RegisterResource>]>,
     AttrSizedOperandSegments]> {
  let summary = "marginal probabilities of some qubits";
  let description = [{
    The first qubit is the most significant bit of the outcome index. The
    qubits are listed, or given as a contiguous range of a register
    (`reg %r[start, count]` means qubits start, ..., start + count - 1), which
    keeps rolled programs the same size whatever the number of qubits.
    Tensor form (before bufferization) and out-buffer form (after):
    ```mlir
    %p = quantum.probs %q0, %q1 : tensor<4xf64>
    %p = quantum.probs reg %r[4, 2] : tensor<4xf64>
    quantum.probs %q0, %q1 in(%buf : memref<4xf64>)
    ```
  }];
  let arguments = (ins Variadic<Quantum_BitType>:$qubits,
                       Optional<Quantum_RegType>:$reg,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$reg_start,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$reg_count,
                       Arg<Optional<MemRefOf<[F64]>>, "out-buffer",
                           [MemWrite]>:$state_in);
  let results = (outs Optional<RankedTensorOf<[F64]>>:$probabilities);
  let assemblyFormat = [{
    $qubits (`reg` $reg^ `[` $reg_start `,` $reg_count `]`)?
    (`in` `(` $state_in^ `:` type($state_in) `)`)? attr-dict
    (`:` type($probabilities)^)?
  }];
  let extraClassDeclaration = [{
    /// Number of qubits measured (listed or in the register range).
    int64_t getNumMeasuredQubits();
  }];
  let hasVerifier = 1;
}

#endif // Q2_QUANTUM_OPS
