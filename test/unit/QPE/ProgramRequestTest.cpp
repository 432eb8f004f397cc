//===- ProgramRequestTest.cpp - ProgramRequest.def, planProgram -----------===//
#include "q2/Hamiltonian/Hamiltonian.h"
#include "q2/QPE/ProgramPlan.h"
#include "q2/QPE/ProgramRequest.h"
#include "q2/Dialect/QPE/IR/QPEDialect.h"
#include "q2/ProgramBuilder/QPEProgram.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <string>

using namespace q2;
using namespace q2::qpe;
namespace ham = q2::hamiltonian;

namespace {

ham::QubitHamiltonian h2Fixture() {
  const char *src = std::getenv("Q2_SOURCE_DIR");
  std::string root = src ? src : Q2_TEST_SOURCE_DIR;
  auto h = ham::loadHamiltonian(root + "/examples/hamiltonians/h2_0.7414.FCIDUMP");
  EXPECT_TRUE(bool(h)) << llvm::toString(h.takeError());
  return std::move(*h);
}

/// Every option as text: compares two requests field by field.
std::string describe(const ProgramRequest &r) {
  std::string s;
  for (const ProgramOptionInfo &o : programOptions())
    s += o.flag.str() + "=" + r.get(o.flag) + ";";
  return s;
}

std::string messageOf(llvm::Error e) { return llvm::toString(std::move(e)); }

} // namespace

TEST(ProgramRequest, DefaultsAreQ2QpesAndTheBuildersToo) {
  ProgramRequest r;
  EXPECT_FALSE(r.nEst);
  EXPECT_FALSE(r.nTrotter);
  EXPECT_EQ(r.mode, Mode::Dynamic);
  EXPECT_EQ(r.order, 2u);
  EXPECT_EQ(r.power, Power::Repeat);
  EXPECT_FALSE(r.unroll);
  EXPECT_EQ(r.resolution, 3e-3);
  EXPECT_FALSE(r.window);
  EXPECT_FALSE(r.baseTime);
  EXPECT_FALSE(r.energyShift);
  // The builder's options start from the same defaults (QPEOptions used to
  // default to power time).
  QPEOptions o;
  EXPECT_EQ(o.mode, r.mode);
  EXPECT_EQ(o.order, r.order);
  EXPECT_EQ(o.power, r.power);
  EXPECT_EQ(o.unroll, r.unroll);
  EXPECT_EQ(r.get("n-trotter"), "auto");
  EXPECT_EQ(r.get("resolution"), "0.003");
  EXPECT_EQ(r.get("n-est"), "");
}

TEST(ProgramRequest, EveryOptionHasOneFlagOneKeywordAndRoundTrips) {
  std::set<std::string> flags, keywords;
  for (const ProgramOptionInfo &o : programOptions()) {
    EXPECT_TRUE(flags.insert(o.flag.str()).second) << o.flag.str();
    EXPECT_TRUE(keywords.insert(o.pyName.str()).second) << o.pyName.str();
    EXPECT_FALSE(o.help.empty()) << o.flag.str();
    EXPECT_EQ(findProgramOption(o.flag), &o);
    EXPECT_EQ(findProgramOption(o.pyName), &o);
  }
  EXPECT_EQ(programOptions().size(), 10u);
  ProgramRequest r;
  for (auto [flag, text] :
       {std::pair<const char *, const char *>{"n-est", "7"},
        {"n-trotter", "12"}, {"mode", "fixed"}, {"order", "1"},
        {"power", "time"}, {"unroll", "true"}, {"resolution", "0.01"},
        {"window", "-2.5,0.25"}, {"base-time", "0.1"},
        {"energy-shift", "-1.75"}}) {
    ASSERT_FALSE(r.set(flag, text)) << flag;
    EXPECT_EQ(r.get(flag), text) << flag;
  }
  EXPECT_EQ(*r.nEst, 7u);
  EXPECT_EQ(*r.nTrotter, 12u);
  EXPECT_EQ(r.mode, Mode::Fixed);
  EXPECT_EQ(r.power, Power::Time);
  EXPECT_TRUE(r.unroll);
  EXPECT_EQ(*r.window, EnergyWindow(-2.5, 0.25));
  // Text written by get() reads back to the same request, for any value.
  ProgramRequest copy;
  copy.resolution = 1.0 / 3;
  copy.baseTime = 0.1 + 0.2;
  ProgramRequest back;
  for (const ProgramOptionInfo &o : programOptions()) {
    if (copy.get(o.flag).empty())
      continue;
    ASSERT_FALSE(back.set(o.flag, copy.get(o.flag))) << o.flag.str();
  }
  EXPECT_EQ(describe(back), describe(copy));
  EXPECT_EQ(back.resolution, copy.resolution);
  EXPECT_EQ(*back.baseTime, *copy.baseTime);
  ASSERT_FALSE(back.set("n_trotter", "auto", OptionSpelling::Python));
  EXPECT_FALSE(back.nTrotter);
}

