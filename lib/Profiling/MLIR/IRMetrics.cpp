//===- IRMetrics.cpp - Size of IR in bytes, lines and operations ----------===//

#include "q2/Profiling/MLIR/IRMetrics.h"

#include "q2/Support/FileIO.h"
#include "q2/Support/FloatFormat.h"

#include "SizePrinter.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectInterface.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/xxhash.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instruction.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <vector>

using namespace q2::profiling;

CountingOStream::CountingOStream(llvm::raw_ostream *forward)
    : forward(forward) {
  // A large buffer batches the printer's many tiny writes into few
  // write_impl calls.
  SetBufferSize(1 << 16);
}

CountingOStream::~CountingOStream() { flush(); }

void CountingOStream::write_impl(const char *ptr, size_t size) {
  if (forward)
    forward->write(ptr, size);
  nBytes += size;
  nLines += uint64_t(std::count(ptr, ptr + size, '\n'));
}

uint64_t CountingOStream::bytes() {
  flush();
  return nBytes;
}

uint64_t CountingOStream::lines() {
  flush();
  return nLines;
}

IRMetrics q2::profiling::measureIR(mlir::Operation *op,
                                   const IRMetricsOptions &options) {
  IRMetrics m;
  m.kind = "mlir";
  if (options.print) {
    CountingOStream os(options.alsoWriteTo);
    op->print(os, options.flags);
    if (options.trailingNewline)
      os << '\n';
    m.bytes = os.bytes();
    m.lines = os.lines();
  }
  if (options.countOps) {
    // Histogram keyed by interned dialect name first, strings at the end.
    llvm::StringMap<uint64_t> perDialect;
    op->walk([&](mlir::Operation *nested) {
      ++m.ops;
      ++perDialect[nested->getName().getDialectNamespace()];
    });
    for (const auto &entry : perDialect)
      m.histogram[entry.getKey().empty() ? std::string("(unregistered)")
                                         : entry.getKey().str()] =
          entry.getValue();
  }
  return m;
}

static void countText(IRMetrics &m, llvm::StringRef text) {
  m.bytes = text.size();
  m.lines = uint64_t(std::count(text.begin(), text.end(), '\n'));
}

IRMetrics q2::profiling::measureIRFromText(mlir::Operation *op,
                                           llvm::StringRef printed,
                                   const IRMetricsOptions &options) {
  IRMetricsOptions opsOnly = options;
  opsOnly.print = false;
  IRMetrics m = measureIR(op, opsOnly);
  countText(m, printed);
  return m;
}

namespace {

unsigned decimalLength(int64_t v) {
  uint64_t u = v < 0 ? 0 - uint64_t(v) : uint64_t(v);
  unsigned n = v < 0 ? 2 : 1;
  while (u >= 10) {
    u /= 10;
    ++n;
  }
  return n;
}

/// Bytes of LLVM's text of an array initializer (AsmWriter: `c"..."` for
/// i8 arrays with `\\` and `\XX` escapes, else `[i32 1, i32 -2]`), counted
/// from the data; 0 for element types not replicated here.
uint64_t arrayInitializerSize(const llvm::ConstantDataArray *a) {
  if (a->isString()) {
    uint64_t n = 3; // c""
    for (unsigned char c : a->getRawDataValues())
      n += c == '\\' ? 2 : (llvm::isPrint(c) && c != '"') ? 1 : 3;
    return n;
  }
  if (a->getElementType()->isDoubleTy()) {
    // WriteAPFloatInternal: the 6-digit form if it reads back as the value
    // (`double 1.500000e+00`), else the bits in hex (`double 0x3FF8...`).
    uint64_t n = 2 + 2 * (a->getNumElements() - 1) + 7 * a->getNumElements();
    llvm::SmallString<32> text;
    for (uint64_t i = 0, e = a->getNumElements(); i < e; ++i) {
      double v = a->getElementAsDouble(i);
      text.clear();
      if (!std::isnan(v) && q2::formatFloatSixDigits(v, text)) {
        n += text.size();
      } else {
        uint64_t bits = llvm::bit_cast<uint64_t>(v);
        n += 2 + (bits ? (64 - llvm::countl_zero(bits) + 3) / 4 : 1);
      }
    }
    return n;
  }
  auto *type = llvm::dyn_cast<llvm::IntegerType>(a->getElementType());
  if (!type || type->getBitWidth() < 2 || type->getBitWidth() > 64)
    return 0; // i1 prints true/false
  unsigned width = type->getBitWidth();
  uint64_t typeText = 1 + decimalLength(width); // "i32"
  uint64_t count = a->getNumElements();
  uint64_t n = 2 + 2 * (count - 1) + count * (typeText + 1);
  for (uint64_t i = 0; i < count; ++i)
    n += decimalLength(llvm::SignExtend64(a->getElementAsInteger(i), width));
  return n;
}

} // namespace

