//===- SizePrinter.cpp - Bytes and lines of an op's print, without printing ===//
//
// Mirrors mlir/lib/IR/AsmPrinter.cpp (OperationPrinter) of MLIR 22 for the
// parts an op's text is made of: results, custom op printers, regions and
// blocks (with their predecessor comments), attribute dictionaries, region
// arguments, successors. Tested equal to MLIR's print (IRMetricsTest, the
// ir-exact lit test, and Q2_IR_METRICS_VERIFY=1, which checks every count).
//
//===----------------------------------------------------------------------===//

#include "SizePrinter.h"

#include "q2/Support/FloatFormat.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectInterface.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Endian.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <type_traits>

using namespace mlir;
using namespace q2::profiling::detail;

namespace {

/// Counts bytes and '\n's. Buffered in a member array: most writes of the
/// printers are a few characters, which then take raw_ostream's inline path.
class CountStream : public llvm::raw_ostream {
public:
  CountStream() { SetBuffer(buffer, sizeof(buffer)); }
  ~CountStream() override { flush(); }
  bool aliased = false;
  /// Spaces: counted, not written.
  CountStream &indent(unsigned n) {
    added += n;
    return *this;
  }
  void add(PrintedSizeMemo::Size s) {
    added += s.bytes;
    addedNewlines += s.newlines;
    if (s.aliased) {
      aliased = true;
      aliasKnown = aliasKnown && s.aliasKnown;
      aliasDeltaBytes += s.aliasDeltaBytes;
      aliasDeltaNewlines += s.aliasDeltaNewlines;
    }
  }
  bool aliasKnown = true;
  int64_t aliasDeltaBytes = 0, aliasDeltaNewlines = 0;
  uint64_t bytes() {
    flush();
    return written + added;
  }
  uint64_t newlines() {
    flush();
    return writtenNewlines + addedNewlines;
  }

private:
  void write_impl(const char *ptr, size_t size) override {
    written += size;
    writtenNewlines += uint64_t(std::count(ptr, ptr + size, '\n'));
  }
  uint64_t current_pos() const override { return written; }
  char buffer[4096];
  uint64_t written = 0, writtenNewlines = 0, added = 0, addedNewlines = 0;
};

/// A small stream for names (printAsOperand writes into it), buffered so
/// that the few short writes of a name take raw_ostream's inline path.
class NameStream : public llvm::raw_ostream {
public:
  NameStream() { SetBuffer(buffer, sizeof(buffer)); }
  ~NameStream() override { flush(); }
  void reset() {
    flush();
    text.clear();
  }
  llvm::StringRef str() {
    flush();
    return text;
  }

private:
  void write_impl(const char *ptr, size_t size) override {
    text.append(ptr, ptr + size);
  }
  uint64_t current_pos() const override { return text.size(); }
  char buffer[256];
  llvm::SmallString<64> text;
};

// AsmPrinter.cpp: isBareIdentifier / printKeywordOrString.
bool isBareIdentifier(llvm::StringRef name) {
  if (name.empty() || (!isalpha(name[0]) && name[0] != '_'))
    return false;
  return llvm::all_of(name.drop_front(), [](unsigned char c) {
    return isalnum(c) || c == '_' || c == '$' || c == '.';
  });
}

void keywordOrString(llvm::StringRef keyword, llvm::raw_ostream &os) {
  if (isBareIdentifier(keyword)) {
    os << keyword;
    return;
  }
  os << "\"";
  llvm::printEscapedString(keyword, os);
  os << '"';
}

/// The counting OpAsmPrinter. Anything it does not mirror sets
/// `unsupported` and printing goes on (the count is then discarded).
class SizeOpPrinter final : public OpAsmPrinter {
public:
  SizeOpPrinter(CountStream &os, AsmState &state, PrintedSizeMemo &memo,
                DialectInterfaceCollection<OpAsmDialectInterface> &interfaces)
      : os(os), state(state), memo(memo), interfaces(interfaces) {}

