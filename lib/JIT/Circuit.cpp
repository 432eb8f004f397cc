//===- Circuit.cpp - A loaded QPE program ---------------------------------===//
#include "q2/JIT/Circuit.h"
#include "q2/JIT/QPEExecutable.h"
#include "q2/Runtime/Limits.h"
#include "q2/Runtime/QuantumRuntime.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace q2;
using namespace q2::jit;

llvm::Error q2::jit::checkRunnable(const qpe::QPEMetadata &md,
                                   int64_t maxQubits) {
  if (llvm::Error e = md.validate())
    return llvm::createStringError("invalid QPE metadata: " +
                                   llvm::toString(std::move(e)));
  // The runtime's own default (q2/Runtime/Limits.h), checked before loading.
  int64_t limit =
      maxQubits > 0 ? maxQubits : runtime::limits::defaultMaxQubits();
  int64_t n = md.numQubits();
  if (n <= limit)
    return llvm::Error::success();
  // 16 bytes per amplitude; exact for any n <= 62.
  unsigned __int128 bytes = (unsigned __int128)16 << std::min<int64_t>(n, 120);
  std::string size;
  do {
    size.insert(size.begin(), char('0' + int(bytes % 10)));
    bytes /= 10;
  } while (bytes);
  std::string head = llvm::formatv(
      "the program needs {0} qubits ({1} system + {2} estimation): {3} "
      "bytes of state; the limit is {4} qubits{5}",
      n, md.nSystem, md.nEst, size, limit,
      maxQubits > 0 ? " (--max-qubits)" : " (what fits in 80% of RAM)");
  // An explicit --max-qubits caps the register whatever the path; the
  // default (what fits as a state vector) does not bind a register the
  // runtime defers and runs on a subspace (docs/runtime-blocks.md, "Beyond
  // the state vector"): there the limit is the system's live subspace, the
  // span of the words' X parts (2^d states).
  if (maxQubits > 0 || n > runtime::limits::kHardMaxQubits)
    return llvm::createStringError(head);
  int64_t d = liveSystemQubits(md);
  std::string eig;
  if (md.power != qpe::Power::Repeat || !md.trotterSteps.empty())
    eig = "the eigenphase path needs the powers of one unitary (power = "
          "repeat, one Trotter step count)";
  else if (auto why = runtime::limits::eigenphaseRefusal(d, md.nEst))
    eig = *why;
  else
    return llvm::Error::success();
  if (int64_t(md.nEst) + d <= limit)
    return llvm::Error::success();
  return llvm::createStringError(llvm::formatv(
      "{0}; and no subspace path fits: its system register's live subspace "
      "(the span of the Pauli words' X parts) has 2^{1} states: {2}; the "
      "live-subspace path's 2^({3} + {1}) amplitudes are above 2^{4}",
      head, d, eig, md.nEst, limit));
}

int64_t q2::jit::liveSystemQubits(const qpe::QPEMetadata &md) {
  // GF(2) rank of the X parts (X or Y letters) of the words.
  std::vector<uint64_t> basis;
  for (const std::string &w : md.words) {
    uint64_t x = 0;
    for (size_t i = 0; i < w.size() && i < 64; ++i)
      if (w[i] == 'X' || w[i] == 'Y')
        x |= uint64_t(1) << i;
    for (uint64_t b : basis)
      x = std::min(x, x ^ b);
    if (x) {
      basis.push_back(x);
      std::sort(basis.rbegin(), basis.rend());
    }
  }
  return int64_t(basis.size());
}

std::optional<profiling::PhaseCRecord>
q2::jit::skippedRun(const qpe::QPEMetadata &md, int64_t maxQubits) {
  if (llvm::Error e = md.validate()) {
    llvm::consumeError(std::move(e));
    return std::nullopt;
  }
  llvm::Error why = checkRunnable(md, maxQubits);
  if (!why)
    return std::nullopt;
  profiling::PhaseCRecord r;
  r.skipped = true;
  r.reason = llvm::toString(std::move(why));
  r.qubits = md.numQubits();
  r.limit =
      maxQubits > 0 ? maxQubits : int64_t(runtime::limits::defaultMaxQubits());
  r.bytesNeeded = std::ldexp(16.0, int(md.numQubits())); // exact: 2^(n+4)
  return r;
}

