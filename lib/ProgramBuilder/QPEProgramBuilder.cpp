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
#include "ProgramBuilder.h"

#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/Dialect/QPE/IR/QPEDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace q2;
using namespace q2::qpe;
using namespace q2::qpe::detail;

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

static void loadDialects(MLIRContext &ctx) {
  ctx.loadDialect<arith::ArithDialect, func::FuncDialect, scf::SCFDialect,
                  tensor::TensorDialect, tosa::TosaDialect,
                  quantum::QuantumDialect, QPEDialect>();
}

llvm::Error q2::qpe::detail::withProgramBuilder(
    MLIRContext &ctx, const hamiltonian::QubitHamiltonian &h,
    const qpe::QPEParameters &params, const QPEOptions &givenOptions,
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

llvm::Error q2::qpe::detail::verifyProgram(ModuleOp module) {
  if (failed(verify(module)))
    return llvm::createStringError(
        "internal error: the generated QPE program does not verify");
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>> q2::qpe::buildQPEProgram(
    MLIRContext &ctx, const hamiltonian::QubitHamiltonian &h,
    const qpe::QPEParameters &params, const QPEOptions &givenOptions) {
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

llvm::Expected<OwningOpRef<ModuleOp>>
q2::qpe::buildProgram(MLIRContext &ctx, const hamiltonian::QubitHamiltonian &h,
                      const ProgramPlan &plan) {
  return buildQPEProgram(ctx, h, plan.params, plan.options);
}