  bool unsupported = false;

  // --- OperationPrinter::printFullOpWithIndentAndLoc / printFullOp --------
  void printFullOpWithIndent(Operation *op) {
    os.indent(currentIndent);
    if (size_t numResults = op->getNumResults()) {
      llvm::SmallVector<int, 2> groups = resultGroups(op);
      auto printGroup = [&](size_t resultNo, size_t count) {
        printResultName(op->getResult(resultNo));
        if (count > 1)
          os << ':' << count;
      };
      if (groups.size() > 1) {
        for (size_t i = 0; i + 1 < groups.size(); ++i) {
          if (i)
            os << ", ";
          printGroup(groups[i], groups[i + 1] - groups[i]);
        }
        os << ", ";
        printGroup(groups.back(), numResults - groups.back());
      } else {
        printGroup(0, numResults);
      }
      os << " = ";
    }
    printCustomOrGenericOp(op);
    // Trailing locations: only with debug info (not supported here).
  }

  // --- AsmPrinter ----------------------------------------------------------
  raw_ostream &getStream() const override { return os; }
  void printNewline() override {
    os << '\n';
    os.indent(currentIndent);
  }
  void increaseIndent() override { currentIndent += indentWidth; }
  void decreaseIndent() override { currentIndent -= indentWidth; }
  void printFloat(const llvm::APFloat &value) override {
    // MLIR's text of an f64 without APFloat's cost; other kinds are not
    // replicated.
    if (&value.getSemantics() != &llvm::APFloat::IEEEdouble()) {
      unsupported = true;
      return;
    }
    floatText.clear();
    q2::formatMLIRFloat(value.convertToDouble(), floatText);
    os << floatText;
  }
  void printType(Type type) override {
    if (!type) {
      os << "<<NULL TYPE>>";
      return;
    }
    os.add(memo.of(type));
  }
  void printAttribute(Attribute attr) override {
    if (!attr) {
      os << "<<NULL ATTRIBUTE>>";
      return;
    }
    os.add(memo.of(attr, /*elideType=*/false));
  }
  void printAttributeWithoutType(Attribute attr) override {
    if (!attr) {
      os << "<<NULL ATTRIBUTE>>";
      return;
    }
    os.add(memo.of(attr, /*elideType=*/true));
  }
  void printNamedAttribute(NamedAttribute attr) override {
    keywordOrString(attr.getName().strref(), os);
    if (llvm::isa<UnitAttr>(attr.getValue()))
      return;
    os << " = ";
    printAttribute(attr.getValue());
  }
  // The local scope prints no aliases; inside a module an aliased value
  // printed stripped (printStrippedAttrOrType asks first) would be its
  // alias: not replicated.
  LogicalResult printAlias(Attribute a) override {
    if (memo.attrHasAlias && memo.attrHasAlias(a))
      unsupported = true;
    return failure();
  }
  LogicalResult printAlias(Type t) override {
    if (memo.typeHasAlias && memo.typeHasAlias(t))
      unsupported = true;
    return failure();
  }
  void printKeywordOrString(llvm::StringRef keyword) override {
    keywordOrString(keyword, os);
  }
  void printString(llvm::StringRef string) override {
    os << "\"";
    llvm::printEscapedString(string, os);
    os << "\"";
  }
  void printSymbolName(llvm::StringRef symbolRef) override {
    if (symbolRef.empty()) {
      os << "@<<INVALID EMPTY SYMBOL>>";
      return;
    }
    os << '@';
    keywordOrString(symbolRef, os);
  }
  void printResourceHandle(const AsmDialectResourceHandle &) override {
    unsupported = true;
  }
  LogicalResult pushCyclicPrinting(const void *) override {
    unsupported = true; // only type/attribute printers use it
    return success();
  }
  void popCyclicPrinting() override {}

