//===- IRMetricsTest.cpp - Counting stream and IR metrics -----------------===//

#include "q2/Profiling/MLIR/IRMetrics.h"
#include "TestUtil.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/ADT/bit.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <random>

using namespace q2::profiling;

namespace {

const char *kMetricsModule = R"mlir(
func.func @f(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  %1 = arith.muli %0, %b : i32
  %2 = arith.subi %1, %a : i32
  return %2 : i32
}
func.func @g() {
  return
}
)mlir";

uint64_t newlines(llvm::StringRef s) {
  return uint64_t(std::count(s.begin(), s.end(), '\n'));
}

mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &ctx,
                                        llvm::StringRef text) {
  ctx.loadDialect<mlir::func::FuncDialect, mlir::arith::ArithDialect>();
  return mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
}

std::string print(mlir::Operation *op, mlir::OpPrintingFlags flags = {}) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os, flags);
  os << '\n';
  return s;
}

TEST(ProfCountingOStream, CountsLikeAString) {
  CountingOStream os;
  std::string ref;
  llvm::raw_string_ostream rs(ref);
  for (int i = 0; i < 20000; ++i) { // > the 64 KiB internal buffer
    os << "line " << i << (i % 3 ? "\n" : " ");
    rs << "line " << i << (i % 3 ? "\n" : " ");
  }
  os.write("\n\n", 2);
  rs.write("\n\n", 2);
  EXPECT_EQ(os.bytes(), ref.size());
  EXPECT_EQ(os.lines(), newlines(ref));
  EXPECT_EQ(os.tell(), ref.size());
}

TEST(ProfIRMetrics, MLIRMatchesPrintedString) {
  mlir::MLIRContext ctx;
  auto mod = parse(ctx, kMetricsModule);
  ASSERT_TRUE(mod);
  IRMetrics m = measureIR(mod.get());
  std::string text = print(mod.get());
  EXPECT_EQ(m.kind, "mlir");
  EXPECT_EQ(m.bytes, text.size());
  EXPECT_EQ(m.lines, newlines(text));
  // module + 2 func + 3 arith + 2 return, counted by hand from kMetricsModule.
  EXPECT_EQ(m.ops, 8u);
  std::map<std::string, uint64_t> expected = {
      {"builtin", 1}, {"func", 4}, {"arith", 3}};
  EXPECT_EQ(m.histogram, expected);

  // Without the trailing newline it is exactly op->print().
  IRMetricsOptions noNL;
  noNL.trailingNewline = false;
  IRMetrics m2 = measureIR(mod.get(), noNL);
  EXPECT_EQ(m2.bytes + 1, text.size());
  EXPECT_EQ(m2.lines + 1, newlines(text));

  // Counting while writing elsewhere: the same text arrives there.
  std::string copy;
  {
    llvm::raw_string_ostream cos(copy);
    IRMetricsOptions tee;
    tee.alsoWriteTo = &cos;
    IRMetrics mt = measureIR(mod.get(), tee);
    EXPECT_EQ(mt.bytes, m.bytes);
  }
  EXPECT_EQ(copy, text);

  // From text the caller printed: sizes of that text, ops of the module.
  std::string other = "one\ntwo\n";
  IRMetrics m3 = measureIRFromText(mod.get(), other);
  EXPECT_EQ(m3.kind, "mlir");
  EXPECT_EQ(m3.bytes, other.size());
  EXPECT_EQ(m3.lines, 2u);
  EXPECT_EQ(m3.ops, m.ops);
  EXPECT_EQ(m3.histogram, m.histogram);
}

TEST(ProfIRMetrics, FlagsAreHonoured) {
  mlir::MLIRContext ctx;
  auto mod = parse(ctx, kMetricsModule);
  ASSERT_TRUE(mod);
  mlir::OpPrintingFlags flags;
  flags.printGenericOpForm().enableDebugInfo();
  IRMetricsOptions o;
  o.flags = flags;
  std::string text = print(mod.get(), flags);
  IRMetrics m = measureIR(mod.get(), o);
  EXPECT_EQ(m.bytes, text.size());
  EXPECT_EQ(m.lines, newlines(text));
  EXPECT_GT(m.bytes, measureIR(mod.get()).bytes); // generic + locs is longer
  IRMetricsOptions noPrint;
  noPrint.print = false;
  IRMetrics ops = measureIR(mod.get(), noPrint);
  EXPECT_EQ(ops.bytes, 0u);
  EXPECT_EQ(ops.ops, 8u);
}

