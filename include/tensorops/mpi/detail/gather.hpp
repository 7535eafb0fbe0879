// tensorops/mpi/detail/gather.hpp — the packed global tensor assembled from every rank's packed shard: the fallback of
// the reductions whose single-process order cannot yet be rebuilt from per-shard partials (mpi/reduce.hpp says which).
#pragma once

#include "mpi_c.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "../sharded.hpp"
#include "collectives.hpp"

namespace tensorops::mpi::detail {

/// Rank q's block of `lines` lines of its shard (count_q · inner elements each, one after the other at `block`) into
/// `lines` lines of the global sharded axis at `into` (along · inner elements each), at the shard's offset.
template <class T>
void lay_out_lines(const T* block, std::size_t lines, const shard_range& shard, std::size_t along, std::size_t inner,
                   T* into) {
    const std::size_t run = shard.count * inner;
    for (std::size_t line = 0; line < lines && run > 0; ++line)
        std::copy_n(block + line * run, run, into + (line * along + shard.offset) * inner);
}

/// The global tensor, packed row-major, on every rank (root < 0) or on `root` (elsewhere: empty), from each rank's
/// packed shard `mine` ([outer, count, inner] with count its shard of the sharded axis). A collective.
template <class T>
[[nodiscard]] std::vector<T> gather_global(MPI_Comm comm, const sharding& sh, const T* mine, int root) {
    const std::size_t outer = sh.outer(), inner = sh.inner(), n = sh.along();
    const bool receives = root < 0 || root == sh.here.rank;
    std::vector<std::size_t> count(sh.shards.size()), displacement(sh.shards.size());
    std::size_t total = 0;
    for (std::size_t r = 0; r < sh.shards.size(); ++r) {
        count[r] = outer * sh.shards[r].count * inner * sizeof(T);
        displacement[r] = total;
        total += count[r];
    }
    std::vector<T> by_rank(receives ? total / sizeof(T) : 0);
    gather_bytes(comm, mine, count, displacement, by_rank.data(), root);
    if (!receives) return {};
    std::vector<T> global(outer * n * inner);
    for (std::size_t r = 0; r < sh.shards.size(); ++r)
        lay_out_lines(by_rank.data() + displacement[r] / sizeof(T), outer, sh.shards[r], n, inner, global.data());
    return global;
}

}  // namespace tensorops::mpi::detail