  // --- OpAsmPrinter --------------------------------------------------------
  void printOptionalLocationSpecifier(Location) override {} // no debug info
  void printRegionArgument(BlockArgument arg,
                           ArrayRef<NamedAttribute> argAttrs,
                           bool omitType) override {
    printOperand(arg);
    if (!omitType) {
      os << ": ";
      printType(arg.getType());
    }
    printOptionalAttrDict(argAttrs, {});
  }
  void printOperand(Value value) override { printValueID(value, true); }
  void printOperand(Value value, raw_ostream &stream) override {
    if (!value) {
      stream << "<<NULL VALUE>>";
      return;
    }
    value.printAsOperand(stream, state);
  }
  void printSuccessor(Block *successor) override { printBlockName(successor); }
  void printSuccessorAndUseList(Block *successor,
                                ValueRange succOperands) override {
    printBlockName(successor);
    if (succOperands.empty())
      return;
    os << '(';
    llvm::interleaveComma(succOperands, os,
                          [&](Value v) { printValueID(v, true); });
    os << " : ";
    llvm::interleaveComma(succOperands, os,
                          [&](Value v) { printType(v.getType()); });
    os << ')';
  }
  void printOptionalAttrDict(ArrayRef<NamedAttribute> attrs,
                             ArrayRef<llvm::StringRef> elidedAttrs) override {
    printAttrDict(attrs, elidedAttrs, false);
  }
  void printOptionalAttrDictWithKeyword(
      ArrayRef<NamedAttribute> attrs,
      ArrayRef<llvm::StringRef> elidedAttrs) override {
    printAttrDict(attrs, elidedAttrs, true);
  }
  void printCustomOrGenericOp(Operation *op) override {
    if (auto info = op->getRegisteredInfo()) {
      info->printAssembly(op, *this, defaultDialectStack.back());
      return;
    }
    unsupported = true; // unregistered: generic form / dialect hook
  }
  // OperationPrinter::printGenericOp, for a registered op whose printer
  // asks for it (llvm.intr.memcpy).
  void printGenericOp(Operation *op, bool printOpName) override {
    if (printOpName) {
      os << '"';
      llvm::printEscapedString(op->getName().getStringRef(), os);
      os << '"';
    }
    os << '(';
    llvm::interleaveComma(op->getOperands(), os,
                          [&](Value v) { printValueID(v, true); });
    os << ')';
    if (op->getNumSuccessors()) {
      os << '[';
      llvm::interleaveComma(op->getSuccessors(), os,
                            [&](Block *b) { printBlockName(b); });
      os << ']';
    }
    if (Attribute props = op->getPropertiesAsAttribute()) {
      os << " <";
      printAttribute(props);
      os << '>';
    }
    if (op->getNumRegions()) {
      os << " (";
      llvm::interleaveComma(op->getRegions(), os, [&](Region &r) {
        printRegion(r, /*printEntryBlockArgs=*/true,
                    /*printBlockTerminators=*/true, /*printEmptyBlock=*/true);
      });
      os << ')';
    }
    if (op->getPropertiesStorage()) {
      llvm::SmallVector<NamedAttribute> discardable(
          op->getDiscardableAttrs());
      printOptionalAttrDict(discardable, {});
    } else {
      printOptionalAttrDict(op->getAttrs(), {});
    }
    os << " : (";
    llvm::interleaveComma(op->getOperandTypes(), os,
                          [&](Type t) { printType(t); });
    os << ") -> ";
    bool wrap = op->getNumResults() != 1 ||
                llvm::isa<FunctionType>(op->getResult(0).getType());
    if (wrap)
      os << '(';
    llvm::interleaveComma(op->getResultTypes(), os,
                          [&](Type t) { printType(t); });
    if (wrap)
      os << ')';
  }
  void printRegion(Region &region, bool printEntryBlockArgs,
                   bool printBlockTerminators, bool printEmptyBlock) override {
    os << "{" << '\n';
    if (!region.empty()) {
      if (auto iface = llvm::dyn_cast<OpAsmOpInterface>(region.getParentOp()))
        defaultDialectStack.push_back(iface.getDefaultDialect());
      else
        defaultDialectStack.push_back("");
      // The module's alias initializer visits every block argument's type,
      // printed or not (seen here, counted where printed).
      memo.countUses = false;
      for (Block &b : region)
        for (BlockArgument a : b.getArguments())
          if (PrintedSizeMemo::Size size = memo.of(a.getType());
              size.aliased) {
            os.aliased = true;
            os.aliasKnown = os.aliasKnown && size.aliasKnown;
          }
      memo.countUses = true;
      Block *entry = &region.front();
      bool header = (printEmptyBlock && entry->empty()) ||
                    (printEntryBlockArgs && entry->getNumArguments() != 0);
      printBlock(entry, header, printBlockTerminators);
      for (Block &b : llvm::drop_begin(region.getBlocks(), 1))
        printBlock(&b, true, true);
      defaultDialectStack.pop_back();
    }
    os.indent(currentIndent) << "}";
  }
  void shadowRegionArgs(Region &, ValueRange) override { unsupported = true; }
  void printAffineMapOfSSAIds(AffineMapAttr, ValueRange) override {
    unsupported = true;
  }
  void printAffineExprOfSSAIds(AffineExpr, ValueRange, ValueRange) override {
    unsupported = true;
  }

private:
  static constexpr unsigned indentWidth = 2;

