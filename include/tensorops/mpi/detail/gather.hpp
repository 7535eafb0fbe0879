// tensorops/mpi/detail/gather.hpp — the packed global tensor assembled from every rank's packed shard: the fallback of
// the reductions whose single-process order cannot yet be rebuilt from per-shard partials (mpi/reduce.hpp says which).
#pragma once

#include "mpi_c.hpp"

#include <cstddef>
#include <cstring>
#include <vector>

#include "../sharded.hpp"
#include "collectives.hpp"

namespace tensorops::mpi::detail {

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
    for (std::size_t r = 0; r < sh.shards.size(); ++r) {
        const shard_range& s = sh.shards[r];
        const T* from = by_rank.data() + displacement[r] / sizeof(T);
        for (std::size_t line = 0; line < outer && s.count > 0; ++line)
            std::memcpy(global.data() + (line * n + s.offset) * inner, from + line * s.count * inner, s.count * inner * sizeof(T));
    }
    return global;
}

}  // namespace tensorops::mpi::detail
