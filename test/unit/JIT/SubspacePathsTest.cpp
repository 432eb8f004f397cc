//===- SubspacePathsTest.cpp - subspace paths == state vector, compiled ----===//
//
// Random Hamiltonians (hamiltonian::randomFCIDump, what q2-random-fcidump
// writes) with NORB 2..6, compiled through all six stages and called twice
// from one object: with every register a state vector
// (q2_rt_set_subspace_mode(0), the reference) and with every register
// deferred (mode 2). Fixed and dynamic mode, power = repeat (the eigenphase
// path) and power = time (the live-subspace path), Trotter order 1 and 2:
// the probabilities agree to 1e-9 and sum to 1 within 1e-10. A program
// compiled without powered blocks is the fallback: it still runs, on the
// live-subspace register or the state vector, and agrees too.
//
//===----------------------------------------------------------------------===//
#include "UnitTestUtil.h"
#include "q2/Hamiltonian/FCIDump.h"
#include "q2/Hamiltonian/JordanWigner.h"
#include "q2/QPE/QPEParameters.h"
#include "q2/Dialect/QPE/IR/QPEDialect.h"
#include "q2/InitQ2.h"
#include "q2/JIT/Circuit.h"
#include "q2/JIT/QPEExecutable.h"
#include "q2/Pipeline/Pipeline.h"
#include "q2/ProgramBuilder/QPEProgram.h"
#include "q2/Runtime/QuantumRuntime.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <mutex>

using namespace q2;

