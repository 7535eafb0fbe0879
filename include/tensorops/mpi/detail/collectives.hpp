// tensorops/mpi/detail/collectives.hpp — the few MPI exchanges the sharded operators use, in bytes, and the rule that
// keeps every rank in step when an argument is wrong: an error on any rank becomes the same tensorops::error on all.
#pragma once

#include "mpi_c.hpp"

#include <algorithm>
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

/// The most bytes one MPI call here moves or addresses: MPI's counts and displacements are ints. Every exchange of
/// more is cut into calls of at most this many (a parameter of each function, so that tests can cut small ones).
inline constexpr std::size_t message_byte_limit = static_cast<std::size_t>(INT_MAX);

/// A byte count or displacement as MPI's int; callers keep it within message_byte_limit.
[[nodiscard]] inline int byte_count(std::size_t bytes) noexcept { return static_cast<int>(bytes); }

/// Sends `size` bytes to rank `to` as MPI_Send does, in messages of at most `limit` bytes (receive_bytes, given the
/// same size and limit, takes them).
inline void send_bytes(MPI_Comm comm, const void* data, std::size_t size, int to, int tag, std::size_t limit = message_byte_limit) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    std::size_t done = 0;
    do {
        const std::size_t n = std::min(limit, size - done);
        MPI_Send(bytes + done, byte_count(n), MPI_BYTE, to, tag, comm);
        done += n;
    } while (done < size);
}
/// Receives what send_bytes sends: `size` bytes from rank `from`, in messages of at most `limit` bytes.
inline void receive_bytes(MPI_Comm comm, void* data, std::size_t size, int from, int tag, std::size_t limit = message_byte_limit) {
    auto* bytes = static_cast<unsigned char*>(data);
    std::size_t done = 0;
    do {
        const std::size_t n = std::min(limit, size - done);
        MPI_Recv(bytes + done, byte_count(n), MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE);
        done += n;
    } while (done < size);
}

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

/// Tags of the point-to-point messages (one kind in flight at a time per operator call).
inline constexpr int chain_tag = 0x7e50;
inline constexpr int gather_tag = 0x7e51;

/// send_bytes and receive_bytes without waiting: the messages' requests appended to `requests` (complete them with
/// wait_for before `data` is reused or read). Between two ranks, messages posted in the same order match in order.
inline void post_send_bytes(MPI_Comm comm, const void* data, std::size_t size, int to, int tag, std::vector<MPI_Request>& requests,
                            std::size_t limit = message_byte_limit) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (std::size_t done = 0; done < size; done += limit)
        MPI_Isend(bytes + done, byte_count(std::min(limit, size - done)), MPI_BYTE, to, tag, comm, &requests.emplace_back());
}
inline void post_receive_bytes(MPI_Comm comm, void* data, std::size_t size, int from, int tag, std::vector<MPI_Request>& requests,
                               std::size_t limit = message_byte_limit) {
    auto* bytes = static_cast<unsigned char*>(data);
    for (std::size_t done = 0; done < size; done += limit)
        MPI_Irecv(bytes + done, byte_count(std::min(limit, size - done)), MPI_BYTE, from, tag, comm, &requests.emplace_back());
}
/// Completes the requests posted (none: nothing to do).
inline void wait_for(std::vector<MPI_Request>& requests) {
    if (!requests.empty()) MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    requests.clear();
}

/// `size` bytes at `data` from rank `from` to every rank, as MPI_Bcast does, in broadcasts of at most `limit` bytes.
inline void broadcast_bytes(MPI_Comm comm, void* data, std::size_t size, int from, std::size_t limit = message_byte_limit) {
    auto* bytes = static_cast<unsigned char*>(data);
    for (std::size_t done = 0; done < size; done += limit)
        MPI_Bcast(bytes + done, byte_count(std::min(limit, size - done)), MPI_BYTE, from, comm);
}

/// Each rank's `count[r]` bytes from `mine` land at `displacement[r]` of `all` on every rank (root < 0), or on
/// `root` only (`all` is then unused elsewhere). `count` and `displacement` must be the same on every rank. Any size:
/// one MPI_Allgatherv / MPI_Gatherv while every count and displacement fits `limit`; past it (2 GiB: a floating
/// reduction's gathered tensor of 64 MiB on each of 64 ranks is 4 GiB), each rank's block in turn, in messages of
/// at most `limit` bytes — broadcast from its rank, or sent to the root.
inline void gather_bytes(MPI_Comm comm, const void* mine, const std::vector<std::size_t>& count, const std::vector<std::size_t>& displacement,
                         void* all, int root, std::size_t limit = message_byte_limit) {
    const place here = place_in(comm);
    const auto me = static_cast<std::size_t>(here.rank);
    bool fits = true;
    for (std::size_t r = 0; r < count.size(); ++r) fits = fits && count[r] <= limit && displacement[r] <= limit - std::min(limit, count[r]);
    if (fits) {
        std::vector<int> counts(count.size()), displacements(count.size());
        for (std::size_t r = 0; r < count.size(); ++r) {
            counts[r] = byte_count(count[r]);
            displacements[r] = byte_count(displacement[r]);
        }
        if (root < 0)
            MPI_Allgatherv(mine, counts[me], MPI_BYTE, all, counts.data(), displacements.data(), MPI_BYTE, comm);
        else
            MPI_Gatherv(mine, counts[me], MPI_BYTE, all, counts.data(), displacements.data(), MPI_BYTE, root, comm);
        return;
    }
    auto* bytes = static_cast<unsigned char*>(all);
    for (std::size_t r = 0; r < count.size(); ++r) {
        if (count[r] == 0) continue;
        const int from = static_cast<int>(r);
        if (root < 0) {
            if (r == me) std::memcpy(bytes + displacement[r], mine, count[r]);
            broadcast_bytes(comm, bytes + displacement[r], count[r], from, limit);
        } else if (r == me && here.rank == root) {
            std::memcpy(bytes + displacement[r], mine, count[r]);
        } else if (r == me) {
            send_bytes(comm, mine, count[r], root, gather_tag, limit);
        } else if (here.rank == root) {
            receive_bytes(comm, bytes + displacement[r], count[r], from, gather_tag, limit);
        }
    }
}

}  // namespace tensorops::mpi::detail
