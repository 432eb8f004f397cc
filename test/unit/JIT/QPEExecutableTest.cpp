//===- QPEExecutableTest.cpp - JIT execution against dense simulation -----===//
//
// Every expected value here comes from an independent dense computation
// (Kronecker products of 2x2 matrices, Eigen eigensolvers), never from the
// runtime or the compiler.
//
//===----------------------------------------------------------------------===//
#include "UnitTestUtil.h"
#include "q2/JIT/QPEExecutable.h"

#include "q2/QPE/QPEParameters.h"
#include "q2/Hamiltonian/QubitHamiltonian.h"
#include "q2/InitQ2.h"
#include "q2/Pipeline/Pipeline.h"
#include "q2/Dialect/QPE/IR/QPEDialect.h"
#include "q2/ProgramBuilder/QPEProgram.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <complex>
#include <cstring>
#include <cstdlib>
#include <mutex>

using namespace q2;
using cd = std::complex<double>;
using Mat = Eigen::MatrixXcd;
using Mat2 = Eigen::Matrix2cd;

namespace {

const cd I1(0, 1);

struct Env {
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> ctx;
  Env() {
    static std::once_flag once;
    std::call_once(once, [] { registerQ2Passes(); });
    registerQ2Dialects(registry);
    ctx = std::make_unique<mlir::MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
  }
};

/// Decodes `probs` (2^nEst entries) for a program with this time step and
/// shift, through lib/QPE's decoder.
qpe::QPEResult decodeWith(std::vector<double> probs, double baseTime,
                          double shift) {
  qpe::QPEMetadata md;
  md.baseTime = baseTime;
  md.energyShift = shift;
  md.nEst = 0;
  while ((size_t(1) << md.nEst) < probs.size())
    ++md.nEst;
  return qpe::decode(std::move(probs), md);
}

jit::ExecutableOptions runtimeOpts() {
  jit::ExecutableOptions o;
  o.runtimeLibrary = Q2_RUNTIME_LIB_PATH;
  return o;
}

//===----------------------------------------------------------------------===//
// Dense reference: qubit k is bit k of the index, so the full operator is
// op[n-1] (x) ... (x) op[0].
//===----------------------------------------------------------------------===//
Mat kron(const Mat &a, const Mat &b) {
  Mat r(a.rows() * b.rows(), a.cols() * b.cols());
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      r.block(i * b.rows(), j * b.cols(), b.rows(), b.cols()) = a(i, j) * b;
  return r;
}
Mat kronAll(const std::vector<Mat2> &perQubit) {
  Mat m = Mat::Identity(1, 1);
  for (int k = int(perQubit.size()) - 1; k >= 0; --k)
    m = kron(m, perQubit[k]);
  return m;
}
Mat2 pauli(char c) {
  Mat2 m;
  switch (c) {
  case 'X': m << 0, 1, 1, 0; break;
  case 'Y': m << 0, -I1, I1, 0; break;
  case 'Z': m << 1, 0, 0, -1; break;
  default: m = Mat2::Identity();
  }
  return m;
}
/// `u` on `targets` (u is a tensor product given per target), controlled on
/// `ctrls`: I - P + P * U with P the projector onto all controls = |1>.
Mat controlled(unsigned n, const std::vector<std::pair<unsigned, Mat2>> &u,
               const std::vector<unsigned> &ctrls) {
  std::vector<Mat2> proj(n, Mat2::Identity()), ops(n, Mat2::Identity());
  Mat2 p1;
  p1 << 0, 0, 0, 1;
  for (unsigned c : ctrls)
    proj[c] = p1;
  for (auto &[t, m] : u)
    ops[t] = m;
  Mat p = kronAll(proj);
  Mat id = Mat::Identity(p.rows(), p.cols());
  return id - p + p * kronAll(ops);
}
/// exp(-i theta/2 P) = cos(theta/2) I - i sin(theta/2) P, P a Pauli word on
/// `targets` (letter k on targets[k]), with controls.
Mat pauliRot(unsigned n, double theta, const std::string &word,
             const std::vector<unsigned> &targets,
             const std::vector<unsigned> &ctrls) {
  std::vector<Mat2> ops(n, Mat2::Identity()), proj(n, Mat2::Identity());
  for (size_t k = 0; k < word.size(); ++k)
    ops[targets[k]] = pauli(word[k]);
  Mat2 p1;
  p1 << 0, 0, 0, 1;
  for (unsigned c : ctrls)
    proj[c] = p1;
  Mat pw = kronAll(ops), p = kronAll(proj);
  Mat id = Mat::Identity(pw.rows(), pw.cols());
  Mat rot = std::cos(theta / 2) * id - I1 * std::sin(theta / 2) * pw;
  return id - p + p * rot;
}
Mat2 gateH() {
  Mat2 m;
  m << 1, 1, 1, -1;
  return m / std::sqrt(2.0);
}
Mat2 gateRZ(double t) {
  Mat2 m;
  m << std::exp(-I1 * (t / 2)), 0, 0, std::exp(I1 * (t / 2));
  return m;
}
Mat2 gateRY(double t) {
  Mat2 m;
  m << std::cos(t / 2), -std::sin(t / 2), std::sin(t / 2), std::cos(t / 2);
  return m;
}
Mat2 gatePhase(double p) {
  Mat2 m;
  m << 1, 0, 0, std::exp(I1 * p);
  return m;
}

/// Marginal probabilities of `qubits`, first listed = most significant bit.
/// Largest |a[i] - b[i]| (the sizes must match).
double maxAbsDiff(const std::vector<double> &a, const std::vector<double> &b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

std::vector<double> marginal(const Eigen::VectorXcd &psi,
                             const std::vector<unsigned> &qubits) {
  std::vector<double> p(size_t(1) << qubits.size(), 0.0);
  for (Eigen::Index i = 0; i < psi.size(); ++i) {
    size_t idx = 0;
    for (unsigned q : qubits)
      idx = (idx << 1) | ((uint64_t(i) >> q) & 1);
    p[idx] += std::norm(psi[i]);
  }
  return p;
}

//===----------------------------------------------------------------------===//
// (1) A small hand-written circuit.
//===----------------------------------------------------------------------===//
const char *kSmallCircuit = R"mlir(
func.func @qpe() -> tensor<4xf64> attributes {llvm.emit_c_interface} {
  %ry = arith.constant 0.9 : f64
  %r = quantum.alloc(3) : !quantum.reg
  %q0 = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
  %q1 = quantum.extract %r[1] : !quantum.reg -> !quantum.bit
  %q2 = quantum.extract %r[2] : !quantum.reg -> !quantum.bit
  %a0 = quantum.custom "H"() %q0 : !quantum.bit
  %b0, %b1 = quantum.custom "CNOT"() %a0, %q1 : !quantum.bit, !quantum.bit
  %c1 = quantum.custom "RY"(%ry) %b1 adj : !quantum.bit
  %t = arith.constant 0.3 : f64
  %d2, %d1 = quantum.custom "RZ"(%t) %q2 ctrls(%c1) : !quantum.bit ctrls !quantum.bit
  %e2 = quantum.custom "H"() %d2 : !quantum.bit
  %th = arith.constant 0.7 : f64
  %f0, %f2 = quantum.pauli_rot "@WORD@"(%th) %b0, %e2 : !quantum.bit, !quantum.bit
  %ph = arith.constant 1.1 : f64
  %g1, %gc:2 = quantum.custom "PhaseShift"(%ph) %d1 ctrls(%f0, %f2) : !quantum.bit ctrls !quantum.bit, !quantum.bit
  %th2 = arith.constant -0.45 : f64
  %h0, %h1, %h2 = quantum.pauli_rot "ZX"(%th2) %gc#0, %g1 ctrls(%gc#1) : !quantum.bit, !quantum.bit ctrls !quantum.bit
  %r1 = quantum.insert %r[0], %h0 : !quantum.reg, !quantum.bit
  %r2 = quantum.insert %r1[1], %h1 : !quantum.reg, !quantum.bit
  %r3 = quantum.insert %r2[2], %h2 : !quantum.reg, !quantum.bit
  %p = quantum.probs reg %r3[1, 2] : tensor<4xf64>
  quantum.dealloc %r3 : !quantum.reg
  return %p : tensor<4xf64>
}
)mlir";

/// The same circuit, densely. probs reg %r[1, 2] = qubits (1, 2), 1 = MSB.
std::vector<double> smallCircuitReference(const std::string &word) {
  const unsigned n = 3;
  const double ry = 0.9;
  Eigen::VectorXcd psi = Eigen::VectorXcd::Zero(8);
  psi[0] = 1;
  std::vector<Mat> ops = {
      controlled(n, {{0, gateH()}}, {}),
      controlled(n, {{1, pauli('X')}}, {0}),
      controlled(n, {{1, gateRY(ry).adjoint()}}, {}),
      controlled(n, {{2, gateRZ(0.3)}}, {1}),
      controlled(n, {{2, gateH()}}, {}),
      pauliRot(n, 0.7, word, {0, 2}, {}),
      controlled(n, {{1, gatePhase(1.1)}}, {0, 2}),
      pauliRot(n, -0.45, "ZX", {0, 1}, {2}),
  };
  for (const Mat &op : ops)
    psi = op * psi;
  return marginal(psi, {1, 2});
}

std::string smallCircuit(const std::string &word) {
  std::string src = kSmallCircuit;
  src.replace(src.find("@WORD@"), 6, word);
  return src;
}

/// (keep native Pauli rotations, word of the first rotation)
class SmallCircuit
    : public ::testing::TestWithParam<std::tuple<bool, std::string>> {};

TEST_P(SmallCircuit, MatchesDenseSimulation) {
  auto [keepNative, word] = GetParam();
  // Odd-Y words guard the sign of the Y basis change in
  // quantum-decompose-pauli-rot (Jordan-Wigner terms only have even Y counts).
  Env env;
  std::string src = smallCircuit(word);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(src, env.ctx.get());
  ASSERT_TRUE(module);
  pipeline::PipelineOptions opts;
  opts.keepNativePauli = keepNative;
  auto obj = pipeline::compileToObject(*module, opts);
  ASSERT_TRUE(bool(obj)) << llvm::toString(obj.takeError());

  auto exe = jit::QPEExecutable::load(*obj, 0, 2, runtimeOpts());
  ASSERT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
  auto probs = (*exe)->run();
  ASSERT_TRUE(bool(probs)) << llvm::toString(probs.takeError());

  std::vector<double> ref = smallCircuitReference(word);
  ASSERT_EQ(probs->size(), ref.size());
  double sum = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    EXPECT_NEAR((*probs)[i], ref[i], 1e-12) << "outcome " << i;
    sum += (*probs)[i];
  }
  EXPECT_NEAR(sum, 1.0, 1e-10);
  // The reference is not trivial (guards against a vacuous comparison).
  EXPECT_GT(*std::max_element(ref.begin(), ref.end()) -
                *std::min_element(ref.begin(), ref.end()),
            0.05);