  void printValueID(Value value, bool printResultNo) {
    if (!value) {
      os << "<<NULL VALUE>>";
      return;
    }
    // A value's name is asked by MLIR's numbering once per value (at its
    // definition, or at its first use for block arguments printed as
    // operands); every later use adds the remembered length.
    auto [it, fresh] =
        memo.valueNames.try_emplace(value.getAsOpaquePointer(), 0);
    if (printResultNo && !fresh) {
      os.add({it->second, 0, false});
      return;
    }
    names.reset();
    value.printAsOperand(names, state);
    llvm::StringRef text = names.str();
    it->second = uint32_t(text.size());
    if (printResultNo) {
      os << text;
      return;
    }
    // The name alone (a result group's head at its definition).
    if (size_t hash = text.rfind('#'); hash != llvm::StringRef::npos &&
                                       hash > 0 &&
                                       llvm::all_of(text.drop_front(hash + 1),
                                                    llvm::isDigit))
      text = text.take_front(hash);
    os << text;
  }
  void printResultName(Value v) { printValueID(v, false); }
  void printBlockName(Block *block) { block->printAsOperand(os, state); }

  /// SSANameState's result groups: 0 and every result number other than 0
  /// that the op's OpAsmOpInterface names.
  llvm::SmallVector<int, 2> resultGroups(Operation *op) {
    llvm::SmallVector<int, 2> groups{0};
    if (op->getNumResults() < 2)
      return groups;
    auto setName = [&](Value result, llvm::StringRef) {
      if (int n = llvm::cast<OpResult>(result).getResultNumber())
        groups.push_back(n);
    };
    if (auto asmOp = llvm::dyn_cast<OpAsmOpInterface>(op))
      asmOp.getAsmResultNames(setName);
    llvm::array_pod_sort(groups.begin(), groups.end());
    return groups;
  }

  void printAttrDict(ArrayRef<NamedAttribute> attrs,
                     ArrayRef<llvm::StringRef> elidedAttrs, bool withKeyword) {
    if (attrs.empty())
      return;
    auto printFiltered = [&](auto filtered) {
      if (withKeyword)
        os << " attributes";
      os << " {";
      llvm::interleaveComma(filtered, os, [&](NamedAttribute a) {
        printNamedAttribute(a);
      });
      os << '}';
    };
    if (elidedAttrs.empty())
      return printFiltered(attrs);
    // A few names on either side: a linear scan is cheaper than MLIR's set
    // of the elided names.
    auto filtered = llvm::make_filter_range(attrs, [&](NamedAttribute a) {
      return !llvm::is_contained(elidedAttrs, a.getName().strref());
    });
    if (!filtered.empty())
      printFiltered(filtered);
  }