IRMetrics q2::profiling::measureIR(const llvm::Module &module, bool countOps,
                                   llvm::raw_ostream *alsoWriteTo) {
  IRMetrics m;
  m.kind = "llvm-ir";
  {
    // Large constant arrays (a gate table, the metadata's JSON) are most of
    // the text and slow to print (a constant per element): when only
    // counting, each is set aside for the print (zeroinitializer in its
    // place) and its text counted from the data. Constant data keeps no use
    // list: setting it aside and back leaves the module as it was.
    llvm::Module &mod = const_cast<llvm::Module &>(module);
    llvm::SmallVector<std::pair<llvm::GlobalVariable *, llvm::Constant *>>
        setAside;
    int64_t adjust = 0;
    constexpr llvm::StringLiteral kZero = "zeroinitializer";
    if (!alsoWriteTo)
      for (llvm::GlobalVariable &g : mod.globals()) {
        auto *a = g.hasInitializer() ? llvm::dyn_cast<llvm::ConstantDataArray>(
                                           g.getInitializer())
                                     : nullptr;
        if (!a || a->getNumElements() < 256 || a->hasUseList())
          continue;
        uint64_t size = arrayInitializerSize(a);
        if (!size)
          continue;
        adjust += int64_t(size) - int64_t(kZero.size());
        setAside.push_back({&g, a});
        g.setInitializer(llvm::ConstantAggregateZero::get(a->getType()));
      }
    CountingOStream os(alsoWriteTo);
    module.print(os, nullptr);
    m.bytes = uint64_t(int64_t(os.bytes()) + adjust);
    m.lines = os.lines();
    for (auto &[g, init] : llvm::reverse(setAside))
      g->setInitializer(init);
  }
  if (countOps) {
    std::map<unsigned, uint64_t> perOpcode;
    for (const llvm::Function &f : module)
      for (const llvm::BasicBlock &bb : f)
        for (const llvm::Instruction &inst : bb) {
          ++m.ops;
          ++perOpcode[inst.getOpcode()];
        }
    for (const auto &[opcode, n] : perOpcode)
      m.histogram[llvm::Instruction::getOpcodeName(opcode)] = n;
  }
  return m;
}

IRMetrics q2::profiling::measureBuffer(llvm::StringRef data,
                                       llvm::StringRef kind) {
  IRMetrics m;
  m.kind = kind.str();
  countText(m, data);
  return m;
}

llvm::Expected<IRMetrics> q2::profiling::measureFile(llvm::StringRef path,
                                                     llvm::StringRef kind) {
  auto buf = q2::readInputFile(path);
  if (!buf)
    return buf.takeError();
  return measureBuffer((*buf)->getBuffer(), kind);
}

//===----------------------------------------------------------------------===//
// IRMetricsCache
//===----------------------------------------------------------------------===//