  // A second call on the same object starts from |000> again.
  auto again = (*exe)->run();
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  for (size_t i = 0; i < ref.size(); ++i)
    EXPECT_EQ((*again)[i], (*probs)[i]);
}

INSTANTIATE_TEST_SUITE_P(
    PauliModes, SmallCircuit,
    ::testing::Combine(::testing::Bool(), ::testing::Values(std::string("XY"), std::string("YY"))),
    [](const auto &info) {
      return std::string(std::get<0>(info.param) ? "KeepNative" : "Decompose") +
             std::get<1>(info.param);
    });

//===----------------------------------------------------------------------===//
// (2) The generated H2 QPE program.
//===----------------------------------------------------------------------===//
constexpr double kH2Exact = -1.1372701747;

std::string h2Path() {
  const char *src = std::getenv("Q2_SOURCE_DIR");
  return std::string(src ? src : ".") +
         "/examples/hamiltonians/h2_0.7414.FCIDUMP";
}

Mat denseWord(const std::string &word) {
  std::vector<Mat2> ops;
  for (char c : word)
    ops.push_back(pauli(c));
  return kronAll(ops); // letter i acts on qubit i = bit i
}

/// P * m for a Pauli word P, without building P: P|c> = phase(c) |c ^ x>
/// with X|b> = |1-b>, Y|0> = i|1>, Y|1> = -i|0>, Z|b> = (-1)^b |b>.
Mat pauliTimes(const std::string &word, const Mat &m) {
  uint64_t xmask = 0;
  for (size_t q = 0; q < word.size(); ++q)
    if (word[q] == 'X' || word[q] == 'Y')
      xmask |= uint64_t(1) << q;
  Mat r(m.rows(), m.cols());
  for (Eigen::Index c = 0; c < m.rows(); ++c) {
    cd ph = 1;
    for (size_t q = 0; q < word.size(); ++q) {
      bool bit = (uint64_t(c) >> q) & 1;
      if (word[q] == 'Y')
        ph *= bit ? -I1 : I1;
      else if (word[q] == 'Z' && bit)
        ph = -ph;
    }
    r.row(Eigen::Index(uint64_t(c) ^ xmask)) = ph * m.row(c);
  }
  return r;
}

