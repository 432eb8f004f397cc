//===- QuantumDialect.td - quantum dialect definition ------*- tablegen -*-===//
#ifndef Q2_QUANTUM_DIALECT
#define Q2_QUANTUM_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Quantum_Dialect : Dialect {
  let name = "quantum";
  let summary = "Value-semantic quantum circuits (Catalyst-style) for QPE programs";
  let description = [{
    Registers (`!quantum.reg`) hold qubits (`!quantum.bit`). Gates consume
    qubit values and produce new ones, so the circuit is plain SSA dataflow
    and upstream passes (CSE, canonicalization, loops) apply unchanged.
  }];
  let cppNamespace = "::q2::quantum";
  let useDefaultTypePrinterParser = 1;
  // No attributes of its own; the parser only explains where QPE metadata
  // went (the `qpe` dialect, lib/QPE).
  let extraClassDeclaration = [{
    ::mlir::Attribute parseAttribute(::mlir::DialectAsmParser &parser,
                                     ::mlir::Type type) const override;
    void printAttribute(::mlir::Attribute attr,
                        ::mlir::DialectAsmPrinter &printer) const override;
  }];
  let hasConstantMaterializer = 0;
}

class Quantum_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Quantum_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Quantum_RegType : Quantum_Type<"Reg", "reg"> {
  let summary = "a register of qubits";
}
def Quantum_BitType : Quantum_Type<"Bit", "bit"> {
  let summary = "a single qubit (value semantics)";
}

class Quantum_Op<string mnemonic, list<Trait> traits = []>
    : Op<Quantum_Dialect, mnemonic, traits>;

#endif // Q2_QUANTUM_DIALECT