namespace {

using Hash = llvm::XXH128_hash_t;

/// Ops per dialect namespace of one top-level op (a handful of dialects).
using Histogram = llvm::SmallVector<std::pair<llvm::StringRef, uint64_t>, 4>;

void addTo(Histogram &h, llvm::StringRef dialect, int64_t n) {
  for (auto &[d, count] : h)
    if (d == dialect) {
      count += n;
      return;
    }
  h.push_back({dialect, uint64_t(n)});
}

llvm::StringRef dialectOf(mlir::Operation *op) {
  return op->getName().getDialectNamespace();
}

void addHistogram(std::map<std::string, uint64_t> &out, const Histogram &h) {
  for (const auto &[d, n] : h)
    if (n)
      out[d.empty() ? std::string("(unregistered)") : d.str()] += n;
}

/// Everything about an op (and what it contains) that its printed form
/// depends on, as words to hash: mlir::OperationFingerPrint's fields (op,
/// attributes, properties, location, operands, successors, result types,
/// blocks, block arguments) plus the op's name and block (an op erased and
/// another created at the same address, an op moved between blocks of one
/// region) and block argument types and locations (set in place by type
/// conversions). Operand types are the types of values defined in the op:
/// hashed where those are defined.
class Hasher {
public:
  /// Also counts the ops of the tree by dialect into `ops`/`histogram`
  /// (the same walk; runs of ops of one dialect are the common case).
  Hash ofTree(mlir::Operation *top, uint64_t &ops, Histogram &histogram) {
    words.clear();
    ops = 0;
    histogram.clear();
    llvm::StringRef lastDialect;
    const void *lastName = nullptr;
    llvm::StringRef nameDialect;
    uint64_t run = 0;
    walkPreOrder(top, [&](mlir::Operation *op) {
      addOp(op);
      ++ops;
      // Runs of one op name are common: its dialect is not looked up again.
      const void *name = op->getName().getAsOpaquePointer();
      if (name != lastName) {
        lastName = name;
        nameDialect = dialectOf(op);
      }
      llvm::StringRef d = nameDialect;
      if (run && d.data() == lastDialect.data() &&
          d.size() == lastDialect.size()) {
        ++run;
      } else {
        if (run)
          addTo(histogram, lastDialect, run);
        lastDialect = d;
        run = 1;
      }
    });
    if (run)
      addTo(histogram, lastDialect, run);
    return get();
  }
  /// The op alone (a module: its header line).
  Hash ofOwn(mlir::Operation *op) {
    words.clear();
    add(op);
    add(op->getName().getAsOpaquePointer());
    add(op->getRawDictionaryAttrs().getAsOpaquePointer());
    words.push_back(op->hashProperties());
    add(op->getLoc().getAsOpaquePointer());
    return get();
  }

private:
  /// Operation::walk<PreOrder>'s order, with the callback inlined.
  template <typename Fn> static void walkPreOrder(mlir::Operation *op, Fn &&fn) {
    fn(op);
    if (!op->getNumRegions())
      return;
    for (mlir::Region &r : op->getRegions())
      for (mlir::Block &b : r)
        for (mlir::Operation &nested : b)
          walkPreOrder(&nested, fn);
  }
  void add(const void *p) { words.push_back(uint64_t(uintptr_t(p))); }
  void addOp(mlir::Operation *op) {
    // The fixed part is written through a pointer into space reserved at
    // once (this walk is most of what an unchanged op costs).
    unsigned nOperands = op->getNumOperands();
    unsigned nSucc = op->getNumSuccessors();
    unsigned nResults = op->getNumResults();
    size_t base = words.size();
    words.resize_for_overwrite(base + 10 + nOperands + nSucc + nResults);
    uint64_t *w = words.data() + base;
    auto word = [](const void *p) { return uint64_t(uintptr_t(p)); };
    *w++ = word(op);
    *w++ = word(op->getName().getAsOpaquePointer());
    *w++ = word(op->getBlock());
    *w++ = word(op->getRawDictionaryAttrs().getAsOpaquePointer());
    // (The counts and guards keep the common empty cases off the
    // out-of-line range constructors.)
    *w++ = op->getPropertiesStorageSize() ? uint64_t(op->hashProperties()) : 0;
    *w++ = word(op->getLoc().getAsOpaquePointer());
    *w++ = nOperands;
    if (nOperands)
      for (mlir::OpOperand &o : op->getOpOperands())
        *w++ = word(o.get().getAsOpaquePointer());
    *w++ = nSucc;
    for (unsigned i = 0; i < nSucc; ++i)
      *w++ = word(op->getSuccessor(i));
    *w++ = nResults;
    if (nResults)
      for (mlir::Type t : op->getResultTypes())
        *w++ = word(t.getAsOpaquePointer());
    *w++ = op->getNumRegions();
    if (!op->getNumRegions())
      return;
    for (mlir::Region &r : op->getRegions()) {
      words.push_back(r.getBlocks().size());
      for (mlir::Block &b : r) {
        add(&b);
        words.push_back(b.getNumArguments());
        for (mlir::BlockArgument a : b.getArguments()) {
          add(a.getAsOpaquePointer());
          add(a.getType().getAsOpaquePointer());
          add(a.getLoc().getAsOpaquePointer());
        }
      }
    }
  }
  Hash get() const {
    return llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(words.data()),
        words.size() * sizeof(uint64_t)));
  }
  llvm::SmallVector<uint64_t, 0> words;
};