  // OperationPrinter::print(Block *, printBlockArgs, printBlockTerminator).
  void printBlock(Block *block, bool printBlockArgs, bool printTerminator) {
    if (printBlockArgs) {
      os.indent(currentIndent);
      printBlockName(block);
      if (!block->args_empty()) {
        os << '(';
        llvm::interleaveComma(block->getArguments(), os, [&](BlockArgument a) {
          printValueID(a, true);
          os << ": ";
          printType(a.getType());
        });
        os << ')';
      }
      os << ':';
      if (!block->getParent()) {
        os << "  // block is not in a region!";
      } else if (block->hasNoPredecessors()) {
        if (!block->isEntryBlock())
          os << "  // no predecessors";
      } else if (Block *pred = block->getSinglePredecessor()) {
        os << "  // pred: ";
        printBlockName(pred);
      } else {
        // MLIR sorts the names by block order; the length is the same.
        unsigned n = 0;
        for (Block *pred : block->getPredecessors()) {
          (void)pred;
          ++n;
        }
        os << "  // " << n << " preds: ";
        bool first = true;
        for (Block *pred : block->getPredecessors()) {
          if (!first)
            os << ", ";
          first = false;
          printBlockName(pred);
        }
      }
      os << '\n';
    }
    currentIndent += indentWidth;
    bool hasTerminator =
        !block->empty() && block->back().hasTrait<OpTrait::IsTerminator>();
    auto range = llvm::make_range(
        block->begin(),
        std::prev(block->end(),
                  (!hasTerminator || printTerminator) ? 0 : 1));
    for (Operation &op : range) {
      printFullOpWithIndent(&op);
      os << '\n';
    }
    currentIndent -= indentWidth;
  }

  CountStream &os;
  AsmState &state;
  PrintedSizeMemo &memo;
  DialectInterfaceCollection<OpAsmDialectInterface> &interfaces;
  NameStream names;
  llvm::SmallString<32> floatText;
  unsigned currentIndent = 0;
  llvm::SmallVector<llvm::StringRef> defaultDialectStack{"builtin"};
};

PrintedSizeMemo::Size measureText(llvm::function_ref<void(raw_ostream &)> fn) {
  CountStream os;
  fn(os);
  return {uint32_t(os.bytes()), uint32_t(os.newlines()), false};
}

/// `fn` with an AsmState whose aliases are those of `x` alone: the aliases
/// an op holding only `x` gets (MLIR's own alias initializer decides).
template <typename T, typename Fn>
void withAliasesOf(T x, const OpPrintingFlags &flags, Fn &&fn) {
  MLIRContext *ctx = x.getContext();
  OperationState st(UnknownLoc::get(ctx), "q2.alias_probe");
  if constexpr (std::is_same_v<T, Type>)
    st.addAttribute("v", TypeAttr::get(x));
  else
    st.addAttribute("v", x);
  Operation *probe = Operation::create(st);
  {
    AsmState state(probe, flags);
    // Aliases are made when a top-level op is printed with the state.
    CountStream discard;
    probe->print(discard, state);
    fn(state);
  }
  probe->destroy();
}

void printWith(Type t, raw_ostream &os, AsmState &state, bool) {
  t.print(os, state);
}
void printWith(Attribute a, raw_ostream &os, AsmState &state, bool elide) {
  a.print(os, state, elide);
}

} // namespace

PrintedSizeMemo::PrintedSizeMemo(MLIRContext *ctx,
                                 const OpPrintingFlags &flags,
                                 const OpPrintingFlags &moduleFlags)
    : state(std::make_unique<AsmState>(ctx, flags)), moduleFlags(moduleFlags),
      asmInterfaces(std::make_unique<
                    DialectInterfaceCollection<OpAsmDialectInterface>>(ctx)) {}
