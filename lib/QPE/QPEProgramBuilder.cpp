//===- QPEProgramBuilder.cpp - Hamiltonian -> stage-0 QPE program ---------===//
//
// Layout: system qubits 0..n_sys-1, estimation wire k = qubit n_sys + k.
// Estimation wire k controls U^(2^k), U = exp(-i (H - shift) t); the
// inverse QFT then leaves wire k holding bit (n_est-1-k) of the phase
// integer m, so `probs reg %r[n_sys, n_est]` (first qubit = MSB) indexes m.
//
// Angles: term j with coefficient c_j contributes exp(-i c_j dt P_j) =
// pauli_rot(theta = 2 c_j dt); the identity term plus the energy shift is a
// phase on the control, PhaseShift(-(c_0 - shift) dt). Both are computed in
// TOSA as angles = coeffs * scale + offset for dt0 = base_time / n_trotter,
// and scaled by 2^k inside the loop when power = time. With a per-wire step
// table n_k, dt0 = base_time and the loop scales by 2^k / n_k (time) or
// 1 / n_k (repeat).
//
// A rolled program's Trotter step is one quantum.gate_table: a record per
// term applied, its parameters the step's angle tensor (order 2: one
// tensor holding the half angles and the middle term's full one; with a
// factor, the tensor times the factor, once per wire). Stage 1 then lowers
// the angle math as tensors, and stages 2-6 see one op per step whatever
// the number of terms (docs/pipeline.md).
//
//===----------------------------------------------------------------------===//
#include "q2/QPE/QPEProgram.h"

#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/QPE/IR/QPEDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace q2;
using namespace q2::qpe;
using hamiltonian::PauliTerm;

