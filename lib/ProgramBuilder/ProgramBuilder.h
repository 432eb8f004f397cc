//===- ProgramBuilder.h - The stage-0 builder, shared with the writer -----===//
//
// Internal to Q2QPE: the MLIR builder of the stage-0 program
// (QPEProgramBuilder.cpp) and what writeQPEProgram (QPEProgramWriter.cpp),
// which prints its skeleton and streams the Trotter step as text, shares
// with it.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_LIB_QPE_PROGRAMBUILDER_H
#define Q2_LIB_QPE_PROGRAMBUILDER_H

#include "q2/ProgramBuilder/QPEProgram.h"

#include "q2/Dialect/Quantum/IR/QuantumOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace q2::qpe::detail {

using hamiltonian::PauliTerm;
using mlir::ArrayAttr;
using mlir::DenseElementsAttr;
using mlir::DenseI32ArrayAttr;
using mlir::Location;
using mlir::MLIRContext;
using mlir::ModuleOp;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::OwningOpRef;
using mlir::RankedTensorType;
using mlir::StringAttr;
using mlir::Type;
using mlir::TypeRange;
using mlir::Value;
using mlir::ValueRange;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::SmallVectorImpl;
using llvm::StringRef;
namespace arith = mlir::arith;
namespace scf = mlir::scf;
namespace tosa = mlir::tosa;

/// The identity word (all 'I'): its term is a phase on the control.
inline bool isIdentity(llvm::StringRef word) {
  return word.find_first_not_of('I') == llvm::StringRef::npos;
}

class ProgramBuilder {
public:
  ProgramBuilder(MLIRContext &ctx, const hamiltonian::QubitHamiltonian &h,
                 const qpe::QPEParameters &p, const QPEOptions &o)
      : b(&ctx), loc(b.getUnknownLoc()), h(h), p(p), o(o), nSys(h.numQubits),
        nEst(p.nEst), terms(h.terms) {
    // The identity slot always exists: it carries the energy shift.
    if (llvm::none_of(terms, [](const PauliTerm &t) { return isIdentity(t.word); }))
      terms.push_back({std::string(nSys, 'I'), 0.0});
  }

  OwningOpRef<ModuleOp> build();
  /// What the program's qpe.metadata attribute will say.
  QPEMetadata metadata();

  /// The Trotter-step body left out by a skeleton build (writeQPEProgram):
  /// the values it reads and marker ops that reveal where the printer's
  /// name counters stand when it starts.
  struct Splice {
    Value angles, halfAngles, factor;
    SmallVector<Value> iterArgs; // ctrl, then the system qubits
    Operation *conflictMarker = nullptr, *valueMarker = nullptr;
    scf::ForOp loop;
  };
  /// Builds everything but the Trotter-step body (rolled programs only).
  OwningOpRef<ModuleOp> buildSkeleton() {
    skeleton = true;
    return build();
  }
  const Splice &splice() const { return sp; }
  const std::vector<PauliTerm> &allTerms() const { return terms; }

private:
  Type bitTy() { return b.getType<quantum::BitType>(); }
  Type regTy() { return b.getType<quantum::RegType>(); }
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  Value f64(double v) {
    return arith::ConstantFloatOp::create(b, loc, b.getF64Type(),
                                          llvm::APFloat(v));
  }
  Value tosaConst(ArrayRef<double> values) {
    auto ty = RankedTensorType::get({int64_t(values.size())}, b.getF64Type());
    return tosa::ConstOp::create(b, loc, ty,
                                 DenseElementsAttr::get(ty, values));
  }
  Value extract(Value reg, Value index) {
    return quantum::ExtractOp::create(b, loc, bitTy(), reg, index, nullptr);
  }
  Value extract(Value reg, int64_t index) {
    return quantum::ExtractOp::create(b, loc, bitTy(), reg, Value(),
                                      b.getI64IntegerAttr(index));
  }
  Value insert(Value reg, Value index, Value q) {
    return quantum::InsertOp::create(b, loc, regTy(), reg, index, nullptr, q);
  }
  Value insert(Value reg, int64_t index, Value q) {
    return quantum::InsertOp::create(b, loc, regTy(), reg, Value(),
                                     b.getI64IntegerAttr(index), q);
  }
  /// Named gate on one target with optional single control.
  std::pair<Value, Value> gate(StringRef name, ValueRange params, Value target,
                               Value ctrl = Value()) {
    SmallVector<Value> ctrls;
    if (ctrl)
      ctrls.push_back(ctrl);
    auto op = quantum::CustomOp::create(
        b, loc, TypeRange{bitTy()}, TypeRange(ValueRange(ctrls)),
        b.getStringAttr(name), params, ValueRange{target}, ctrls, false);
    return {op.getOutQubits()[0], ctrl ? op.getOutCtrlQubits()[0] : Value()};
  }

  void emitAngles(Value coeffs);
  void emitTerm(unsigned j, Value table, Value factor, Value &ctrl,
                SmallVectorImpl<Value> &sys);
  void emitTrotterStep(Value factor, Value &ctrl, SmallVectorImpl<Value> &sys);
  /// Table form: whether it is used, the step's parameters (the angles, or
  /// the angles times `factor`), the shared attributes, one step.
  bool useTable() const {
    return !o.unroll && o.rotations == QPEOptions::Rotations::Table;
  }
  Value stepParams(Value factor);
  void buildTableAttrs();
  void emitTableStep(Value params, Value &ctrl, SmallVectorImpl<Value> &sys);
  Value emitEvolutionRolled(Value reg);
  Value emitEvolutionUnrolled(Value reg);
  Value emitInverseQFTRolled(Value reg);
  Value emitInverseQFTUnrolled(Value reg);

  OpBuilder b;
  Location loc;
  const hamiltonian::QubitHamiltonian &h;
  const qpe::QPEParameters &p;
  const QPEOptions &o;
  unsigned nSys, nEst;
  std::vector<PauliTerm> terms;
  Value angles, halfAngles; // tensor<N x f64>
  Value zeroShift;          // tosa.mul's shift operand
  ArrayAttr tableKinds;
  StringAttr tableWords;
  DenseI32ArrayAttr tableRecords;
  bool skeleton = false;
  Splice sp;
};

/// What buildQPEProgram and writeQPEProgram share: the options checked,
/// the dialects loaded, parameters the metadata cannot hold (e.g. a
/// non-finite time step) refused with the rule they break, all before
/// anything is built; then `step` builds (and writes) with the builder.
llvm::Error withProgramBuilder(
    MLIRContext &ctx, const hamiltonian::QubitHamiltonian &h,
    const qpe::QPEParameters &params, const QPEOptions &givenOptions,
    llvm::function_ref<llvm::Error(ProgramBuilder &, const QPEOptions &)> step);

/// The generated module verifies (an internal error otherwise).
llvm::Error verifyProgram(ModuleOp module);

} // namespace q2::qpe::detail

#endif // Q2_LIB_QPE_PROGRAMBUILDER_H