TEST(ProgramRequest, BadTextNamesTheOptionInItsSpelling) {
  ProgramRequest r;
  EXPECT_EQ(messageOf(r.set("n-trotter", "many")),
            "--n-trotter must be 'auto' or an integer in [1, 4294967295], "
            "got 'many'");
  EXPECT_EQ(messageOf(r.set("n_trotter", "0", OptionSpelling::Python)),
            "n_trotter must be 'auto' or an integer in [1, 4294967295], got "
            "'0'");
  EXPECT_EQ(messageOf(r.set("power", "often", OptionSpelling::Python)),
            "power must be 'time' or 'repeat', got 'often'");
  EXPECT_EQ(messageOf(r.set("mode", "both")),
            "--mode must be 'fixed' or 'dynamic', got 'both'");
  EXPECT_NE(messageOf(r.set("window", "1")).find("--window needs finite lo,hi"),
            std::string::npos);
  EXPECT_NE(messageOf(r.set("n-est", "x")).find("--n-est must be"),
            std::string::npos);
  EXPECT_NE(messageOf(r.set("no-such", "1")).find("unknown program option"),
            std::string::npos);
  // Nothing was set by the failures.
  EXPECT_EQ(describe(r), describe(ProgramRequest()));
}

TEST(ProgramRequest, ValidateRefusesWhatNoProgramCanHave) {
  EXPECT_FALSE(ProgramRequest().validate());
  auto refused = [](auto change, OptionSpelling s = OptionSpelling::Flag) {
    ProgramRequest r;
    change(r);
    return messageOf(r.validate(s));
  };
  EXPECT_EQ(refused([](ProgramRequest &r) { r.order = 3; }),
            "Trotter order must be 1 or 2, got 3");
  EXPECT_EQ(refused([](ProgramRequest &r) { r.nEst = 0; }),
            "n_est = 0, supported are 1..32");
  EXPECT_EQ(refused([](ProgramRequest &r) { r.nEst = 40; }),
            "n_est = 40, supported are 1..32");
  EXPECT_EQ(refused([](ProgramRequest &r) { r.resolution = NAN; }),
            "--resolution must be finite and > 0");
  EXPECT_EQ(refused([](ProgramRequest &r) { r.resolution = 0; },
                    OptionSpelling::Python),
            "resolution must be finite and > 0");
  EXPECT_EQ(refused([](ProgramRequest &r) { r.baseTime = INFINITY; }),
            "--base-time must be finite and > 0");
  EXPECT_EQ(refused([](ProgramRequest &r) { r.energyShift = NAN; }),
            "--energy-shift must be finite");
  EXPECT_NE(refused([](ProgramRequest &r) { r.window = {-1e308, 1e308}; })
                .find("--window needs finite lo,hi"),
            std::string::npos);
  EXPECT_NE(refused([](ProgramRequest &r) { r.window = {0, 1e-320}; })
                .find("--window"),
            std::string::npos);
  EXPECT_NE(refused([](ProgramRequest &r) { r.nTrotter = 0; })
                .find("--n-trotter must be"),
            std::string::npos);
}

