//===- QuantumDialect.cpp - quantum dialect -------------------------------===//
#include "q2/Dialect/Quantum/IR/QuantumDialect.h"
#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/Dialect/Quantum/IR/QuantumTypes.h"
#include "q2/QPE/QPEMetadata.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace q2::quantum;

#include "q2/Dialect/Quantum/IR/QuantumOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "q2/Dialect/Quantum/IR/QuantumOpsTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "q2/Dialect/Quantum/IR/QuantumAttrs.cpp.inc"

void QuantumDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "q2/Dialect/Quantum/IR/QuantumOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "q2/Dialect/Quantum/IR/QuantumOpsTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "q2/Dialect/Quantum/IR/QuantumAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Attribute parameters
//===----------------------------------------------------------------------===//

FailureOr<llvm::APFloat> q2::quantum::parseF64(AsmParser &parser) {
  double v = 0;
  if (parser.parseFloat(v))
    return failure();
  return llvm::APFloat(v);
}

FailureOr<bool> q2::quantum::parseBool(AsmParser &parser) {
  if (succeeded(parser.parseOptionalKeyword("true")))
    return true;
  if (succeeded(parser.parseOptionalKeyword("false")))
    return false;
  return parser.emitError(parser.getCurrentLocation(),
                          "expected 'true' or 'false'");
}

FailureOr<DenseF64ArrayAttr> q2::quantum::parseF64Array(AsmParser &parser) {
  SmallVector<double> out;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        double v = 0;
        if (parser.parseFloat(v))
          return failure();
        out.push_back(v);
        return success();
      }))
    return failure();
  return DenseF64ArrayAttr::get(parser.getContext(), out);
}

void q2::quantum::printF64Array(AsmPrinter &printer, DenseF64ArrayAttr values) {
  printer << '[';
  llvm::interleaveComma(values.asArrayRef(), printer, [&](double v) {
    printer.printFloat(llvm::APFloat(v));
  });
  printer << ']';
}

//===----------------------------------------------------------------------===//
// QPEAttr
//===----------------------------------------------------------------------===//

LogicalResult QPEAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              StringRef molecule, uint64_t nSystem,
                              uint64_t nEst, uint64_t nTrotter, uint64_t nTerms,
                              uint64_t order, StringRef mode, StringRef power,
                              bool unroll, llvm::APFloat baseTime,
                              llvm::APFloat energyShift,
                              llvm::APFloat resolution, ArrayAttr words,
                              DenseF64ArrayAttr defaultCoeffs,
                              DenseI64ArrayAttr trotterSteps,
                              llvm::APFloat trotterBound,
                              llvm::APFloat exactEnergy,
                              llvm::APFloat hfEnergy) {
  // The rules live with the metadata (q2::qpe::QPEMetadata::validate), so a
  // program and an object file are held to the same ones.
  auto fits = [](uint64_t v) { return v <= uint64_t(UINT32_MAX); };
  if (!fits(nSystem) || !fits(nEst) || !fits(nTrotter) || !fits(nTerms) ||
      !fits(order))
    return emitError() << "a count in the metadata is above 2^32";
  q2::qpe::QPEMetadata md;
  md.molecule = molecule.str();
  md.nSystem = unsigned(nSystem);
  md.nEst = unsigned(nEst);
  md.nTrotter = unsigned(nTrotter);
  md.nTerms = unsigned(nTerms);
  md.order = unsigned(order);
  std::optional<q2::qpe::Mode> m = q2::qpe::parseMode(mode);
  if (!m)
    return emitError() << "mode must be 'fixed' or 'dynamic', got '" << mode
                       << "'";
  std::optional<q2::qpe::Power> p = q2::qpe::parsePower(power);
  if (!p)
    return emitError() << "power must be 'time' or 'repeat', got '" << power
                       << "'";
  md.mode = *m;
  md.power = *p;
  md.unroll = unroll;
  md.baseTime = baseTime.convertToDouble();
  md.energyShift = energyShift.convertToDouble();
  md.resolution = resolution.convertToDouble();
  for (auto [i, w] : llvm::enumerate(words ? words.getValue()
                                           : ArrayRef<Attribute>())) {
    auto s = dyn_cast<StringAttr>(w);
    if (!s)
      return emitError() << "words[" << i << "] must be a string";
    md.words.push_back(s.str());
  }
  if (defaultCoeffs)
    md.defaultCoeffs.assign(defaultCoeffs.asArrayRef().begin(),
                            defaultCoeffs.asArrayRef().end());
  if (trotterSteps)
    for (auto [k, n] : llvm::enumerate(trotterSteps.asArrayRef())) {
      if (n < 1)
        return emitError() << "trotter_steps[" << k << "] must be >= 1";
      md.trotterSteps.push_back(uint64_t(n));
    }
  // NaN: not given (the attribute's default).
  auto opt = [](const llvm::APFloat &v) -> std::optional<double> {
    if (v.isNaN())
      return std::nullopt;
    return v.convertToDouble();
  };
  md.trotterBound = opt(trotterBound);
  md.exactEnergy = opt(exactEnergy);
  md.hfEnergy = opt(hfEnergy);
  if (llvm::Error e = md.validate())
    return emitError() << llvm::toString(std::move(e));
  return success();
}