// Equal to the size and `wc -l` of the file the same print writes, also for
// a module far larger than the stream buffer.
TEST(ProfIRMetrics, MatchesFileWrittenWithSamePrint) {
  std::string big;
  for (int i = 0; i < 3000; ++i)
    big += "func.func @f" + std::to_string(i) +
           "(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n"
           "  return %0 : i32\n}\n";
  mlir::MLIRContext ctx;
  auto mod = parse(ctx, big);
  ASSERT_TRUE(mod);
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("q2-irm", "mlir", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    mod->print(os);
    os << '\n';
  }
  IRMetrics m = measureIR(mod.get());
  auto fileM = measureFile(path, "mlir-file");
  ASSERT_TRUE(bool(fileM)) << llvm::toString(fileM.takeError());
  EXPECT_GT(m.bytes, 1u << 16);
  EXPECT_EQ(m.bytes, fileM->bytes);
  EXPECT_EQ(m.lines, fileM->lines);
  EXPECT_EQ(m.ops, 1u + 3000u * 3u);
  llvm::sys::fs::remove(path);
}

TEST(ProfIRMetrics, LLVMModuleMatchesPrintedString) {
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic diag;
  auto mod = llvm::parseAssemblyString(R"ll(
define i32 @f(i32 %a) {
  %b = add i32 %a, 1
  %c = mul i32 %b, %b
  ret i32 %c
}
define void @g() {
  ret void
}
)ll",
                                       diag, ctx);
  ASSERT_TRUE(mod) << diag.getMessage().str();
  std::string text;
  llvm::raw_string_ostream os(text);
  mod->print(os, nullptr);
  os.flush();
  IRMetrics m = measureIR(*mod);
  EXPECT_EQ(m.kind, "llvm-ir");
  EXPECT_EQ(m.bytes, text.size());
  EXPECT_EQ(m.lines, newlines(text));
  EXPECT_EQ(m.ops, 4u);
  std::map<std::string, uint64_t> expected = {
      {"add", 1}, {"mul", 1}, {"ret", 2}};
  EXPECT_EQ(m.histogram, expected);

  // Counting while writing elsewhere: the same text arrives there.
  std::string copy;
  {
    llvm::raw_string_ostream cos(copy);
    IRMetrics tee = measureIR(*mod, true, &cos);
    EXPECT_EQ(tee.bytes, m.bytes);
    EXPECT_EQ(tee.lines, m.lines);
  }
  EXPECT_EQ(copy, text);
}

