//===- PowerBlocksTest.cpp - powered execution == gate-by-gate execution --===//
//
// For every bundled molecule, fixed and dynamic mode, Trotter order 1 and 2,
// power=repeat and power=time, decomposed and native Pauli rotations: the
// program compiled with quantum.power blocks (run with the runtime's cost
// model, and with dense powers forced) gives the probabilities of the same
// program compiled without them (gate by gate) to 1e-10.
//
//===----------------------------------------------------------------------===//
#include "UnitTestUtil.h"
#include "q2/Hamiltonian/Hamiltonian.h"
#include "q2/InitQ2.h"
#include "q2/JIT/QPEExecutable.h"
#include "q2/Pipeline/Pipeline.h"
#include "q2/Dialect/QPE/IR/QPEDialect.h"
#include "q2/ProgramBuilder/QPEProgram.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <mutex>

using namespace q2;

namespace {

struct Env {
  mlir::DialectRegistry registry;
  Env() {
    static std::once_flag once;
    std::call_once(once, [] { registerQ2Passes(); });
    registerQ2Dialects(registry);
  }
};

jit::ExecutableOptions runtimeOpts() {
  jit::ExecutableOptions o;
  o.runtimeLibrary = Q2_RUNTIME_LIB_PATH;
  return o;
}

/// Probabilities of one call per runtime block mode in `modes` (0 replay,
/// 1 cost model, 2 dense), from one compilation.
std::vector<std::vector<double>> run(mlir::ModuleOp module, bool powerBlocks,
                                     bool native, std::vector<int> modes,
                                     const qpe::QPEMetadata &md) {
  pipeline::PipelineOptions o;
  o.powerBlocks = powerBlocks;
  o.keepNativePauli = native;
  auto obj = pipeline::compileToObject(module, o);
  EXPECT_TRUE(bool(obj)) << llvm::toString(obj.takeError());
  if (!obj)
    return {};
  auto exe = jit::QPEExecutable::load(*obj, md.numCoeffArgs(), md.nEst,
                                      runtimeOpts());
  EXPECT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
  if (!exe)
    return {};
  auto setMode = (*exe)->lookup("q2_rt_set_block_mode");
  EXPECT_TRUE(bool(setMode));
  if (!setMode)
    return {};
  auto set = reinterpret_cast<int32_t (*)(int32_t)>(*setMode);
  std::vector<std::vector<double>> out;
  for (int mode : modes) {
    int32_t prev = set(mode);
    auto probs = (*exe)->run(md.numCoeffArgs() ? llvm::ArrayRef<double>(
                                                     md.defaultCoeffs)
                                               : llvm::ArrayRef<double>());
    set(prev);
    EXPECT_TRUE(bool(probs)) << llvm::toString(probs.takeError());
    out.push_back(probs ? *probs : std::vector<double>());
  }
  return out;
}

struct Case {
  const char *molecule;
  qpe::Mode mode;
  unsigned order;
  qpe::Power power;
  bool native;
};

// Names the case in ctest output instead of printing its bytes.
void PrintTo(const Case &c, std::ostream *os) {
  *os << c.molecule << " " << qpe::toString(c.mode).str() << " o" << c.order
      << " " << qpe::toString(c.power).str()
      << (c.native ? " native" : " decomposed");
}

std::string caseName(const testing::TestParamInfo<Case> &info) {
  return q2::test::testName(info.param.molecule) + "_" + qpe::toString(info.param.mode).str() + "_o" +
         std::to_string(info.param.order) + "_" +
         qpe::toString(info.param.power).str() +
         (info.param.native ? "_native" : "_decomposed");
}

class PowerBlocks : public testing::TestWithParam<Case> {};

TEST_P(PowerBlocks, PoweredEqualsGateByGate) {
  const Case &c = GetParam();
  static Env env;
  std::string file = std::string(Q2_TEST_SOURCE_DIR) + "/examples/hamiltonians/" +
                     c.molecule + ".FCIDUMP";
  auto h = hamiltonian::loadHamiltonian(file);
  ASSERT_TRUE(bool(h)) << llvm::toString(h.takeError());
  auto params = hamiltonian::computeQPEParameters(*h, 3);
  ASSERT_TRUE(bool(params)) << llvm::toString(params.takeError());
  qpe::QPEOptions o;
  o.mode = c.mode;
  o.order = c.order;
  o.power = c.power;
  o.nTrotter = 2;
  std::vector<double> ref, cost, dense;
  for (bool powered : {false, true}) {
    mlir::MLIRContext ctx(env.registry);
    auto module = qpe::buildQPEProgram(ctx, *h, *params, o);
    ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
    auto md = qpe::readQPEMetadata(**module);
    ASSERT_TRUE(bool(md));
    if (!powered) {
      auto r = run(**module, false, c.native, {1}, *md);
      ref = r.at(0);
    } else {
      // Forced dense powers on the 12-qubit molecules would build 4096^2
      // matrices gate by gate (minutes): there the cost model's choice
      // (slice replay) is checked, and dense on the smaller ones.
      bool small = h->numQubits <= 8;
      auto r = run(**module, true, c.native, small ? std::vector<int>{1, 2}
                                                   : std::vector<int>{1},
                   *md);
      cost = r.at(0);
      dense = small ? r.at(1) : r.at(0);
    }
  }
  ASSERT_EQ(ref.size(), size_t(8));
  ASSERT_EQ(cost.size(), ref.size());
  ASSERT_EQ(dense.size(), ref.size());
  double sum = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    EXPECT_NEAR(cost[i], ref[i], 1e-10) << "outcome " << i;
    EXPECT_NEAR(dense[i], ref[i], 1e-10) << "outcome " << i;
    sum += ref[i];
  }
  EXPECT_NEAR(sum, 1.0, 1e-9);
}

std::vector<Case> allCases() {
  std::vector<Case> out;
  for (const char *m : {"h2_0.7414", "lih_1.595_2e3o", "h3o+_4e4o",
                        "lih_4e6o", "h6_chain_6e6o"})
    for (qpe::Mode mode : {qpe::Mode::Fixed, qpe::Mode::Dynamic})
      for (unsigned order : {1u, 2u})
        for (qpe::Power power : {qpe::Power::Repeat, qpe::Power::Time})
          for (bool native : {true, false}) {
            out.push_back({m, mode, order, power, native});
          }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Bundled, PowerBlocks, testing::ValuesIn(allCases()),
                         caseName);

} // namespace