/// exp(-i c tau P) * m (identity: a scalar phase).
Mat termExpTimes(const std::string &word, double c, double tau, const Mat &m) {
  if (word.find_first_not_of('I') == std::string::npos)
    return std::exp(-I1 * (c * tau)) * m;
  return std::cos(c * tau) * m - I1 * std::sin(c * tau) * pauliTimes(word, m);
}

/// One order-2 (symmetric) Trotter step of length tau:
/// prod_{j=1..L} e^{-i c_j tau/2 P_j} * prod_{j=L..1} e^{-i c_j tau/2 P_j}.
Mat trotter2(const std::vector<hamiltonian::PauliTerm> &terms, double tau) {
  Eigen::Index dim = Eigen::Index(1) << terms[0].word.size();
  Mat u = Mat::Identity(dim, dim);
  for (const auto &t : terms)
    u = termExpTimes(t.word, t.coeff, tau / 2, u);
  for (auto it = terms.rbegin(); it != terms.rend(); ++it)
    u = termExpTimes(it->word, it->coeff, tau / 2, u);
  return u;
}

/// The whole QPE densely: system state `psi0`, estimation wire k applies
/// V_k (k ascending), then the inverse QFT. With W(tau) either the exact
/// exp(-i (H - shift) tau) or its order-2 Trotter form
/// S2(tau / n_trotter)^n_trotter times the shift phase,
/// power = time:   V_k = W(2^k t)            (the step grows with k),
/// power = repeat: V_k = W(t)^(2^k).
/// probs[m] = || 2^-n sum_x e^{-2 pi i x m / 2^n} psi_x ||^2 with psi_x the
/// system state after the V_k of the set bits of x.
std::vector<double> denseQPE(const std::vector<hamiltonian::PauliTerm> &terms,
                             double t, double shift, unsigned nEst,
                             unsigned nTrotter, qpe::Power power,
                             const Eigen::VectorXcd &psi0, bool exact,
                             const std::vector<unsigned> &wireSteps = {}) {
  Eigen::Index dim = psi0.size();
  Mat H = Mat::Zero(dim, dim);
  for (const auto &term : terms)
    H += term.coeff * denseWord(term.word);
  Eigen::SelfAdjointEigenSolver<Mat> es(H);
  // V_k = phase[k] * v[k]^reps[k]: the Trotterized power = time case keeps
  // the step matrix and applies it n_trotter times to vectors (cheaper than
  // forming the power for the 256-dimensional examples).
  std::vector<Mat> v(nEst);
  std::vector<unsigned> reps(nEst, 1);
  std::vector<cd> phase(nEst, 1.0);
  auto exactW = [&](double tau) -> Mat {
    Eigen::VectorXcd ph(dim);
    for (Eigen::Index j = 0; j < dim; ++j)
      ph[j] = std::exp(-I1 * ((es.eigenvalues()[j] - shift) * tau));
    return es.eigenvectors() * ph.asDiagonal() * es.eigenvectors().adjoint();
  };
  auto trotterW = [&](double tau) -> Mat {
    Mat step = trotter2(terms, tau / nTrotter);
    Mat r = std::exp(I1 * (shift * tau)) * Mat::Identity(dim, dim);
    for (unsigned s = 0; s < nTrotter; ++s)
      r = step * r;
    return r;
  };
  for (unsigned k = 0; k < nEst; ++k) {
    double tau = std::ldexp(t, int(k));
    if (power == qpe::Power::Time && exact) {
      v[k] = exactW(tau);
    } else if (power == qpe::Power::Time) {
      unsigned nk = wireSteps.empty() ? nTrotter : wireSteps[k];
      v[k] = trotter2(terms, tau / nk);
      reps[k] = nk;
      phase[k] = std::exp(I1 * (shift * tau));
    } else {
      v[k] = k == 0 ? (exact ? exactW(t) : trotterW(t))
                    : Mat(v[k - 1] * v[k - 1]);
    }
  }
  size_t n = size_t(1) << nEst;
  std::vector<Eigen::VectorXcd> psi(n);
  psi[0] = psi0;
  for (size_t x = 1; x < n; ++x) {
    unsigned hk = 63 - __builtin_clzll(x);
    Eigen::VectorXcd y = psi[x ^ (size_t(1) << hk)];
    for (unsigned r = 0; r < reps[hk]; ++r)
      y = v[hk] * y;
    psi[x] = phase[hk] * y;
  }
  std::vector<double> probs(n);
  for (size_t m = 0; m < n; ++m) {
    Eigen::VectorXcd amp = Eigen::VectorXcd::Zero(dim);
    for (size_t x = 0; x < n; ++x)
      amp += std::exp(-I1 * (2 * M_PI * double((x * m) % n) / double(n))) *
             psi[x];
    probs[m] = amp.squaredNorm() / double(n * n);
  }
  return probs;
}

