//===- BlockDense.cpp - dense block unitaries and their powers ------------===//
//
// The dense method: U built on the identity (column panels in place, or on
// one invariant coset), U^count by repeated squaring from the cache's
// powers (Eigen GEMM), applied as one GEMM over the slices of the C = 1
// subspace.
//
//===----------------------------------------------------------------------===//
#include "BlockEngine.h"
#include "Kernels.h"

namespace q2::runtime::blocks {

thread_local int64_t denseProducts = 0;

/// R = A * B (no aliasing), columns of the result split over the threads.
void matmul(const MatrixXcd &A, const MatrixXcd &B, MatrixXcd &R) {
  ++denseProducts;
  // The split below is the only parallelism: should Eigen ever be built
  // with OpenMP, its own threads must not multiply ours.
  static const bool eigenSerial = (Eigen::setNbThreads(1), true);
  (void)eigenSerial;
  R.resize(A.rows(), B.cols());
  double work = double(A.rows()) * double(A.cols()) * double(B.cols()) *
                macCost();
  // Eigen packs all of A for every column block: use a few wide blocks
  // (4 per thread, at least 32 columns) rather than many narrow ones.
  const Eigen::Index cols = B.cols();
  int chunks = chunksFor(work, uint64_t(cols) / 32);
  const Eigen::Index step =
      std::max<Eigen::Index>(32, (cols + 4 * chunks - 1) / (4 * chunks));
  uint64_t blocks = uint64_t((cols + step - 1) / step);
  dynamicFor(chunks, blocks, [&](int, uint64_t b) {
    Eigen::Index lo = Eigen::Index(b) * step, w = std::min(step, cols - lo);
    gemm(A.data(), long(A.rows()), B.data() + lo * B.rows(), long(B.rows()),
         R.data() + lo * R.rows(), long(R.rows()), long(A.rows()),
         long(A.cols()), long(w));
  });
}


/// v <- (C-controlled M on T) v for a 2^n interleaved array: the slices of
/// the C = 1 subspace, gathered as columns of a dim x Kp panel, one GEMM,
/// scattered back. M acts on the local indices `members` (one invariant
/// coset, dim = M's size) or, when null, on all 2^m.
void applyControlledDense(double *v, int n, uint64_t T, uint64_t C,
                          const MatrixXcd &M,
                          const std::vector<uint64_t> *members) {
  uint64_t dim = uint64_t(M.rows());
  uint64_t O = lowBits(n) & ~(T | C);
  int nO = __builtin_popcountll(O);
  uint64_t K = uint64_t(1) << nO;
  // At least 256 slices per GEMM where there are that many: with fewer
  // columns a large U (m = 12: 256 MiB) is streamed from memory once per
  // panel instead of being reused from cache.
  int dbits = 63 - __builtin_clzll(dim);
  int pb = std::max(0, std::min(nO, std::max(sliceBits.load() - dbits, 8)));
  uint64_t Kp = uint64_t(1) << pb, panels = K >> pb;
  std::vector<uint64_t> off(dim);
  for (uint64_t l = 0; l < dim; ++l)
    off[l] = depositBits(members ? (*members)[l] : l, T);
  double work = double(K) * double(dim) * double(dim) * macCost();
  int chunks = chunksFor(work, panels);
  auto *amps = reinterpret_cast<cd *>(v);
  std::vector<MatrixXcd> Xs(static_cast<size_t>(chunks)), Ys(static_cast<size_t>(chunks));
  // Slices that are all zero stay zero and are skipped: in a QPE circuit
  // the estimation wires after the current one are still |0>, so wire j
  // finds 2^j of its slices non-zero, and the GEMMs shrink accordingly.
  std::vector<std::vector<uint64_t>> live(static_cast<size_t>(chunks));
  dynamicFor(chunks, panels, [&](int w, uint64_t p) {
    MatrixXcd &X = Xs[size_t(w)], &Y = Ys[size_t(w)];
    std::vector<uint64_t> &cols = live[size_t(w)];
    X.resize(static_cast<Eigen::Index>(dim), static_cast<Eigen::Index>(Kp));
    Y.resize(static_cast<Eigen::Index>(dim), static_cast<Eigen::Index>(Kp));
    cols.clear();
    for (uint64_t j = 0; j < Kp; ++j) {
      const cd *src = amps + (depositBits(p * Kp + j, O) | C);
      cd *col = X.col(Eigen::Index(cols.size())).data();
      bool nonzero = false;
      for (uint64_t l = 0; l < dim; ++l) {
        col[l] = src[off[l]];
        nonzero |= col[l] != cd(0, 0);
      }
      if (nonzero)
        cols.push_back(j);
    }
    if (cols.empty())
      return;
    gemm(M.data(), long(dim), X.data(), long(dim), Y.data(), long(dim),
         long(dim), long(dim), long(cols.size()));
    for (size_t c = 0; c < cols.size(); ++c) {
      cd *dst = amps + (depositBits(p * Kp + cols[c], O) | C);
      const cd *col = Y.col(Eigen::Index(c)).data();
      for (uint64_t l = 0; l < dim; ++l)
        dst[off[l]] = col[l];
    }
  });
}

/// U of the local Ops (m qubits) on the identity: column panels of U are
/// (m + p)-qubit buffers (column bits as spectators), in place, split over
/// the threads. Nested blocks are either powered densely (cheaper, or mode
/// 2) and applied as a controlled dense step, or replayed. With d < m, U on
/// the coset of `rep` only (2^d x 2^d): each panel's columns are the
/// coset's basis states in a scratch buffer, and U's rows are read from the
/// coset's members (the other amplitudes are exactly 0).
void buildUnitary(BlockCache &cache, const std::vector<Op> &local,
                  const Cosets &cs, uint64_t rep, int mode, MatrixXcd &U) {
  int m = cs.m;
  uint64_t dim = uint64_t(1) << m;
  bool onCoset = cs.d < m;
  uint64_t cols = uint64_t(1) << cs.d;
  std::vector<uint64_t> members;
  if (onCoset) {
    cs.members(rep, members);
    U.resize(Eigen::Index(cols), Eigen::Index(cols));
  } else {
    U.setIdentity(Eigen::Index(dim), Eigen::Index(dim));
  }
  // Nested blocks at this level: decide and precompute their powers.
  struct NestPlan {
    uint64_t C = 0, T = 0;
    DenseResult dense;
    bool useDense = false;
  };
  std::vector<NestPlan> plans(local.size());
  for (size_t i = 0; i < local.size(); ++i) {
    const Op &op = local[i];
    if (op.kind != kOpNest)
      continue;
    size_t len = size_t(op.len);
    if (op.count > 0) {
      Shape s = shapeOf(&local[i + 1], len);
      if (s.any) {
        std::vector<Op> inner;
        translateAll(&local[i + 1], len, s.C, s.T, inner);
        CacheEntry *e = cache.find(hashOps(inner, s.T), s.T, inner);
        double amps = std::ldexp(1.0, 2 * m - __builtin_popcountll(s.C));
        Estimate est = estimate(2 * m, amps, s.m, s.apps, op.count, e, true);
        if (choose(est, mode, s.m) == kDense) {
          plans[i].useDense = true;
          plans[i].C = s.C;
          plans[i].T = s.T;
          denseMatrix(cache, inner, s.T, Cosets::full(s.m), 0, op.count, mode,
                      plans[i].dense);
          // A later plan may evict this one's cache entry: keep a copy.
          if (plans[i].dense.matrix != &plans[i].dense.own) {
            plans[i].dense.own = *plans[i].dense.matrix;
            plans[i].dense.matrix = &plans[i].dense.own;
          }
        }
      }
    }
    i += len;
  }
  int p = std::max(0, std::min(cs.d, sliceBits.load() - m));
  uint64_t P = uint64_t(1) << p, panels = cols >> p;
  double work = applications(local.data(), local.size()) * double(cols) *
                double(dim) * model.gateInCache;
  int chunks = chunksFor(work, panels);
  double *base = onCoset ? nullptr : reinterpret_cast<double *>(U.data());
  std::vector<std::vector<cd>> scratch(size_t(onCoset ? chunks : 0));
  dynamicFor(chunks, panels, [&](int w, uint64_t pi) {
    {
      double *buf = onCoset ? nullptr : base + 2 * pi * P * dim;
      if (onCoset) {
        std::vector<cd> &sb = scratch[size_t(w)];
        sb.assign(P * dim, cd(0, 0));
        for (uint64_t c = 0; c < P; ++c)
          sb[c * dim + members[pi * P + c]] = 1;
        buf = reinterpret_cast<double *>(sb.data());
      }
      int nb = m + p;
      for (size_t i = 0; i < local.size(); ++i) {
        const Op &op = local[i];
        if (op.kind != kOpNest) {
          applyOp(buf, nb, op);
          continue;
        }
        if (plans[i].useDense)
          applyControlledDense(buf, nb, plans[i].T, plans[i].C,
                               *plans[i].dense.matrix);
        else
          replayOps(buf, nb, &local[i + 1], size_t(op.len), op.count);
        i += size_t(op.len);
      }
      if (onCoset) {
        const cd *sb = scratch[size_t(w)].data();
        for (uint64_t c = 0; c < P; ++c) {
          cd *col = U.col(Eigen::Index(pi * P + c)).data();
          for (uint64_t j = 0; j < cols; ++j)
            col[j] = sb[c * dim + members[j]];
        }
      }
    }
  });
}

void denseMatrix(BlockCache &cache, const std::vector<Op> &local, uint64_t T,
                 const Cosets &cs, uint64_t rep, int64_t count, int mode,
                 DenseResult &out) {
  uint64_t hash = hashOps(local, T);
  CacheEntry *e = cache.find(hash, T, local, rep, cs.d);
  if (!e)
    e = cache.insert(hash, T, cs.m, cs.d, rep, local);
  struct Pin { // nested computations must not evict this entry
    CacheEntry *e;
    bool prev;
    explicit Pin(CacheEntry *x) : e(x), prev(x->pinned) { e->pinned = true; }
    ~Pin() { e->pinned = prev; }
  } pin(e);
  auto cached = [&](int64_t ex) -> const MatrixXcd * {
    auto it = e->powers.find(ex);
    return it == e->powers.end() ? nullptr : &it->second;
  };
  if (const MatrixXcd *hit = cached(count)) {
    out.matrix = hit;
    out.reused = true;
    return;
  }
  // U itself.
  MatrixXcd Ulocal;
  const MatrixXcd *U = cached(1);
  if (!U) {
    buildUnitary(cache, local, cs, rep, mode, Ulocal);
    U = cache.store(*e, 1, Ulocal);
    if (!U)
      U = &Ulocal;
  } else {
    out.reused = true;
  }
  if (count == 1) {
    out.matrix = U;
    if (U == &Ulocal) {
      out.own = std::move(Ulocal);
      out.matrix = &out.own;
    }
    return;
  }
  // Shortest path: a cached U^e with count = e * 2^s (s squarings), else
  // the binary method from the largest cached U^(2^a).
  int64_t bestE = 0;
  int bestS = 64;
  for (auto &[ex, mtx] : e->powers) {
    (void)mtx;
    if (ex > 1 && count % ex == 0) {
      uint64_t q = uint64_t(count / ex);
      if ((q & (q - 1)) == 0 && __builtin_ctzll(q) < bestS) {
        bestS = __builtin_ctzll(q);
        bestE = ex;
      }
    }
  }
  int h = 63 - __builtin_clzll(uint64_t(count));
  bool binaryReuses = false;
  int start = 0;
  double binaryCost = binaryProducts(e, count, &binaryReuses, &start);
  MatrixXcd acc, sq, tmp;
  if (bestE && bestS <= binaryCost) {
    out.reused = true;
    const MatrixXcd *cur = cached(bestE);
    int64_t ex = bestE;
    for (int s = 0; s < bestS; ++s) {
      matmul(*cur, *cur, tmp);
      ex *= 2;
      sq.swap(tmp);
      const MatrixXcd *kept = cache.store(*e, ex, sq);
      cur = kept ? kept : &sq;
    }
    if (cached(count)) {
      out.matrix = cached(count);
    } else {
      out.own = std::move(sq);
      out.matrix = &out.own;
    }
    return;
  }
  out.reused = out.reused || binaryReuses;
  // Binary method: cur runs through U^(2^j), j = start..h, from the cache
  // where it is there, else squared from the one before. A store only
  // evicts powers below the one stored, never a U^(2^j) still ahead.
  const MatrixXcd *cur = start > 0 ? cached(int64_t(1) << start) : U;
  bool haveAcc = false;
  for (int j = start; j <= h; ++j) {
    if (j > start) {
      if (const MatrixXcd *c = cached(int64_t(1) << j)) {
        cur = c;
      } else {
        matmul(*cur, *cur, tmp);
        sq.swap(tmp);
        const MatrixXcd *kept = cache.store(*e, int64_t(1) << j, sq);
        cur = kept ? kept : &sq;
      }
    }
    if ((uint64_t(count) >> j) & 1) {
      if (!haveAcc) {
        acc = *cur;
        haveAcc = true;
      } else {
        matmul(*cur, acc, tmp); // powers of U commute
        acc.swap(tmp);
      }
    }
  }
  if (const MatrixXcd *kept = cache.store(*e, count, acc)) {
    out.matrix = kept;
  } else {
    out.own = std::move(acc);
    out.matrix = &out.own;
  }
}

} // namespace q2::runtime::blocks
