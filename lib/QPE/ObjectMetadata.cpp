//===- ObjectMetadata.cpp - Metadata in object files; decoding ------------===//
#include "q2/QPE/QPEMetadata.h"
#include "q2/QPE/ObjectIO.h"

#include "q2/QPE/QPEParameters.h"
#include "q2/QPE/TrotterError.h"

#include "q2/Support/JSON.h"
#include "q2/Support/ObjectDigest.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>

using namespace q2::qpe;

//===----------------------------------------------------------------------===//
// Object JSON
//===----------------------------------------------------------------------===//

// The field list is QPEMetadata.def (fields() in QPEMetadata.h).

std::string q2::qpe::toJSON(const QPEMetadata &md) {
  auto text = q2::json::dump(q2::json::toValue(md), -1);
  return text ? *text : (llvm::consumeError(text.takeError()), "{}");
}

llvm::Expected<QPEMetadata> q2::qpe::fromJSON(llvm::StringRef text,
                                              llvm::StringRef source) {
  auto v = q2::json::parse(text, source);
  if (!v)
    return v.takeError();
  QPEMetadata md;
  if (llvm::Error e = q2::json::fromValue(q2::json::Cursor(*v, source.str()), md))
    return std::move(e);
  return md;
}

std::string q2::qpe::toObjectJSON(const QPEMetadata &md) {
  q2::json::Value v = q2::json::toValue(md);
  v["format"] = kObjectFormat;
  auto text = q2::json::dump(v, -1);
  return text ? *text : (llvm::consumeError(text.takeError()), "{}");
}

std::string q2::qpe::ioSignature(const QPEMetadata &md) {
  return "q2.qpe.io/1 coeffs=" + std::to_string(md.numCoeffArgs()) +
         " result=" + std::to_string(uint64_t(1) << std::min(md.nEst, 63u));
}

llvm::Expected<QPEMetadata> q2::qpe::fromObjectJSON(llvm::StringRef text,
                                                    llvm::StringRef source) {
  auto v = q2::json::parse(text, source);
  if (!v)
    return v.takeError();
  q2::json::Cursor c(*v, source.str());
  auto format = c.at("format");
  if (!format)
    return format.takeError();
  auto f = format->string();
  if (!f)
    return f.takeError();
  if (*f != kObjectFormat && *f != kObjectFormatV1)
    return c.error(llvm::Twine("metadata format '") + *f +
                   "', this q2-opt reads '" + kObjectFormat + "' and '" +
                   kObjectFormatV1 + "' (recompile the program)");
  QPEMetadata md;
  if (llvm::Error e = q2::json::fromValue(c, md))
    return std::move(e);
  if (llvm::Error e = md.validate())
    return c.error("invalid metadata: " + llvm::toString(std::move(e)));
  return md;
}

llvm::Expected<QPEMetadata>
q2::qpe::readObjectMetadata(llvm::ArrayRef<char> object,
                            llvm::StringRef source) {
  llvm::MemoryBufferRef ref(llvm::StringRef(object.data(), object.size()),
                            source);
  auto obj = llvm::object::ObjectFile::createObjectFile(ref);
  if (!obj)
    return llvm::createStringError(source + ": not an object file (" +
                                   llvm::toString(obj.takeError()) + ")");
  llvm::object::ObjectFile &file = **obj;
  if (llvm::Error e = q2::checkObjectDigest(file, source))
    return std::move(e);
  llvm::Triple host(llvm::sys::getProcessTriple());
  if (file.getArch() != host.getArch())
    return llvm::createStringError(
        source + ": an object for " +
        llvm::Triple::getArchTypeName(file.getArch()) + ", this host is " +
        llvm::Triple::getArchTypeName(host.getArch()));
  std::optional<llvm::StringRef> json, io;
  for (const llvm::object::SectionRef &s : file.sections()) {
    auto name = s.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*name != kObjectSection && *name != kObjectIOSection)
      continue;
    auto contents = s.getContents();
    if (!contents)
      return llvm::createStringError(source + ": cannot read section " +
                                     *name + ": " +
                                     llvm::toString(contents.takeError()));
    (*name == kObjectSection ? json : io) = contents->rtrim('\0');
  }
  if (!json)
    return llvm::createStringError(
        source + ": no " + kObjectSection +
        " section: not a QPE program compiled by q2-opt (--qpe-pipeline -o)");
  bool hasEntry = false;
  std::string entry = std::string("_mlir_ciface_") + kEntryName;
  for (const llvm::object::SymbolRef &sym : file.symbols()) {
    auto name = sym.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    hasEntry |= *name == entry;
  }
  if (!hasEntry)
    return llvm::createStringError(source + ": no entry point '" + entry + "'");
  auto md = fromObjectJSON(*json, (source + ":" + kObjectSection).str());
  if (!md)
    return md.takeError();
  // The JSON alone is text anyone can edit; the compiled code's buffers are
  // fixed. Running with sizes other than the code's would read or write past
  // the host's buffers.
  if (!io)
    return llvm::createStringError(source + ": no " + kObjectIOSection +
                                   " section (compiled by an older q2-opt: "
                                   "recompile the program)");
  std::string expected = ioSignature(*md);
  if (*io != expected)
    return llvm::createStringError(
        source + ": the " + kObjectSection +
        " metadata does not match the compiled code (it says '" + expected +
        "', the code has '" + *io + "'): refusing to run an edited object");
  return md;
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