bool operator!=(const Hash &a, const Hash &b) { return !(a == b); }

} // namespace

struct IRMetricsCache::Impl {
  /// Figures of one op printed on its own, in its local scope.
  struct Entry {
    Hash hash{};
    uint64_t ops = 0;     ///< set with the hash
    Histogram histogram;  ///< set with the hash
    bool aliasKnown = false; ///< aliased is set
    bool printed = false;    ///< bytes, newlines are set
    bool aliased = false; ///< uses an attribute/type the module would alias
    uint64_t bytes = 0;    ///< without a trailing newline
    uint64_t newlines = 0; ///< '\n's in those bytes
    /// When aliased and counted by the size printer: the text in a module
    /// printed with aliases, and the aliases it needs defined.
    bool aliasCounted = false;
    int64_t aliasDeltaBytes = 0, aliasDeltaNewlines = 0;
    llvm::SmallVector<const void *, 2> aliases;
    llvm::SmallVector<uint32_t, 2> aliasUses; ///< per alias, how often
  };

  explicit Impl(const IRMetricsOptions &opts) : opts(opts) {
    const mlir::OpPrintingFlags &f = opts.flags;
    // The printer numbers an isolated op's values in its own scope in either
    // case; these flags make a module print differ from its ops' own prints
    // (location aliases, module-wide SSA ids, verification of the whole
    // module that may switch it all to the generic form, ...).
    composable = f.shouldAssumeVerified() && !f.shouldPrintDebugInfo() &&
                 !f.shouldUseLocalScope() && !f.shouldSkipRegions() &&
                 !f.shouldPrintUniqueSSAIDs() && !f.shouldPrintValueUsers() &&
                 !f.shouldUseNameLocAsPrefix() && !opts.alsoWriteTo;
    localFlags = f;
    localFlags.useLocalScope();
    fastSizes = detail::sizePrinterSupports(f) && f.shouldAssumeVerified() &&
                !opts.alsoWriteTo;
    if (const char *v = std::getenv("Q2_IR_METRICS_VERIFY"))
      verifyFast = llvm::StringRef(v) == "1";
  }

  // --- state of the context the cache last saw -----------------------------
  /// `countDialects`: also whether a dialect was loaded since (which sorts
  /// the context's dialects: asked per module measure, not per pass; a pass
  /// may not load dialects while it runs, the pass manager loads what a
  /// pipeline declares before it starts).
  void checkContext(mlir::Operation *op, bool countDialects = true) {
    mlir::MLIRContext *c = op->getContext();
    if (c == ctx && !countDialects)
      return;
    size_t n = c->getLoadedDialects().size();
    if (c == ctx && n == nDialects)
      return;
    // A dialect loaded since may alias attributes that were not before.
    ctx = c;
    nDialects = n;
    interfaces =
        std::make_unique<mlir::DialectInterfaceCollection<
            mlir::OpAsmDialectInterface>>(c);
    aliasMemo.clear();
    sizeMemo.reset();
    entries.clear();
    order.clear();
    top = nullptr;
    haveLast = false;
  }