//===----------------------------------------------------------------------===//
// Circuit
//===----------------------------------------------------------------------===//

/// Entry points of the runtime the object is linked against (the same
/// library the compiled code calls, resolved through the JIT).
struct Circuit::RuntimeControl {
  int64_t (*setMaxQubits)(int64_t) = nullptr;
  int32_t (*setThreads)(int32_t) = nullptr;
  int32_t (*getThreads)() = nullptr;
  int64_t (*blockStats)(Q2BlockStat *, int64_t) = nullptr;
  void (*resetBlockStats)() = nullptr;
  void (*setProgress)(Q2BlockProgressFn, void *) = nullptr;
  void (*setStageProgress)(Q2StageProgressFn, void *) = nullptr;
  int64_t (*pathStats)(Q2PathStat *) = nullptr;
  void (*resetPathStats)() = nullptr;
};

Circuit::~Circuit() = default;

int Circuit::setThreads(int n) {
  threadsWanted = n;
  rt->setThreads(n);
  return threadsInUse = rt->getThreads();
}

int Circuit::threads() const { return threadsInUse; }

void Circuit::resetBlockStats() {
  rt->resetBlockStats();
  rt->resetPathStats();
}

void Circuit::setStageProgress(
    void (*fn)(void *, int32_t, const char *, int64_t), void *user) {
  rt->setStageProgress(fn, user);
}

/// The report's name of a Q2_PATH_* value.
static const char *pathName(int32_t path) {
  switch (path) {
  case Q2_PATH_LIVE_SUBSPACE:
    return "live_subspace";
  case Q2_PATH_EIGENPHASES:
    return "eigenphases";
  default:
    return "state_vector";
  }
}

std::optional<profiling::PathRecord> Circuit::lastPath() const {
  Q2PathStat p;
  if (!rt->pathStats(&p))
    return std::nullopt;
  profiling::PathRecord r;
  r.path = pathName(p.path);
  r.qubits = p.num_qubits;
  r.liveQubits = p.live_qubits;
  r.subspaceDim = p.subspace_dim;
  r.seconds = p.seconds;
  r.eigenSeconds = p.eigen_seconds;
  r.bytes = double(p.bytes);
  r.note = std::string(p.note, strnlen(p.note, sizeof p.note));
  return r;
}

void Circuit::setBlockProgress(void (*fn)(void *, int64_t, double, int32_t),
                               void *user) {
  rt->setProgress(fn, user);
}

std::vector<profiling::BlockRecord> Circuit::blockStats() const {
  std::vector<Q2BlockStat> raw(size_t(rt->blockStats(nullptr, 0)));
  raw.resize(size_t(rt->blockStats(raw.data(), int64_t(raw.size()))));
  std::vector<profiling::BlockRecord> out;
  for (const Q2BlockStat &b : raw) {
    profiling::BlockRecord r;
    r.numQubits = b.num_qubits;
    r.numControls = b.num_controls;
    r.count = b.count;
    r.numGates = b.num_gates;
    r.numOps = b.num_ops;
    r.occurrences = b.occurrences;
    r.method = b.method == Q2_METHOD_EIGENPHASES ? "eigenphases"
               : b.method == 2                     ? "dense"
               : b.method == 1                     ? "slice_replay"
                                                   : "replay";
    r.reused = b.reused;
    r.seconds = b.seconds;
    r.products = b.products;
    if (b.method == 2 && b.dense_dim > 0) {
      r.denseDim = b.dense_dim;
      r.cosets = b.cosets;
    }
    if (b.path != Q2_PATH_STATE_VECTOR) {
      r.path = pathName(b.path);
      r.subspaceDim = b.subspace_dim;
    }
    out.push_back(std::move(r));
  }
  return out;
}

const std::string &Circuit::runtimeLibrary() const {
  return exe->runtimeLibrary();
}

