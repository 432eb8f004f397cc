//===- QPEMetadata.cpp - read the q2.qpe module attribute -----------------===//
#include "q2/QPE/QPEProgram.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace q2::qpe;

llvm::Expected<QPEMetadata> q2::qpe::readQPEMetadata(ModuleOp module) {
  auto fail = [](const llvm::Twine &msg) -> llvm::Error {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "not a QPE program: " + msg);
  };
  auto dict = module->getAttrOfType<DictionaryAttr>(kMetadataAttrName);
  if (!dict)
    return fail(llvm::Twine("the module has no '") + kMetadataAttrName +
                "' attribute (generate it with q2-qpe)");
  QPEMetadata md;
  auto getInt = [&](StringRef key, unsigned &out) -> llvm::Error {
    auto a = dict.getAs<IntegerAttr>(key);
    if (!a || a.getInt() < 0)
      return fail("'" + key + "' is missing or not a non-negative integer");
    out = static_cast<unsigned>(a.getInt());
    return llvm::Error::success();
  };
  auto getF = [&](StringRef key, double &out) -> llvm::Error {
    auto a = dict.getAs<FloatAttr>(key);
    if (!a)
      return fail("'" + key + "' is missing or not a float");
    out = a.getValueAsDouble();
    return llvm::Error::success();
  };
  auto getStr = [&](StringRef key, std::string &out) -> llvm::Error {
    auto a = dict.getAs<StringAttr>(key);
    if (!a)
      return fail("'" + key + "' is missing or not a string");
    out = a.str();
    return llvm::Error::success();
  };
  std::string mode, power;
  for (auto [key, slot] : {std::pair<StringRef, unsigned *>{"n_system", &md.nSystem},
                           {"n_est", &md.nEst},
                           {"n_trotter", &md.nTrotter},
                           {"n_terms", &md.nTerms},
                           {"order", &md.order}})
    if (llvm::Error e = getInt(key, *slot))
      return std::move(e);
  if (llvm::Error e = getF("base_time", md.baseTime))
    return std::move(e);
  if (llvm::Error e = getF("energy_shift", md.energyShift))
    return std::move(e);
  if (llvm::Error e = getF("resolution", md.resolution))
    return std::move(e);
  if (llvm::Error e = getStr("molecule", md.molecule))
    return std::move(e);
  if (llvm::Error e = getStr("mode", mode))
    return std::move(e);
  if (llvm::Error e = getStr("power", power))
    return std::move(e);
  if (mode != "fixed" && mode != "dynamic")
    return fail("'mode' must be \"fixed\" or \"dynamic\", got \"" + mode + "\"");
  if (power != "time" && power != "repeat")
    return fail("'power' must be \"time\" or \"repeat\", got \"" + power + "\"");
  md.mode = mode == "fixed" ? Mode::Fixed : Mode::Dynamic;
  md.power = power == "time" ? Power::Time : Power::Repeat;
  if (auto u = dict.getAs<BoolAttr>("unroll"))
    md.unroll = u.getValue();
  auto words = dict.getAs<ArrayAttr>("words");
  auto coeffs = dict.getAs<DenseF64ArrayAttr>("default_coeffs");
  if (!words || !coeffs)
    return fail("'words' or 'default_coeffs' is missing");
  for (Attribute w : words) {
    auto s = dyn_cast<StringAttr>(w);
    if (!s)
      return fail("'words' must hold strings");
    md.words.push_back(s.str());
  }
  md.defaultCoeffs.assign(coeffs.asArrayRef().begin(), coeffs.asArrayRef().end());
  if (md.words.size() != md.nTerms || md.defaultCoeffs.size() != md.nTerms)
    return fail("'words' and 'default_coeffs' must have n_terms entries");
  if (md.nEst < 1 || md.nSystem < 1)
    return fail("n_est and n_system must be >= 1");
  return md;
}