  // --- aliases -------------------------------------------------------------
  /// Whether the module printer would print `x` (or something in it) as an
  /// alias defined at module level (`#map = ...`), or as a dialect resource
  /// at the end of the file: then the module's text is not the sum of its
  /// ops' texts. Asks the same interfaces the printer's alias initializer
  /// does; memoized per uniqued attribute/type.
  template <typename T> bool aliased(T x) {
    const void *key = x.getAsOpaquePointer();
    if (auto it = aliasMemo.find(key); it != aliasMemo.end())
      return it->second;
    bool result = hasAlias(x);
    if constexpr (std::is_same_v<T, mlir::Attribute>)
      result = result || llvm::isa<mlir::DenseResourceElementsAttr>(x);
    if (!result)
      result = anySubElementAliased(x);
    aliasMemo[key] = result;
    return result;
  }
  template <typename T> bool anySubElementAliased(T x) {
    if constexpr (std::is_same_v<T, mlir::Type>)
      if (auto memref = llvm::dyn_cast<mlir::MemRefType>(x)) {
        // The printer leaves out an identity layout (an affine map, which
        // would be aliased as #map): not a reason to print whole.
        mlir::MemRefLayoutAttrInterface layout = memref.getLayout();
        return aliased(memref.getElementType()) ||
               (memref.getMemorySpace() &&
                aliased(memref.getMemorySpace())) ||
               (!layout.isIdentity() && aliased(mlir::Attribute(layout)));
      }
    bool result = false;
    x.walkImmediateSubElements(
        [&](mlir::Attribute a) { result = result || aliased(a); },
        [&](mlir::Type t) { result = result || aliased(t); });
    return result;
  }
  template <typename T> bool hasAlias(T x) {
    aliasName.clear();
    llvm::raw_svector_ostream os(aliasName);
    using Interface =
        std::conditional_t<std::is_same_v<T, mlir::Type>,
                           mlir::OpAsmTypeInterface, mlir::OpAsmAttrInterface>;
    if (auto own = llvm::dyn_cast<Interface>(x))
      if (own.getAlias(os) != mlir::OpAsmAliasResult::NoAlias)
        return true;
    for (const mlir::OpAsmDialectInterface &i : *interfaces)
      if (i.getAlias(x, os) != mlir::OpAsmAliasResult::NoAlias)
        return true;
    return false;
  }
  bool opAliased(mlir::Operation *op) {
    if (aliased(mlir::Attribute(op->getRawDictionaryAttrs())))
      return true;
    if (mlir::Attribute props = op->getPropertiesAsAttribute())
      if (aliased(props))
        return true;
    for (mlir::Type t : op->getResultTypes())
      if (aliased(t))
        return true;
    for (mlir::Region &r : op->getRegions())
      for (mlir::Block &b : r)
        for (mlir::BlockArgument a : b.getArguments())
          if (aliased(a.getType()))
            return true;
    return false;
  }

  void ensureSizeMemo() {
    if (sizeMemo)
      return;
    sizeMemo =
        std::make_unique<detail::PrintedSizeMemo>(ctx, localFlags, opts.flags);
    sizeMemo->typeAliased = [this](mlir::Type t) { return aliased(t); };
    sizeMemo->attrAliased = [this](mlir::Attribute a) { return aliased(a); };
    sizeMemo->typeHasAlias = [this](mlir::Type t) { return hasAlias(t); };
    sizeMemo->attrHasAlias = [this](mlir::Attribute a) { return hasAlias(a); };
  }

  // --- one op --------------------------------------------------------------
  /// Whether the module printer would alias something in `op` (for ops not
  /// counted by the size printer, which finds out while counting).
  void checkAliases(mlir::Operation *op, Entry &e) {
    e.aliased = false;
    if (composable)
      op->walk([&](mlir::Operation *nested) {
        if (!e.aliased)
          e.aliased = opAliased(nested);
      });
    e.aliasKnown = true;
  }
  void print(mlir::Operation *op, Entry &e) {
    e.printed = true;
    if (fastSizes && op->getParentOp()) {
      // The module's numbering when measureTop made one (many ops to count):
      // in a composable module (no values at module level) it names an
      // isolated top-level op's values as the op's own numbering does, and
      // one state costs less than one per op. Otherwise a state of the op's
      // own: Operation::print(os, flags) would number the values of the
      // whole module for an op that is not isolated from above.
      std::optional<mlir::AsmState> own;
      mlir::AsmState *numbering = sharedState;
      if (!numbering || op->getParentOp() != sharedTop) {
        own.emplace(op, localFlags);
        numbering = &*own;
      }
      mlir::AsmState &state = *numbering;
      ensureSizeMemo();
      detail::PrintedSize size;
      if (detail::countPrintedSize(op, state, localFlags, *sizeMemo, size)) {
        ++stats.sizeCounts;
        uint64_t bytes = size.bytes, newlines = size.newlines;
        e.bytes = bytes;
        e.newlines = newlines;
        if (!e.aliasKnown) {
          e.aliased = composable && size.aliased;
          e.aliasKnown = true;
        }
        if (size.aliased && size.aliasKnown) {
          e.aliasDeltaBytes = size.aliasDeltaBytes;
          e.aliasDeltaNewlines = size.aliasDeltaNewlines;
          e.aliases.assign(size.aliases.begin(), size.aliases.end());
          e.aliasUses.assign(size.aliasUses.begin(), size.aliasUses.end());
          e.aliasCounted = true;
        }
        if (!verifyFast)
          return;
        CountingOStream os;
        mlir::AsmState local(op, localFlags);
        op->print(os, local);
        if (os.bytes() != bytes || os.lines() != newlines) {
          ++stats.sizeMismatches;
          llvm::errs() << "q2 IR metrics: size count of '"
                       << op->getName().getStringRef() << "' is " << bytes
                       << " bytes, " << newlines << " newlines; MLIR prints "
                       << os.bytes() << " bytes, " << os.lines()
                       << " newlines\n";
          e.bytes = os.bytes();
          e.newlines = os.lines();
        }
        return;
      }
    }
    mlir::AsmState state(op, localFlags);
    CountingOStream os;
    op->print(os, state);
    e.bytes = os.bytes();
    e.newlines = os.lines();
    ++stats.opPrints;
  }
  /// The entry of `op` with its hash (and op counts) checked; `needPrint`:
  /// bytes too; `needAlias`: whether it uses module-level aliases.
  Entry &refresh(mlir::Operation *op, bool needAlias, bool needPrint) {
    uint64_t ops = 0;
    Histogram histogram;
    Hash h = hasher.ofTree(op, ops, histogram);
    Entry &e = entries[op];
    if (e.hash != h) {
      e = Entry();
      e.hash = h;
      e.ops = ops;
      e.histogram = std::move(histogram);
    }
    return ensure(op, e, needAlias, needPrint);
  }
  /// The same for an entry whose hash was just checked.
  Entry &ensure(mlir::Operation *op, Entry &e, bool needAlias,
                bool needPrint) {
    if (needAlias && !e.aliasKnown) {
      // Counting finds aliases on the way; an op it cannot count is walked.
      if (fastSizes && !e.printed)
        print(op, e);
      if (!e.aliasKnown)
        checkAliases(op, e);
    }
    if (needPrint && !e.printed)
      print(op, e);
    return e;
  }