llvm::Expected<std::unique_ptr<Circuit>>
Circuit::load(llvm::ArrayRef<char> object, const qpe::QPEMetadata &md,
              const std::string &runtimeLib, int64_t maxQubits,
              bool digestChecked) {
  if (llvm::Error e = checkRunnable(md, maxQubits))
    return std::move(e);
  jit::ExecutableOptions eo;
  eo.digestChecked = digestChecked;
  eo.runtimeLibrary =
      runtimeLib.empty() ? jit::defaultRuntimeLibrary() : runtimeLib;
  auto exe = jit::QPEExecutable::load(object, md.numCoeffArgs(), md.nEst, eo);
  if (!exe)
    return exe.takeError();
  // The metadata sizes the buffers the host passes: check them against the
  // compiled code's own sizes, so not even a consistent forgery of the
  // metadata sections (digest recomputed) makes the code write past them.
  {
    auto shapeFn = (*exe)->lookup(qpe::kShapeSymbol);
    if (!shapeFn)
      return llvm::createStringError(
          llvm::Twine("the object has no '") + qpe::kShapeSymbol +
          "' (compiled by an older q2-opt: recompile the program)");
    int64_t shape[2] = {-1, -1};
    reinterpret_cast<void (*)(int64_t *)> (*shapeFn)(shape);
    int64_t outcomes = int64_t(uint64_t(1) << std::min(md.nEst, 62u));
    if (shape[0] != int64_t(md.numCoeffArgs()) || shape[1] != outcomes)
      return llvm::createStringError(llvm::formatv(
          "the metadata does not match the compiled code (it says {0} "
          "coefficient(s) and {1} outcome(s), the code takes {2} and "
          "writes {3}): refusing to run an edited object",
          md.numCoeffArgs(), outcomes, shape[0], shape[1]));
  }
  // The limits live in the runtime the object is linked against; run()
  // sets this circuit's before every call.
  auto rt = std::make_unique<RuntimeControl>();
  auto bind = [&](auto &fn, const char *name) -> llvm::Error {
    auto addr = (*exe)->lookup(name);
    if (!addr)
      return addr.takeError();
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(*addr);
    return llvm::Error::success();
  };
  if (llvm::Error e = bind(rt->setMaxQubits, "q2_rt_set_max_qubits"))
    return std::move(e);
  if (llvm::Error e = bind(rt->setThreads, "q2_rt_set_num_threads"))
    return std::move(e);
  if (llvm::Error e = bind(rt->getThreads, "q2_rt_get_num_threads"))
    return std::move(e);
  if (llvm::Error e = bind(rt->blockStats, "q2_rt_block_stats"))
    return std::move(e);
  if (llvm::Error e = bind(rt->resetBlockStats, "q2_rt_reset_block_stats"))
    return std::move(e);
  if (llvm::Error e = bind(rt->setProgress, "q2_rt_set_block_progress"))
    return std::move(e);
  if (llvm::Error e = bind(rt->setStageProgress, "q2_rt_set_stage_progress"))
    return std::move(e);
  if (llvm::Error e = bind(rt->pathStats, "q2_rt_path_stats"))
    return std::move(e);
  if (llvm::Error e = bind(rt->resetPathStats, "q2_rt_reset_path_stats"))
    return std::move(e);
  std::unique_ptr<Circuit> c(new Circuit());
  c->md = md;
  c->exe = std::move(*exe);
  c->rt = std::move(rt);
  c->maxQubits = maxQubits;
  c->setThreads(0);
  return std::move(c);
}

llvm::Error Circuit::run(llvm::ArrayRef<double> coeffs,
                         llvm::MutableArrayRef<double> out) {
  if (coeffs.empty() && md.mode == qpe::Mode::Dynamic)
    coeffs = md.defaultCoeffs;
  for (size_t i = 0; i < coeffs.size(); ++i)
    if (!std::isfinite(coeffs[i]))
      return llvm::createStringError(
          std::make_error_code(std::errc::invalid_argument),
          llvm::formatv("coefficient {0} is {1}: coefficients must be finite "
                        "numbers",
                        i, coeffs[i]));
  rt->setMaxQubits(maxQubits);
  rt->setThreads(threadsWanted);
  return exe->runInto(coeffs, out);
}

llvm::Expected<qpe::QPEResult> Circuit::call(llvm::ArrayRef<double> coeffs) {
  std::vector<double> probs(size_t(1) << md.nEst, 0.0);
  if (llvm::Error e = run(coeffs, probs))
    return std::move(e);
  return qpe::decode(std::move(probs), md);
}

llvm::Expected<qpe::QPEResult>
Circuit::callInto(llvm::ArrayRef<double> coeffs,
                  llvm::MutableArrayRef<double> out) {
  if (llvm::Error e = run(coeffs, out))
    return std::move(e);
  return qpe::decodeView(out, md);
}