/// The @qpe signature the metadata promises, in each form the pipeline
/// gives it: tensors (stages 0-2), memrefs with an out-buffer (stage 3). The
/// LLVM form (stage 4 on) is checked when the object is loaded.
static LogicalResult verifyEntry(ModuleOp module, QPEAttr md) {
  Operation *sym = SymbolTable::lookupSymbolIn(module, "qpe");
  if (!sym)
    return module.emitOpError("has quantum.qpe metadata but no @qpe function");
  auto fn = dyn_cast<func::FuncOp>(sym);
  if (!fn)
    return success();
  if (fn.isExternal())
    return fn.emitOpError("@qpe must have a body");
  bool dynamic = md.getMode() == "dynamic";
  int64_t nTerms = int64_t(md.getNTerms());
  int64_t nOut = int64_t(1) << md.getNEst();
  auto isF64Vector = [](Type t, int64_t n) {
    auto s = dyn_cast<ShapedType>(t);
    return s && (isa<RankedTensorType, MemRefType>(t)) && s.hasRank() &&
           s.getRank() == 1 && s.getDimSize(0) == n &&
           s.getElementType().isF64();
  };
  FunctionType ty = fn.getFunctionType();
  auto mismatch = [&](const Twine &what) {
    return fn.emitOpError("does not match its quantum.qpe metadata (mode ")
           << md.getMode() << ", n_terms " << nTerms << ", n_est "
           << md.getNEst() << "): " << what;
  };
  unsigned nIn = dynamic ? 1 : 0;
  if (ty.getNumResults() == 1) { // tensor form
    if (!isF64Vector(ty.getResult(0), nOut))
      return mismatch("the result must be a tensor<" + Twine(nOut) + "xf64>");
    if (ty.getNumInputs() != nIn)
      return mismatch(Twine("expected ") + Twine(nIn) + " argument(s), got " +
                      Twine(ty.getNumInputs()));
    if (dynamic && !isF64Vector(ty.getInput(0), nTerms))
      return mismatch("the argument must be a tensor<" + Twine(nTerms) +
                      "xf64> of coefficients");
    return success();
  }
  if (ty.getNumResults() != 0 || ty.getNumInputs() != nIn + 1)
    return mismatch("unexpected signature " + Twine(ty.getNumInputs()) +
                    " argument(s) -> " + Twine(ty.getNumResults()) +
                    " result(s)");
  if (!isF64Vector(ty.getInputs().back(), nOut))
    return mismatch("the out-buffer must hold " + Twine(nOut) + " f64");
  if (dynamic && !isF64Vector(ty.getInput(0), nTerms))
    return mismatch("the coefficient buffer must hold " + Twine(nTerms) +
                    " f64");
  return success();
}

LogicalResult QuantumDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  if (attr.getName() != kQPEAttrName)
    return op->emitError() << "unknown quantum dialect attribute '"
                           << attr.getName().getValue() << "'";
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError() << "'" << kQPEAttrName
                           << "' belongs on a builtin.module";
  auto md = dyn_cast<QPEAttr>(attr.getValue());
  if (!md)
    return op->emitError() << "'" << kQPEAttrName
                           << "' must be a #quantum.qpe<...> attribute";
  return verifyEntry(module, md);
}
