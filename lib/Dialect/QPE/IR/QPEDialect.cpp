//===- QPEDialect.cpp - the qpe dialect: program metadata -----------------===//
//
// The attribute is QPEMetadata itself; its syntax is QPEMetadata.def's field
// list (visitFields), so adding a field there adds it here.
//
//===----------------------------------------------------------------------===//
#include "q2/Dialect/QPE/IR/QPEDialect.h"
#include "q2/Support/FloatFormat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <type_traits>

using namespace mlir;
using namespace q2::qpe;

#include "q2/Dialect/QPE/IR/QPEDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "q2/Dialect/QPE/IR/QPEAttrs.cpp.inc"

void QPEDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "q2/Dialect/QPE/IR/QPEAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Field values
//===----------------------------------------------------------------------===//

namespace {
template <class T> struct IsVector : std::false_type {};
template <class T> struct IsVector<std::vector<T>> : std::true_type {};

template <class T> void printValue(AsmPrinter &p, const T &v) {
  if constexpr (std::is_same_v<T, std::string>) {
    p.printString(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    p << (v ? "true" : "false");
  } else if constexpr (std::is_floating_point_v<T>) {
    // Parses back bit for bit; MLIR's printFloat text, without its cost
    // (10^5 coefficients are common).
    q2::writeMLIRFloat(p.getStream(), double(v));
  } else if constexpr (std::is_integral_v<T>) {
    p << uint64_t(v);
  } else if constexpr (std::is_enum_v<T>) {
    p.printString(toString(v));
  } else if constexpr (IsVector<T>::value) {
    p << '[';
    llvm::interleaveComma(v, p, [&](const auto &e) { printValue(p, e); });
    p << ']';
  } else {
    printValue(p, *v); // std::optional, printed only when set
  }
}

template <class T>
ParseResult parseValue(AsmParser &p, llvm::StringRef key, T &v) {
  SMLoc loc = p.getCurrentLocation();
  if constexpr (std::is_same_v<T, std::string>) {
    return p.parseString(&v);
  } else if constexpr (std::is_same_v<T, bool>) {
    if (succeeded(p.parseOptionalKeyword("true")))
      return v = true, success();
    if (succeeded(p.parseOptionalKeyword("false")))
      return v = false, success();
    return p.emitError(loc, "expected 'true' or 'false'");
  } else if constexpr (std::is_floating_point_v<T>) {
    return p.parseFloat(v);
  } else if constexpr (std::is_integral_v<T>) {
    uint64_t n = 0;
    if (p.parseInteger(n))
      return failure();
    if (n > uint64_t(std::numeric_limits<T>::max()))
      return p.emitError(loc, "a count in the metadata is above 2^32 (")
             << key << ")";
    v = T(n);
    return success();
  } else if constexpr (std::is_enum_v<T>) {
    std::string s;
    if (p.parseString(&s))
      return failure();
    std::optional<T> e = parseEnum(s, (T *)nullptr);
    if (!e) {
      T a{}, b{};
      if constexpr (std::is_same_v<T, Mode>)
        a = Mode::Fixed, b = Mode::Dynamic;
      else
        a = Power::Time, b = Power::Repeat;
      return p.emitError(loc) << key << " must be '" << toString(a)
                              << "' or '" << toString(b) << "', got '" << s
                              << "'";
    }
    v = *e;
    return success();
  } else if constexpr (IsVector<T>::value) {
    v.clear();
    return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
      typename T::value_type e{};
      if (parseValue(p, key, e))
        return failure();
      v.push_back(std::move(e));
      return success();
    });
  } else {
    typename T::value_type e{};
    if (parseValue(p, key, e))
      return failure();
    v = e;
    return success();
  }
}

template <class T> bool isWritten(const T &v, field::Required) { return true; }
template <class T> bool isWritten(const T &v, field::UnlessEmpty) {
  return !v.empty();
}
template <class T> bool isWritten(const T &v, field::Optional) {
  return v.has_value();
}
} // namespace

void q2::qpe::printMetadataFields(AsmPrinter &printer, const QPEMetadata &md) {
  bool first = true;
  visitFields(md, [&](const char *key, const auto &value, auto presence) {
    if (!isWritten(value, presence))
      return;
    if (!first)
      printer << ", ";
    first = false;
    printer << key << " = ";
    printValue(printer, value);
  });
}