Eigen::VectorXcd hfStateOf(const hamiltonian::QubitHamiltonian &h) {
  Eigen::VectorXcd psi0 = Eigen::VectorXcd::Zero(Eigen::Index(1) << h.numQubits);
  size_t hf = 0;
  for (unsigned i = 0; i < h.hfOccupation.size(); ++i)
    if (h.hfOccupation[i])
      hf |= size_t(1) << i;
  psi0[hf] = 1;
  return psi0;
}

/// Ground energy of the dense H: the eigenvector with the largest overlap
/// with the HF determinant (its (N, Sz) sector).
double denseGroundEnergyOf(const hamiltonian::QubitHamiltonian &h) {
  Eigen::Index dim = Eigen::Index(1) << h.numQubits;
  Mat H = Mat::Zero(dim, dim);
  for (const auto &t : h.terms)
    H += t.coeff * denseWord(t.word);
  Eigen::SelfAdjointEigenSolver<Mat> es(H);
  Eigen::VectorXcd hf = hfStateOf(h);
  Eigen::Index g = 0;
  for (Eigen::Index j = 0; j < es.eigenvalues().size(); ++j)
    if (std::abs(es.eigenvectors().col(j).dot(hf)) >
        std::abs(es.eigenvectors().col(g).dot(hf)))
      g = j;
  return es.eigenvalues()[g];
}

struct Compiled {
  qpe::QPEMetadata md;
  std::unique_ptr<jit::QPEExecutable> exe;
};
Compiled compileQPE(mlir::MLIRContext &ctx,
                    const hamiltonian::QubitHamiltonian &h,
                    const hamiltonian::QPEParameters &params, qpe::Mode mode,
                    qpe::Power power, unsigned nTrotter, bool keepNative) {
  qpe::QPEOptions o;
  o.mode = mode;
  o.order = 2;
  o.nTrotter = nTrotter;
  o.power = power;
  auto module = qpe::buildQPEProgram(ctx, h, params, o);
  EXPECT_TRUE(bool(module)) << llvm::toString(module.takeError());
  if (!module)
    return {};
  auto md = qpe::readQPEMetadata(**module);
  EXPECT_TRUE(bool(md)) << llvm::toString(md.takeError());
  if (!md)
    return {};
  pipeline::PipelineOptions popts;
  popts.keepNativePauli = keepNative;
  auto obj = pipeline::compileToObject(**module, popts);
  EXPECT_TRUE(bool(obj)) << llvm::toString(obj.takeError());
  if (!obj)
    return {};
  unsigned nc = mode == qpe::Mode::Dynamic ? md->nTerms : 0;
  auto exe = jit::QPEExecutable::load(*obj, nc, md->nEst, runtimeOpts());
  EXPECT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
  if (!exe)
    return {};
  return {*md, std::move(*exe)};
}

llvm::Expected<std::vector<double>> runDefaultCoeffs(Compiled &c) {
  return c.exe->run(c.md.mode == qpe::Mode::Dynamic
                        ? llvm::ArrayRef<double>(c.md.defaultCoeffs)
                        : llvm::ArrayRef<double>());
}

struct H2Fixture : ::testing::Test {
  Env env;
  hamiltonian::QubitHamiltonian h;
  hamiltonian::QPEParameters params{};
  static constexpr unsigned kNEst = 8, kNTrotter = 10, kOrder = 2;

  void SetUp() override {
    auto ham = hamiltonian::loadHamiltonian(h2Path());
    ASSERT_TRUE(bool(ham)) << llvm::toString(ham.takeError());
    h = std::move(*ham);
    auto p = hamiltonian::computeQPEParameters(h, kNEst);
    ASSERT_TRUE(bool(p)) << llvm::toString(p.takeError());
    params = *p;
  }

  Eigen::VectorXcd hfState() const { return hfStateOf(h); }
  double denseGroundEnergy() const { return denseGroundEnergyOf(h); }
  Compiled compile(qpe::Mode mode, qpe::Power power, bool keepNative = true) {
    return compileQPE(*env.ctx, h, params, mode, power, kNTrotter, keepNative);
  }
  llvm::Expected<std::vector<double>> runDefault(Compiled &c) {
    return runDefaultCoeffs(c);
  }

  /// Trotter error bound for power = repeat. Every wire applies powers of the
  /// same W = S2(dt)^n_trotter (dt = t / n_trotter), so the circuit is exact
  /// QPE of W, and W's eigenphases are n_trotter times those of one step
  /// S2(dt). For every eigenvector of S2(dt) we take the exact eigenpair of
  /// H it overlaps most and the phase difference
  /// Delta = arg(lambda_S2 * conj(e^{-i E dt})); an eigenphase error Delta per
  /// step is an energy error Delta / dt. Bound = max over all eigenvectors
  /// (state independent).
  double trotterBoundRepeat() const {
    Eigen::Index dim = Eigen::Index(1) << h.numQubits;
    Mat H = Mat::Zero(dim, dim);
    for (const auto &t : h.terms)
      H += t.coeff * denseWord(t.word);
    Eigen::SelfAdjointEigenSolver<Mat> es(H);
    double dt = params.baseTime / kNTrotter;
    Eigen::ComplexEigenSolver<Mat> ces(trotter2(h.terms, dt));
    double bound = 0;
    for (Eigen::Index j = 0; j < dim; ++j) {
      Eigen::VectorXcd wj = ces.eigenvectors().col(j);
      Eigen::Index best = 0;
      for (Eigen::Index i = 0; i < dim; ++i)
        if (std::abs(es.eigenvectors().col(i).dot(wj)) >
            std::abs(es.eigenvectors().col(best).dot(wj)))
          best = i;
      cd exact = std::exp(-I1 * (es.eigenvalues()[best] * dt));
      double delta = std::arg(ces.eigenvalues()[j] * std::conj(exact));
      bound = std::max(bound, std::abs(delta) / dt);
    }
    return bound;
  }
};