namespace {

struct SubspaceEnv {
  mlir::DialectRegistry registry;
  SubspaceEnv() {
    static std::once_flag once;
    std::call_once(once, [] { registerQ2Passes(); });
    registerQ2Dialects(registry);
  }
};

struct SubspaceCase {
  unsigned norb;
  qpe::Mode mode;
  unsigned order;
  qpe::Power power;
  bool native = true;
  bool powerBlocks = true;
};

void PrintTo(const SubspaceCase &c, std::ostream *os) {
  *os << "NORB " << c.norb << " " << qpe::toString(c.mode).str() << " o"
      << c.order << " " << qpe::toString(c.power).str()
      << (c.native ? "" : " decomposed")
      << (c.powerBlocks ? "" : " no-power-blocks");
}

std::string subspaceCaseName(const testing::TestParamInfo<SubspaceCase> &i) {
  const SubspaceCase &c = i.param;
  return "norb" + std::to_string(c.norb) + "_" +
         qpe::toString(c.mode).str() + "_o" + std::to_string(c.order) + "_" +
         qpe::toString(c.power).str() + (c.native ? "" : "_decomposed") +
         (c.powerBlocks ? "" : "_noblocks");
}

/// The compiled QPE program of a random Hamiltonian (randomFCIDump) with
/// nEst wires, and its metadata.
struct RandomProgram {
  std::vector<char> object;
  qpe::QPEMetadata md;
};
llvm::Expected<RandomProgram> compileRandom(unsigned norb, unsigned nelec,
                                            uint64_t seed, unsigned nEst,
                                            const qpe::QPEOptions &o,
                                            const pipeline::PipelineOptions &po) {
  static SubspaceEnv env;
  auto h = hamiltonian::jordanWigner(
      hamiltonian::randomFCIDump(norb, nelec, seed));
  if (!h)
    return h.takeError();
  auto params = hamiltonian::computeQPEParameters(*h, nEst);
  if (!params)
    return params.takeError();
  mlir::MLIRContext ctx(env.registry);
  auto module = qpe::buildQPEProgram(ctx, *h, *params, o);
  if (!module)
    return module.takeError();
  auto md = qpe::readQPEMetadata(**module);
  if (!md)
    return md.takeError();
  auto obj = pipeline::compileToObject(**module, po);
  if (!obj)
    return obj.takeError();
  return RandomProgram{std::vector<char>(obj->begin(), obj->end()),
                       std::move(*md)};
}

class SubspacePaths : public testing::TestWithParam<SubspaceCase> {};

TEST_P(SubspacePaths, AgreeWithTheStateVector) {
  const SubspaceCase &c = GetParam();
  qpe::QPEOptions o;
  o.mode = c.mode;
  o.order = c.order;
  o.power = c.power;
  o.nTrotter = 2;
  pipeline::PipelineOptions po;
  po.keepNativePauli = c.native;
  po.powerBlocks = c.powerBlocks;
  auto prog = compileRandom(c.norb, c.norb, 1000 + c.norb, 4, o, po);
  ASSERT_TRUE(bool(prog)) << llvm::toString(prog.takeError());
  const qpe::QPEMetadata *md = &prog->md;
  jit::ExecutableOptions eo;
  eo.runtimeLibrary = Q2_RUNTIME_LIB_PATH;
  auto exe = jit::QPEExecutable::load(prog->object, md->numCoeffArgs(),
                                      md->nEst, eo);
  ASSERT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
  auto sym = [&](const char *name) {
    auto a = (*exe)->lookup(name);
    EXPECT_TRUE(bool(a)) << name;
    return a ? *a : nullptr;
  };
  auto setMode = reinterpret_cast<int32_t (*)(int32_t)>(
      sym("q2_rt_set_subspace_mode"));
  auto pathStats =
      reinterpret_cast<int64_t (*)(Q2PathStat *)>(sym("q2_rt_path_stats"));
  auto resetPath = reinterpret_cast<void (*)()>(sym("q2_rt_reset_path_stats"));
  ASSERT_TRUE(setMode && pathStats && resetPath);
  llvm::ArrayRef<double> coeffs =
      md->numCoeffArgs() ? llvm::ArrayRef<double>(md->defaultCoeffs)
                         : llvm::ArrayRef<double>();
  int32_t prev = setMode(0);
  auto ref = (*exe)->run(coeffs);
  setMode(2);
  resetPath();
  auto got = (*exe)->run(coeffs);
  Q2PathStat st{};
  bool resolved = pathStats(&st) != 0;
  setMode(prev);
  ASSERT_TRUE(bool(ref)) << llvm::toString(ref.takeError());
  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
  ASSERT_TRUE(resolved);
  if (c.powerBlocks) {
    EXPECT_EQ(st.path, c.power == qpe::Power::Repeat ? Q2_PATH_EIGENPHASES
                                                     : Q2_PATH_LIVE_SUBSPACE)
        << st.note;
  }
  ASSERT_EQ(got->size(), ref->size());
  double sum = 0, refSum = 0;
  for (size_t i = 0; i < ref->size(); ++i) {
    EXPECT_NEAR((*got)[i], (*ref)[i], 1e-9) << "outcome " << i;
    sum += (*got)[i];
    refSum += (*ref)[i];
  }
  EXPECT_NEAR(sum, 1.0, 1e-10);
  EXPECT_NEAR(refSum, 1.0, 1e-10);
}

std::vector<SubspaceCase> subspaceCases() {
  std::vector<SubspaceCase> out;
  // Every combination up to NORB 5 (live subspaces up to 2^8 states); NORB 6
  // (2^10: seconds per eigendecomposition) in two of them.
  for (unsigned norb = 2; norb <= 5; ++norb)
    for (qpe::Mode mode : {qpe::Mode::Fixed, qpe::Mode::Dynamic})
      for (unsigned order : {1u, 2u})
        for (qpe::Power power : {qpe::Power::Repeat, qpe::Power::Time})
          out.push_back({norb, mode, order, power});
  out.push_back({6, qpe::Mode::Dynamic, 2, qpe::Power::Repeat});
  out.push_back({6, qpe::Mode::Fixed, 1, qpe::Power::Time});
  // Decomposed rotations (folded back by the runtime), and the fallback: no
  // powered blocks, every gate on the tape until it overflows.
  out.push_back({4, qpe::Mode::Dynamic, 2, qpe::Power::Repeat, false});
  out.push_back({3, qpe::Mode::Fixed, 2, qpe::Power::Repeat, true, false});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Random, SubspacePaths,
                         testing::ValuesIn(subspaceCases()), subspaceCaseName);

} // namespace