double q2::qpe::energyOfOutcome(const QPEMetadata &md, uint64_t m) {
  qpe::QPEParameters p{};
  p.baseTime = md.baseTime;
  p.energyShift = md.energyShift;
  p.nEst = md.nEst;
  return qpe::decodeEnergy(m, p);
}

QPEResult q2::qpe::decodeView(llvm::ArrayRef<double> probs,
                              const QPEMetadata &md) {
  QPEResult r;
  double best = -1;
  for (size_t i = 0; i < probs.size(); ++i) {
    r.probSum += probs[i];
    if (probs[i] > best) {
      best = probs[i];
      r.argmax = i;
    }
  }
  r.phase = probs.empty() ? 0 : double(r.argmax) / double(probs.size());
  r.energy = energyOfOutcome(md, r.argmax);
  // Neighbours by offset, not by index: outcome 2^n - 1 is next to 0 as a
  // phase, and its energy is one bin from E(0), not a window away.
  size_t n = probs.size();
  double mass = 0, moment = 0;
  std::vector<size_t> seen;
  for (int d : {0, -1, 1}) {
    if (n == 0)
      break;
    size_t m = (r.argmax + n + d) % n;
    if (llvm::is_contained(seen, m))
      continue; // fewer than three outcomes in all
    seen.push_back(m);
    mass += probs[m];
    moment += probs[m] * d;
  }
  r.peakMass = mass;
  // E(m + d) = E(m) - d * resolution.
  r.peakEnergy = r.energy - (mass > 0 ? moment / mass : 0) * md.resolution;
  return r;
}

QPEResult q2::qpe::decode(std::vector<double> probs, const QPEMetadata &md) {
  QPEResult r = decodeView(probs, md);
  r.probs = std::move(probs);
  return r;
}

llvm::Expected<double> q2::qpe::trotterBoundFor(const QPEMetadata &md,
                                                llvm::ArrayRef<double> coeffs) {
  namespace ham = q2::hamiltonian;
  if (coeffs.empty()) {
    if (md.trotterBound)
      return *md.trotterBound;
    coeffs = md.defaultCoeffs;
  }
  if (coeffs.size() != md.words.size())
    return llvm::createStringError(llvm::formatv(
        "{0} coefficients for {1} terms", coeffs.size(), md.words.size()));
  ham::QubitHamiltonian h;
  h.name = md.molecule;
  h.numQubits = md.nSystem;
  for (size_t i = 0; i < coeffs.size(); ++i)
    h.terms.push_back({md.words[i], coeffs[i]});
  auto c = qpe::trotterCommutators(h, md.order);
  if (!c)
    return c.takeError();
  qpe::QPEParameters p{};
  p.baseTime = md.baseTime;
  p.energyShift = md.energyShift;
  p.resolution = md.resolution;
  p.nEst = md.nEst;
  std::vector<uint64_t> steps;
  for (unsigned k = 0; k < md.nEst; ++k)
    steps.push_back(md.stepsOfWire(k));
  auto plan = qpe::trotterPlanForSteps(*c, p, md.order,
                                       md.power == Power::Time
                                           ? qpe::TrotterPower::Time
                                           : qpe::TrotterPower::Repeat,
                                       steps);
  if (!plan)
    return plan.takeError();
  return plan->maxEnergyError;
}
