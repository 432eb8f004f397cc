//===- BlockBench.cpp - blocks, fusion, calibration, RSS (bench-runtime) ---===//
//
// The QPE programs here are issued through the C ABI with the structure the
// compiler emits (lib/ProgramBuilder/QPEProgramBuilder.cpp, rolled form): HF X gates on
// the system qubits 0..n_sys-1, then for each estimation wire k = n_sys + k
// an H, `steps` Trotter steps controlled by the wire (identity term as an
// uncontrolled PhaseShift on the wire), the inverse QFT, probs of the wires.
// Order 2 is the Strang splitting: halves of terms 0..n-2, term n-1, halves
// back. power=time scales the angles by 2^k and keeps n_trotter steps;
// power=repeat keeps the angles and runs 2^k n_trotter steps. With blocks,
// the step loop of each wire is one q2_rt_block_begin(steps)/end bracket.
// Decomposed form: each rotation as basis changes (H for X, RX(pi/2) for Y),
// a CNOT ladder, RZ, the ladder back and the basis changes back, all
// controlled by the wire.
//
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "RuntimeInternal.h"
#include "q2/Runtime/QuantumRuntime.h"

#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace rt = q2::runtime;

namespace bench {

using Clock = std::chrono::steady_clock;

static double secondsOf(const std::function<void()> &f) {
  auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
static double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
static double medianRuns(int reps, const std::function<void()> &f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i)
    t.push_back(secondsOf(f));
  return med(t);
}
static void ok(const char *what) {
  if (const char *e = q2_rt_last_error()) {
    std::fprintf(stderr, "bench-runtime: %s: %s\n", what, e);
    std::exit(1);
  }
}

//===-- programs ----------------------------------------------------------===//
struct Term {
  std::string word; // letter q acts on system qubit q
  double coeff;
};

struct Qpe {
  int nSys = 4, nEst = 8, nTrotter = 10, order = 2;
  bool powerTime = true;
  bool decomposed = false;
  bool blocks = true;
  double t = 1.0;
  std::vector<int> hf;
  int maxWires = -1; // run only wires 0..maxWires-1 (benchmark subsets)
};

struct Issuer {
  Q2Register *r;
  std::vector<Q2Qubit *> q;
  void gate(int g, double p, std::initializer_list<int> t,
            std::initializer_list<int> c, int adj = 0) {
    Q2Qubit *tq[2], *cq[2];
    int nt = 0, nc = 0;
    for (int i : t)
      tq[nt++] = q[i];
    for (int i : c)
      cq[nc++] = q[i];
    q2_rt_gate(g, p, tq, nt, cq, nc, adj);
  }
};

static void emitTerm(Issuer &is, const Qpe &s, const Term &term, double angle,
                     int wire) {
  std::vector<int> idx;
  std::string reduced;
  for (int k = 0; k < s.nSys; ++k)
    if (term.word[k] != 'I') {
      idx.push_back(k);
      reduced += term.word[k];
    }
  if (idx.empty()) { // identity (+ shift): a phase on the wire, uncontrolled
    is.gate(Q2_GATE_PHASESHIFT, -0.5 * angle, {wire}, {});
    return;
  }
  if (!s.decomposed) {
    std::vector<Q2Qubit *> tq;
    for (int k : idx)
      tq.push_back(is.q[k]);
    Q2Qubit *c = is.q[wire];
    q2_rt_pauli_rot(angle, reduced.data(), tq.data(), int64_t(tq.size()), &c, 1);
    return;
  }
  for (size_t i = 0; i < idx.size(); ++i) {
    if (reduced[i] == 'X')
      is.gate(Q2_GATE_H, 0, {idx[i]}, {wire});
    else if (reduced[i] == 'Y')
      is.gate(Q2_GATE_RX, M_PI / 2, {idx[i]}, {wire});
  }
  for (size_t i = 0; i + 1 < idx.size(); ++i)
    is.gate(Q2_GATE_CNOT, 0, {idx[i], idx[i + 1]}, {wire});
  is.gate(Q2_GATE_RZ, angle, {idx.back()}, {wire});
  for (size_t i = idx.size() - 1; i-- > 0;)
    is.gate(Q2_GATE_CNOT, 0, {idx[i], idx[i + 1]}, {wire});
  for (size_t i = 0; i < idx.size(); ++i) {
    if (reduced[i] == 'X')
      is.gate(Q2_GATE_H, 0, {idx[i]}, {wire});
    else if (reduced[i] == 'Y')
      is.gate(Q2_GATE_RX, -M_PI / 2, {idx[i]}, {wire});
  }
}

static void emitStep(Issuer &is, const Qpe &s, const std::vector<Term> &terms,
                     double dt, int wire) {
  size_t n = terms.size();
  if (s.order == 1) {
    for (const Term &t : terms)
      emitTerm(is, s, t, 2 * t.coeff * dt, wire);
    return;
  }
  for (size_t j = 0; j + 1 < n; ++j)
    emitTerm(is, s, terms[j], terms[j].coeff * dt, wire);
  emitTerm(is, s, terms[n - 1], 2 * terms[n - 1].coeff * dt, wire);
  for (size_t j = n - 1; j-- > 0;)
    emitTerm(is, s, terms[j], terms[j].coeff * dt, wire);
}

/// One call of the program; probs (2^nEst) of the estimation wires.
static std::vector<double> runQpe(const Qpe &s, const std::vector<Term> &terms) {
  int n = s.nSys + s.nEst;
  Issuer is{q2_rt_alloc(n), {}};
  for (int i = 0; i < n; ++i)
    is.q.push_back(q2_rt_qubit(is.r, i));
  for (int q : s.hf)
    is.gate(Q2_GATE_X, 0, {q}, {});
  int wires = s.maxWires > 0 ? s.maxWires : s.nEst;
  double dt0 = s.t / s.nTrotter;
  for (int k = 0; k < wires; ++k) {
    int wire = s.nSys + k;
    is.gate(Q2_GATE_H, 0, {wire}, {});
    int64_t steps = s.powerTime ? s.nTrotter : (int64_t(s.nTrotter) << k);
    double dt = s.powerTime ? dt0 * std::ldexp(1.0, k) : dt0;
    if (s.blocks) {
      q2_rt_block_begin(steps);
      emitStep(is, s, terms, dt, wire);
      q2_rt_block_end();
    } else {
      for (int64_t st = 0; st < steps; ++st)
        emitStep(is, s, terms, dt, wire);
    }
  }
  for (int j = s.nEst - 1; j >= 0; --j) {
    for (int m = j + 1; m < s.nEst; ++m)
      is.gate(Q2_GATE_PHASESHIFT, -M_PI / std::ldexp(1.0, m - j),
              {s.nSys + j}, {s.nSys + m});
    is.gate(Q2_GATE_H, 0, {s.nSys + j}, {});
  }
  std::vector<double> probs(size_t(1) << s.nEst);
  q2_rt_probs(is.q.data() + s.nSys, s.nEst, probs.data());
  q2_rt_dealloc(is.r);
  ok("qpe");
  return probs;
}

static double maxDiff(const std::vector<double> &a, const std::vector<double> &b) {
  double d = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

/// The shipped H2 Hamiltonian (15 terms, identity first).
static std::vector<Term> h2Terms(const std::string &path) {
  std::ifstream in(path);
  std::vector<Term> terms;
  std::string line;
  while (std::getline(in, line)) {
    char w[16];
    double c;
    if (std::sscanf(line.c_str(), " [\"%15[IXYZ]\" , %lf", w, &c) == 2)
      terms.push_back({w, c});
  }
  if (terms.size() != 15) {
    std::fprintf(stderr, "bench-runtime: %s: expected 15 terms\n", path.c_str());
    std::exit(1);
  }
  return terms;
}

/// Jordan-Wigner-like random Hamiltonian: an identity term, Z and ZZ words,
/// and hopping words X..X / Y..Y pairs with Z strings between them.
static std::vector<Term> randomTerms(int nSys, int count, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> coef(-0.2, 0.2);
  std::vector<Term> terms{{std::string(nSys, 'I'), -0.5}};
  while (int(terms.size()) < count) {
    std::string w(nSys, 'I');
    int kind = int(gen() % 10);
    if (kind < 3) {
      int a = int(gen() % nSys), b = int(gen() % nSys);
      w[a] = 'Z';
      w[b] = 'Z';
    } else {
      int a = int(gen() % nSys), b = int(gen() % nSys);
      if (a == b)
        continue;
      if (a > b)
        std::swap(a, b);
      for (int k = a + 1; k < b; ++k)
        w[k] = 'Z';
      bool y = gen() % 2;
      w[a] = y ? 'Y' : 'X';
      w[b] = y ? 'Y' : 'X';
      if (kind >= 7) { // a second pair: 4-letter double excitation
        int c = int(gen() % nSys), d = int(gen() % nSys);
        if (c == d || c == a || c == b || d == a || d == b)
          continue;
        w[c] = y ? 'X' : 'Y';
        w[d] = y ? 'X' : 'Y';
      }
    }
    terms.push_back({w, coef(gen)});
  }
  return terms;
}

static double rssMiB() {
  std::FILE *f = std::fopen("/proc/self/statm", "r");
  long pages = 0, rss = 0;
  if (f) {
    if (std::fscanf(f, "%ld %ld", &pages, &rss) != 2)
      rss = 0;
    std::fclose(f);
  }
  return double(rss) * double(sysconf(_SC_PAGE_SIZE)) / (1024.0 * 1024.0);
}

//===-- calibration -------------------------------------------------------===//
/// Random rotation Ops on an n-qubit space, as the runtime decodes them
/// (recorded through a block on a scratch register, read back by replay).
static std::vector<rt::Op> sampleOps(int n, int count, uint64_t seed) {
  std::vector<rt::Op> ops;
  std::mt19937_64 gen(seed);
  auto terms = randomTerms(std::max(2, n), count + 1, seed);
  for (int i = 1; i <= count; ++i) {
    const std::string &w = terms[size_t(i)].word;
    uint64_t xm = 0, zm = 0;
    int ny = 0;
    for (int q = 0; q < n && q < int(w.size()); ++q) {
      if (w[q] == 'X' || w[q] == 'Y')
        xm |= uint64_t(1) << q;
      if (w[q] == 'Z' || w[q] == 'Y')
        zm |= uint64_t(1) << q;
      ny += w[q] == 'Y';
    }
    rt::Op op;
    double c = std::cos(0.1 * i), s = std::sin(0.1 * i);
    if (!xm) {
      op.kind = rt::kOpDiag;
      op.b = zm;
      op.m[0] = {c, s};
    } else {
      uint64_t pivot = uint64_t(1) << (63 - __builtin_clzll(xm));
      op.kind = rt::kOpPairs;
      op.setMask = pivot;
      op.a = xm;
      op.b = zm;
      op.m[0] = {c, (ny & 1) ? -1.0 : 1.0};
      op.m[1] = {0, -s};
    }
    op.touch = xm | zm;
    ops.push_back(op);
  }
  (void)gen;
  return ops;
}

static double threadCpuNow() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/// ns per (Op x amplitude) of the rotation mix on a 2^n buffer, 1 thread.
static double gateCost(int n, int reps, double *perCall = nullptr) {
  std::vector<std::complex<double>> buf(size_t(1) << n, {0.5, 0.1});
  auto ops = sampleOps(std::min(n, 12), 64, 3);
  double *v = reinterpret_cast<double *>(buf.data());
  int rounds = std::max(1, int((1 << 22) >> n)); // ~4M amplitude-ops
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    double c0 = threadCpuNow();
    for (int k = 0; k < rounds; ++k)
      for (auto &op : ops)
        rt::applyOp(v, n, op);
    t.push_back(threadCpuNow() - c0);
  }
  double calls = double(rounds) * double(ops.size());
  if (perCall)
    *perCall = 1e9 * med(t) / calls;
  return 1e9 * med(t) / (calls * std::ldexp(1.0, n));
}

void calibrate(int reps) {
  std::printf("== calibration: cost-model constants and threading thresholds ==\n");
  q2_rt_set_num_threads(1);
  double overheadCall = 0;
  gateCost(2, reps, &overheadCall);
  double inCache = gateCost(13, reps);
  double outCache = gateCost(24, std::max(1, reps / 2));
  std::printf("  gate kernels (random Pauli rotation mix, 1 thread):\n"
              "    per call on a 4-amplitude buffer (overhead): %.1f ns\n"
              "    per amplitude, 2^13 buffer (in L2):           %.3f ns\n"
              "    per amplitude, 2^24 state (out of cache):     %.3f ns\n",
              overheadCall, inCache, outCache);
  for (int n : {16, 18, 20, 21, 22})
    std::printf("    per amplitude, 2^%d state:                    %.3f ns\n", n,
                gateCost(n, reps));

  // Gather + scatter: a 1-Op block forced to slice replay on 2^22, minus
  // the Op itself.
  {
    int n = 22;
    Q2Register *r = q2_rt_alloc(n);
    std::vector<Q2Qubit *> q;
    for (int i = 0; i < n; ++i)
      q.push_back(q2_rt_qubit(r, i));
    int prevF = rt::setForcedBlockMethod(rt::kSliceReplay);
    Q2Qubit *tq[4] = {q[1], q[5], q[9], q[14]};
    auto block = [&] {
      q2_rt_block_begin(1);
      q2_rt_pauli_rot(0.1, "ZZZZ", tq, 4, &q[21], 1);
      q2_rt_block_end();
    };
    double t = medianRuns(reps, block);
    rt::setForcedBlockMethod(prevF);
    double amps = std::ldexp(1.0, n - 1);
    std::printf("  gather+scatter (slice replay of one Z-word Op, 2^21 "
                "amplitudes): %.3f ns/amplitude (Op included)\n",
                1e9 * t / amps - inCache);
    q2_rt_dealloc(r);
    ok("gather");
  }
  // The runtime's complex GEMM (dense blocks), 1 thread: the AVX2+FMA
  // build of Eigen when the CPU has it, and the baseline build.
  for (bool avx2 : {true, false}) {
    bool prev = rt::setGemmAVX2(avx2);
    for (int d : {64, 256, 512}) {
      Eigen::MatrixXcd A = Eigen::MatrixXcd::Random(d, d),
                       B = Eigen::MatrixXcd::Random(d, d), C(d, d);
      double t = medianRuns(reps, [&] {
        rt::denseProduct(A.data(), B.data(), C.data(), d, d, d);
      });
      std::printf("  GEMM (%s Eigen) %dx%d complex, 1 thread: %.3f ns per "
                  "complex multiply-add (%.1f GFLOP/s)\n",
                  avx2 && rt::avx2Kernels() ? "AVX2+FMA" : "baseline", d, d,
                  1e9 * t / (double(d) * d * d), 8.0 * d * d * d / t / 1e9);
    }
    rt::setGemmAVX2(prev);
  }
  // Dense sweep (fusion) per amplitude by k, targets high (long runs) and
  // on the lowest qubits (runs of one amplitude).
  {
    int n = 12;
    std::vector<std::complex<double>> buf(size_t(1) << n, {0.5, 0.1});
    double *v = reinterpret_cast<double *>(buf.data());
    std::printf("  fused dense sweep (applyDense), 2^12 state, ns/amplitude:\n");
    for (int k = 1; k <= 6; ++k) {
      std::vector<rt::Cplx> m(size_t(1) << (2 * k), rt::Cplx{0.01, 0.02});
      uint64_t high = ((uint64_t(1) << k) - 1) << (n - k), low = (uint64_t(1) << k) - 1;
      int rounds = 64;
      double th = medianRuns(reps, [&] {
        for (int i = 0; i < rounds; ++i)
          rt::kernels().applyDense(v, n, high, 0, m.data());
      });
      double tl = medianRuns(reps, [&] {
        for (int i = 0; i < rounds; ++i)
          rt::kernels().applyDense(v, n, low, 0, m.data());
      });
      double amps = rounds * std::ldexp(1.0, n);
      std::printf("    k=%d: targets high %.2f, targets low %.2f\n", k,
                  1e9 * th / amps, 1e9 * tl / amps);
    }
  }
  // Threading: pool round trip, and 2 threads vs 1 per kernel kind by size.
  q2_rt_set_num_threads(2);
  {
    int rounds = 2000;
    double t = medianRuns(reps, [&] {
      for (int i = 0; i < rounds; ++i)
        rt::parallelForEachChunked(2, 2, [](int, uint64_t, uint64_t) {});
    });
    std::printf("  pool round trip (2 chunks, empty): %.2f us\n", 1e6 * t / rounds);
  }
  int64_t prevTh = rt::setParallelThreshold(0);
  std::printf("  2 threads vs 1 (time ratio t2/t1, < 1: threads pay), by "
              "state size:\n    %-10s", "kind");
  for (int n = 10; n <= 20; n += 2)
    std::printf(" 2^%-5d", n);
  std::printf("\n");
  struct Kind {
    const char *name;
    std::function<void(double *, int)> f;
  };
  std::vector<Kind> kinds = {
      {"2x2", [](double *v, int n) {
         rt::Cplx m[4] = {{0.6, 0}, {0, 0.8}, {0, 0.8}, {0.6, 0}};
         rt::kernels().apply2x2(v, n, rt::makeIndexSet(1u << 3, 0), 1u << 3, m);
       }},
      {"pairs", [](double *v, int n) {
         rt::kernels().pauliPairs(v, n, rt::makeIndexSet(1u << 4, 0), 0x1a, 0x6,
                                  0.8, {0, 0.6}, 1.0);
       }},
      {"diag", [](double *v, int n) {
         rt::kernels().pauliDiag(v, n, rt::makeIndexSet(0, 0), 0x2d, 0.8, 0.6);
       }},
      {"swap", [](double *v, int n) {
         rt::kernels().swapFlip(v, n, rt::makeIndexSet(0x3, 0x1), 0x2);
       }},
      {"dense k=4", [](double *v, int n) {
         static std::vector<rt::Cplx> m(256, rt::Cplx{0.01, 0.02});
         rt::kernels().applyDense(v, n, 0xf0, 0, m.data());
       }},
  };
  for (auto &kd : kinds) {
    std::printf("    %-10s", kd.name);
    for (int n = 10; n <= 20; n += 2) {
      std::vector<std::complex<double>> buf(size_t(1) << n, {0.5, 0.1});
      double *v = reinterpret_cast<double *>(buf.data());
      int rounds = std::max(4, int((1 << 24) >> n));
      double t[2];
      for (int th = 1; th <= 2; ++th) {
        q2_rt_set_num_threads(th);
        kd.f(v, n);
        t[th - 1] = medianRuns(reps, [&] {
          for (int i = 0; i < rounds; ++i)
            kd.f(v, n);
        });
      }
      std::printf(" %-7.2f", t[1] / t[0]);
    }
    std::printf("\n");
  }
  rt::setParallelThreshold(prevTh);
  // Block paths: slice replay / dense GEMM work at 1 vs 2 threads.
  std::printf("  block paths, 2 threads vs 1 (t2/t1) by work per call:\n");
  for (int n : {8, 10, 12, 14, 16}) {
    // A 4-qubit, 20-rotation block on wire n-1, count 4: slice work ~ 80 amp-ops/amp.
    auto terms = randomTerms(4, 21, 9);
    double t[2][2];
    for (int method : {rt::kSliceReplay, rt::kDense})
      for (int th = 1; th <= 2; ++th) {
        q2_rt_set_num_threads(th);
        double prevW = rt::setBlockParallelWork(0);
        int prevF = rt::setForcedBlockMethod(method);
        Q2Register *r = q2_rt_alloc(n);
        std::vector<Q2Qubit *> q;
        for (int i = 0; i < n; ++i)
          q.push_back(q2_rt_qubit(r, i));
        auto run = [&] {
          q2_rt_block_begin(4);
          for (size_t j = 1; j < terms.size(); ++j)
            q2_rt_pauli_rot(0.1, terms[j].word.data(), q.data(), 4, &q[n - 1], 1);
          q2_rt_block_end();
        };
        run();
        t[method == rt::kDense][th - 1] = medianRuns(reps, [&] {
          for (int i = 0; i < 20; ++i)
            run();
        }) / 20;
        q2_rt_dealloc(r);
        rt::setForcedBlockMethod(prevF);
        rt::setBlockParallelWork(prevW);
      }
    std::printf("    2^%-2d state: slice %.2f (1 thread %.1f us), dense apply %.2f "
                "(1 thread %.1f us)\n",
                n, t[0][1] / t[0][0], 1e6 * t[0][0], t[1][1] / t[1][0],
                1e6 * t[1][0]);
  }
  // Slice buffer size: an m=8 block (60 words, order 2, count 4) on a 2^18
  // state, 1 thread, forced slice replay.
  {
    q2_rt_set_num_threads(1);
    auto terms = randomTerms(8, 60, 61);
    Qpe s;
    s.nSys = 8;
    int n = 18;
    std::printf("  slice buffer bits (m=8 block, 2^18 state, 1 thread):");
    int prevF = rt::setForcedBlockMethod(rt::kSliceReplay);
    for (int bits = 8; bits <= 17; ++bits) {
      int prevB = rt::setSliceBufferBits(bits);
      Issuer is{q2_rt_alloc(n), {}};
      for (int i = 0; i < n; ++i)
        is.q.push_back(q2_rt_qubit(is.r, i));
      double t = medianRuns(reps, [&] {
        q2_rt_block_begin(4);
        emitStep(is, s, terms, 0.05, n - 1);
        q2_rt_block_end();
      });
      q2_rt_dealloc(is.r);
      rt::setSliceBufferBits(prevB);
      std::printf(" 2^%d %.1f ms%s", bits, 1e3 * t, bits < 17 ? "," : "\n");
    }
    rt::setForcedBlockMethod(prevF);
  }
  ok("calibrate");
  q2_rt_set_num_threads(0);
}

//===-- fusion on the H2 program ------------------------------------------===//
void fusionH2(const std::string &path, int reps) {
  auto terms = h2Terms(path);
  std::printf("== fusion: fused (cost model) vs unfused vs always-dense, 1 thread ==\n");
  q2_rt_set_num_threads(1);
  int prevMode = q2_rt_set_block_mode(0); // programs without blocks here
  for (bool decomposed : {false, true})
    for (bool powerTime : {true, false}) {
      Qpe s;
      s.hf = {0, 1};
      s.blocks = false;
      s.decomposed = decomposed;
      s.powerTime = powerTime;
      if (!powerTime)
        s.maxWires = 6; // 630 steps: keeps the run short
      double t[3];
      std::vector<double> p[3];
      const int policies[3] = {0, -1, 1};
      for (int i = 0; i < 3; ++i) {
        int prev = rt::setFusionPolicy(policies[i]);
        p[i] = runQpe(s, terms);
        t[i] = medianRuns(reps, [&] { runQpe(s, terms); });
        rt::setFusionPolicy(prev);
      }
      std::printf("  H2 QPE 4+8 qubits, %s, power=%s%s: fused %.2f ms, unfused "
                  "%.2f ms, always-dense %.2f ms; unfused/fused = %.2f, "
                  "always-dense/fused = %.2f; max |dprob| %.1e\n",
                  decomposed ? "decomposed" : "native Pauli",
                  powerTime ? "time" : "repeat",
                  powerTime ? "" : " (wires 0-5)", 1e3 * t[0], 1e3 * t[1],
                  1e3 * t[2], t[1] / t[0], t[2] / t[0],
                  std::max(maxDiff(p[0], p[1]), maxDiff(p[2], p[1])));
    }
  q2_rt_set_block_mode(prevMode);
  q2_rt_set_num_threads(0);
}

//===-- block methods by m ------------------------------------------------===//
void blockMethods(int reps, bool full) {
  std::printf("== blocks: dense vs slice replay vs plain replay (order-2 "
              "Trotter step of random JW-like words, controlled by one of 8 "
              "estimation wires; %d thread(s)) ==\n",
              q2_rt_get_num_threads());
  struct Case {
    int m, words;
    int64_t count;
  };
  for (Case c : {Case{4, 15, 160}, Case{8, 185, 40}, Case{12, 120, 4}}) {
    auto terms = randomTerms(c.m, c.words, 100 + c.m);
    int n = c.m + 8;
    Qpe s;
    s.nSys = c.m;
    double t[3] = {0, 0, 0};
    double denseBuild = 0;
    std::vector<std::complex<double>> ref;
    double dmax = 0;
    for (int method : {rt::kReplay, rt::kSliceReplay, rt::kDense}) {
      if (method == rt::kDense && c.m == 12 && !full) {
        t[method] = std::nan(""); // 4096^3 GEMMs: minutes (--full)
        continue;
      }
      int prevF = rt::setForcedBlockMethod(method);
      std::vector<double> times;
      for (int rep = 0; rep < reps; ++rep) {
        Issuer is{q2_rt_alloc(n), {}};
        for (int i = 0; i < n; ++i)
          is.q.push_back(q2_rt_qubit(is.r, i));
        for (int i = 0; i < n; ++i)
          is.gate(Q2_GATE_H, 0, {i}, {});
        times.push_back(secondsOf([&] {
          q2_rt_block_begin(c.count);
          emitStep(is, s, terms, 0.05, c.m + 3);
          q2_rt_block_end();
        }));
        ok("block methods");
        if (rep == 0) {
          auto *v = reinterpret_cast<std::complex<double> *>(q2_rt_state_data(is.r));
          if (ref.empty())
            ref.assign(v, v + (size_t(1) << n));
          else
            for (size_t i = 0; i < ref.size(); ++i)
              dmax = std::max(dmax, std::abs(ref[i] - v[i]));
        }
        q2_rt_dealloc(is.r);
        if ((method == rt::kReplay || method == rt::kDense) && c.m == 12)
          break; // one sample is enough for the slowest
      }
      t[method] = med(times);
      if (method == rt::kDense)
        denseBuild = times.front();
      rt::setForcedBlockMethod(prevF);
    }
    // What the cost model picks.
    q2_rt_reset_block_stats();
    {
      Issuer is{q2_rt_alloc(n), {}};
      for (int i = 0; i < n; ++i)
        is.q.push_back(q2_rt_qubit(is.r, i));
      q2_rt_block_begin(c.count);
      emitStep(is, s, terms, 0.05, c.m + 3);
      q2_rt_block_end();
      q2_rt_dealloc(is.r);
    }
    Q2BlockStat st{};
    q2_rt_block_stats(&st, 1);
    static const char *names[] = {"replay", "slice", "dense"};
    std::printf("  m=%-2d (%d words, %lld Ops/step, count %lld, 2^%d state): "
                "dense %.4f s, slice %.4f s, replay %.4f s; replay/dense %.1f, "
                "replay/slice %.1f; cost model picks %s; max |diff| %.1e%s\n",
                c.m, c.words, (long long)st.num_gates, (long long)c.count, n,
                t[2], t[1], t[0], t[0] / t[2], t[0] / t[1], names[st.method],
                dmax, std::isnan(t[2]) ? " (dense m=12 only with --full)" : "");
    (void)denseBuild;
  }
}

//===-- QPE-sized workloads -----------------------------------------------===//
void h3oLike(int reps, bool full) {
  Qpe s;
  s.nSys = 8;
  s.nEst = 8;
  s.powerTime = false; // power=repeat: the same block 10 * 2^k times
  s.hf = {0, 1, 2, 3};
  auto terms = randomTerms(8, 185, 185);
  std::printf("== H3O+-like QPE: 8 system + 8 estimation qubits, %zu words, "
              "order 2, power=repeat, n_trotter 10, %d thread(s) ==\n",
              terms.size(), q2_rt_get_num_threads());
  q2_rt_reset_block_stats();
  std::vector<double> pb = runQpe(s, terms);
  std::vector<Q2BlockStat> st(size_t(q2_rt_block_stats(nullptr, 0)));
  q2_rt_block_stats(st.data(), int64_t(st.size()));
  double tb = medianRuns(reps, [&] { runQpe(s, terms); });
  std::printf("  through the block ABI (cost model): median %.3f s per call "
              "(target <= 1 s: %s)\n",
              tb, tb <= 1.0 ? "MET" : "MISSED");
  for (auto &x : st)
    std::printf("    block m=%lld C=%lld count=%lld gates=%lld method=%d "
                "reused=%d %.4f s\n",
                (long long)x.num_qubits, (long long)x.num_controls,
                (long long)x.count, (long long)x.num_gates, x.method, x.reused,
                x.seconds);
  // Plain replay (blocks disabled): wires 0..3 measured, the rest scaled by
  // the step count (cost is linear in it), or everything with --full.
  int prevMode = q2_rt_set_block_mode(0);
  Qpe sub = s;
  if (!full)
    sub.maxWires = 4;
  std::vector<double> pr;
  double tr = secondsOf([&] { pr = runQpe(sub, terms); });
  q2_rt_set_block_mode(prevMode);
  double steps = 0, subSteps = 0;
  for (int k = 0; k < s.nEst; ++k) {
    steps += 10.0 * std::ldexp(1.0, k);
    if (k < sub.maxWires || full)
      subSteps += 10.0 * std::ldexp(1.0, k);
  }
  double trFull = tr * steps / subSteps;
  std::printf("  plain replay: %.3f s for %s (%.0f of %.0f steps)%s -> "
              "replay/blocks = %.0f\n",
              tr, full ? "the whole call" : "wires 0-3", subSteps, steps,
              full ? "" : (", full call extrapolated " +
                           std::to_string(trFull) + " s").c_str(),
              trFull / tb);
  if (full)
    std::printf("  blocks vs plain replay probabilities: max |diff| %.1e\n",
                maxDiff(pb, pr));
  // power=time (the compiler's default): a different block per wire, 10
  // repetitions each, nothing to reuse.
  Qpe t = s;
  t.powerTime = true;
  q2_rt_reset_block_stats();
  std::vector<double> ptb = runQpe(t, terms);
  double ttb = medianRuns(reps, [&] { runQpe(t, terms); });
  Q2BlockStat first{};
  q2_rt_block_stats(&first, 1);
  prevMode = q2_rt_set_block_mode(0);
  std::vector<double> ptr;
  double ttr = secondsOf([&] { ptr = runQpe(t, terms); });
  q2_rt_set_block_mode(prevMode);
  std::printf("  power=time: through the block ABI %.3f s per call (target <= "
              "1 s: %s; wire 0 by method %d), plain replay %.3f s; "
              "replay/blocks %.1f; max |dprob| %.1e\n",
              ttb, ttb <= 1.0 ? "MET" : "MISSED", first.method, ttr, ttr / ttb,
              maxDiff(ptb, ptr));
}

void lihLike(int reps) {
  Qpe s;
  s.nSys = 12;
  s.nEst = 8;
  s.powerTime = true; // a different block per wire, 10 repetitions each
  s.hf = {0, 1, 2, 3};
  auto terms = randomTerms(12, 631, 631);
  std::printf("== LiH-like QPE: 12 system + 8 estimation qubits, %zu words, "
              "order 2, power=time, n_trotter 10, %d thread(s) ==\n",
              terms.size(), q2_rt_get_num_threads());
  q2_rt_reset_block_stats();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r)
    times.push_back(secondsOf([&] { runQpe(s, terms); }));
  double t = med(times);
  std::vector<Q2BlockStat> st(size_t(q2_rt_block_stats(nullptr, 0)));
  q2_rt_block_stats(st.data(), int64_t(st.size()));
  std::printf("  through the block ABI: median %.2f s per call over %d "
              "(target <= 60 s: %s)\n",
              t, reps, t <= 60 ? "MET" : "MISSED");
  for (auto &x : st)
    std::printf("    block m=%lld C=%lld count=%lld gates=%lld method=%d x%lld "
                "%.2f s\n",
                (long long)x.num_qubits, (long long)x.num_controls,
                (long long)x.count, (long long)x.num_gates, x.method,
                (long long)x.occurrences, x.seconds);
  // Plain replay of wire 0 alone (1/8 of the steps), scaled by 8.
  int prevMode = q2_rt_set_block_mode(0);
  Qpe one = s;
  one.maxWires = 1;
  double t1 = secondsOf([&] { runQpe(one, terms); });
  q2_rt_set_block_mode(prevMode);
  std::printf("  plain replay: wire 0 alone %.2f s -> ~%.0f s per call "
              "(x8 wires); replay/blocks ~%.1f\n",
              t1, 8 * t1, 8 * t1 / t);
}

