// tensorops/mpi/detail/tuple_routing.hpp — what mpi::gather_nd and mpi::scatter_nd share: the index tuples of one rank,
// in global coordinates, routed to the ranks whose shards hold their slices, and the all-to-all exchanges that carry
// them there (and the slices back or on).
//
// A tuple names dimensions [0, prefix) of the global tensor (gather_nd: its batch position, then its k coordinates;
// scatter_nd: its k coordinates) and selects the slice over dimensions [prefix, rank). Where that slice lives:
//   - the sharded axis among the named dimensions (axis < prefix): on the one rank whose shard holds the tuple's
//     coordinate on that axis, whole; the tuple goes there alone, its coordinate made local (minus the shard's offset);
//   - the sharded axis within the slice (axis ≥ prefix, "spread"): every non-empty shard holds the slice's part along
//     the axis that falls in its range; the tuple goes to every such rank, and each rank's part of a slice is that
//     packed sub-block, [outer, count, inner] around the axis.
// On the receiving rank the tuples form one index array in the order they arrived — by sending rank, then in each
// sender's row-major order — which the library's own gather_nd / scatter_nd then walk in row-major order.
// Coordinates travel normalised (negative ones counted from the end) as int64, whatever the caller's index type.
#pragma once

#include "mpi_c.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../../core/element.hpp"
#include "../../core/error.hpp"
#include "../../core/tensor_view.hpp"
#include "../../exec/executor.hpp"
#include "../../ops/detail/tuples/plan.hpp"
#include "../../ops/detail/tuples/validate.hpp"
#include "../sharded.hpp"
#include "collectives.hpp"
#include "staging.hpp"

namespace tensorops::mpi::detail {

/// The sizes and packed strides of the agreed global tensor, as the library's shape checks and tuple planner see a
/// view (tensorops::detail::layout). Keeps the strides it points to: use it while it lives.
struct global_layout {
    const sharding* sh = nullptr;
    strides_array strides{};
    explicit global_layout(const sharding& s) : sh(&s), strides(packed_strides(s.global, s.rank_dims)) {}
    [[nodiscard]] tensorops::detail::layout get() const noexcept {
        return {std::span<const std::size_t>(sh->global.data(), sh->rank_dims),
                std::span<const std::ptrdiff_t>(strides.data(), sh->rank_dims)};
    }
};

/// The library's validation of every tuple of `indices` against the global tensor (the plan's extents), its error
/// naming the rank whose tuple is out of range. Throws tensorops::error (argument "indices"); meant for agree_on.
template <index_element I>
void validate_global_tuples(const executor_ref& exec, std::string_view operation, const tensor_view<const I>& indices,
                            const tensorops::detail::tuple_plan& plan, int rank) {
    try {
        tensorops::detail::validate_tuples(exec, operation, indices, plan, "the global input");
    } catch (const tensorops::error& e) {
        throw tensorops::error(e.operator_name(), e.argument(), "on rank " + std::to_string(rank) + ", " + e.rule());
    }
}

/// Where the slices of a call's tuples live (see the file comment), and the size of each rank's part of a slice.
struct tuple_routing {
    std::size_t prefix = 0;  // dimensions a tuple names, [0, prefix)
    bool spread = false;     // the sharded axis lies within the slice: every non-empty shard holds a part of each
    std::size_t outer = 1, along = 1, inner = 1;  // the packed global slice as [outer, along the sharded axis, inner]
    const sharding* sh = nullptr;