namespace {
bool isIdentity(llvm::StringRef word) {
  return word.find_first_not_of('I') == llvm::StringRef::npos;
}

class ProgramBuilder {
public:
  ProgramBuilder(MLIRContext &ctx, const hamiltonian::QubitHamiltonian &h,
                 const hamiltonian::QPEParameters &p, const QPEOptions &o)
      : b(&ctx), loc(b.getUnknownLoc()), h(h), p(p), o(o),
        nSys(h.numQubits), nEst(p.nEst), terms(h.terms) {
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
  const hamiltonian::QPEParameters &p;
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
} // namespace

void ProgramBuilder::emitAngles(Value coeffs) {
  double dt0 = o.trotterSteps.empty() ? p.baseTime / o.nTrotter : p.baseTime;
  SmallVector<double> scale, offset;
  for (const PauliTerm &t : terms) {
    bool id = isIdentity(t.word);
    scale.push_back(id ? -dt0 : 2.0 * dt0);
    offset.push_back(id ? p.energyShift * dt0 : 0.0);
  }
  auto ty = cast<RankedTensorType>(coeffs.getType());
  auto shiftTy = RankedTensorType::get({1}, b.getI8Type());
  zeroShift = tosa::ConstOp::create(
      b, loc, shiftTy, DenseElementsAttr::get(shiftTy, b.getI8IntegerAttr(0)));
  if (useTable()) {
    // Order 2 applies every term but the last at half angle: halving the
    // scale and offset is exact, so these are the ops form's half angles.
    if (o.order == 2)
      for (size_t j = 0; j + 1 < terms.size(); ++j) {
        scale[j] *= 0.5;
        offset[j] *= 0.5;
      }
    Value scaled =
        tosa::MulOp::create(b, loc, ty, coeffs, tosaConst(scale), zeroShift);
    angles = tosa::AddOp::create(b, loc, ty, scaled, tosaConst(offset));
    return;
  }
  Value scaled =
      tosa::MulOp::create(b, loc, ty, coeffs, tosaConst(scale), zeroShift);
  angles = tosa::AddOp::create(b, loc, ty, scaled, tosaConst(offset));
  if (o.order == 2) {
    SmallVector<double> halves(terms.size(), 0.5);
    halfAngles =
        tosa::MulOp::create(b, loc, ty, angles, tosaConst(halves), zeroShift);
  }
}

void ProgramBuilder::emitTerm(unsigned j, Value table, Value factor,
                              Value &ctrl, SmallVectorImpl<Value> &sys) {
  Value a = tensor::ExtractOp::create(b, loc, table, ValueRange{idx(j)});
  if (factor)
    a = arith::MulFOp::create(b, loc, a, factor);
  StringRef word = terms[j].word;
  if (isIdentity(word)) {
    ctrl = gate("PhaseShift", a, ctrl).first;
    return;
  }
  std::string reduced;
  SmallVector<Value> targets;
  SmallVector<unsigned> wires;
  for (unsigned q = 0; q < word.size(); ++q)
    if (word[q] != 'I') {
      reduced.push_back(word[q]);
      targets.push_back(sys[q]);
      wires.push_back(q);
    }
  SmallVector<Type> types(targets.size(), bitTy());
  auto rot = quantum::PauliRotOp::create(
      b, loc, types, TypeRange{bitTy()}, b.getStringAttr(reduced), a, targets,
      ValueRange{ctrl}, false);
  for (auto [i, q] : llvm::enumerate(wires))
    sys[q] = rot.getOutQubits()[i];
  ctrl = rot.getOutCtrlQubits()[0];
}

Value ProgramBuilder::stepParams(Value factor) {
  if (!factor)
    return angles;
  auto one = RankedTensorType::get({1}, b.getF64Type());
  Value f = tensor::FromElementsOp::create(b, loc, one, ValueRange{factor});
  return tosa::MulOp::create(b, loc, angles.getType(), angles, f, zeroShift);
}

void ProgramBuilder::buildTableAttrs() {
  // Wire 0 is the control, wire 1 + q system qubit q.
  std::string words;
  llvm::StringMap<int32_t> wordOffset;
  SmallVector<int32_t> records;
  std::string reduced;
  auto emit = [&](unsigned j) {
    StringRef word = terms[j].word;
    if (isIdentity(word)) {
      // PhaseShift (kind 1) on the control.
      records.append({1, 0, int32_t(j), 1, 0, 0, 0});
      return;
    }
    reduced.clear();
    for (char c : word)
      if (c != 'I')
        reduced.push_back(c);
    auto [it, inserted] = wordOffset.try_emplace(reduced, int32_t(words.size()));
    if (inserted)
      words += reduced;
    records.append({0, 0, int32_t(j), int32_t(reduced.size()), 1, it->second});
    for (unsigned q = 0; q < word.size(); ++q)
      if (word[q] != 'I')
        records.push_back(int32_t(1 + q));
    records.push_back(0);
  };
  unsigned n = terms.size();
  if (o.order == 1) {
    for (unsigned j = 0; j < n; ++j)
      emit(j);
  } else {
    for (unsigned j = 0; j < n; ++j)
      emit(j);
    for (unsigned j = n - 1; j-- > 0;)
      emit(j);
  }
  tableKinds = b.getStrArrayAttr(
      {quantum::GateTableOp::kPauliRot, StringRef("PhaseShift")});
  tableWords = b.getStringAttr(words);
  tableRecords = b.getDenseI32ArrayAttr(records);
}

void ProgramBuilder::emitTableStep(Value params, Value &ctrl,
                                   SmallVectorImpl<Value> &sys) {
  if (!tableRecords)
    buildTableAttrs();
  SmallVector<Value> wires{ctrl};
  wires.append(sys.begin(), sys.end());
  auto table = quantum::GateTableOp::create(
      b, loc, ValueRange(wires).getTypes(), wires, params, tableKinds,
      tableWords, tableRecords);
  ctrl = table.getResult(0);
  for (unsigned q = 0; q < sys.size(); ++q)
    sys[q] = table.getResult(1 + q);
}

void ProgramBuilder::emitTrotterStep(Value factor, Value &ctrl,
                                     SmallVectorImpl<Value> &sys) {
  unsigned n = terms.size();
  if (o.order == 1) {
    for (unsigned j = 0; j < n; ++j)
      emitTerm(j, angles, factor, ctrl, sys);
    return;
  }
  // Symmetric (Strang) splitting; the middle term's two halves are fused.
  for (unsigned j = 0; j + 1 < n; ++j)
    emitTerm(j, halfAngles, factor, ctrl, sys);
  emitTerm(n - 1, angles, factor, ctrl, sys);
  for (unsigned j = n - 1; j-- > 0;)
    emitTerm(j, halfAngles, factor, ctrl, sys);
}

Value ProgramBuilder::emitEvolutionRolled(Value reg0) {
  Value c0 = idx(0), c1 = idx(1);
  auto kLoop = scf::ForOp::create(b, loc, c0, idx(nEst), c1, ValueRange{reg0});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(kLoop.getBody());
  Value k = kLoop.getInductionVar();
  Value reg = kLoop.getRegionIterArgs()[0];
  Value k64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), k);
  Value wire = arith::AddIOp::create(b, loc, k64, i64(nSys));
  Value ctrl = gate("H", {}, extract(reg, wire)).first;
  SmallVector<Value> sys;
  for (unsigned q = 0; q < nSys; ++q)
    sys.push_back(extract(reg, q));

