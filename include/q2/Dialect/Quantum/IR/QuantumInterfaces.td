//===- QuantumInterfaces.td - the QuantumGate interface -----*- tablegen -*-===//
#ifndef Q2_QUANTUM_INTERFACES
#define Q2_QUANTUM_INTERFACES

include "mlir/IR/OpBase.td"

def QuantumGate : OpInterface<"QuantumGate"> {
  let cppNamespace = "::q2::quantum";
  let description = [{
    A unitary gate on qubit values: targets and controls in, the same qubits
    out (targets first, then controls), optional real parameters and an
    adjoint flag. Passes and the lowering to the runtime work on this
    interface, so a gate kind is added by implementing it.
  }];
  let methods = [
    InterfaceMethod<"Target qubit operands.", "::mlir::OperandRange",
      "getTargetOperands", (ins), [{}], [{ return $_op.getInQubits(); }]>,
    InterfaceMethod<"Control qubit operands.", "::mlir::OperandRange",
      "getCtrlOperands", (ins), [{}], [{ return $_op.getInCtrlQubits(); }]>,
    InterfaceMethod<"Target qubit results.", "::mlir::ResultRange",
      "getTargetResults", (ins), [{}], [{ return $_op.getOutQubits(); }]>,
    InterfaceMethod<"Control qubit results.", "::mlir::ResultRange",
      "getCtrlResults", (ins), [{}], [{ return $_op.getOutCtrlQubits(); }]>,
    InterfaceMethod<"Real parameters (angles).", "::mlir::ValueRange",
      "getGateParams">,
    InterfaceMethod<"Whether the gate is applied as its adjoint.", "bool",
      "isAdjoint", (ins), [{}], [{ return $_op.getAdjoint(); }]>,
    InterfaceMethod<[{Same kind as `other` (name or Pauli word), so that the
      two can cancel or merge.}], "bool", "isSameKind",
      (ins "::q2::quantum::QuantumGate":$other)>,
    InterfaceMethod<[{`prev` followed by this gate on the same qubits is the
      identity (same kind; self-inverse, or same parameters and opposite
      adjoint flags).}], "bool", "cancels",
      (ins "::q2::quantum::QuantumGate":$prev)>,
    InterfaceMethod<[{A rotation with one angle: consecutive applications
      add angles and the adjoint negates it.}], "bool", "isAdditiveRotation">,
    InterfaceMethod<[{The same gate on the same operands with a new angle
      and no adjoint flag (for merging rotations).}], "::mlir::Operation *",
      "cloneWithAngle", (ins "::mlir::OpBuilder &":$builder,
                             "::mlir::Location":$loc, "::mlir::Value":$angle)>,
  ];
  let extraClassDeclaration = [{
    /// All qubit operands: targets first, then controls.
    ::llvm::SmallVector<::mlir::Value> getAllInQubits() {
      ::llvm::SmallVector<::mlir::Value> all(getTargetOperands());
      all.append(getCtrlOperands().begin(), getCtrlOperands().end());
      return all;
    }
  }];
  let verify = [{ return ::q2::quantum::detail::verifyGate($_op); }];
}

#endif // Q2_QUANTUM_INTERFACES
