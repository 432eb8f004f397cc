//===- ProgramTextTest.cpp - writeQPEProgram == the printed module --------===//
//
// writeQPEProgram's text must be what MLIR prints for buildQPEProgram's
// module, byte for byte, in every mode and both rotation forms: the table
// form (q2-qpe's) is printed, the ops form streams its Trotter step instead
// of building its ops (SSA names included: the printer's naming is
// emulated).
//
//===----------------------------------------------------------------------===//
#include "q2/Hamiltonian/Hamiltonian.h"
#include "q2/QPE/ProgramPlan.h"
#include "q2/ProgramBuilder/QPEProgram.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace q2;
namespace ham = q2::hamiltonian;

namespace {

std::string example(const std::string &name) {
  const char *src = std::getenv("Q2_SOURCE_DIR");
  return std::string(src ? src : Q2_TEST_SOURCE_DIR) + "/examples/hamiltonians/" +
         name;
}

std::string printed(const ham::QubitHamiltonian &h, const qpe::QPEParameters &p,
                    const qpe::QPEOptions &o) {
  mlir::MLIRContext ctx;
  auto m = qpe::buildQPEProgram(ctx, h, p, o);
  EXPECT_TRUE(bool(m)) << (m ? "" : llvm::toString(m.takeError()));
  if (!m)
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  (**m)->print(os, mlir::OpPrintingFlags().assumeVerified());
  return s;
}

std::string streamed(const ham::QubitHamiltonian &h,
                     const qpe::QPEParameters &p, const qpe::QPEOptions &o) {
  mlir::MLIRContext ctx;
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::Error e = qpe::writeQPEProgram(os, ctx, h, p, o);
  EXPECT_FALSE(bool(e)) << llvm::toString(std::move(e));
  return s;
}

/// Every mode, order, power and step form of one Hamiltonian.
void checkAllModes(const ham::QubitHamiltonian &h, unsigned nEst) {
  auto p = qpe::computeQPEParameters(h, nEst, 3e-3, std::nullopt);
  ASSERT_TRUE(bool(p)) << llvm::toString(p.takeError());
  for (qpe::Mode mode : {qpe::Mode::Fixed, qpe::Mode::Dynamic})
    for (unsigned order : {1u, 2u})
      for (qpe::Power power : {qpe::Power::Time, qpe::Power::Repeat})
        for (bool table : {false, true})
        for (auto form : {qpe::QPEOptions::Rotations::Table,
                          qpe::QPEOptions::Rotations::Ops}) {
          qpe::QPEOptions o;
          o.mode = mode;
          o.order = order;
          o.power = power;
          o.rotations = form;
          o.nTrotter = 3;
          if (table)
            for (unsigned k = 0; k < nEst; ++k)
              o.trotterSteps.push_back(k + 1);
          o.trotterBound = 0.25;
          o.hfEnergy = -1.0;
          SCOPED_TRACE(testing::Message()
                       << h.name << " mode " << int(mode) << " order " << order
                       << " power " << int(power) << " table " << table
                       << " ops " << (form == qpe::QPEOptions::Rotations::Ops));
          std::string want = printed(h, *p, o);
          ASSERT_FALSE(want.empty());
          EXPECT_EQ(streamed(h, *p, o), want);
        }
}

TEST(ProgramText, ExamplesInEveryModeMatchThePrinter) {
  for (const char *f : {"h2_0.7414.FCIDUMP", "lih_1.595_2e3o.FCIDUMP",
                        "h3o+_4e4o.FCIDUMP"}) {
    auto h = ham::loadHamiltonian(example(f));
    ASSERT_TRUE(bool(h)) << llvm::toString(h.takeError());
    checkAllModes(*h, 3);
  }
}

TEST(ProgramText, EdgeCasesMatchThePrinter) {
  // No identity term (the builder adds one), no occupied qubit, one
  // estimation wire (the QFT's only constant is c0), words of weight 1..3.
  ham::QubitHamiltonian h;
  h.name = "synthetic";
  h.numQubits = 3;
  h.hfOccupation = {0, 0, 0};
  h.terms = {{"ZII", 0.5}, {"IXI", -0.25}, {"XYZ", 0.125}, {"IZZ", 1.5}};
  checkAllModes(h, 1);
  checkAllModes(h, 2);
  h.hfOccupation = {1, 0, 1};
  checkAllModes(h, 4);
}

TEST(ProgramText, PlannedProgramsAndUnrolledMatchThePrinter) {
  auto h = ham::loadHamiltonian(example("h2_0.7414.FCIDUMP"));
  ASSERT_TRUE(bool(h));
  for (bool unroll : {false, true})
    for (qpe::Power power : {qpe::Power::Time, qpe::Power::Repeat}) {
      qpe::ProgramRequest req;
      req.nEst = 4;
      req.power = power;
      req.unroll = unroll;
      if (unroll)
        req.nTrotter = 1;
      auto prep = qpe::planProgram(*h, req);
      ASSERT_TRUE(bool(prep)) << llvm::toString(prep.takeError());
      EXPECT_EQ(streamed(*h, prep->params, prep->options),
                printed(*h, prep->params, prep->options));
    }
}

TEST(ProgramText, RefusesWhatTheBuilderRefuses) {
  auto h = ham::loadHamiltonian(example("h2_0.7414.FCIDUMP"));
  ASSERT_TRUE(bool(h));
  auto p = qpe::computeQPEParameters(*h, 3, 3e-3, std::nullopt);
  ASSERT_TRUE(bool(p));
  qpe::QPEOptions o;
  o.order = 3;
  mlir::MLIRContext ctx;
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::Error e = qpe::writeQPEProgram(os, ctx, *h, *p, o);
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("order"), std::string::npos);
  EXPECT_TRUE(s.empty()); // nothing written
}

} // namespace