TEST(ProfIRMetrics, LargeConstantArraysCountedFromTheirData) {
  // Arrays of every integer width LLVM prints as numbers (negative values,
  // the extremes), strings with escapes, an array used twice (printed, not
  // set aside) and i1 (printed as true/false): the count is the print's,
  // and the module is unchanged afterwards.
  llvm::LLVMContext ctx;
  llvm::Module mod("arrays", ctx);
  std::mt19937_64 rng(3);
  auto addGlobal = [&](llvm::Constant *init, llvm::StringRef name) {
    return new llvm::GlobalVariable(mod, init->getType(), true,
                                    llvm::GlobalValue::PrivateLinkage, init,
                                    name);
  };
  llvm::SmallVector<int8_t> i8s;
  llvm::SmallVector<int16_t> i16s;
  llvm::SmallVector<int32_t> i32s;
  llvm::SmallVector<int64_t> i64s;
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    i8s.push_back(int8_t(rng()));
    i16s.push_back(int16_t(rng()));
    i32s.push_back(i % 7 ? int32_t(rng() % 2000) - 1000 : int32_t(rng()));
    i64s.push_back(int64_t(rng()));
    text.push_back(char(i % 5 ? 'a' + i % 26 : rng() % 256));
  }
  llvm::SmallVector<double> doubles;
  for (int i = 0; i < 3000; ++i)
    doubles.push_back(i % 3 == 0   ? double(int(rng() % 2000) - 1000) / 8
                      : i % 3 == 1 ? llvm::bit_cast<double>(rng())
                                   : double(rng() % 100000) * 1e-3);
  doubles[0] = -0.0;
  doubles[1] = std::numeric_limits<double>::infinity();
  doubles[2] = std::numeric_limits<double>::quiet_NaN();
  doubles[3] = std::numeric_limits<double>::denorm_min();
  addGlobal(llvm::ConstantDataArray::get(ctx, llvm::ArrayRef(doubles)),
            "doubles");
  i32s[0] = std::numeric_limits<int32_t>::min();
  i64s[1] = std::numeric_limits<int64_t>::min();
  i64s[2] = std::numeric_limits<int64_t>::max();
  text += "\\\"\n";
  addGlobal(llvm::ConstantDataArray::get(ctx, llvm::ArrayRef(i16s)), "i16s");
  addGlobal(llvm::ConstantDataArray::get(ctx, llvm::ArrayRef(i32s)), "i32s");
  addGlobal(llvm::ConstantDataArray::get(ctx, llvm::ArrayRef(i64s)), "i64s");
  addGlobal(llvm::ConstantDataArray::getString(ctx, text, false), "str");
  auto *shared = llvm::ConstantDataArray::get(
      ctx, llvm::ArrayRef(reinterpret_cast<const uint8_t *>(i8s.data()),
                          i8s.size()));
  addGlobal(shared, "shared1");
  addGlobal(shared, "shared2");
  llvm::SmallVector<llvm::Constant *> bits;
  for (int i = 0; i < 500; ++i)
    bits.push_back(llvm::ConstantInt::getBool(ctx, i % 3));
  addGlobal(llvm::ConstantArray::get(
                llvm::ArrayType::get(llvm::Type::getInt1Ty(ctx), 500), bits),
            "bits");
  std::string before;
  {
    llvm::raw_string_ostream os(before);
    mod.print(os, nullptr);
  }
  IRMetrics m = measureIR(mod);
  EXPECT_EQ(m.bytes, before.size());
  EXPECT_EQ(m.lines, newlines(before));
  std::string after;
  {
    llvm::raw_string_ostream os(after);
    mod.print(os, nullptr);
  }
  EXPECT_EQ(after, before);
  for (llvm::GlobalVariable &g : mod.globals())
    EXPECT_FALSE(llvm::isa<llvm::ConstantAggregateZero>(g.getInitializer()))
        << g.getName().str();
}

TEST(ProfIRMetrics, BufferAndFile) {
  IRMetrics m = measureBuffer(llvm::StringRef("\x7f"
                                              "ELF\n\0\n",
                                              7));
  EXPECT_EQ(m.kind, "object");
  EXPECT_EQ(m.bytes, 7u);
  EXPECT_EQ(m.lines, 2u);
  EXPECT_FALSE(test::asJSON(m).contains("ops"));
  auto missing = measureFile("/nonexistent/q2/file.o");
  ASSERT_FALSE(bool(missing));
  std::string msg = llvm::toString(missing.takeError());
  EXPECT_NE(msg.find("/nonexistent/q2/file.o"), std::string::npos) << msg;
}

} // namespace

//===----------------------------------------------------------------------===//
// IRMetricsCache: figures composed from re-printed ops equal a whole print.
//===----------------------------------------------------------------------===//

const char *kCacheModule = R"mlir(
func.func @f(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  "test.region"() ({
  ^bb0(%x: i32):
    "test.use"(%x) : (i32) -> ()
  }) : () -> ()
  return %0 : i32
}
func.func @g() {
  return
}
)mlir";

IRMetricsOptions verifiedFlags() {
  IRMetricsOptions o;
  o.flags = mlir::OpPrintingFlags().assumeVerified();
  return o;
}

void expectSame(const IRMetrics &a, const IRMetrics &b) {
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.lines, b.lines);
  EXPECT_EQ(a.ops, b.ops);
  EXPECT_EQ(a.histogram, b.histogram);
}