PrintedSizeMemo::~PrintedSizeMemo() = default;

void PrintedSizeMemo::clearUsedAliases() {
  usedAliases.clear();
  usedAliasCounts.clear();
  usedIndex.clear();
}

void PrintedSizeMemo::noteUse(const void *key) {
  auto it = aliasesOf.find(key);
  if (it == aliasesOf.end())
    return;
  // (A symbol that occurs twice in the value is listed twice.)
  for (const void *symbol : it->second) {
    auto [at, fresh] = usedIndex.try_emplace(symbol, usedAliases.size());
    if (fresh) {
      usedAliases.push_back(symbol);
      usedAliasCounts.push_back(0);
    }
    if (countUses)
      ++usedAliasCounts[at->second];
  }
}

bool q2::profiling::detail::aliasSuffixLengths(
    llvm::ArrayRef<llvm::StringRef> names,
    llvm::SmallVectorImpl<unsigned> &lengths) {
  lengths.assign(names.size(), 0);
  llvm::StringSet<> bases;
  for (llvm::StringRef n : names)
    bases.insert(n.drop_front());
  if (bases.size() == names.size())
    return true; // no name repeats: each as it is alone
  // AliasInitializer::initializeAliases: a stable sort by (depth,) kind,
  // types ('!') first, then name; then each name made unique with the
  // lowest free number counted per name.
  llvm::SmallVector<unsigned, 16> order(names.size());
  for (unsigned i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    bool ta = names[a].front() == '!', tb = names[b].front() == '!';
    if (ta != tb)
      return ta;
    return names[a].drop_front() < names[b].drop_front();
  });
  llvm::StringSet<> used;
  llvm::StringMap<unsigned> counts;
  for (unsigned i : order) {
    llvm::StringRef base = names[i].drop_front();
    if (used.insert(base).second)
      continue;
    if (base.empty() || llvm::isDigit(base.back()))
      return false; // numbered `name_1` by some versions, `name1` by others
    unsigned &next = counts[base];
    if (next == 0)
      next = 1;
    std::string numbered = (base + llvm::Twine(next++)).str();
    // Where another alias has the numbered name, MLIR versions differ.
    if (bases.contains(numbered) || !used.insert(numbered).second)
      return false;
    lengths[i] = unsigned(numbered.size() - base.size());
  }
  return true;
}

/// The values with an alias of their own in `x` (x itself, or in its
/// sub-elements); false where the module printer's text would not be
/// replicated: an aliased value inside an aliased value (definitions print
/// nested aliases), or something aliased without an alias of its own (a
/// dialect resource printed at the end of the file).
template <typename T>
bool PrintedSizeMemo::collectAliases(T x,
                                     llvm::SmallVectorImpl<const void *> &out) {
  bool own;
  if constexpr (std::is_same_v<T, Type>)
    own = typeHasAlias && typeHasAlias(x);
  else
    own = attrHasAlias && attrHasAlias(x);
  bool ok = true, nested = false;
  auto visit = [&](auto sub) {
    bool deep;
    if constexpr (std::is_same_v<decltype(sub), Type>)
      deep = typeAliased && typeAliased(sub);
    else
      deep = attrAliased && attrAliased(sub);
    if (!deep || !ok)
      return;
    nested = true;
    ok = !own && collectAliases(sub, out);
  };
  if constexpr (std::is_same_v<T, Type>) {
    if (auto memref = llvm::dyn_cast<MemRefType>(x)) {
      // (An identity layout is not printed.)
      visit(memref.getElementType());
      if (memref.getMemorySpace())
        visit(memref.getMemorySpace());
      if (!memref.getLayout().isIdentity())
        visit(Attribute(memref.getLayout()));
    } else {
      x.walkImmediateSubElements([&](Attribute a) { visit(a); },
                                 [&](Type t) { visit(t); });
    }
  } else {
    x.walkImmediateSubElements([&](Attribute a) { visit(a); },
                               [&](Type t) { visit(t); });
  }
  if (!ok || (!own && !nested))
    return false;
  if (own) {
    out.push_back(x.getAsOpaquePointer());
    defineAlias(x);
  }
  return true;
}