  // --- a module ------------------------------------------------------------
  static bool composableOp(mlir::Operation *op) {
    // Values defined or used at module level would be numbered in the
    // module's scope; an op with regions not isolated from above would
    // continue the module's numbering inside them.
    return op->getNumResults() == 0 && op->getNumOperands() == 0 &&
           (op->getNumRegions() == 0 ||
            op->hasTrait<mlir::OpTrait::IsIsolatedFromAbove>());
  }
  static mlir::Block *bodyOf(mlir::Operation *top) {
    if (top->getNumRegions() != 1 || top->getNumResults() ||
        top->getNumOperands())
      return nullptr;
    mlir::Region &r = top->getRegion(0);
    if (!r.hasOneBlock() || r.front().getNumArguments())
      return nullptr;
    return &r.front();
  }

  /// The module's header and footer: the module printed with an empty body.
  void frameOf(mlir::Operation *top, Hash own) {
    if (haveFrame && frameHash == own && frameTop == top)
      return;
    mlir::Operation *empty = top->cloneWithoutRegions();
    empty->getRegion(0).push_back(new mlir::Block);
    frameAliased = aliased(mlir::Attribute(top->getRawDictionaryAttrs())) ||
                   [&] {
                     mlir::Attribute p = top->getPropertiesAsAttribute();
                     return p && aliased(p);
                   }();
    // Counted when possible: the module's attributes (a program's metadata
    // can be megabytes) are then measured once per process, not per stage.
    detail::PrintedSize size;
    bool counted = false;
    if (fastSizes && !frameAliased) {
      ensureSizeMemo();
      mlir::AsmState state(empty, localFlags);
      counted = detail::countPrintedSize(empty, state, localFlags, *sizeMemo,
                                         size) &&
                !size.aliased;
    }
    if (counted) {
      // The top level ends the op with a newline; mlir-opt adds another.
      unsigned tail = 1 + (opts.trailingNewline ? 1 : 0);
      frameBytes = size.bytes + tail;
      frameLines = size.newlines + tail;
    } else {
      IRMetricsOptions o = opts;
      o.countOps = false;
      IRMetrics m = measureIR(empty, o);
      frameBytes = m.bytes;
      frameLines = m.lines;
    }
    empty->destroy();
    frameHash = own;
    frameTop = top;
    haveFrame = true;
  }