TEST(ProfIRMetricsCache, ComposedEqualsWholePrintAndReprintsOnlyChanges) {
  mlir::MLIRContext ctx;
  ctx.allowUnregisteredDialects();
  auto mod = parse(ctx, kCacheModule);
  ASSERT_TRUE(mod);
  IRMetricsCache cache(verifiedFlags());
  // Ops measured on their own: printed (@f has unregistered ops) or counted
  // by the size printer (@g).
  auto measured = [&] {
    return cache.stats().opPrints + cache.stats().sizeCounts;
  };
  expectSame(cache.measure(*mod), measureIR(*mod, verifiedFlags()));
  EXPECT_EQ(cache.stats().opPrints, 1u);
  EXPECT_EQ(cache.stats().sizeCounts, 1u);
  EXPECT_EQ(cache.stats().fullPrints, 0u);

  // Unchanged: no print at all.
  expectSame(cache.measure(*mod), measureIR(*mod, verifiedFlags()));
  EXPECT_EQ(cache.stats().unchanged, 1u);
  EXPECT_EQ(measured(), 2u);

  // A block argument's type set in place (what type conversions do; not
  // in mlir::OperationFingerPrint): @f is printed again, @g is not.
  auto f = mod->lookupSymbol<mlir::func::FuncOp>("f");
  mlir::Block *inner = nullptr;
  f.walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() == "test.region")
      inner = &op->getRegion(0).front();
  });
  ASSERT_TRUE(inner);
  inner->getArgument(0).setType(mlir::IntegerType::get(&ctx, 64));
  expectSame(cache.measure(*mod), measureIR(*mod, verifiedFlags()));
  EXPECT_EQ(measured(), 3u);

  // After a "pass" on @g: only @g is hashed again; its own figures too.
  auto g = mod->lookupSymbol<mlir::func::FuncOp>("g");
  mlir::OpBuilder b(g.getBody().front().getTerminator());
  mlir::arith::ConstantIntOp::create(b, g.getLoc(), 7, 32);
  expectSame(cache.measureAfterPassOn(*mod, g),
             measureIR(*mod, verifiedFlags()));
  EXPECT_EQ(measured(), 4u);
  IRMetricsOptions local = verifiedFlags();
  local.flags.useLocalScope();
  expectSame(cache.measureLocal(g), measureIR(g, local));
  EXPECT_EQ(measured(), 4u); // known from the module's entry
  EXPECT_EQ(cache.stats().fullPrints, 0u);
}

TEST(ProfIRMetricsCache, LargeDenseAttributesCountedFromTheirData) {
  // Large dense attributes print as hex (`dense<"0x...">`), small ones and
  // splats as numbers; with and without their type.
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::LLVM::LLVMDialect>();
  std::string text = "func.func @f() {\n";
  for (int n : {3, 100, 101, 700}) {
    std::string values, floats;
    for (int i = 0; i < n; ++i) {
      std::string v = std::to_string((i * 7919) % 1000 - 500);
      values += (i ? ", " : "") + v;
      floats += (i ? ", " : "") + v + ".25";
    }
    text += "  %a" + std::to_string(n) + " = arith.constant dense<[" +
            values + "]> : tensor<" + std::to_string(n) + "xi32>\n";
    text += "  %f" + std::to_string(n) + " = arith.constant dense<[" +
            floats + "]> : tensor<" + std::to_string(n) + "xf64>\n";
  }
  text += "  %s = arith.constant dense<7> : tensor<500xi16>\n  return\n}\n";
  text += "llvm.mlir.global private constant @g(dense<[1, 2, 3, 4, 5, 6, 7, "
          "8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, "
          "25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, "
          "41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, "
          "57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, "
          "73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, "
          "89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102]> : "
          "tensor<102xi8>) {addr_space = 0 : i32} : !llvm.array<102 x i8>\n";
  // A long string with quotes, backslashes and control characters.
  std::string str;
  size_t length = 0;
  for (int i = 0; i < 600; ++i) {
    bool escape = i % 50 == 0 || i % 61 == 0 || i % 7 == 0;
    str += i % 50 == 0   ? "\\22"
           : i % 61 == 0 ? "\\5C"
           : i % 7 == 0  ? "\\0A"
                         : "ab";
    length += escape ? 1 : 2;
  }
  text += "llvm.mlir.global private constant @s(\"" + str +
          "\") {addr_space = 0 : i32} : !llvm.array<" +
          std::to_string(length) + " x i8>\n";
  auto mod = parse(ctx, text);
  ASSERT_TRUE(mod);
  ::setenv("Q2_IR_METRICS_VERIFY", "1", 1);
  IRMetricsCache cache(verifiedFlags());
  ::unsetenv("Q2_IR_METRICS_VERIFY");
  expectSame(cache.measure(*mod), measureIR(*mod, verifiedFlags()));
  EXPECT_EQ(cache.stats().sizeMismatches, 0u);
  EXPECT_EQ(cache.stats().fullPrints, 0u);
  EXPECT_EQ(cache.stats().opPrints, 0u);
}

