//===- RotationFormsTest.cpp - table Trotter steps == pauli_rot ops -------===//
//
// A rolled program writes each Trotter step as one quantum.gate_table (a
// record per term) unless QPEOptions::rotations asks for the per-term
// pauli_rot ops the builder made before. Both forms, compiled and run, give
// the same probabilities to 1e-12: for bundled molecules, fixed and dynamic
// mode, Trotter order 1 and 2, power=repeat and power=time, a per-wire step
// table, decomposed and native Pauli rotations.
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

#include <mutex>

using namespace q2;

namespace {

struct Case {
  const char *molecule;
  qpe::Mode mode;
  unsigned order;
  qpe::Power power;
  bool perWireSteps;
  bool native;
};

void PrintTo(const Case &c, std::ostream *os) {
  *os << c.molecule << " " << qpe::toString(c.mode).str() << " o" << c.order
      << " " << qpe::toString(c.power).str()
      << (c.perWireSteps ? " per-wire" : "")
      << (c.native ? " native" : " decomposed");
}

std::string caseName(const testing::TestParamInfo<Case> &info) {
  return q2::test::testName(info.param.molecule) + "_" + qpe::toString(info.param.mode).str() + "_o" +
         std::to_string(info.param.order) + "_" +
         qpe::toString(info.param.power).str() +
         (info.param.perWireSteps ? "_perwire" : "") +
         (info.param.native ? "_native" : "_decomposed");
}

/// Probabilities of one run of the program `o` builds.
std::vector<double> probabilities(const hamiltonian::QubitHamiltonian &h,
                                  const hamiltonian::QPEParameters &params,
                                  const qpe::QPEOptions &o, bool native,
                                  bool expectTable) {
  static std::once_flag once;
  std::call_once(once, [] { registerQ2Passes(); });
  mlir::DialectRegistry registry;
  registerQ2Dialects(registry);
  mlir::MLIRContext ctx(registry);
  auto module = qpe::buildQPEProgram(ctx, h, params, o);
  EXPECT_TRUE(bool(module)) << llvm::toString(module.takeError());
  if (!module)
    return {};
  // The form asked for is the form built.
  bool hasTable = false, hasRot = false;
  (**module)->walk([&](mlir::Operation *op) {
    hasTable |= op->getName().getStringRef() == "quantum.gate_table";
    hasRot |= op->getName().getStringRef() == "quantum.pauli_rot";
  });
  EXPECT_EQ(hasTable, expectTable);
  EXPECT_EQ(hasRot, !expectTable);
  auto md = qpe::readQPEMetadata(**module);
  EXPECT_TRUE(bool(md));
  if (!md)
    return {};
  pipeline::PipelineOptions po;
  po.keepNativePauli = native;
  auto obj = pipeline::compileToObject(**module, po);
  EXPECT_TRUE(bool(obj)) << llvm::toString(obj.takeError());
  if (!obj)
    return {};
  jit::ExecutableOptions eo;
  eo.runtimeLibrary = Q2_RUNTIME_LIB_PATH;
  auto exe = jit::QPEExecutable::load(*obj, md->numCoeffArgs(), md->nEst, eo);
  EXPECT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
  if (!exe)
    return {};
  auto probs = (*exe)->run(md->numCoeffArgs()
                               ? llvm::ArrayRef<double>(md->defaultCoeffs)
                               : llvm::ArrayRef<double>());
  EXPECT_TRUE(bool(probs)) << llvm::toString(probs.takeError());
  return probs ? *probs : std::vector<double>();
}

class RotationForms : public testing::TestWithParam<Case> {};

TEST_P(RotationForms, TableEqualsOps) {
  const Case &c = GetParam();
  std::string file = std::string(Q2_TEST_SOURCE_DIR) +
                     "/examples/hamiltonians/" + c.molecule + ".FCIDUMP";
  auto h = hamiltonian::loadHamiltonian(file);
  ASSERT_TRUE(bool(h)) << llvm::toString(h.takeError());
  auto params = hamiltonian::computeQPEParameters(*h, 3);
  ASSERT_TRUE(bool(params)) << llvm::toString(params.takeError());
  qpe::QPEOptions o;
  o.mode = c.mode;
  o.order = c.order;
  o.power = c.power;
  o.nTrotter = 2;
  if (c.perWireSteps)
    o.trotterSteps = {1, 2, 3};
  o.rotations = qpe::QPEOptions::Rotations::Ops;
  std::vector<double> ops = probabilities(*h, *params, o, c.native, false);
  o.rotations = qpe::QPEOptions::Rotations::Table;
  std::vector<double> table = probabilities(*h, *params, o, c.native, true);
  ASSERT_EQ(ops.size(), size_t(8));
  ASSERT_EQ(table.size(), ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    EXPECT_NEAR(table[i], ops[i], 1e-12) << "outcome " << i;
}

std::vector<Case> allCases() {
  std::vector<Case> out;
  for (const char *m : {"h2_0.7414", "lih_1.595_2e3o", "h3o+_4e4o"})
    for (qpe::Mode mode : {qpe::Mode::Fixed, qpe::Mode::Dynamic})
      for (unsigned order : {1u, 2u})
        for (qpe::Power power : {qpe::Power::Repeat, qpe::Power::Time})
          for (bool native : {true, false})
            out.push_back({m, mode, order, power, false, native});
  // A per-wire step table (the factor 2^k / n_k or 1 / n_k) on H2.
  for (qpe::Power power : {qpe::Power::Repeat, qpe::Power::Time})
    for (bool native : {true, false})
      out.push_back({"h2_0.7414", qpe::Mode::Dynamic, 2, power, true, native});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Bundled, RotationForms, testing::ValuesIn(allCases()),
                         caseName);

} // namespace
