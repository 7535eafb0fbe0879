// tensorops/mpi/detail/collectives.hpp — the few MPI exchanges the sharded operators use, in bytes, and the rule that
// keeps every rank in step when an argument is wrong: an error on any rank becomes the same tensorops::error on all.
#pragma once

#include "mpi_c.hpp"

#include <climits>
#include <cstddef>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "../../core/error.hpp"

namespace tensorops::mpi::detail {

/// This rank's number and the communicator's size.
struct place {
    int rank = 0;
    int ranks = 1;
};

[[nodiscard]] inline place place_in(MPI_Comm comm) {
    place p;
    MPI_Comm_rank(comm, &p.rank);
    MPI_Comm_size(comm, &p.ranks);
    return p;
}

/// A byte count as MPI's int. Messages are bounded by the caller's checks (agree_on) to INT_MAX bytes.
[[nodiscard]] inline int byte_count(std::size_t bytes) noexcept { return static_cast<int>(bytes); }

/// Runs `check` on this rank, then agrees with every other rank of `comm` (a collective: every rank calls it, in the
/// same order as its other collectives): if `check` threw tensorops::error on any rank, every rank throws that error —
/// the one of the lowest such rank, its operator, argument and rule unchanged. Nothing else is thrown from here; a
/// rank whose check passed still throws the other rank's error, so no rank goes on into a collective that another
/// has left. Cost: one allreduce of an int, and a broadcast of the message only on failure.
template <class Check>
void agree_on(MPI_Comm comm, const Check& check) {
    const place here = place_in(comm);
    std::string parts[3];
    int failed_rank = here.ranks;
    try {
        check();
    } catch (const tensorops::error& e) {
        parts[0] = e.operator_name();
        parts[1] = e.argument();
        parts[2] = e.rule();
        failed_rank = here.rank;
    }
    int first_failed = here.ranks;
    MPI_Allreduce(&failed_rank, &first_failed, 1, MPI_INT, MPI_MIN, comm);
    if (first_failed == here.ranks) return;
    for (std::string& part : parts) {
        unsigned long length = part.size();
        MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, first_failed, comm);
        part.resize(length);
        MPI_Bcast(part.data(), byte_count(length), MPI_CHAR, first_failed, comm);
    }
    throw tensorops::error(parts[0], parts[1], parts[2]);
}

/// Every rank's `value` (trivially copyable), in rank order, on every rank.
template <class V>
    requires std::is_trivially_copyable_v<V>
[[nodiscard]] std::vector<V> all_gather(MPI_Comm comm, const V& value) {
    const place here = place_in(comm);
    std::vector<V> all(static_cast<std::size_t>(here.ranks));
    MPI_Allgather(&value, byte_count(sizeof(V)), MPI_BYTE, all.data(), byte_count(sizeof(V)), MPI_BYTE, comm);
    return all;
}

/// Each rank's `count[r]` bytes from `mine` land at `displacement[r]` of `all` on every rank (root < 0), or on
/// `root` only.
inline void gather_bytes(MPI_Comm comm, const void* mine, const std::vector<std::size_t>& count, const std::vector<std::size_t>& displacement,
                         void* all, int root) {
    const place here = place_in(comm);
    std::vector<int> counts(count.size()), displacements(count.size());
    for (std::size_t r = 0; r < count.size(); ++r) {
        counts[r] = byte_count(count[r]);
        displacements[r] = byte_count(displacement[r]);
    }
    const int my_count = counts[static_cast<std::size_t>(here.rank)];
    if (root < 0)
        MPI_Allgatherv(mine, my_count, MPI_BYTE, all, counts.data(), displacements.data(), MPI_BYTE, comm);
    else
        MPI_Gatherv(mine, my_count, MPI_BYTE, all, counts.data(), displacements.data(), MPI_BYTE, root, comm);
}

/// Tags of the point-to-point messages (one kind in flight at a time per operator call).
inline constexpr int chain_tag = 0x7e50;

}  // namespace tensorops::mpi::detail