  Value pow2k = arith::ShLIOp::create(b, loc, i64(1), k64);
  Value factor, steps;
  if (!o.trotterSteps.empty()) {
    // n_k from the table by a chain of selects (n_est <= 32 entries).
    Value nk = i64(int64_t(o.trotterSteps[nEst - 1]));
    for (unsigned j = nEst - 1; j-- > 0;) {
      Value isJ = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, k64,
                                        i64(j));
      nk = arith::SelectOp::create(b, loc, isJ,
                                   i64(int64_t(o.trotterSteps[j])), nk);
    }
    Value nkF = arith::SIToFPOp::create(b, loc, b.getF64Type(), nk);
    Value n = nk;
    if (o.power == Power::Time) {
      Value p2 = arith::SIToFPOp::create(b, loc, b.getF64Type(), pow2k);
      factor = arith::DivFOp::create(b, loc, p2, nkF);
    } else {
      factor = arith::DivFOp::create(b, loc, f64(1.0), nkF);
      n = arith::MulIOp::create(b, loc, pow2k, nk);
    }
    steps = arith::IndexCastOp::create(b, loc, b.getIndexType(), n);
  } else if (o.power == Power::Time) {
    factor = arith::SIToFPOp::create(b, loc, b.getF64Type(), pow2k);
    steps = idx(o.nTrotter);
  } else {
    Value n = arith::MulIOp::create(b, loc, pow2k, i64(o.nTrotter));
    steps = arith::IndexCastOp::create(b, loc, b.getIndexType(), n);
  }
  // Once per wire, outside the step loop.
  Value params = useTable() ? stepParams(factor) : Value();
  SmallVector<Value> inits{ctrl};
  inits.append(sys);
  auto sLoop = scf::ForOp::create(b, loc, c0, steps, c1, inits);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(sLoop.getBody());
    ValueRange args = sLoop.getRegionIterArgs();
    Value c = args[0];
    SmallVector<Value> qs(args.drop_front());
    if (skeleton) {
      // c0 always clashes with the function's %c0, so the printer names it
      // c0_<next conflict id>; the addi takes the next number.
      Value m = idx(0);
      sp = {angles, halfAngles, factor, SmallVector<Value>(args), m.getDefiningOp(),
            arith::AddIOp::create(b, loc, m, m), sLoop};
    } else if (useTable()) {
      emitTableStep(params, c, qs);
    } else {
      emitTrotterStep(factor, c, qs);
    }
    SmallVector<Value> yields{c};
    yields.append(qs);
    scf::YieldOp::create(b, loc, yields);
  }
  Value r = reg;
  for (unsigned q = 0; q < nSys; ++q)
    r = insert(r, q, sLoop.getResult(1 + q));
  r = insert(r, wire, sLoop.getResult(0));
  scf::YieldOp::create(b, loc, r);
  return kLoop.getResult(0);
}

Value ProgramBuilder::emitEvolutionUnrolled(Value reg) {
  SmallVector<Value> sys;
  for (unsigned q = 0; q < nSys; ++q)
    sys.push_back(extract(reg, q));
  for (unsigned k = 0; k < nEst; ++k) {
    Value ctrl = gate("H", {}, extract(reg, nSys + k)).first;
    Value factor;
    uint64_t steps = o.nTrotter;
    if (!o.trotterSteps.empty()) {
      uint64_t nk = o.trotterSteps[k];
      bool time = o.power == Power::Time;
      factor = f64((time ? std::ldexp(1.0, k) : 1.0) / double(nk));
      steps = time ? nk : nk << k;
    } else if (o.power == Power::Time) {
      factor = k ? f64(std::ldexp(1.0, k)) : Value();
    } else {
      steps = uint64_t(o.nTrotter) << k;
    }
    for (uint64_t s = 0; s < steps; ++s)
      emitTrotterStep(factor, ctrl, sys);
    reg = insert(reg, nSys + k, ctrl);
  }
  for (unsigned q = 0; q < nSys; ++q)
    reg = insert(reg, q, sys[q]);
  return reg;
}