template <typename T> void PrintedSizeMemo::defineAlias(T symbol) {
  auto [it, inserted] = aliasDefs.try_emplace(symbol.getAsOpaquePointer());
  if (!inserted)
    return;
  AliasDef def;
  withAliasesOf(symbol, moduleFlags, [&](AsmState &aliasState) {
    llvm::raw_string_ostream os(def.name);
    printWith(symbol, os, aliasState, false);
  });
  // `#name = <text without aliases>` and a newline.
  Size text = measureText([&](raw_ostream &os) {
    printWith(symbol, os, *state, false);
  });
  def.bytes = uint32_t(def.name.size() + 3 + text.bytes + 1);
  def.newlines = text.newlines + 1;
  aliasDefs[symbol.getAsOpaquePointer()] = std::move(def);
}

template <typename T> void PrintedSizeMemo::aliasForm(T x, Size &size) {
  llvm::SmallVector<const void *, 1> symbols;
  if (!collectAliases(x, symbols))
    return;
  CountStream os;
  withAliasesOf(x, moduleFlags, [&](AsmState &aliasState) {
    printWith(x, os, aliasState, false);
  });
  // Several aliases of one name in `x` (`[#map, #map1]`) were numbered by
  // the probe; the delta is kept with every alias named as it is alone, the
  // module numbers them (IRMetricsCache's compose).
  llvm::SmallVector<llvm::StringRef, 4> names;
  llvm::SmallVector<uint32_t, 4> uses;
  llvm::SmallDenseMap<const void *, unsigned, 4> index;
  for (const void *symbol : symbols) {
    auto [at, fresh] = index.try_emplace(symbol, names.size());
    if (fresh) {
      names.push_back(aliasDefs.find(symbol)->second.name);
      uses.push_back(0);
    }
    ++uses[at->second];
  }
  llvm::SmallVector<unsigned, 4> suffix;
  if (!aliasSuffixLengths(names, suffix))
    return; // (aliasKnown stays false: the module is printed whole)
  int64_t numbered = 0;
  for (size_t i = 0; i < names.size(); ++i)
    numbered += int64_t(suffix[i]) * uses[i];
  size.aliasKnown = true;
  size.aliasDeltaBytes =
      int32_t(int64_t(os.bytes()) - size.bytes - numbered);
  size.aliasDeltaNewlines = int32_t(int64_t(os.newlines()) - size.newlines);
  aliasesOf[x.getAsOpaquePointer()] = std::move(symbols);
}

PrintedSizeMemo::Size PrintedSizeMemo::of(Type t) {
  auto [it, inserted] = types.try_emplace(t.getAsOpaquePointer());
  if (inserted) {
    Size size =
        measureText([&](raw_ostream &os) { t.print(os, *state); });
    size.aliased = typeAliased && typeAliased(t);
    if (size.aliased)
      aliasForm(t, size);
    it = types.find(t.getAsOpaquePointer()); // (the map may have grown)
    it->second = size;
  }
  if (it->second.aliased)
    noteUse(t.getAsOpaquePointer());
  return it->second;
}