    tuple_routing(const sharding& s, std::size_t named) : prefix(named), spread(s.axis >= named), sh(&s) {
        for (std::size_t d = named; d < s.rank_dims; ++d) {
            if (spread && d < s.axis) outer *= s.global[d];
            else if (spread && d == s.axis) along = s.global[d];
            else inner *= s.global[d];
        }
    }
    /// Elements of one whole slice of the global tensor.
    [[nodiscard]] std::size_t slice_elements() const noexcept { return outer * along * inner; }
    /// Elements of rank r's part of one slice (the whole slice for its owner when not spread).
    [[nodiscard]] std::size_t piece_elements(std::size_t r) const noexcept {
        return spread ? outer * sh->shards[r].count * inner : slice_elements();
    }
    /// The rank whose shard holds global index `coordinate` of the sharded axis (the last non-empty shard that starts
    /// at or before it: an empty shard starts where the next one does).
    [[nodiscard]] std::size_t owner_of(std::size_t coordinate) const noexcept {
        const auto& shards = sh->shards;
        const auto after = std::upper_bound(shards.begin(), shards.end(), coordinate,
                                            [](std::size_t c, const shard_range& s) { return c < s.offset; });
        return static_cast<std::size_t>(after - shards.begin()) - 1;
    }
    /// Copies rank r's part of a packed global slice into `piece` (spread: lines of count·inner elements).
    template <class T>
    void cut(const T* slice, T* piece, std::size_t r) const {
        const shard_range& s = sh->shards[r];
        if (!spread) std::memcpy(piece, slice, slice_elements() * sizeof(T));
        else
            for (std::size_t o = 0; o < outer && s.count > 0; ++o)
                std::memcpy(piece + o * s.count * inner, slice + (o * along + s.offset) * inner,
                            s.count * inner * sizeof(T));
    }
    /// The reverse of cut: rank r's part into its place in a packed global slice.
    template <class T>
    void paste(const T* piece, T* slice, std::size_t r) const {
        const shard_range& s = sh->shards[r];
        if (!spread) std::memcpy(slice, piece, slice_elements() * sizeof(T));
        else
            for (std::size_t o = 0; o < outer && s.count > 0; ++o)
                std::memcpy(slice + (o * along + s.offset) * inner, piece + o * s.count * inner,
                            s.count * inner * sizeof(T));
    }
};

/// One rank's tuples, ready to send: `coordinates` holds `prefix` int64 per record in send order (grouped by
/// destination rank, each group in row-major order of the index array); `count[r]` records go to rank r. Tuple n
/// (row-major) is record `position[n]` when not spread; spread, it is record n of every non-empty rank's group.
struct routed_tuples {
    std::vector<std::int64_t> coordinates;
    std::vector<std::size_t> count;
    std::vector<std::size_t> position;
    std::size_t tuples = 0;
};

/// Calls body(n, position, tuple) for every tuple of `indices` (its last dimension the coordinates) in row-major
/// order: n its number, position its index in indices.shape[:-1], tuple its first coordinate.
template <index_element I, class Body>
void for_each_tuple(const tensor_view<const I>& indices, const Body& body) {
    const std::size_t tuple_rank = indices.rank() - 1;
    std::size_t count = 1;
    for (std::size_t d = 0; d < tuple_rank; ++d) count *= indices.size(d);
    std::array<std::size_t, max_rank> position{};
    std::ptrdiff_t offset = 0;
    for (std::size_t n = 0; n < count; ++n) {
        body(n, position, indices.data() + offset);
        for (std::size_t d = tuple_rank; d-- > 0;) {
            offset += indices.stride(d);
            if (++position[d] < indices.size(d)) break;
            offset -= static_cast<std::ptrdiff_t>(position[d]) * indices.stride(d);
            position[d] = 0;
        }
    }
}

/// Routes this rank's tuples (all in range: validated before): record = the batch position (the first batch_dims
/// dimensions of the tuple's place in `indices`), then its k coordinates normalised; not spread, the sharded axis's
/// coordinate made local to its owner.
template <index_element I>
[[nodiscard]] routed_tuples route_tuples(const tensor_view<const I>& indices, const tuple_routing& routing,
                                         std::size_t batch_dims) {
    const sharding& sh = *routing.sh;
    const std::size_t ranks = sh.shards.size(), prefix = routing.prefix, k = prefix - batch_dims;
    const std::ptrdiff_t coordinate_stride = indices.stride(indices.rank() - 1);
    routed_tuples routed;
    routed.count.assign(ranks, 0);
    std::vector<std::int64_t> global;  // row-major order
    std::vector<std::size_t> owner;
    for_each_tuple(indices, [&](std::size_t, const std::array<std::size_t, max_rank>& position, const I* tuple) {
        for (std::size_t d = 0; d < batch_dims; ++d) global.push_back(static_cast<std::int64_t>(position[d]));
        for (std::size_t c = 0; c < k; ++c)
            global.push_back(tensorops::detail::normalised(tuple[static_cast<std::ptrdiff_t>(c) * coordinate_stride],
                                                           sh.global[batch_dims + c]));
        ++routed.tuples;
        if (routing.spread) return;
        std::int64_t& along = global[global.size() - prefix + sh.axis];
        const std::size_t r = routing.owner_of(static_cast<std::size_t>(along));
        along -= static_cast<std::int64_t>(sh.shards[r].offset);
        owner.push_back(r);
        ++routed.count[r];
    });
    if (routing.spread) {  // every tuple to every non-empty shard
        for (std::size_t r = 0; r < ranks; ++r) {
            if (sh.shards[r].count == 0) continue;
            routed.count[r] = routed.tuples;
            routed.coordinates.insert(routed.coordinates.end(), global.begin(), global.end());
        }
        return routed;
    }
    std::vector<std::size_t> next(ranks, 0);  // a stable counting sort by owner
    for (std::size_t r = 1; r < ranks; ++r) next[r] = next[r - 1] + routed.count[r - 1];
    routed.coordinates.resize(global.size());
    routed.position.resize(routed.tuples);
    for (std::size_t n = 0; n < routed.tuples; ++n) {
        routed.position[n] = next[owner[n]]++;
        std::copy_n(global.begin() + static_cast<std::ptrdiff_t>(n * prefix), prefix,
                    routed.coordinates.begin() + static_cast<std::ptrdiff_t>(routed.position[n] * prefix));
    }
    return routed;
}

/// The counts every rank sends this one, from the counts this one sends every rank (one MPI_Alltoall).
[[nodiscard]] inline std::vector<std::size_t> exchange_counts(MPI_Comm comm, const std::vector<std::size_t>& send) {
    std::vector<unsigned long long> out(send.begin(), send.end()), in(send.size());
    MPI_Alltoall(out.data(), 1, MPI_UNSIGNED_LONG_LONG, in.data(), 1, MPI_UNSIGNED_LONG_LONG, comm);
    return {in.begin(), in.end()};
}

/// The bytes one rank sends to (or receives from) each rank in one exchange, and where each rank's block starts.
struct byte_blocks {
    std::vector<std::size_t> bytes, displacement;
    std::size_t total = 0;
    /// count[r] records of record_bytes(r) bytes for each rank r.
    template <class RecordBytes>
    byte_blocks(const std::vector<std::size_t>& count, const RecordBytes& record_bytes)
        : bytes(count.size()),
          displacement(count.size()) {
        for (std::size_t r = 0; r < count.size(); ++r) {
            bytes[r] = count[r] * record_bytes(r);
            displacement[r] = total;
            total += bytes[r];
        }
    }
};

/// One exchange of bytes, as MPI_Alltoallv: send.bytes[r] from send_data + send.displacement[r] to rank r, received at
/// receive_data + receive.displacement[s] from each rank s. A collective. Any size: one MPI_Alltoallv while every
/// rank's blocks fit `limit` (MPI's int counts and displacements: 2 GiB); past it, on any rank, every rank takes part
/// in the same number of rounds (agreed in one allreduce), each moving at most `round_bytes` / ranks bytes per pair
/// of ranks through staging buffers of `round_bytes` (256 MiB: the memory the rounds cost beside the data).
inline void exchange_bytes(MPI_Comm comm, const void* send_data, const byte_blocks& send, void* receive_data, const byte_blocks& receive,
                           std::size_t limit = message_byte_limit, std::size_t round_bytes = std::size_t{1} << 28) {
    const std::size_t ranks = send.bytes.size();
    std::size_t largest = 0;
    for (std::size_t r = 0; r < ranks; ++r) largest = std::max({largest, send.bytes[r], receive.bytes[r]});
    const std::size_t pair_bytes = std::max<std::size_t>(1, std::min(limit, round_bytes) / ranks);
    unsigned long long my_rounds = send.total <= limit && receive.total <= limit ? 0 : (largest + pair_bytes - 1) / pair_bytes, rounds = 0;
    MPI_Allreduce(&my_rounds, &rounds, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    std::vector<int> send_count(ranks), send_at(ranks), receive_count(ranks), receive_at(ranks);
    if (rounds == 0) {
        for (std::size_t r = 0; r < ranks; ++r) {
            send_count[r] = byte_count(send.bytes[r]);
            send_at[r] = byte_count(send.displacement[r]);
            receive_count[r] = byte_count(receive.bytes[r]);
            receive_at[r] = byte_count(receive.displacement[r]);
        }
        MPI_Alltoallv(send_data, send_count.data(), send_at.data(), MPI_BYTE, receive_data, receive_count.data(), receive_at.data(), MPI_BYTE,
                      comm);
        return;
    }
    // Round k moves bytes [k · pair_bytes, (k + 1) · pair_bytes) of every block, packed into the staging buffers.
    const auto* from = static_cast<const unsigned char*>(send_data);
    auto* to = static_cast<unsigned char*>(receive_data);
    std::vector<unsigned char> outgoing(std::min(ranks * pair_bytes, send.total)), incoming(std::min(ranks * pair_bytes, receive.total));
    const auto piece = [&](std::size_t block, std::size_t k) { return block > k * pair_bytes ? std::min(pair_bytes, block - k * pair_bytes) : 0; };
    for (std::size_t k = 0; k < rounds; ++k) {
        std::size_t sent = 0, received = 0;
        for (std::size_t r = 0; r < ranks; ++r) {
            const std::size_t out = piece(send.bytes[r], k), in = piece(receive.bytes[r], k);
            if (out > 0) std::memcpy(outgoing.data() + sent, from + send.displacement[r] + k * pair_bytes, out);
            send_count[r] = byte_count(out);
            send_at[r] = byte_count(sent);
            receive_count[r] = byte_count(in);
            receive_at[r] = byte_count(received);
            sent += out;
            received += in;
        }
        MPI_Alltoallv(outgoing.data(), send_count.data(), send_at.data(), MPI_BYTE, incoming.data(), receive_count.data(), receive_at.data(),
                      MPI_BYTE, comm);
        for (std::size_t r = 0; r < ranks; ++r)
            if (receive_count[r] > 0)
                std::memcpy(to + receive.displacement[r] + k * pair_bytes, incoming.data() + static_cast<std::size_t>(receive_at[r]),
                            static_cast<std::size_t>(receive_count[r]));
    }
}

/// The sizes {records} ++ sizes[from:] (a received index array or slice array), for a tensor_view.
[[nodiscard]] inline std::vector<std::size_t> records_of(std::size_t records, std::span<const std::size_t> sizes,
                                                         std::size_t from) {
    std::vector<std::size_t> result{records};
    result.insert(result.end(), sizes.begin() + static_cast<std::ptrdiff_t>(from), sizes.end());
    return result;
}

}  // namespace tensorops::mpi::detail