void h2Calls(const std::string &path, int reps) {
  auto terms = h2Terms(path);
  std::printf("== H2 QPE program (4+8 qubits, order 2, n_trotter 10) through "
              "the block ABI, %d thread(s) ==\n",
              q2_rt_get_num_threads());
  for (bool powerTime : {true, false}) {
    Qpe s;
    s.hf = {0, 1};
    s.powerTime = powerTime;
    std::vector<double> pb = runQpe(s, terms);
    double tb = medianRuns(std::max(reps, 20), [&] { runQpe(s, terms); });
    s.blocks = false;
    int prevMode = q2_rt_set_block_mode(0);
    std::vector<double> pr = runQpe(s, terms);
    double tr = medianRuns(reps, [&] { runQpe(s, terms); });
    q2_rt_set_block_mode(prevMode);
    std::printf("  power=%s: blocks %.3f ms per call (target <= 2 ms: %s), "
                "gate-by-gate %.2f ms; ratio %.0f; max |dprob| %.1e\n",
                powerTime ? "time" : "repeat", 1e3 * tb,
                tb <= 2e-3 ? "MET" : "MISSED", 1e3 * tr, tr / tb,
                maxDiff(pb, pr));
  }
}

void rssLoop(const std::string &path) {
  auto terms = h2Terms(path);
  Qpe s;
  s.hf = {0, 1};
  std::printf("== 1000 calls (alloc, blocks, probs, dealloc) of the H2 program ==\n");
  double at10 = 0;
  for (int i = 1; i <= 1000; ++i) {
    s.powerTime = i % 2; // both variants: different blocks every call
    runQpe(s, terms);
    if (i == 10)
      at10 = rssMiB();
  }
  double at1000 = rssMiB();
  std::printf("  RSS after call 10: %.2f MiB, after call 1000: %.2f MiB, "
              "growth %.3f MiB (limit 1 MiB: %s)\n",
              at10, at1000, at1000 - at10,
              at1000 - at10 <= 1.0 ? "ok" : "EXCEEDED");
}

} // namespace bench