TEST(ProgramPlan, RefusesBeforeReadingTheHamiltonian) {
  // A Hamiltonian the planner would refuse anyway (no terms): the request's
  // own error comes first, so nothing was computed from it.
  ham::QubitHamiltonian empty;
  ProgramRequest r;
  r.order = 3;
  auto plan = planProgram(empty, r);
  ASSERT_FALSE(plan);
  EXPECT_EQ(messageOf(plan.takeError()), "Trotter order must be 1 or 2, got 3");
  r = ProgramRequest();
  r.nEst = 33;
  plan = planProgram(empty, r);
  ASSERT_FALSE(plan);
  EXPECT_EQ(messageOf(plan.takeError()), "n_est = 33, supported are 1..32");
}

TEST(ProgramPlan, RefusesAnOversizedUnrolledProgramBeforeTheExactSolve) {
  // The builder's size limit is checked by the plan (after the steps, before
  // the reference energies), not only when building.
  ham::QubitHamiltonian h = h2Fixture();
  ProgramRequest r;
  r.unroll = true;
  r.nEst = 14;
  r.nTrotter = 50;
  auto plan = planProgram(h, r);
  ASSERT_FALSE(plan);
  EXPECT_NE(messageOf(plan.takeError()).find("--unroll would emit"),
            std::string::npos);
}

TEST(ProgramPlan, DoesNotChangeItsRequestAndIsRepeatable) {
  ham::QubitHamiltonian h = h2Fixture();
  ProgramRequest r;
  r.nEst = 4;
  const std::string before = describe(r);
  auto a = planProgram(h, r);
  ASSERT_TRUE(bool(a)) << llvm::toString(a.takeError());
  EXPECT_EQ(describe(r), before);
  EXPECT_EQ(describe(a->request), before);
  auto b = planProgram(h, r);
  ASSERT_TRUE(bool(b)) << llvm::toString(b.takeError());
  EXPECT_EQ(a->options.trotterSteps, b->options.trotterSteps);
  EXPECT_EQ(a->options.nTrotter, b->options.nTrotter);
  EXPECT_EQ(a->params.baseTime, b->params.baseTime);
  EXPECT_TRUE(a->automatic);
  EXPECT_TRUE(a->exact.has_value());
  EXPECT_EQ(a->options.power, Power::Repeat);
  EXPECT_FALSE(a->warning());
  // An explicit count whose bound exceeds the resolution is planned, with
  // q2-qpe's warning.
  ProgramRequest few;
  few.nEst = 8;
  few.nTrotter = 1;
  few.power = Power::Time;
  auto f = planProgram(h, few);
  ASSERT_TRUE(bool(f)) << llvm::toString(f.takeError());
  ASSERT_TRUE(f->warning().has_value());
  EXPECT_EQ(f->warning()->rfind("--n-trotter 1: the Trotter error bound", 0),
            0u)
      << *f->warning();
}

TEST(ProgramPlan, EveryOptionReachesTheProgram) {
  // Window, base time and shift (buildProgramText used to drop them) reach
  // the built program's metadata, as the other options do.
  ham::QubitHamiltonian h = h2Fixture();
  ProgramRequest r;
  r.nEst = 3;
  r.nTrotter = 2;
  r.mode = Mode::Fixed;
  r.order = 1;
  r.power = Power::Time;
  r.baseTime = 0.5;
  r.energyShift = 1.25;
  auto plan = planProgram(h, r);
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  mlir::MLIRContext ctx;
  auto module = buildProgram(ctx, h, *plan);
  ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
  auto md = readQPEMetadata(**module);
  ASSERT_TRUE(bool(md)) << llvm::toString(md.takeError());
  EXPECT_EQ(md->nEst, 3u);
  EXPECT_EQ(md->nTrotter, 2u);
  EXPECT_EQ(md->mode, Mode::Fixed);
  EXPECT_EQ(md->order, 1u);
  EXPECT_EQ(md->power, Power::Time);
  EXPECT_EQ(md->baseTime, 0.5);
  EXPECT_EQ(md->energyShift, 1.25);
  EXPECT_DOUBLE_EQ(md->resolution, 2 * M_PI / (8 * 0.5));

  // The window sets the bins when no base time is given.
  ProgramRequest w;
  w.nEst = 3;
  w.window = EnergyWindow(-2.0, 0.0);
  auto wp = planProgram(h, w);
  ASSERT_TRUE(bool(wp)) << llvm::toString(wp.takeError());
  EXPECT_DOUBLE_EQ(wp->params.resolution, 2.0 / 8);
}
