//===- QuantumDialectTest.cpp - C++ API of the quantum dialect ------------===//
#include "q2/Conversion/QuantumToLLVM/QuantumToLLVM.h"
#include "q2/Dialect/Quantum/IR/GateTable.h"
#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/InitQ2.h"
#include "q2/Runtime/QuantumRuntime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>
#include <set>

using namespace mlir;
using namespace q2::quantum;

namespace {
class QuantumDialectTest : public ::testing::Test {
protected:
  QuantumDialectTest() {
    DialectRegistry registry;
    q2::registerQ2Dialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  MLIRContext ctx;
};
} // namespace

TEST(GateTable, NamesAndRuntimeIdsAreUnique) {
  std::set<std::string> names;
  std::set<int> ids;
  for (const GateInfo &g : getGateTable()) {
    EXPECT_TRUE(names.insert(g.name.str()).second) << g.name.str();
    // The lowering knows every gate of the table, each by its own id.
    int32_t id = q2::runtimeGateId(g.name);
    EXPECT_GE(id, 0) << g.name.str();
    EXPECT_TRUE(ids.insert(id).second) << g.name.str();
    EXPECT_GE(g.numTargets, 1u);
    EXPECT_LE(g.numParams, 1u);
    // A rotation has exactly one angle and is never self-inverse.
    if (g.additiveRotation) {
      EXPECT_EQ(g.numParams, 1u) << g.name.str();
      EXPECT_FALSE(g.selfInverse) << g.name.str();
    }
  }
  EXPECT_EQ(q2::runtimeGateId("CNOT"), Q2_GATE_CNOT);
  EXPECT_EQ(q2::runtimeGateId("PhaseShift"), Q2_GATE_PHASESHIFT);
  EXPECT_EQ(q2::runtimeGateId("cnot"), -1);
  EXPECT_FALSE(lookupGate("cnot").has_value()); // names are case-sensitive
  EXPECT_FALSE(lookupGate("").has_value());
}

TEST_F(QuantumDialectTest, BuildAndVerifyCircuit) {
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  auto module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module.getBody());
  auto fn = func::FuncOp::create(b, loc, "f", b.getFunctionType({}, {}));
  b.setInsertionPointToStart(fn.addEntryBlock());

  Type bit = BitType::get(&ctx);
  Value reg = AllocOp::create(b, loc, RegType::get(&ctx), 2).getReg();
  Value q0 = ExtractOp::create(b, loc, bit, reg, Value(), b.getI64IntegerAttr(0));
  Value q1 = ExtractOp::create(b, loc, bit, reg, Value(), b.getI64IntegerAttr(1));
  Value theta = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.25));
  auto rot = PauliRotOp::create(b, loc, TypeRange{bit, bit}, TypeRange{},
                                "XZ", theta, ValueRange{q0, q1}, ValueRange{},
                                /*adjoint=*/false);
  auto cnot = CustomOp::create(b, loc, TypeRange{bit}, TypeRange{bit}, "X",
                               ValueRange{}, ValueRange{rot.getOutQubits()[0]},
                               ValueRange{rot.getOutQubits()[1]}, false);
  EXPECT_EQ(cast<QuantumGate>(cnot.getOperation()).getAllInQubits().size(), 2u);
  DeallocOp::create(b, loc, reg);
  func::ReturnOp::create(b, loc);
  EXPECT_TRUE(succeeded(verify(module)));

  // Break one rule through the C++ API: the verifier must catch it.
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  rot->setAttr("pauli_word", b.getStringAttr("XQ"));
  EXPECT_TRUE(failed(verify(module)));
  EXPECT_NE(message.find("has letter 'Q' at position 1"), std::string::npos)
      << message;
  module->destroy();
}

TEST_F(QuantumDialectTest, ParseRejectsInvalidWithLocation) {
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    llvm::raw_string_ostream os(message);
    os << d.getLocation() << ": " << d.str();
    return success();
  });
  const char *src = "func.func @f(%q: !quantum.bit) {\n"
                    "  %a = quantum.custom \"RX\"() %q : !quantum.bit\n"
                    "  return\n}\n";
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(src, &ctx, "in.mlir");
  EXPECT_FALSE(m);
  EXPECT_NE(message.find("in.mlir\":2:8"), std::string::npos) << message;
  EXPECT_NE(message.find("expects 1 parameter(s), got 0"), std::string::npos)
      << message;
}