  /// Sum of the frame, the entries of `order` (all counted and printed) and
  /// the alias definitions they need, with the aliases numbered as the
  /// module numbers them (`#map`, `#map1`: each use and the definition of a
  /// numbered alias are longer); none where the numbering is not replicated.
  std::optional<IRMetrics> compose(mlir::Operation *top) {
    IRMetrics m;
    m.kind = "mlir";
    m.bytes = frameBytes;
    m.lines = frameLines;
    if (opts.countOps) {
      m.ops = 1;
      m.histogram[dialectOf(top).empty() ? std::string("(unregistered)")
                                         : dialectOf(top).str()] += 1;
    }
    // The module's aliases in first-use order, and how often each is used.
    llvm::DenseMap<const void *, unsigned> index;
    llvm::SmallVector<llvm::StringRef, 16> names;
    llvm::SmallVector<uint64_t, 16> uses;
    for (auto &[op, h] : order) {
      Entry &e = entries.find(op)->second;
      // "\n" + the op, every line indented by 2; with module aliases where
      // it uses them.
      int64_t bytes = int64_t(e.bytes), newlines = int64_t(e.newlines);
      if (e.aliased) {
        if (e.aliasUses.size() != e.aliases.size())
          return std::nullopt;
        bytes += e.aliasDeltaBytes;
        newlines += e.aliasDeltaNewlines;
        for (size_t i = 0; i < e.aliases.size(); ++i) {
          auto [at, fresh] = index.try_emplace(e.aliases[i], names.size());
          if (fresh) {
            const auto &def = sizeMemo->aliasDef(e.aliases[i]);
            names.push_back(def.name);
            uses.push_back(0);
            m.bytes += def.bytes;
            m.lines += def.newlines;
          }
          uses[at->second] += e.aliasUses[i];
        }
      }
      uint64_t lines = uint64_t(newlines) + 1;
      m.bytes += 1 + uint64_t(bytes) + 2 * lines;
      m.lines += lines;
      if (opts.countOps) {
        m.ops += e.ops;
        addHistogram(m.histogram, e.histogram);
      }
    }
    llvm::SmallVector<unsigned, 16> suffix;
    if (!detail::aliasSuffixLengths(names, suffix))
      return std::nullopt;
    for (size_t i = 0; i < names.size(); ++i)
      m.bytes += uint64_t(suffix[i]) * (uses[i] + 1); // uses, definition
    if (!opts.countOps)
      m.histogram.clear();
    return m;
  }

  /// Hashes the top-level ops of `top` (all, or only `only`), then composes
  /// or prints the module whole.
  IRMetrics measureTop(mlir::Operation *top, mlir::Operation *only) {
    checkContext(top);
    mlir::Block *body = bodyOf(top);
    bool fresh = !(only && synced && this->top == top && haveLast);
    bool changed = false;
    Hash own = hasher.ofOwn(top);
    if (this->top != top || !(own == ownHash))
      changed = true;
    if (fresh) {
      std::vector<std::pair<mlir::Operation *, Hash>> now;
      allComposable = body != nullptr;
      if (body)
        for (mlir::Operation &op : *body) {
          allComposable = allComposable && composableOp(&op);
          now.push_back({&op, refresh(&op, false, false).hash});
        }
      else {
        uint64_t ops = 0;
        Histogram histogram;
        now.push_back({top, hasher.ofTree(top, ops, histogram)});
      }
      if (now.size() != order.size() ||
          !std::equal(now.begin(), now.end(), order.begin(),
                      [](const auto &a, const auto &b) {
                        return a.first == b.first && a.second == b.second;
                      }))
        changed = true;
      order = std::move(now);
      // Entries of ops no longer in the module (erased; the address may be
      // reused, which the hash catches, but the memory is not needed).
      if (body && entries.size() > 2 * order.size() + 64) {
        llvm::DenseMap<mlir::Operation *, Entry> keep;
        for (auto &[op, h] : order)
          keep[op] = std::move(entries[op]);
        entries = std::move(keep);
      }
    } else {
      mlir::Operation *t = only;
      while (t->getParentOp() != top)
        t = t->getParentOp();
      Hash h = refresh(t, false, false).hash;
      for (auto &[op, oh] : order)
        if (op == t && oh != h) {
          oh = h;
          changed = true;
        }
    }
    this->top = top;
    ownHash = own;
    synced = true;
    if (haveLast && !changed) {
      ++stats.unchanged;
      return last;
    }
    bool canCompose = composable && body && allComposable;
    std::optional<mlir::AsmState> numbering;
    if (canCompose) {
      frameOf(top, own);
      canCompose = !frameAliased;
      size_t toCount = 0;
      for (auto &[op, h] : order)
        toCount += !entries[op].printed;
      if (canCompose && fastSizes && toCount > 1 &&
          2 * toCount >= order.size()) {
        numbering.emplace(top, localFlags);
        sharedState = &*numbering;
        sharedTop = top;
      }
      // Stop at the first op whose text with module aliases is not known:
      // a whole print anyway.
      for (auto &[op, h] : order) {
        if (!canCompose)
          break;
        Entry &e = ensure(op, entries[op], true, false);
        canCompose = !e.aliased || (e.printed && e.aliasCounted);
      }
    }
    std::optional<IRMetrics> composed;
    if (canCompose) {
      for (auto &[op, h] : order)
        ensure(op, entries[op], true, true);
      composed = compose(top);
    }
    if (composed) {
      last = std::move(*composed);
    } else {
      last = measureIR(top, opts);
      ++stats.fullPrints;
    }
    sharedState = nullptr;
    sharedTop = nullptr;
    haveLast = true;
    return last;
  }

