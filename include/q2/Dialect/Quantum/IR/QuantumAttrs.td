//===- QuantumAttrs.td - quantum dialect attributes --------*- tablegen -*-===//
#ifndef Q2_QUANTUM_ATTRS
#define Q2_QUANTUM_ATTRS

include "q2/Dialect/Quantum/IR/QuantumDialect.td"

// A double (held as an APFloat, which hashes) printed so that it parses
// back bit for bit.
def Quantum_F64Parameter : APFloatParameter<"a finite double"> {
  let printer = [{ $_printer.printFloat($_self) }];
  let parser = [{ ::q2::quantum::parseF64($_parser) }];
}
// Doubles printed like Quantum_F64Parameter (the generic struct() printing of
// a DenseF64ArrayAttr keeps only 7 digits).
def Quantum_F64ArrayParameter
    : AttrOrTypeParameter<"::mlir::DenseF64ArrayAttr", "doubles"> {
  let printer = [{ ::q2::quantum::printF64Array($_printer, $_self) }];
  let parser = [{ ::q2::quantum::parseF64Array($_parser) }];
}
// An optional double: NaN stands for "not given" and is not printed.
def Quantum_OptF64Parameter : APFloatParameter<"a finite double"> {
  let printer = [{ $_printer.printFloat($_self) }];
  let parser = [{ ::q2::quantum::parseF64($_parser) }];
  let defaultValue =
      "::llvm::APFloat::getQNaN(::llvm::APFloat::IEEEdouble())";
}
def Quantum_BoolParameter : AttrOrTypeParameter<"bool", "true or false"> {
  let printer = [{ $_printer << ($_self ? "true" : "false") }];
  let parser = [{ ::q2::quantum::parseBool($_parser) }];
}

def Quantum_QPEAttr : AttrDef<Quantum_Dialect, "QPE"> {
  let mnemonic = "qpe";
  let summary = "what a QPE program is, for running it and decoding its result";
  let description = [{
    Attached to the module as `quantum.qpe` by q2-qpe. The driver runs the
    program and decodes phase -> energy from it alone, and the LLVMDialect
    stage copies it into the object (section `.q2.qpe`), so a saved object
    can be run too. The verifier checks the values; the dialect checks them
    against the signature of `@qpe` on the module.
    ```mlir
    module attributes {quantum.qpe = #quantum.qpe<molecule = "H2",
        n_system = 4, n_est = 8, n_trotter = 10, n_terms = 15, order = 2,
        mode = "dynamic", power = "repeat", unroll = false,
        base_time = 0.5, energy_shift = 1.2, resolution = 0.0147,
        words = ["IIII", "ZIII", ...], default_coeffs = [-0.09, ...],
        trotter_bound = 4.6e-4, exact_energy = -1.137, hf_energy = -1.117>} {
    ```
    Optional: `trotter_steps` (per-wire step counts when they differ;
    n_trotter is then the largest), `trotter_bound` (Ha, the rigorous bound
    on the energy shift from Trotterisation), `exact_energy` and `hf_energy`
    (Ha, the sector's exact ground and Hartree-Fock energies).
  }];
  let parameters = (ins
    StringRefParameter<"molecule name">:$molecule,
    "uint64_t":$n_system,
    "uint64_t":$n_est,
    "uint64_t":$n_trotter,
    "uint64_t":$n_terms,
    "uint64_t":$order,
    StringRefParameter<"\"fixed\" or \"dynamic\"">:$mode,
    StringRefParameter<"\"time\" or \"repeat\"">:$power,
    Quantum_BoolParameter:$unroll,
    Quantum_F64Parameter:$base_time,
    Quantum_F64Parameter:$energy_shift,
    Quantum_F64Parameter:$resolution,
    "::mlir::ArrayAttr":$words,
    Quantum_F64ArrayParameter:$default_coeffs,
    OptionalParameter<"::mlir::DenseI64ArrayAttr">:$trotter_steps,
    Quantum_OptF64Parameter:$trotter_bound,
    Quantum_OptF64Parameter:$exact_energy,
    Quantum_OptF64Parameter:$hf_energy
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // Q2_QUANTUM_ATTRS