// power = repeat: energy within resolution + the one-step eigenphase bound.
TEST_F(H2Fixture, EnergyWithinResolutionPlusTrotterBound) {
  double e0 = denseGroundEnergy();
  EXPECT_NEAR(e0, kH2Exact, 1e-6); // the dense H reproduces the FCI energy
  double bound = trotterBoundRepeat();
  // Stated bound (printed): ~1e-4 Ha here, far below the resolution; it must
  // at least be small enough to make the check meaningful.
  EXPECT_LT(bound, params.resolution);
  std::printf("H2 (power=repeat): resolution %.6g Ha, Trotter bound %.3g Ha\n",
              params.resolution, bound);
  for (qpe::Mode mode : {qpe::Mode::Fixed, qpe::Mode::Dynamic}) {
    auto c = compile(mode, qpe::Power::Repeat);
    ASSERT_TRUE(c.exe);
    auto probs = runDefault(c);
    ASSERT_TRUE(bool(probs)) << llvm::toString(probs.takeError());
    ASSERT_EQ(probs->size(), size_t(1) << kNEst);
    qpe::QPEResult r = qpe::decode(std::move(*probs), c.md);
    EXPECT_NEAR(r.probSum, 1.0, 1e-10);
    EXPECT_NEAR(r.energy, kH2Exact, params.resolution + bound)
        << qpe::toString(mode).str() << ": m = " << r.argmax;
    std::printf("  %s: m = %llu, E = %.6f Ha\n", qpe::toString(mode).data(),
                (unsigned long long)r.argmax, r.energy);
  }
}

// power = time (the default): wire k uses Trotter steps of 2^k dt, so the
// high wires are far outside the Trotter regime and no one-step bound
// applies. The Trotter error of the readout is computed exactly instead:
// the dense Trotterized QPE against the dense exact-U QPE; the JIT must
// reproduce the dense Trotterized distribution.
TEST_F(H2Fixture, PowerTimeMatchesDenseTrotterizedQPE) {
  Eigen::VectorXcd psi0 = hfState();
  std::vector<double> ref =
      denseQPE(h.terms, params.baseTime, params.energyShift, kNEst, kNTrotter,
               qpe::Power::Time, psi0, /*exact=*/false);
  std::vector<double> ideal =
      denseQPE(h.terms, params.baseTime, params.energyShift, kNEst, kNTrotter,
               qpe::Power::Time, psi0, /*exact=*/true);
  qpe::QPEResult rRef = decodeWith(ref, params.baseTime, params.energyShift);
  qpe::QPEResult rIdeal =
      decodeWith(ideal, params.baseTime, params.energyShift);
  // The exact-U QPE is within the resolution (validates denseQPE itself).
  EXPECT_NEAR(rIdeal.energy, kH2Exact, params.resolution);
  double trotterShift = std::abs(rRef.energy - rIdeal.energy);
  std::printf("H2 (power=time): dense Trotter QPE m = %llu E = %.6f; exact-U "
              "QPE m = %llu E = %.6f; Trotter readout error %.4f Ha\n",
              (unsigned long long)rRef.argmax, rRef.energy,
              (unsigned long long)rIdeal.argmax, rIdeal.energy, trotterShift);
  for (qpe::Mode mode : {qpe::Mode::Fixed, qpe::Mode::Dynamic}) {
    auto c = compile(mode, qpe::Power::Time);
    ASSERT_TRUE(c.exe);
    auto probs = runDefault(c);
    ASSERT_TRUE(bool(probs)) << llvm::toString(probs.takeError());
    EXPECT_LT(maxAbsDiff(*probs, ref), 1e-10) << qpe::toString(mode).str();
    qpe::QPEResult r = qpe::decode(std::move(*probs), c.md);
    EXPECT_NEAR(r.probSum, 1.0, 1e-10);
    EXPECT_NEAR(r.energy, kH2Exact, params.resolution + trotterShift);
  }
}

// power = repeat against the dense simulation too (distribution, 1e-10),
// with native and with decomposed Pauli rotations.
TEST_F(H2Fixture, PowerRepeatMatchesDenseTrotterizedQPE) {
  std::vector<double> ref =
      denseQPE(h.terms, params.baseTime, params.energyShift, kNEst, kNTrotter,
               qpe::Power::Repeat, hfState(), /*exact=*/false);
  for (bool keepNative : {true, false}) {
    auto c = compile(qpe::Mode::Dynamic, qpe::Power::Repeat, keepNative);
    ASSERT_TRUE(c.exe);
    auto probs = runDefault(c);
    ASSERT_TRUE(bool(probs)) << llvm::toString(probs.takeError());
    EXPECT_LT(maxAbsDiff(*probs, ref), 1e-10)
        << (keepNative ? "native" : "decomposed");
  }
}

