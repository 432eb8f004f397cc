//===- QPEDialect.td - the qpe dialect: program metadata ---*- tablegen -*-===//
//
// An attribute-only dialect (like `dlti`): what a QPE program is, attached to
// its module. It sits above the quantum dialect, which knows nothing of QPE.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_QPE_DIALECT
#define Q2_QPE_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def QPE_Dialect : Dialect {
  let name = "qpe";
  let summary = "Metadata of quantum phase estimation programs";
  let description = [{
    Holds `#qpe.metadata<...>`, the module attribute `qpe.metadata` that
    says what a QPE program is (sizes, Trotter steps, time step, shift,
    Pauli words, default coefficients, reference energies).
  }];
  let cppNamespace = "::q2::qpe";
  let useDefaultAttributePrinterParser = 1;
  // `qpe.metadata` on a module is checked against its @qpe function.
  let hasOperationAttrVerify = 1;
}

// The whole field list of QPEMetadata.def as one parameter: parsed, printed
// and verified from that list, so the attribute cannot drift from the object
// section and the report.
def QPE_MetadataParameter
    : AttrOrTypeParameter<"::q2::qpe::QPEMetadata", "QPE program metadata"> {
  let printer = [{ ::q2::qpe::printMetadataFields($_printer, $_self) }];
  let parser = [{ ::q2::qpe::parseMetadataFields($_parser) }];
  let cppAccessorType = "const ::q2::qpe::QPEMetadata &";
}

def QPE_MetadataAttr : AttrDef<QPE_Dialect, "Metadata"> {
  let mnemonic = "metadata";
  let summary = "what a QPE program is, for running it and decoding its result";
  let description = [{
    Attached to the module as `qpe.metadata` by q2-qpe. The driver runs the
    program and decodes phase -> energy from it alone, and the LLVMDialect
    stage copies it into the object (section `.q2.qpe`, the same keys), so a
    saved object can be run too. The keys are QPEMetadata.def's, in its
    order when printed, in any order when parsed; the verifier applies
    QPEMetadata::validate, the dialect checks the values against the
    signature of `@qpe` on the module.
    ```mlir
    module attributes {qpe.metadata = #qpe.metadata<molecule = "H2",
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
  let parameters = (ins QPE_MetadataParameter:$metadata);
  // Hand-written so that the field parser's own error is the only one.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // Q2_QPE_DIALECT