FailureOr<QPEMetadata> q2::qpe::parseMetadataFields(AsmParser &parser) {
  QPEMetadata md;
  llvm::StringSet<> seen;
  SMLoc start = parser.getCurrentLocation();
  auto parseField = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    std::optional<ParseResult> result;
    visitFields(md, [&](const char *name, auto &value, auto) {
      if (!result && key == name)
        result = parseValue(parser, key, value);
    });
    if (!result)
      return parser.emitError(loc, "unknown QPE metadata key '")
             << key << "' (keys are those of QPEMetadata.def)";
    if (!seen.insert(key).second)
      return parser.emitError(loc, "'") << key << "' given twice";
    return *result;
  };
  if (parser.parseCommaSeparatedList(parseField))
    return failure();
  std::string missing;
  visitFields(md, [&](const char *key, const auto &, auto presence) {
    if (std::is_same_v<decltype(presence), field::Required> &&
        missing.empty() && !seen.contains(key))
      missing = key;
  });
  if (!missing.empty())
    return parser.emitError(start, "QPE metadata without '") << missing << "'";
  return md;
}

Attribute MetadataAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  FailureOr<QPEMetadata> md = parseMetadataFields(parser);
  if (failed(md) || parser.parseGreater())
    return {};
  return parser.getChecked<MetadataAttr>(parser.getContext(), std::move(*md));
}

void MetadataAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printMetadataFields(printer, getMetadata());
  printer << '>';
}

llvm::hash_code q2::qpe::hash_value(const QPEMetadata &md) {
  // A subset is enough: equal metadata hash equal.
  return llvm::hash_combine(md.molecule, md.nSystem, md.nEst, md.nTrotter,
                            md.nTerms, md.order, int(md.mode), int(md.power),
                            md.unroll, md.words.size(),
                            md.defaultCoeffs.size(), md.trotterSteps.size());
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

LogicalResult
MetadataAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     QPEMetadata md) {
  // The same rules as an object file's metadata.
  if (llvm::Error e = md.validate())
    return emitError() << llvm::toString(std::move(e));
  return success();
}

/// The @qpe signature the metadata promises, in each form the pipeline
/// gives it: tensors (stages 0-2), memrefs with an out-buffer (stage 3). The
/// LLVM form (stage 4 on) is checked when the object is loaded.
static LogicalResult verifyEntry(ModuleOp module, const QPEMetadata &md) {
  Operation *sym = SymbolTable::lookupSymbolIn(module, kEntryName);
  if (!sym)
    return module.emitOpError("has qpe.metadata but no @qpe function");
  auto fn = dyn_cast<func::FuncOp>(sym);
  if (!fn)
    return success();
  if (fn.isExternal())
    return fn.emitOpError("@qpe must have a body");
  bool dynamic = md.mode == Mode::Dynamic;
  int64_t nTerms = int64_t(md.nTerms);
  int64_t nOut = int64_t(1) << md.nEst;
  auto isF64Vector = [](Type t, int64_t n) {
    auto s = dyn_cast<ShapedType>(t);
    return s && (isa<RankedTensorType, MemRefType>(t)) && s.hasRank() &&
           s.getRank() == 1 && s.getDimSize(0) == n &&
           s.getElementType().isF64();
  };
  FunctionType ty = fn.getFunctionType();
  auto mismatch = [&](const Twine &what) {
    return fn.emitOpError("does not match its qpe.metadata (mode ")
           << toString(md.mode) << ", n_terms " << nTerms << ", n_est "
           << md.nEst << "): " << what;
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

LogicalResult QPEDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() != kMetadataAttrName)
    return op->emitError() << "unknown qpe dialect attribute '"
                           << attr.getName().getValue() << "'";
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError() << "'" << kMetadataAttrName
                           << "' belongs on a builtin.module";
  auto md = dyn_cast<MetadataAttr>(attr.getValue());
  if (!md)
    return op->emitError() << "'" << kMetadataAttrName
                           << "' must be a #qpe.metadata<...> attribute";
  return verifyEntry(module, md.getMetadata());
}

llvm::Expected<QPEMetadata> q2::qpe::readQPEMetadata(ModuleOp module) {
  Attribute a = module->getAttr(kMetadataAttrName);
  if (!a)
    return llvm::createStringError(
        llvm::Twine("not a QPE program: the module has no '") +
        kMetadataAttrName + "' attribute (generate it with q2-qpe)");
  auto attr = dyn_cast<MetadataAttr>(a);
  if (!attr)
    return llvm::createStringError(llvm::Twine("'") + kMetadataAttrName +
                                   "' is not a #qpe.metadata<...> attribute");
  return attr.getMetadata();
}