// A per-wire step table (power = time, as --n-trotter auto writes it): the
// JIT distribution equals the dense QPE with those steps on each wire, and
// the metadata holds the table with n_trotter its largest entry.
TEST_F(H2Fixture, PerWireStepsMatchDenseTrotterizedQPE) {
  // Unrolled: a short table (unrolled programs do not compile in linear
  // time yet).
  for (auto [unroll, steps] :
       {std::pair<bool, std::vector<unsigned>>{
            false, {1, 2, 3, 5, 8, 13, 21, 34}},
        {true, {1, 2, 1, 1, 1, 1, 1, 3}}}) {
    std::vector<double> ref =
        denseQPE(h.terms, params.baseTime, params.energyShift, kNEst, 0,
                 qpe::Power::Time, hfState(), /*exact=*/false, steps);
    qpe::QPEOptions o;
    o.mode = qpe::Mode::Dynamic;
    o.order = 2;
    o.power = qpe::Power::Time;
    o.unroll = unroll;
    o.trotterSteps.assign(steps.begin(), steps.end());
    auto module = qpe::buildQPEProgram(*env.ctx, h, params, o);
    ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
    auto md = qpe::readQPEMetadata(**module);
    ASSERT_TRUE(bool(md)) << llvm::toString(md.takeError());
    EXPECT_EQ(md->nTrotter, *std::max_element(steps.begin(), steps.end()));
    EXPECT_EQ(md->trotterSteps, std::vector<uint64_t>(steps.begin(),
                                                      steps.end()));
    auto obj = pipeline::compileToObject(**module, pipeline::PipelineOptions());
    ASSERT_TRUE(bool(obj)) << llvm::toString(obj.takeError());
    auto exe = jit::QPEExecutable::load(*obj, md->nTerms, md->nEst,
                                        runtimeOpts());
    ASSERT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
    auto probs = (*exe)->run(md->defaultCoeffs);
    ASSERT_TRUE(bool(probs)) << llvm::toString(probs.takeError());
    EXPECT_LT(maxAbsDiff(*probs, ref), 1e-10) << (unroll ? "unrolled" : "rolled");
  }
  // Equal entries collapse to one n_trotter (no table).
  qpe::QPEOptions o;
  o.power = qpe::Power::Time; // written for the builder's old default
  o.trotterSteps.assign(kNEst, 7);
  auto module = qpe::buildQPEProgram(*env.ctx, h, params, o);
  ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
  auto md = qpe::readQPEMetadata(**module);
  ASSERT_TRUE(bool(md)) << llvm::toString(md.takeError());
  EXPECT_EQ(md->nTrotter, 7u);
  EXPECT_TRUE(md->trotterSteps.empty());
  // A table of the wrong size or with a zero is refused.
  o.trotterSteps.assign(kNEst - 1, 7);
  EXPECT_FALSE(bool(qpe::buildQPEProgram(*env.ctx, h, params, o)));
  o.trotterSteps.assign(kNEst, 0);
  auto bad = qpe::buildQPEProgram(*env.ctx, h, params, o);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("Trotter step counts"),
            std::string::npos);
}

TEST_F(H2Fixture, FixedAndDynamicAgreeAndCoefficientsMatter) {
  auto fixed = compile(qpe::Mode::Fixed, qpe::Power::Time);
  auto dyn = compile(qpe::Mode::Dynamic, qpe::Power::Time);
  ASSERT_TRUE(fixed.exe && dyn.exe);
  auto pf = runDefault(fixed);
  ASSERT_TRUE(bool(pf)) << llvm::toString(pf.takeError());
  auto pd = runDefault(dyn);
  ASSERT_TRUE(bool(pd)) << llvm::toString(pd.takeError());
  ASSERT_EQ(pf->size(), pd->size());
  for (size_t i = 0; i < pf->size(); ++i)
    EXPECT_NEAR((*pf)[i], (*pd)[i], 1e-10) << "outcome " << i;

  // Same loaded object, other coefficients: a different distribution; then
  // the defaults again reproduce the first call (no state kept between calls).
  std::vector<double> other = dyn.md.defaultCoeffs;
  for (size_t j = 0; j < other.size(); ++j)
    if (dyn.md.words[j].find_first_not_of('I') != std::string::npos)
      other[j] *= 0.8;
  auto t0 = std::chrono::steady_clock::now();
  auto po = dyn.exe->run(other);
  std::printf("H2 dynamic, power=time: one call %.3f ms\n",
              std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - t0)
                  .count());
  ASSERT_TRUE(bool(po)) << llvm::toString(po.takeError());
  EXPECT_GT(maxAbsDiff(*po, *pd), 1e-3);
  EXPECT_NE(qpe::decode(*po, dyn.md).argmax, qpe::decode(*pd, dyn.md).argmax);
  auto pd2 = runDefault(dyn);
  ASSERT_TRUE(bool(pd2)) << llvm::toString(pd2.takeError());
  for (size_t i = 0; i < pd->size(); ++i)
    EXPECT_EQ((*pd2)[i], (*pd)[i]);
}

// Every shipped FCIDUMP (n_est 8, n_trotter 10, order 2, power = time, both
// modes): the JIT distribution equals the dense Trotterized QPE to 1e-10,
// the dense exact-U QPE decodes to the CASCI energy within the resolution,
// and the JIT energy is within resolution + the (exactly computed) Trotter
// readout error. The CASCI values are examples/hamiltonians/REFERENCE.txt.
class AllExamples
    : public ::testing::TestWithParam<std::pair<std::string, double>> {};

