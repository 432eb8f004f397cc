//===- QPEProgramWriter.cpp - The stage-0 program as streamed text --------===//
//
// writeQPEProgram: the text buildQPEProgram's module prints as, byte for
// byte (ProgramTextTest), without building the ops form's Trotter step:
// the builder's skeleton is printed and the step is written as text in its
// place, with the names MLIR's printer would give.
//
//===----------------------------------------------------------------------===//
#include "ProgramBuilder.h"

#include "mlir/IR/AsmState.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace q2;
using namespace q2::qpe;
using namespace q2::qpe::detail;

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
                                     const qpe::QPEParameters &params,
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