TEST(ProfIRMetricsCache, AliasesComposeOrPrintWhole) {
  mlir::MLIRContext ctx;
  ctx.allowUnregisteredDialects();
  ctx.loadDialect<mlir::memref::MemRefDialect, mlir::LLVM::LLVMDialect>();
  // #map is printed once at module level and referenced in the ops (also
  // inside an array and a type, and as a block argument type that is not
  // printed), #loop_annotation likewise: the module is its ops with the
  // aliases' names plus the definitions.
  // The module's own attributes are counted too (the frame).
  auto mod = parse(ctx, R"mlir(
module attributes {q2.note = "a \"quoted\" note", q2.x = 1.5 : f64,
                   q2.list = [1, 2, -0.25]} {
func.func @f() attributes {m = affine_map<(d0) -> (d0 + 1)>,
                           maps = [affine_map<(d0) -> (d0 + 1)>, 3]} {
  return
}
func.func @g(%a: memref<4xf32, affine_map<(d0) -> (d0 + 1)>>) {
  llvm.br ^bb1 {loop_annotation = #llvm.loop_annotation<disableNonforced = true>}
^bb1:
  return
}
func.func @h() {
  "test.region"() ({
  ^bb0(%x: memref<2xf32, affine_map<(d0) -> (d0 * 2)>>):
    "test.end"() : () -> ()
  }) : () -> ()
  return
}
}
)mlir");
  ASSERT_TRUE(mod);
  IRMetricsCache cache(verifiedFlags());
  // @h's block argument type is visited (#map1 defined) but not printed;
  // the test ops are printed by MLIR, not counted: a whole print.
  expectSame(cache.measure(*mod), measureIR(*mod, verifiedFlags()));
  (*mod->getBody()->getOperations().rbegin()).erase();
  IRMetricsCache c1(verifiedFlags());
  expectSame(c1.measure(*mod), measureIR(*mod, verifiedFlags()));
  EXPECT_EQ(c1.stats().fullPrints, 0u);
  EXPECT_EQ(c1.stats().opPrints, 0u);

  // Maps that share the name "map": the module numbers them #map, #map1,
  // ... #map11 in the order of first use (m0, m1, m10, m11, m2, ...: the
  // attribute dictionary is sorted), and every use and definition of
  // a numbered one is longer. Twelve maps used from two functions, more
  // often the later ones, three in one array (numbered by the array's
  // own print too): composed, no whole print.
  std::string text = "func.func @f() attributes {";
  for (int k = 0; k < 12; ++k)
    text += (k ? ", m" : "m") + std::to_string(k) +
            " = affine_map<(d0) -> (d0 + " + std::to_string(k + 1) + ")>";
  text += R"mlir(} {
  return
}
func.func @g(%a: memref<4xf32, affine_map<(d0) -> (d0 + 12)>>,
             %b: memref<4xf32, affine_map<(d0) -> (d0 + 12)>>) attributes {
    c = [affine_map<(d0) -> (d0 + 11)>, affine_map<(d0) -> (d0 + 3)>,
         affine_map<(d0) -> (d0 + 11)>, affine_map<(d0) -> (d0 + 12)>],
    d = affine_map<(d0) -> (d0 + 3)>} {
  return
}
)mlir";
  auto maps = parse(ctx, text);
  ASSERT_TRUE(maps);
  IRMetricsCache c4(verifiedFlags());
  IRMetrics whole = measureIR(*maps, verifiedFlags());
  expectSame(c4.measure(*maps), whole);
  EXPECT_EQ(c4.stats().fullPrints, 0u);
  {
    std::string printed;
    llvm::raw_string_ostream os(printed);
    maps->print(os, verifiedFlags().flags);
    EXPECT_NE(printed.find("#map11 = affine_map<(d0) -> (d0 + 10)>"),
              std::string::npos);
  }
  // One changed function: recomposed with the others' counts.
  maps->lookupSymbol<mlir::func::FuncOp>("f")->setAttr(
      "m0", mlir::AffineMapAttr::get(mlir::AffineMap::get(
                1, 0, mlir::getAffineDimExpr(0, &ctx) + 12)));
  expectSame(c4.measure(*maps), measureIR(*maps, verifiedFlags()));
  EXPECT_EQ(c4.stats().fullPrints, 0u);

  // A value defined at module level is numbered in the module's scope.
  auto vals = parse(ctx, R"mlir(
%0 = "test.value"() : () -> i32
"test.use"(%0) : (i32) -> ()
)mlir");
  ASSERT_TRUE(vals);
  IRMetricsCache c2(verifiedFlags());
  expectSame(c2.measure(*vals), measureIR(*vals, verifiedFlags()));
  EXPECT_EQ(c2.stats().fullPrints, 1u);

  // Flags that verify before printing: the whole module, as before.
  IRMetricsCache c3;
  expectSame(c3.measure(*vals), measureIR(*vals));
  EXPECT_EQ(c3.stats().opPrints, 0u);
}