TEST_P(AllExamples, PowerTimeQPEMatchesDenseSimulation) {
  auto [name, casci] = GetParam();
  Env env;
  const char *srcDir = std::getenv("Q2_SOURCE_DIR");
  auto ham = hamiltonian::loadHamiltonian(std::string(srcDir ? srcDir : ".") +
                                          "/examples/hamiltonians/" + name +
                                          ".FCIDUMP");
  ASSERT_TRUE(bool(ham)) << llvm::toString(ham.takeError());
  auto params = hamiltonian::computeQPEParameters(*ham, 8);
  ASSERT_TRUE(bool(params)) << llvm::toString(params.takeError());
  EXPECT_NEAR(denseGroundEnergyOf(*ham), casci, 1e-6);

  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a) {
    return std::chrono::duration<double, std::milli>(Clock::now() - a).count();
  };
  auto tDense = Clock::now();
  Eigen::VectorXcd psi0 = hfStateOf(*ham);
  std::vector<double> ref =
      denseQPE(ham->terms, params->baseTime, params->energyShift, 8, 10,
               qpe::Power::Time, psi0, /*exact=*/false);
  std::vector<double> ideal =
      denseQPE(ham->terms, params->baseTime, params->energyShift, 8, 10,
               qpe::Power::Time, psi0, /*exact=*/true);
  double eRef = decodeWith(ref, params->baseTime, params->energyShift).energy;
  double eIdeal =
      decodeWith(ideal, params->baseTime, params->energyShift).energy;
  EXPECT_NEAR(eIdeal, casci, params->resolution);
  double trotterErr = std::abs(eRef - eIdeal);
  std::printf("%s: dense reference %.0f ms\n", name.c_str(), ms(tDense));
  for (qpe::Mode mode : {qpe::Mode::Fixed, qpe::Mode::Dynamic}) {
    auto tCompile = Clock::now();
    Compiled c = compileQPE(*env.ctx, *ham, *params, mode, qpe::Power::Time,
                            10, /*keepNative=*/true);
    ASSERT_TRUE(c.exe);
    double compileMs = ms(tCompile);
    auto tRun = Clock::now();
    auto probs = runDefaultCoeffs(c);
    std::printf("%s %s: compile+load %.0f ms, one call %.1f ms\n",
                name.c_str(), qpe::toString(mode).data(), compileMs, ms(tRun));
    ASSERT_TRUE(bool(probs)) << llvm::toString(probs.takeError());
    EXPECT_LT(maxAbsDiff(*probs, ref), 1e-10) << qpe::toString(mode).str();
    qpe::QPEResult r = qpe::decode(std::move(*probs), c.md);
    EXPECT_NEAR(r.probSum, 1.0, 1e-10);
    EXPECT_NEAR(r.energy, casci, params->resolution + trotterErr);
    std::printf("%s %s: E = %.6f (CASCI %.6f, resolution %.4f, Trotter "
                "readout error %.4f)\n",
                name.c_str(), qpe::toString(mode).data(), r.energy, casci,
                params->resolution, trotterErr);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Examples, AllExamples,
    ::testing::Values(std::make_pair(std::string("h2_0.7414"), -1.1372701747),
                      std::make_pair(std::string("lih_1.595_2e3o"),
                                     -7.8630777539),
                      std::make_pair(std::string("h3o+_4e4o"), -75.3069193216)),
    [](const auto &info) { return q2::test::testName(info.param.first); });

//===----------------------------------------------------------------------===//
// (3) Errors.
//===----------------------------------------------------------------------===//
struct Errors : ::testing::Test {
  Env env;
  llvm::SmallVector<char, 0> smallObject() {
    std::string src = smallCircuit("XY");
    auto module = mlir::parseSourceString<mlir::ModuleOp>(src, env.ctx.get());
    EXPECT_TRUE(module);
    auto obj = pipeline::compileToObject(*module, pipeline::PipelineOptions());
    EXPECT_TRUE(bool(obj)) << llvm::toString(obj.takeError());
    return obj ? std::move(*obj) : llvm::SmallVector<char, 0>();
  }
};

