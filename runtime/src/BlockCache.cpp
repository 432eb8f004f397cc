//===- BlockCache.cpp - cached powers of block unitaries ------------------===//
//
// Per register: the blocks seen (in local indices, per invariant coset) and
// their dense powers U^e, within the memory budget (BlockSettings.cpp);
// least recently used matrices go first.
//
//===----------------------------------------------------------------------===//
#include "BlockEngine.h"

namespace q2::runtime {
using namespace blocks;

CacheEntry *BlockCache::find(uint64_t hash, uint64_t T,
                             const std::vector<Op> &ops, uint64_t rep, int d) {
  for (auto &e : entries)
    if (e->hash == hash && e->rep == rep && e->d == (d < 0 ? e->m : d) &&
        e->ops.size() == ops.size() &&
        std::equal(ops.begin(), ops.end(), e->ops.begin(), sameOp)) {
      e->lastUse = ++tick;
      return e.get();
    }
  return nullptr;
}

CacheEntry *BlockCache::insert(uint64_t hash, uint64_t T, int m, int d,
                               uint64_t rep, const std::vector<Op> &ops) {
  if (entries.size() >= kMaxCacheEntries) { // drop the least recently used
    auto victim = entries.end();
    for (auto it = entries.begin(); it != entries.end(); ++it)
      if (!(*it)->pinned &&
          (victim == entries.end() || (*it)->lastUse < (*victim)->lastUse))
        victim = it;
    if (victim != entries.end()) {
      dropPowers(**victim);
      entries.erase(victim);
    }
  }
  auto e = std::make_unique<CacheEntry>();
  e->hash = hash;
  e->T = T;
  e->m = m;
  e->d = d;
  e->rep = rep;
  e->ops = ops;
  e->lastUse = ++tick;
  entries.push_back(std::move(e));
  return entries.back().get();
}

void BlockCache::dropPowers(CacheEntry &e) {
  bytes -= double(e.powers.size()) * matrixBytes(e.d);
  e.powers.clear();
}

bool BlockCache::reserve(double need, const CacheEntry *keep) {
  double budget = memoryBudget();
  while (bytes + need > budget) {
    CacheEntry *victim = nullptr;
    for (auto &e : entries)
      if (e.get() != keep && !e->powers.empty() &&
          (!victim || e->lastUse < victim->lastUse))
        victim = e.get();
    if (!victim)
      return false;
    dropPowers(*victim);
  }
  return true;
}

/// Moves mtx into the cache if the budget allows; returns the cached
/// matrix, or null (mtx untouched) when it does not fit. When only e's
/// own powers are left, its smallest ones above U go first: powers are
/// built upwards (wire k of a QPE program squares wire k-1's), so the
/// newest is the one the next call starts from. Keeping the oldest
/// instead made every later wire redo the squarings from them (k + 2
/// products for wire k instead of 1). The callers hold no pointer to a
/// power of e other than U across a store.
const MatrixXcd *BlockCache::store(CacheEntry &e, int64_t exp,
                                   MatrixXcd &mtx) {
  auto it = e.powers.find(exp);
  if (it != e.powers.end())
    return &it->second;
  double need = matrixBytes(e.d);
  if (!reserve(need, &e)) {
    while (bytes + need > memoryBudget()) {
      auto victim = e.powers.upper_bound(1);
      if (victim == e.powers.end() || victim->first > exp)
        return nullptr; // only U, or larger powers than this one
      e.powers.erase(victim);
      bytes -= need;
    }
  }
  bytes += need;
  return &e.powers.emplace(exp, std::move(mtx)).first->second;
}

void BlockCacheDeleter::operator()(BlockCache *c) const { delete c; }

} // namespace q2::runtime