// The size printer (SizePrinter.cpp) counts what MLIR prints, op by op:
// results and result groups, regions and blocks with arguments and
// predecessor comments (duplicate predecessors), successors with operands,
// attribute dictionaries with quoted names, unit attributes and elided
// attributes, argument attributes, named constants, symbols that need
// quotes, LLVM struct types. Q2_IR_METRICS_VERIFY=1 prints every counted op
// too and counts differences.
TEST(ProfIRMetricsCache, SizeCountsEqualMLIRPrint) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::cf::ControlFlowDialect, mlir::scf::SCFDialect,
                  mlir::LLVM::LLVMDialect, mlir::memref::MemRefDialect>();
  auto mod = parse(ctx, R"mlir(
func.func @blocks(%a: i32 {llvm.noundef, llvm.signext}, %c: i1) -> i32 attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : i32
  %c0_0 = arith.constant 0 : i32
  %cst = arith.constant 1.5 : f64
  %t = arith.constant true
  cf.cond_br %c, ^bb1(%a : i32), ^bb1(%c0 : i32)
^bb1(%x: i32):
  %s = arith.addi %x, %c0_0 {"odd key" = unit, k = 3 : i64, s = "a\"b\n"} : i32
  cf.br ^bb2
^bb2:
  return %s : i32
}
func.func @loops(%lb: index, %ub: index, %m: memref<?xf32, strided<[?], offset: ?>>) -> (index, f32) {
  %st = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %lb to %ub step %st iter_args(%acc = %lb, %v = %f0) -> (index, f32) {
    %n = arith.addi %acc, %i : index
    %l = memref.load %m[%i] : memref<?xf32, strided<[?], offset: ?>>
    scf.yield %n, %l : index, f32
  }
  return %r#0, %r#1 : index, f32
}
func.func private @"decl with space"(i64) -> ()
llvm.func @structs(%p: !llvm.ptr, %n: i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>)> {
  %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>)>
  %1 = llvm.insertvalue %p, %0[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>)>
  %2 = llvm.insertvalue %n, %1[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>)>
  %3 = llvm.getelementptr %p[%n] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %4 = llvm.load %3 {alignment = 4 : i64} : !llvm.ptr -> f32
  "llvm.intr.memcpy"(%p, %p, %n) <{isVolatile = false}> {q2.tag = 1 : i32} : (!llvm.ptr, !llvm.ptr, i64) -> ()
  %5 = llvm.mlir.constant(-2.5e-7 : f64) : f64
  %6 = llvm.mlir.constant(0.1 : f64) : f64
  llvm.return %2 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>)>
}
)mlir");
  ASSERT_TRUE(mod);
  ::setenv("Q2_IR_METRICS_VERIFY", "1", 1);
  IRMetricsCache cache(verifiedFlags());
  ::unsetenv("Q2_IR_METRICS_VERIFY");
  expectSame(cache.measure(*mod), measureIR(*mod, verifiedFlags()));
  EXPECT_EQ(cache.stats().sizeCounts, 4u);
  EXPECT_EQ(cache.stats().sizeMismatches, 0u);
  EXPECT_EQ(cache.stats().opPrints, 0u);
  EXPECT_EQ(cache.stats().fullPrints, 0u);
  IRMetricsOptions local = verifiedFlags();
  local.flags.useLocalScope();
  for (mlir::Operation &op : mod->getBody()->getOperations())
    expectSame(cache.measureLocal(&op), measureIR(&op, local));
  EXPECT_EQ(cache.stats().sizeMismatches, 0u);
}