TEST_F(Errors, UnresolvedRuntimeSymbolIsNamed) {
  auto obj = smallObject();
  ASSERT_FALSE(obj.empty());
  jit::ExecutableOptions o;
  o.runtimeLibrary = "/usr/lib/x86_64-linux-gnu/libm.so.6";
  // Load the real runtime into the process first: it must still not be used.
  ASSERT_TRUE(bool(jit::QPEExecutable::load(obj, 0, 2, runtimeOpts())));
  auto exe = jit::QPEExecutable::load(obj, 0, 2, o);
  ASSERT_FALSE(bool(exe));
  std::string msg = llvm::toString(exe.takeError());
  EXPECT_NE(msg.find("q2_rt_alloc"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Symbols not found"), std::string::npos) << msg;
  std::printf("%s\n", msg.c_str());
}

TEST_F(Errors, MissingRuntimeAndBadObject) {
  jit::ExecutableOptions o;
  o.runtimeLibrary = "/nonexistent/libq2_runtime.so";
  auto obj = smallObject();
  auto exe = jit::QPEExecutable::load(obj, 0, 2, o);
  ASSERT_FALSE(bool(exe));
  EXPECT_NE(llvm::toString(exe.takeError()).find("/nonexistent/libq2_runtime.so"),
            std::string::npos);

  const char garbage[] = "definitely not an ELF object";
  auto bad = jit::QPEExecutable::load(garbage, 0, 2, runtimeOpts());
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("q2-jit"), std::string::npos);
}

TEST_F(Errors, WrongCoefficientCount) {
  auto obj = smallObject();
  auto exe = jit::QPEExecutable::load(obj, 0, 2, runtimeOpts());
  ASSERT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
  auto r = (*exe)->run({1.0, 2.0});
  ASSERT_FALSE(bool(r));
  std::string msg = llvm::toString(r.takeError());
  EXPECT_NE(msg.find("takes 0 coefficient(s), got 2"), std::string::npos) << msg;
}

TEST_F(Errors, RuntimeErrorIsReportedAndCleared) {
  auto obj = smallObject();
  auto exe = jit::QPEExecutable::load(obj, 0, 2, runtimeOpts());
  ASSERT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
  auto setMax = (*exe)->lookup("q2_rt_set_max_qubits");
  ASSERT_TRUE(bool(setMax)) << llvm::toString(setMax.takeError());
  auto fn = reinterpret_cast<int64_t (*)(int64_t)>(*setMax);
  fn(2); // the circuit needs 3
  auto r = (*exe)->run();
  fn(0);
  ASSERT_FALSE(bool(r));
  std::string msg = llvm::toString(r.takeError());
  EXPECT_NE(msg.find("q2_rt_alloc"), std::string::npos) << msg;
  // Cleared: the next call succeeds.
  auto ok = (*exe)->run();
  EXPECT_TRUE(bool(ok)) << llvm::toString(ok.takeError());
}

TEST_F(Errors, DefaultRuntimeLibraryPath) {
  const char *saved = std::getenv("Q2_RUNTIME_LIB");
  std::string savedValue = saved ? saved : "";
  ::setenv("Q2_RUNTIME_LIB", "/some/where/libq2_runtime.so", 1);
  EXPECT_EQ(jit::defaultRuntimeLibrary(), "/some/where/libq2_runtime.so");
  ::unsetenv("Q2_RUNTIME_LIB");
  // The test binary is <build>/unittests/JITTests, the runtime
  // <build>/lib/libq2_runtime.so: the default finds it.
  std::string def = jit::defaultRuntimeLibrary();
  EXPECT_TRUE(llvm::StringRef(def).ends_with("/../lib/libq2_runtime.so"))
      << def;
  auto obj = smallObject();
  auto exe = jit::QPEExecutable::load(obj, 0, 2);
  EXPECT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
  if (saved)
    ::setenv("Q2_RUNTIME_LIB", savedValue.c_str(), 1);
}

// The peak is argmax and its cyclic neighbours; the estimate weights their
// energies E(m + d) = E(m) - d * resolution.
TEST(Decode, PeakMassAndEstimate) {
  qpe::QPEMetadata md;
  md.nEst = 3;
  md.baseTime = 0.5;
  md.energyShift = 2.0;
  md.resolution = 2 * M_PI / (8 * 0.5);
  std::vector<double> p(8, 0.0);
  p[0] = 0.5;
  p[7] = 0.2; // neighbour of 0 as a phase
  p[1] = 0.1;
  p[4] = 0.2;
  qpe::QPEResult r = qpe::decode(p, md);
  EXPECT_EQ(r.argmax, 0u);
  EXPECT_NEAR(r.peakMass, 0.8, 1e-15);
  double e0 = qpe::energyOfOutcome(md, 0);
  EXPECT_NEAR(r.peakEnergy, e0 - (0.1 - 0.2) / 0.8 * md.resolution, 1e-14);
  // Two outcomes only: the other one counts once.
  md.nEst = 1;
  qpe::QPEResult two = qpe::decode({0.75, 0.25}, md);
  EXPECT_NEAR(two.peakMass, 1.0, 1e-15);
}

// The object JSON (q2.qpe/2) keeps the step table, the bound and the
// reference energies; q2.qpe/1 (without them) still reads; others do not.
TEST(ObjectJSON, RoundTripAndOldFormat) {
  qpe::QPEMetadata md;
  md.molecule = "m";
  md.nSystem = 2;
  md.nEst = 3;
  md.nTrotter = 9;
  md.nTerms = 2;
  md.order = 2;
  md.baseTime = 0.5;
  md.energyShift = 1.0;
  md.resolution = 0.1;
  md.words = {"II", "ZZ"};
  md.defaultCoeffs = {0.5, 0.25};
  md.trotterSteps = {2, 4, 9};
  md.trotterBound = 1e-4;
  md.exactEnergy = -1.5;
  md.hfEnergy = -1.25;
  ASSERT_FALSE(bool(md.validate()));
  std::string text = qpe::toObjectJSON(md);
  EXPECT_NE(text.find("\"format\":\"q2.qpe/2\""), std::string::npos) << text;
  auto back = qpe::fromObjectJSON(text, "t");
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->trotterSteps, md.trotterSteps);
  EXPECT_EQ(back->trotterBound, md.trotterBound);
  EXPECT_EQ(back->exactEnergy, md.exactEnergy);
  EXPECT_EQ(back->hfEnergy, md.hfEnergy);
  EXPECT_EQ(back->irScale(), uint64_t(2 + 4 + 9) * 2);

  qpe::QPEMetadata v1 = md;
  v1.trotterSteps.clear();
  v1.trotterBound.reset();
  v1.exactEnergy.reset();
  v1.hfEnergy.reset();
  std::string old = qpe::toObjectJSON(v1);
  old.replace(old.find("q2.qpe/2"), 8, "q2.qpe/1");
  auto readOld = qpe::fromObjectJSON(old, "t");
  ASSERT_TRUE(bool(readOld)) << llvm::toString(readOld.takeError());
  EXPECT_FALSE(readOld->exactEnergy.has_value());
  EXPECT_EQ(readOld->stepsOfWire(2), 9u);
  old.replace(old.find("q2.qpe/1"), 8, "q2.qpe/9");
  auto refused = qpe::fromObjectJSON(old, "t");
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("reads 'q2.qpe/2' and "
                                                      "'q2.qpe/1'"),
            std::string::npos);

  // The rules: n_trotter is the table's largest entry, one entry per wire.
  qpe::QPEMetadata bad = md;
  bad.nTrotter = 4;
  llvm::Error e = bad.validate();
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("largest entry"),
            std::string::npos);
  bad = md;
  bad.trotterSteps = {1, 2};
  llvm::Error e2 = bad.validate();
  ASSERT_TRUE(bool(e2));
  EXPECT_NE(llvm::toString(std::move(e2)).find("trotter_steps has 2 entries"),
            std::string::npos);
}

TEST(Decode, EnergyFormula) {
  // m = 3 of 8: phase 3/8, E = shift - 2 pi (3/8) / t.
  std::vector<double> p(8, 0.0);
  p[3] = 0.7;
  p[5] = 0.3;
  qpe::QPEResult r = decodeWith(p, 0.5, 2.0);
  EXPECT_EQ(r.argmax, 3u);
  EXPECT_DOUBLE_EQ(r.phase, 0.375);
  EXPECT_NEAR(r.energy, 2.0 - 2 * M_PI * 0.375 / 0.5, 1e-14);
  EXPECT_NEAR(r.probSum, 1.0, 1e-15);
}

} // namespace