// Wire j (from n_est-1 down to 0) first loses the phases of the bits already
// found on wires m > j, PhaseShift(-pi / 2^(m-j)) controlled by wire m, then
// an H reads its bit.
Value ProgramBuilder::emitInverseQFTRolled(Value reg0) {
  Value c0 = idx(0), c1 = idx(1), cN = idx(nEst);
  auto jLoop = scf::ForOp::create(b, loc, c0, cN, c1, ValueRange{reg0});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(jLoop.getBody());
  Value jj = jLoop.getInductionVar();
  Value j = arith::SubIOp::create(b, loc, idx(nEst - 1), jj);
  Value jp1 = arith::AddIOp::create(b, loc, j, c1);
  Value j64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), j);
  Value wireJ = arith::AddIOp::create(b, loc, j64, i64(nSys));
  auto mLoop = scf::ForOp::create(b, loc, jp1, cN, c1,
                                  ValueRange{jLoop.getRegionIterArgs()[0]});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(mLoop.getBody());
    Value rr = mLoop.getRegionIterArgs()[0];
    Value m64 = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                           mLoop.getInductionVar());
    Value wireM = arith::AddIOp::create(b, loc, m64, i64(nSys));
    Value d = arith::SubIOp::create(b, loc, m64, j64);
    Value p2 = arith::SIToFPOp::create(
        b, loc, b.getF64Type(), arith::ShLIOp::create(b, loc, i64(1), d));
    Value angle = arith::DivFOp::create(b, loc, f64(-M_PI), p2);
    auto [t, c] = gate("PhaseShift", angle, extract(rr, wireJ),
                       extract(rr, wireM));
    rr = insert(insert(rr, wireJ, t), wireM, c);
    scf::YieldOp::create(b, loc, rr);
  }
  Value r = mLoop.getResult(0);
  r = insert(r, wireJ, gate("H", {}, extract(r, wireJ)).first);
  scf::YieldOp::create(b, loc, r);
  return jLoop.getResult(0);
}

Value ProgramBuilder::emitInverseQFTUnrolled(Value reg) {
  SmallVector<Value> w;
  for (unsigned k = 0; k < nEst; ++k)
    w.push_back(extract(reg, nSys + k));
  for (int j = int(nEst) - 1; j >= 0; --j) {
    for (unsigned m = j + 1; m < nEst; ++m) {
      auto [t, c] = gate("PhaseShift", f64(-M_PI / std::ldexp(1.0, m - j)),
                         w[j], w[m]);
      w[j] = t;
      w[m] = c;
    }
    w[j] = gate("H", {}, w[j]).first;
  }
  for (unsigned k = 0; k < nEst; ++k)
    reg = insert(reg, nSys + k, w[k]);
  return reg;
}

QPEMetadata ProgramBuilder::metadata() {
  QPEMetadata md;
  md.molecule = h.name;
  md.nSystem = nSys;
  md.nEst = nEst;
  md.nTrotter = o.nTrotter;
  md.nTerms = unsigned(terms.size());
  md.order = o.order;
  md.mode = o.mode;
  md.power = o.power;
  md.unroll = o.unroll;
  md.baseTime = p.baseTime;
  md.energyShift = p.energyShift;
  md.resolution = p.resolution;
  for (const PauliTerm &t : terms) {
    md.words.push_back(t.word);
    md.defaultCoeffs.push_back(t.coeff);
  }
  md.trotterSteps = o.trotterSteps;
  md.trotterBound = o.trotterBound;
  md.exactEnergy = o.exactEnergy;
  md.hfEnergy = o.hfEnergy;
  return md;
}