  const IRMetricsOptions &opts;
  bool composable = false;
  mlir::OpPrintingFlags localFlags;
  /// Count top-level ops with the size printer (SizePrinter.h) instead of
  /// printing them; Q2_IR_METRICS_VERIFY=1 prints them too and compares.
  bool fastSizes = false;
  bool verifyFast = false;
  std::unique_ptr<detail::PrintedSizeMemo> sizeMemo;
  /// Set by measureTop while it counts the ops of the composable `sharedTop`.
  mlir::AsmState *sharedState = nullptr;
  mlir::Operation *sharedTop = nullptr;
  Hasher hasher;
  llvm::DenseMap<mlir::Operation *, Entry> entries;

  mlir::MLIRContext *ctx = nullptr;
  size_t nDialects = 0;
  std::unique_ptr<mlir::DialectInterfaceCollection<mlir::OpAsmDialectInterface>>
      interfaces;
  llvm::DenseMap<const void *, bool> aliasMemo;
  llvm::SmallString<32> aliasName;

  // The module last measured: its top-level ops in order with their hashes.
  mlir::Operation *top = nullptr;
  Hash ownHash{};
  std::vector<std::pair<mlir::Operation *, Hash>> order;
  bool allComposable = false;
  bool synced = false;
  bool haveLast = false;
  IRMetrics last;

  bool haveFrame = false;
  mlir::Operation *frameTop = nullptr;
  Hash frameHash{};
  uint64_t frameBytes = 0, frameLines = 0;
  bool frameAliased = false;

  Stats stats;
};

IRMetricsCache::IRMetricsCache(IRMetricsOptions options)
    : opts(std::move(options)), impl(std::make_unique<Impl>(opts)) {}
IRMetricsCache::~IRMetricsCache() = default;

IRMetrics IRMetricsCache::measure(mlir::Operation *op) {
  if (op->getParentOp()) // printed with the numbering of the whole module
    return measureIR(op, opts);
  return impl->measureTop(op, nullptr);
}

IRMetrics IRMetricsCache::measureAfterPassOn(mlir::Operation *top,
                                             mlir::Operation *changed) {
  if (top->getParentOp() || !top->isProperAncestor(changed))
    return measure(top);
  return impl->measureTop(top, changed);
}

void IRMetricsCache::invalidateNested() { impl->synced = false; }

IRMetrics IRMetricsCache::measureLocal(mlir::Operation *op) {
  // An op not isolated from above prints in the scope of its closest
  // isolated ancestor: not cached.
  if (!op->getParentOp() || opts.alsoWriteTo ||
      !op->hasTrait<mlir::OpTrait::IsIsolatedFromAbove>()) {
    IRMetricsOptions local = opts;
    local.flags.useLocalScope();
    return measureIR(op, local);
  }
  impl->checkContext(op, /*countDialects=*/false);
  Impl::Entry &e = impl->refresh(op, false, opts.print);
  IRMetrics m;
  m.kind = "mlir";
  if (opts.print) {
    m.bytes = e.bytes + (opts.trailingNewline ? 1 : 0);
    m.lines = e.newlines + (opts.trailingNewline ? 1 : 0);
  }
  if (opts.countOps) {
    m.ops = e.ops;
    addHistogram(m.histogram, e.histogram);
  }
  return m;
}

std::optional<IRMetrics> IRMetricsCache::lastOf(mlir::Operation *op) const {
  if (impl->top != op || !impl->haveLast)
    return std::nullopt;
  return impl->last;
}

const IRMetricsCache::Stats &IRMetricsCache::stats() const {
  return impl->stats;
}