/// `dense<"0x...">`, the form MLIR prints a large dense attribute in
/// (AsmPrinter::Impl::printDenseIntOrFPElementsAttr): counted from the size
/// of its data instead of formatting megabytes of hex.
static std::optional<PrintedSizeMemo::Size>
hexDenseSize(Attribute a, const OpPrintingFlags &flags) {
  auto dense = llvm::dyn_cast<DenseIntOrFPElementsAttr>(a);
  if (!dense || dense.isSplat() ||
      llvm::endianness::native != llvm::endianness::little ||
      flags.shouldElideElementsAttr(dense) ||
      !flags.shouldPrintElementsAttrWithHex(dense))
    return std::nullopt;
  // dense<  "0x  hex  "  >
  uint64_t bytes = 6 + 3 + 2 * uint64_t(dense.getRawData().size()) + 1 + 1;
  return PrintedSizeMemo::Size{uint32_t(bytes), 0, false};
}

/// A long string attribute (`"..."` with llvm::printEscapedString's
/// escapes), counted from its bytes.
static std::optional<PrintedSizeMemo::Size> stringSize(Attribute a) {
  auto str = llvm::dyn_cast<StringAttr>(a);
  if (!str || str.size() < 256 || !llvm::isa<NoneType>(str.getType()))
    return std::nullopt;
  uint64_t bytes = 2;
  for (unsigned char c : str.getValue())
    bytes += c == '\\' ? 2 : (llvm::isPrint(c) && c != '"') ? 1 : 3;
  return PrintedSizeMemo::Size{uint32_t(bytes), 0, false};
}

PrintedSizeMemo::Size PrintedSizeMemo::of(Attribute a, bool elideType) {
  auto &map = elideType ? attrsNoType : attrs;
  auto [it, inserted] = map.try_emplace(a.getAsOpaquePointer());
  if (inserted) {
    std::optional<Size> hex = hexDenseSize(a, moduleFlags);
    if (!hex)
      hex = stringSize(a);
    if (hex && !elideType && llvm::isa<DenseIntOrFPElementsAttr>(a)) {
      Size type = of(llvm::cast<TypedAttr>(a).getType());
      hex->bytes += 3 + type.bytes; // " : tensor<...>"
      hex->newlines += type.newlines;
    }
    Size size = hex ? *hex : measureText([&](raw_ostream &os) {
      a.print(os, *state, elideType);
    });
    size.aliased = attrAliased && attrAliased(a);
    if (size.aliased && !elideType)
      aliasForm(a, size);
    it = map.find(a.getAsOpaquePointer());
    it->second = size;
  }
  if (it->second.aliased)
    noteUse(a.getAsOpaquePointer());
  return it->second;
}

bool q2::profiling::detail::sizePrinterSupports(const OpPrintingFlags &f) {
  return !f.shouldPrintDebugInfo() && !f.shouldPrintGenericOpForm() &&
         !f.shouldSkipRegions() && !f.shouldPrintValueUsers() &&
         !f.shouldPrintUniqueSSAIDs() && !f.shouldUseNameLocAsPrefix();
}

bool q2::profiling::detail::countPrintedSize(Operation *op, AsmState &state,
                                             const OpPrintingFlags &flags,
                                             PrintedSizeMemo &memo,
                                             PrintedSize &out) {
  if (!sizePrinterSupports(flags))
    return false;
  // Verification (which may switch to the generic form) is not replicated.
  if (!flags.shouldAssumeVerified())
    return false;
  CountStream os;
  memo.valueNames.clear(); // of another state
  memo.clearUsedAliases();
  SizeOpPrinter printer(os, state, memo, memo.interfaces());
  printer.printFullOpWithIndent(op);
  if (printer.unsupported)
    return false;
  out.bytes = os.bytes();
  out.newlines = os.newlines();
  out.aliased = os.aliased;
  out.aliasKnown = os.aliasKnown;
  out.aliasDeltaBytes = os.aliasDeltaBytes;
  out.aliasDeltaNewlines = os.aliasDeltaNewlines;
  out.aliases.assign(memo.usedAliases.begin(), memo.usedAliases.end());
  out.aliasUses.assign(memo.usedAliasCounts.begin(),
                       memo.usedAliasCounts.end());
  return true;
}
