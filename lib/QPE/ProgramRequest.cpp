//===- ProgramRequest.cpp - the request's options, parsed and checked -----===//
#include "q2/QPE/ProgramRequest.h"

#include "q2/QPE/QPEParameters.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace q2::qpe;
using llvm::StringRef;

namespace {

// A function-local static: tool mains register their flags from it during
// static initialization.
llvm::ArrayRef<ProgramOptionInfo> allOptions() {
  static const ProgramOptionInfo options[] = {
#define Q2_PROGRAM_OPTION(TYPE, FIELD, KIND, FLAG, PY, DEFAULT, VALUE, HELP)  \
  {#FIELD, ProgramOptionKind::KIND, FLAG, PY, VALUE, HELP},
#include "q2/QPE/ProgramRequest.def"
  };
  return options;
}

llvm::Error bad(const ProgramOptionInfo &o, OptionSpelling s,
                const llvm::Twine &what) {
  return llvm::createStringError(o.name(s) + " " + what);
}

/// "'fixed' or 'dynamic'" from "fixed|dynamic".
std::string choices(StringRef valueDesc) {
  llvm::SmallVector<StringRef, 4> words;
  valueDesc.split(words, '|');
  std::string out;
  for (size_t i = 0; i < words.size(); ++i)
    out += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") +
           ("'" + words[i] + "'").str();
  return out;
}

/// The shortest of %.15g / %.17g that reads back as `v`.
std::string formatReal(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  if (std::strtod(buf, nullptr) != v)
    std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::optional<double> parseReal(StringRef text) {
  double v;
  if (text.trim().getAsDouble(v))
    return std::nullopt;
  return v;
}

//--- one parse/format overload per field type ------------------------------

const char *kWindowRule = "needs finite lo,hi with lo < hi and 1e-9 Ha < "
                          "hi - lo < inf";
std::string stepsRule() {
  return llvm::formatv("must be 'auto' or an integer in [1, {0}]",
                       kMaxWireSteps)
      .str();
}

llvm::Error parse(StringRef t, unsigned &v, const ProgramOptionInfo &o,
                  OptionSpelling s) {
  if (t.trim().getAsInteger(10, v))
    return bad(o, s, "must be a non-negative integer, got '" + t + "'");
  return llvm::Error::success();
}
llvm::Error parse(StringRef t, std::optional<uint64_t> &v,
                  const ProgramOptionInfo &o, OptionSpelling s) {
  if (t == "auto") {
    v.reset();
    return llvm::Error::success();
  }
  uint64_t n = 0;
  if (t.getAsInteger(10, n) || n < 1 || n > kMaxWireSteps)
    return bad(o, s, stepsRule() + ", got '" + t + "'");
  v = n;
  return llvm::Error::success();
}
llvm::Error parse(StringRef t, Mode &v, const ProgramOptionInfo &o,
                  OptionSpelling s) {
  std::optional<Mode> m = parseMode(t);
  if (!m)
    return bad(o, s, "must be " + choices(o.valueDesc) + ", got '" + t + "'");
  v = *m;
  return llvm::Error::success();
}
llvm::Error parse(StringRef t, Power &v, const ProgramOptionInfo &o,
                  OptionSpelling s) {
  std::optional<Power> p = parsePower(t);
  if (!p)
    return bad(o, s, "must be " + choices(o.valueDesc) + ", got '" + t + "'");
  v = *p;
  return llvm::Error::success();
}
llvm::Error parse(StringRef t, bool &v, const ProgramOptionInfo &o,
                  OptionSpelling s) {
  if (t == "true" || t == "1")
    v = true;
  else if (t == "false" || t == "0")
    v = false;
  else
    return bad(o, s, "must be true or false, got '" + t + "'");
  return llvm::Error::success();
}
llvm::Error parse(StringRef t, double &v, const ProgramOptionInfo &o,
                  OptionSpelling s) {
  std::optional<double> r = parseReal(t);
  if (!r)
    return bad(o, s, "must be a number, got '" + t + "'");
  v = *r;
  return llvm::Error::success();
}
/// An optional field given a value: parsed as the plain field type.
template <class T>
llvm::Error parse(StringRef t, std::optional<T> &v, const ProgramOptionInfo &o,
                  OptionSpelling s) {
  T x{};
  if (llvm::Error e = parse(t, x, o, s))
    return e;
  v = x;
  return llvm::Error::success();
}
llvm::Error parse(StringRef t, std::optional<EnergyWindow> &v,
                  const ProgramOptionInfo &o, OptionSpelling s) {
  auto [a, b] = t.split(',');
  std::optional<double> lo = parseReal(a), hi = parseReal(b);
  if (!lo || !hi || b.contains(','))
    return bad(o, s, kWindowRule);
  v = EnergyWindow(*lo, *hi);
  return llvm::Error::success();
}

std::string format(unsigned v) { return std::to_string(v); }
std::string format(const std::optional<unsigned> &v) {
  return v ? format(*v) : "";
}
std::string format(const std::optional<uint64_t> &v) {
  return v ? std::to_string(*v) : "auto";
}
std::string format(Mode v) { return toString(v).str(); }
std::string format(Power v) { return toString(v).str(); }
std::string format(bool v) { return v ? "true" : "false"; }
std::string format(double v) { return formatReal(v); }
std::string format(const std::optional<double> &v) {
  return v ? formatReal(*v) : "";
}
std::string format(const std::optional<EnergyWindow> &v) {
  return v ? formatReal(v->first) + "," + formatReal(v->second) : "";
}

const ProgramOptionInfo &info(StringRef field) {
  for (const ProgramOptionInfo &o : allOptions())
    if (o.field == field)
      return o;
  llvm_unreachable("field not in ProgramRequest.def");
}

} // namespace

std::string ProgramOptionInfo::name(OptionSpelling s) const {
  return s == OptionSpelling::Flag ? ("--" + flag).str() : pyName.str();
}

std::string ProgramOptionInfo::helpWithDefault() const {
  std::string def = ProgramRequest().get(flag);
  // 'auto' and an unset value are described by the help itself.
  if (kind == ProgramOptionKind::Steps || kind == ProgramOptionKind::Switch ||
      def.empty())
    return help.str();
  return (help + " (default " + def + ")").str();
}

llvm::ArrayRef<ProgramOptionInfo> q2::qpe::programOptions() { return allOptions(); }

const ProgramOptionInfo *q2::qpe::findProgramOption(StringRef name) {
  for (const ProgramOptionInfo &o : allOptions())
    if (o.flag == name || o.pyName == name)
      return &o;
  return nullptr;
}

llvm::Error ProgramRequest::set(StringRef name, StringRef text,
                                OptionSpelling spelling) {
  const ProgramOptionInfo *o = findProgramOption(name);
  if (!o) {
    std::string known;
    for (const ProgramOptionInfo &k : allOptions())
      known += (known.empty() ? "" : ", ") + k.name(spelling);
    return llvm::createStringError("unknown program option '" + name +
                                   "' (known: " + known + ")");
  }
#define Q2_PROGRAM_OPTION(TYPE, FIELD, KIND, FLAG, PY, DEFAULT, VALUE, HELP)  \
  if (o->field == #FIELD)                                                      \
    return parse(text, FIELD, *o, spelling);
#include "q2/QPE/ProgramRequest.def"
  llvm_unreachable("every option has a field");
}

std::string ProgramRequest::get(StringRef name) const {
  const ProgramOptionInfo *o = findProgramOption(name);
  if (!o)
    return "";
#define Q2_PROGRAM_OPTION(TYPE, FIELD, KIND, FLAG, PY, DEFAULT, VALUE, HELP)  \
  if (o->field == #FIELD)                                                      \
    return format(FIELD);
#include "q2/QPE/ProgramRequest.def"
  llvm_unreachable("every option has a field");
}

llvm::Error ProgramRequest::validate(OptionSpelling s) const {
  auto finite = [](double v) { return std::isfinite(v); };
  if (!finite(resolution) || resolution <= 0)
    return bad(info("resolution"), s, "must be finite and > 0");
  if (energyShift && !finite(*energyShift))
    return bad(info("energyShift"), s, "must be finite");
  if (baseTime && (!finite(*baseTime) || *baseTime <= 0))
    return bad(info("baseTime"), s, "must be finite and > 0");
  if (window) {
    auto [lo, hi] = *window;
    if (!finite(lo) || !finite(hi) || !finite(hi - lo) || !(hi - lo > 1e-9))
      return bad(info("window"), s, kWindowRule);
  }
  if (nTrotter && (*nTrotter < 1 || *nTrotter > kMaxWireSteps))
    return bad(info("nTrotter"), s,
               stepsRule() + ", got '" + std::to_string(*nTrotter) + "'");
  if (order != 1 && order != 2)
    return llvm::createStringError(
        llvm::formatv("Trotter order must be 1 or 2, got {0}", order));
  // The message computeQPEParameters gives, before the Hamiltonian is read.
  if (nEst && (*nEst < 1 || *nEst > qpe::kMaxEstimationQubits))
    return llvm::createStringError(llvm::formatv(
        "n_est = {0}, supported are 1..{1}", *nEst, qpe::kMaxEstimationQubits));
  return llvm::Error::success();
}