namespace {

/// A metadata record of `nSys` system qubits whose words flip qubits
/// 0..d-1 one at a time (a live subspace of 2^d states).
qpe::QPEMetadata spanMetadata(unsigned nSys, unsigned nEst, unsigned d,
                              qpe::Power power) {
  qpe::QPEMetadata md;
  md.molecule = "span";
  md.nSystem = nSys;
  md.nEst = nEst;
  md.nTrotter = 1;
  md.order = 1;
  md.power = power;
  md.baseTime = 1;
  md.resolution = 0.1;
  md.words.push_back(std::string(nSys, 'I'));
  for (unsigned q = 0; q < d; ++q) {
    std::string w(nSys, 'Z');
    w[q] = 'X';
    md.words.push_back(w);
  }
  md.nTerms = unsigned(md.words.size());
  md.defaultCoeffs.assign(md.words.size(), 0.5);
  return md;
}

std::string refusal(const qpe::QPEMetadata &md, int64_t maxQubits) {
  llvm::Error e = jit::checkRunnable(md, maxQubits);
  return e ? llvm::toString(std::move(e)) : std::string();
}

TEST(SubspaceLimits, HostAcceptsWhatASubspacePathRuns) {
  EXPECT_EQ(jit::liveSystemQubits(spanMetadata(20, 4, 7, qpe::Power::Repeat)),
            7);
  // 44 qubits: far above any machine's state vector, but the eigenphase
  // path holds 2^4 x 2^4 matrices.
  EXPECT_EQ(refusal(spanMetadata(40, 4, 4, qpe::Power::Repeat), 0), "");
  // power = time: the live-subspace register of 2^(4 + 4) amplitudes.
  EXPECT_EQ(refusal(spanMetadata(40, 4, 4, qpe::Power::Time), 0), "");
  // An explicit --max-qubits caps the register whatever the path.
  std::string msg = refusal(spanMetadata(40, 4, 4, qpe::Power::Repeat), 30);
  EXPECT_NE(msg.find("the limit is 30 qubits (--max-qubits)"),
            std::string::npos)
      << msg;
}

TEST(SubspaceLimits, RefusalNamesTheLiveSubspace) {
  // 2^40 system states: beyond both paths on any machine.
  std::string msg = refusal(spanMetadata(50, 4, 40, qpe::Power::Repeat), 0);
  EXPECT_NE(msg.find("the program needs 54 qubits"), std::string::npos) << msg;
  EXPECT_NE(msg.find("live subspace (the span of the Pauli words' X parts) "
                     "has 2^40 states: above the eigenphase path's limit"),
            std::string::npos)
      << msg;
  msg = refusal(spanMetadata(50, 4, 40, qpe::Power::Time), 0);
  EXPECT_NE(msg.find("needs the powers of one unitary"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("2^(4 + 40) amplitudes"), std::string::npos) << msg;
}

} // namespace

namespace {

// The host's view through jit::Circuit: an 18-qubit register (NORB 5 + 8
// wires) is deferred by default; the call's path record and the blocks say
// eigenphases and D, and survive the report's JSON.
TEST(SubspaceHost, CircuitReportsThePath) {
  qpe::QPEOptions o;
  o.nTrotter = 2;
  auto prog = compileRandom(5, 4, 77, 8, o, pipeline::PipelineOptions());
  ASSERT_TRUE(bool(prog)) << llvm::toString(prog.takeError());
  const qpe::QPEMetadata *md = &prog->md;
  ASSERT_EQ(md->numQubits(), 18u);
  auto c = jit::Circuit::load(prog->object, *md, Q2_RUNTIME_LIB_PATH);
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  (*c)->resetBlockStats();
  auto r = (*c)->call();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_NEAR(r->probSum, 1.0, 1e-10);
  auto path = (*c)->lastPath();
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(path->path, "eigenphases") << path->note;
  EXPECT_EQ(path->qubits, 18);
  EXPECT_EQ(path->subspaceDim, int64_t(1) << jit::liveSystemQubits(*md));
  EXPECT_NE(path->note.find("closed form"), std::string::npos) << path->note;
  auto blocks = (*c)->blockStats();
  ASSERT_EQ(blocks.size(), size_t(8)); // one per wire (counts differ)
  EXPECT_EQ(blocks[0].method, "eigenphases");
  EXPECT_EQ(blocks[0].path.value_or(""), "eigenphases");
  EXPECT_EQ(blocks[0].subspaceDim.value_or(0), path->subspaceDim);
  EXPECT_EQ(blocks[1].reused, 1);
  // The report's JSON keeps them.
  profiling::PhaseCSetRecord set;
  set.execution = path;
  set.peakRSS = 123;
  set.blocks = blocks;
  auto back = profiling::fromJSONText<profiling::PhaseCSetRecord>(
      profiling::toJSONText(set));
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  ASSERT_TRUE(back->execution.has_value());
  EXPECT_EQ(back->execution->path, "eigenphases");
  EXPECT_EQ(back->execution->subspaceDim, path->subspaceDim);
  EXPECT_EQ(back->peakRSS.value_or(0), 123u);
  EXPECT_EQ(back->blocks[0].subspaceDim, blocks[0].subspaceDim);
}

} // namespace