OwningOpRef<ModuleOp> ProgramBuilder::build() {
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  (*module)->setAttr(kMetadataAttrName,
                     MetadataAttr::get(b.getContext(), metadata()));
  b.setInsertionPointToEnd(module->getBody());

  auto coeffTy = RankedTensorType::get({int64_t(terms.size())}, b.getF64Type());
  auto probsTy = RankedTensorType::get({int64_t(1) << nEst}, b.getF64Type());
  SmallVector<Type> inputs;
  if (o.mode == Mode::Dynamic)
    inputs.push_back(coeffTy);
  auto fn = func::FuncOp::create(b, loc, kEntryName,
                                 b.getFunctionType(inputs, {probsTy}));
  fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);

  Value coeffs;
  if (o.mode == Mode::Dynamic) {
    coeffs = entry->getArgument(0);
  } else {
    SmallVector<double> c;
    for (const PauliTerm &t : terms)
      c.push_back(t.coeff);
    coeffs = tosaConst(c);
  }
  emitAngles(coeffs);

  Value reg = quantum::AllocOp::create(b, loc, regTy(), nSys + nEst);
  for (unsigned q = 0; q < h.hfOccupation.size() && q < nSys; ++q)
    if (h.hfOccupation[q])
      reg = insert(reg, q, gate("X", {}, extract(reg, q)).first);

  if (o.unroll) {
    reg = emitEvolutionUnrolled(reg);
    reg = emitInverseQFTUnrolled(reg);
  } else {
    reg = emitEvolutionRolled(reg);
    reg = emitInverseQFTRolled(reg);
  }
  Value probs = quantum::ProbsOp::create(
      b, loc, probsTy, ValueRange{}, reg, b.getI64IntegerAttr(nSys),
      b.getI64IntegerAttr(nEst), Value()).getProbabilities();
  quantum::DeallocOp::create(b, loc, reg);
  func::ReturnOp::create(b, loc, probs);
  return module;
}

llvm::Expected<QPEOptions>
q2::qpe::checkQPEProgram(const hamiltonian::QubitHamiltonian &h,
                         const hamiltonian::QPEParameters &params,
                         const QPEOptions &givenOptions) {
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  QPEOptions options = givenOptions;
  if (!options.trotterSteps.empty()) {
    if (options.trotterSteps.size() != params.nEst)
      return fail(llvm::formatv("{0} Trotter step counts for {1} estimation "
                                "wires",
                                options.trotterSteps.size(), params.nEst));
    uint64_t lo = *llvm::min_element(options.trotterSteps);
    uint64_t hi = *llvm::max_element(options.trotterSteps);
    if (lo < 1 || hi > kMaxWireSteps)
      return fail(llvm::formatv("Trotter step counts must be in [1, {0}]",
                                kMaxWireSteps));
    options.nTrotter = unsigned(hi);
    // One count for every wire needs no table (the program stays as small).
    if (lo == hi)
      options.trotterSteps.clear();
  }
  if (h.numQubits == 0 || h.terms.empty())
    return fail("the Hamiltonian has no qubits or no terms");
  if (params.nEst < 1 || params.nEst > hamiltonian::kMaxEstimationQubits)
    return fail(llvm::formatv("n_est must be in [1, {0}], got {1}",
                              hamiltonian::kMaxEstimationQubits, params.nEst));
  if (options.nTrotter < 1)
    return fail("n_trotter must be >= 1");
  if (options.order != 1 && options.order != 2)
    return fail(llvm::formatv("Trotter order must be 1 or 2, got {0}",
                              options.order));
  unsigned total = h.numQubits + params.nEst;
  if (total > hamiltonian::kMaxQubits)
    return fail(llvm::formatv("{0} system + {1} estimation qubits = {2} "
                              "qubits, above the limit of {3}",
                              h.numQubits, params.nEst, total,
                              hamiltonian::kMaxQubits));
  if (options.unroll) {
    // Straight-line code of every step, sized before anything is built
    // (regression: one Trotter count for all wires skipped this check, and
    // n_est 14, n_trotter 50 ran out of memory building the IR).
    uint64_t steps = 0;
    for (unsigned k = 0; k < params.nEst; ++k) {
      uint64_t s = options.trotterSteps.empty() ? options.nTrotter
                                                : options.trotterSteps[k];
      if (options.power == Power::Repeat)
        s <<= k; // nEst <= kMaxEstimationQubits, s < 2^32: no overflow
      steps += s;
    }
    // A step is every term once (order 1) or the symmetric product (order
    // 2: twice, minus the shared middle term).
    uint64_t perStep = options.order == 2 ? 2 * h.terms.size() - 1
                                          : h.terms.size();
    unsigned __int128 rotations = (unsigned __int128)steps * perStep;
    if (steps > kMaxUnrolledSteps || rotations > kMaxUnrolledRotations)
      return fail(llvm::formatv(
          "--unroll would emit {0} Trotter steps, {1} Pauli rotations; the "
          "limit is {2} steps and {3} rotations: do not unroll, or give "
          "fewer steps or a smaller n_est",
          steps, uint64_t(std::min<unsigned __int128>(rotations, UINT64_MAX)),
          kMaxUnrolledSteps, kMaxUnrolledRotations));
  }
  if (!options.unroll && options.rotations == QPEOptions::Rotations::Table) {
    // A record is 7 integers plus one per letter; the table's records are
    // an int32-indexed array.
    uint64_t applied = options.order == 2 ? 2 * h.terms.size() + 1
                                          : h.terms.size() + 1;
    if (applied * (7 + uint64_t(h.numQubits)) > uint64_t(INT32_MAX))
      return fail(llvm::formatv("{0} terms do not fit one Trotter step's "
                                "gate table (at most {1} integers)",
                                h.terms.size(), INT32_MAX));
  }
  for (const PauliTerm &t : h.terms)
    if (t.word.size() != h.numQubits)
      return fail("Pauli word '" + t.word + "' does not have " +
                  llvm::Twine(h.numQubits) + " letters");
  return options;
}

static void loadDialects(MLIRContext &ctx) {
  ctx.loadDialect<arith::ArithDialect, func::FuncDialect, scf::SCFDialect,
                  tensor::TensorDialect, tosa::TosaDialect,
                  quantum::QuantumDialect, QPEDialect>();
}

/// What buildQPEProgram and writeQPEProgram share: the options checked,
/// the dialects loaded, parameters the metadata cannot hold (e.g. a
/// non-finite time step) refused with the rule they break, all before
/// anything is built; then `step` builds (and writes) with the builder.
static llvm::Error withProgramBuilder(
    MLIRContext &ctx, const hamiltonian::QubitHamiltonian &h,
    const hamiltonian::QPEParameters &params, const QPEOptions &givenOptions,
    llvm::function_ref<llvm::Error(ProgramBuilder &, const QPEOptions &)>
        step) {
  auto options = checkQPEProgram(h, params, givenOptions);
  if (!options)
    return options.takeError();
  loadDialects(ctx);
  ProgramBuilder builder(ctx, h, params, *options);
  if (llvm::Error e = builder.metadata().validate())
    return llvm::createStringError("invalid QPE parameters: " +
                                   llvm::toString(std::move(e)));
  return step(builder, *options);
}

static llvm::Error verifyProgram(ModuleOp module) {
  if (failed(verify(module)))
    return llvm::createStringError(
        "internal error: the generated QPE program does not verify");
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>>
q2::qpe::buildQPEProgram(MLIRContext &ctx,
                         const hamiltonian::QubitHamiltonian &h,
                         const hamiltonian::QPEParameters &params,
                         const QPEOptions &givenOptions) {
  OwningOpRef<ModuleOp> module;
  if (llvm::Error e = withProgramBuilder(
          ctx, h, params, givenOptions,
          [&](ProgramBuilder &builder, const QPEOptions &) {
            module = builder.build();
            return verifyProgram(*module);
          }))
    return std::move(e);
  return std::move(module);
}

namespace {
/// Writes the Trotter-step body exactly as MLIR's printer would (the unit
/// test compares it with the printed module byte for byte): the printer
/// names a region's values after all enclosing regions, so a name hint
/// taken in an enclosing scope or earlier in the body gets the suffix
/// _<next conflict id>, and results without a hint take the next number.
class BodyWriter {
public:
  BodyWriter(raw_ostream &os, StringRef indent, unsigned conflictId,
             unsigned valueId, const llvm::StringSet<> &enclosing)
      : os(os), indent(indent), nextConflict(conflictId), nextValue(valueId),
        enclosing(enclosing) {}

  /// The name for hint `hint` (the unsuffixed names this body has taken
  /// are in `takenHere`; a probe hint_<n> is new: n only grows, and no
  /// hint ends in _<digits>).
  void name(StringRef hint, bool &takenHere, SmallVectorImpl<char> &out) {
    out.assign(hint.begin(), hint.end());
    if (!takenHere && !enclosing.contains(hint)) {
      takenHere = true;
      return;
    }
    while (true) {
      out.resize(hint.size());
      llvm::raw_svector_ostream(out) << '_' << nextConflict++;
      if (!enclosing.contains(StringRef(out.data(), out.size())))
        return;
    }
  }

  raw_ostream &os;
  StringRef indent;
  unsigned nextConflict, nextValue;
  const llvm::StringSet<> &enclosing;
};

/// A value's printed name without '%' or a result number.
std::string nameOf(Value v, AsmState &state) {
  std::string s;
  llvm::raw_string_ostream os(s);
  v.printAsOperand(os, state);
  StringRef r(s);
  r.consume_front("%");
  return r.take_until([](char c) { return c == '#'; }).str();
}
std::string refOf(Value v, AsmState &state) {
  std::string s;
  llvm::raw_string_ostream os(s);
  v.printAsOperand(os, state);
  return s;
}
} // namespace

static llvm::Error writeStreamed(raw_ostream &out, ProgramBuilder &builder,
                                 const QPEOptions &options);

llvm::Error q2::qpe::writeQPEProgram(raw_ostream &out, MLIRContext &ctx,
                                     const hamiltonian::QubitHamiltonian &h,
                                     const hamiltonian::QPEParameters &params,
                                     const QPEOptions &givenOptions) {
  return withProgramBuilder(
      ctx, h, params, givenOptions,
      [&](ProgramBuilder &builder, const QPEOptions &options) -> llvm::Error {
        // A table program is small (a record per term, not ops), and an
        // unrolled one is the stress case for the MLIR stages: both are
        // built and printed. The ops form streams its Trotter step.
        if (options.unroll ||
            options.rotations == QPEOptions::Rotations::Table) {
          OwningOpRef<ModuleOp> module = builder.build();
          if (llvm::Error e = verifyProgram(*module))
            return e;
          (*module)->print(out, OpPrintingFlags().assumeVerified());
          return llvm::Error::success();
        }
        return writeStreamed(out, builder, options);
      });
}

/// The ops form, with the Trotter step streamed.
static llvm::Error writeStreamed(raw_ostream &out, ProgramBuilder &builder,
                                 const QPEOptions &options) {
  OwningOpRef<ModuleOp> module = builder.buildSkeleton();
  if (llvm::Error e = verifyProgram(*module))
    return e;
  const ProgramBuilder::Splice &sp = builder.splice();
  OpPrintingFlags flags;
  flags.assumeVerified();
  AsmState state(*module, flags);

  // Where the printer's counters stand at the body: the marker c0 is
  // c0_<conflict id>, the marker addi %<value id>.
  std::string markerName = nameOf(sp.conflictMarker->getResult(0), state);
  StringRef marker = markerName; // consumed below: must not view a temporary
  std::string valueName = nameOf(sp.valueMarker->getResult(0), state);
  unsigned conflictId = 0, valueId = 0;
  if (!marker.consume_front("c0_") || marker.getAsInteger(10, conflictId) ||
      StringRef(valueName).getAsInteger(10, valueId))
    return llvm::createStringError("internal error: unexpected SSA names "
                                   "around the Trotter step");
  // Names visible in the body: the results of the enclosing regions' ops.
  llvm::StringSet<> enclosing;
  for (Operation *p = sp.loop; p; p = p->getParentOp())
    if (Region *r = p->getParentRegion())
      for (Operation &o : r->getOps())
        for (Value v : o.getResults())
          enclosing.insert(nameOf(v, state));

  std::string text;
  {
    llvm::raw_string_ostream os(text);
    (*module)->print(os, state);
  }
  // The skeleton body is three lines: the two markers and the yield.
  std::string addiLine;
  {
    llvm::raw_string_ostream os(addiLine);
    os << " %" << valueId << " = arith.addi %c0_" << conflictId << ", %c0_"
       << conflictId << " : index\n";
  }
  size_t addi = text.find(addiLine);
  size_t at = addi == std::string::npos ? addi : text.rfind('\n', addi);
  at = at == std::string::npos ? at : text.find('%', text.rfind('\n', at - 1));
  size_t lineStart = at == std::string::npos ? at : text.rfind('\n', at);
  size_t end = lineStart;
  for (int i = 0; i < 3 && end != std::string::npos; ++i)
    end = text.find('\n', end + 1);
  if (end == std::string::npos)
    return llvm::createStringError("internal error: no Trotter step in the "
                                   "printed skeleton");
  StringRef indent = StringRef(text).slice(lineStart + 1, at);
  out << StringRef(text).take_front(lineStart + 1);

  // The body: emitTrotterStep as text.
  BodyWriter w(out, indent, conflictId, valueId, enclosing);
  const std::vector<PauliTerm> &terms = builder.allTerms();
  std::string tableTy;
  {
    llvm::raw_string_ostream os(tableTy);
    sp.angles.getType().print(os);
  }
  std::string anglesRef = refOf(sp.angles, state);
  std::string halvesRef = sp.halfAngles ? refOf(sp.halfAngles, state) : "";
  std::string factorRef = sp.factor ? refOf(sp.factor, state) : "";
  SmallString<32> ctrl(refOf(sp.iterArgs[0], state));
  SmallVector<SmallString<32>> sys;
  for (Value v : ArrayRef<Value>(sp.iterArgs).drop_front())
    sys.emplace_back(refOf(v, state));
  std::vector<bool> cTaken(terms.size(), false);
  bool extractedTaken = false, outTaken = false, ctrlTaken = false;
  SmallString<32> cName, exName, qName, cqName, angle, reduced;
  SmallVector<unsigned> wires;
  auto emitTerm = [&](unsigned j, StringRef table) {
    SmallString<16> hint("c");
    llvm::raw_svector_ostream(hint) << j;
    bool taken = cTaken[j];
    w.name(hint, taken, cName);
    cTaken[j] = taken;
    out << indent << '%' << cName << " = arith.constant " << j << " : index\n";
    w.name("extracted", extractedTaken, exName);
    out << indent << '%' << exName << " = tensor.extract " << table << "[%"
        << cName << "] : " << tableTy << '\n';
    angle = "%";
    angle += exName;
    if (sp.factor) {
      unsigned id = w.nextValue++;
      out << indent << '%' << id << " = arith.mulf " << angle << ", "
          << factorRef << " : f64\n";
      angle = "%";
      llvm::raw_svector_ostream(angle) << id;
    }
    StringRef word = terms[j].word;
    if (isIdentity(word)) {
      w.name("out_qubits", outTaken, qName);
      out << indent << '%' << qName << " = quantum.custom \"PhaseShift\"("
          << angle << ") " << ctrl << " : !quantum.bit\n";
      ctrl = "%";
      ctrl += qName;
      return;
    }
    reduced.clear();
    wires.clear();
    for (unsigned q = 0; q < word.size(); ++q)
      if (word[q] != 'I') {
        reduced.push_back(word[q]);
        wires.push_back(q);
      }
    w.name("out_qubits", outTaken, qName);
    w.name("out_ctrl_qubits", ctrlTaken, cqName);
    out << indent << '%' << qName;
    if (wires.size() > 1)
      out << ':' << wires.size();
    out << ", %" << cqName << " = quantum.pauli_rot \"" << reduced << "\"("
        << angle << ") ";
    for (auto [i, q] : llvm::enumerate(wires))
      out << (i ? ", " : "") << sys[q];
    out << " ctrls(" << ctrl << ") : ";
    for (size_t i = 0; i < wires.size(); ++i)
      out << (i ? ", " : "") << "!quantum.bit";
    out << " ctrls !quantum.bit\n";
    for (auto [i, q] : llvm::enumerate(wires)) {
      sys[q] = "%";
      sys[q] += qName;
      if (wires.size() > 1)
        llvm::raw_svector_ostream(sys[q]) << '#' << i;
    }
    ctrl = "%";
    ctrl += cqName;
  };
  unsigned n = terms.size();
  if (options.order == 1) {
    for (unsigned j = 0; j < n; ++j)
      emitTerm(j, anglesRef);
  } else {
    for (unsigned j = 0; j + 1 < n; ++j)
      emitTerm(j, halvesRef);
    emitTerm(n - 1, anglesRef);
    for (unsigned j = n - 1; j-- > 0;)
      emitTerm(j, halvesRef);
  }
  out << indent << "scf.yield " << ctrl;
  for (const auto &q : sys)
    out << ", " << q;
  out << " : !quantum.bit";
  for (size_t i = 0; i < sys.size(); ++i)
    out << ", !quantum.bit";
  out << StringRef(text).drop_front(end);
  return llvm::Error::success();
}
