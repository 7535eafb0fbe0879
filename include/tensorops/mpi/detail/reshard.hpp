// tensorops/mpi/detail/reshard.hpp — a floating reduction whose order the ranks cannot follow shard by shard, computed
// on pieces of whole groups instead of on a gathered copy of the tensor on every rank.
//
// When the leading axes of the global tensor (axis 0 and those right after it, before the sharded one) are kept, the
// tensor is re-sharded along them: every rank receives a range of their combined index with every other axis whole —
// its piece, packed — from the ranks that hold its parts; the library reduces the piece; the outputs go where the
// call wants them (to every rank or the root when the sharded axis is reduced, to the ranks that own their range of it
// when it is kept). The piece is the global nest cut along an outer kept dimension, so its outputs get the bits the
// whole call gives them (reduce/dispatch.hpp, run_reduce_on: a range of an outer kept axis reduced alone). Each
// element moves at most once and each rank holds its shard, its piece and the piece's parts in flight: about three
// shards, where gathering takes the whole tensor on every rank (and every rank reducing all of it).
#pragma once

#include "mpi_c.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include "../../core/tensor_view.hpp"
#include "../../exec/executor.hpp"
#include "../sharded.hpp"
#include "collectives.hpp"
#include "reduce_parts.hpp"

namespace tensorops::mpi::detail {

/// The split of the global tensor along its first `axes` axes (all before the sharded one): their combined index of
/// `outer` values cut into even ranges, rank q's [begin(q), begin(q + 1)); `between` the elements of the axes from
/// there to the sharded one (each leading index holds `between` lines of the sharded axis).
struct leading_split {
    std::size_t axes = 0, outer = 1, between = 1, ranks = 1;

    [[nodiscard]] std::size_t begin(std::size_t q) const noexcept { return outer * q / ranks; }
    [[nodiscard]] std::size_t count(std::size_t q) const noexcept { return begin(q + 1) - begin(q); }
};

/// The split along the leading axes that `reduced` (the reduced axes) leaves kept, before the sharded one: axes 0, 1,
/// … up to the first reduced one or the sharded one. `axes` is 0 when axis 0 is reduced or sharded (no such split).
[[nodiscard]] inline leading_split leading_kept_split(const sharding& sh, std::span<const std::size_t> reduced) {
    leading_split split;
    split.ranks = sh.shards.size();
    while (split.axes < sh.axis && std::find(reduced.begin(), reduced.end(), split.axes) == reduced.end()) ++split.axes;
    for (std::size_t d = 0; d < split.axes; ++d) split.outer *= sh.global[d];
    for (std::size_t d = split.axes; d < sh.axis; ++d) split.between *= sh.global[d];
    return split;
}

/// This rank's piece of the global tensor, packed: leading indices [split.begin(me), split.begin(me + 1)), every other
/// axis whole ([count · between, along, inner]), from every rank's packed shard `shard` ([outer, count, inner]).
/// Nonblocking point-to-point, each rank's part of the piece received into place. A collective.
template <class T>
[[nodiscard]] std::vector<T> reshard_leading(MPI_Comm comm, const sharding& sh, const leading_split& split,
                                             const T* shard) {
    const std::size_t me = static_cast<std::size_t>(sh.here.rank), ranks = sh.shards.size();
    const std::size_t inner = sh.inner(), along = sh.along(), lines = split.count(me) * split.between;
    std::vector<T> piece(lines * along * inner);
    // What rank q holds of this piece: `lines` lines of its shard's count · inner elements each, one block in its shard;
    // received whole, then spread over the piece's lines (at the shard's offset along the sharded axis).
    std::vector<std::size_t> part_begin(ranks + 1, 0);
    for (std::size_t q = 0; q < ranks; ++q) part_begin[q + 1] = part_begin[q] + lines * sh.shards[q].count * inner;
    std::vector<T> parts(part_begin[ranks]);
    std::vector<MPI_Request> requests;
    const std::size_t mine = sh.shards[me].count * inner;  // elements of one line of this rank's shard
    for (std::size_t q = 0; q < ranks; ++q) {
        const std::size_t size = split.count(q) * split.between * mine;
        if (q == me) {
            if (size > 0)
                std::memcpy(parts.data() + part_begin[me], shard + split.begin(q) * split.between * mine,
                            size * sizeof(T));
            continue;
        }
        if (size > 0)
            post_send_bytes(comm, shard + split.begin(q) * split.between * mine, size * sizeof(T), static_cast<int>(q),
                            gather_tag, requests);
        if (part_begin[q + 1] > part_begin[q])
            post_receive_bytes(comm, parts.data() + part_begin[q], (part_begin[q + 1] - part_begin[q]) * sizeof(T),
                               static_cast<int>(q), gather_tag, requests);
    }
    wait_for(requests);
    for (std::size_t q = 0; q < ranks; ++q) {
        const std::size_t run = sh.shards[q].count * inner;
        if (run == 0) continue;
        for (std::size_t line = 0; line < lines; ++line)
            std::memcpy(piece.data() + (line * along + sh.shards[q].offset) * inner,
                        parts.data() + part_begin[q] + line * run, run * sizeof(T));
    }
    return piece;
}

/// The reduction of this rank's piece (reshard_leading) over `axes` (none of the split's axes among them), packed: the
/// global output's leading range [split.begin(me), split.begin(me + 1)) — `global_out` the global output's sizes.
template <class T, class U>
[[nodiscard]] std::vector<U> reduce_piece(const executor_ref& exec, const sharding& sh, const leading_split& split,
                                          const std::vector<T>& piece, std::span<const std::size_t> global_out,
                                          reduce_function function, std::span<const std::size_t> axes,
                                          axis_direction direction) {
    const std::size_t me = static_cast<std::size_t>(sh.here.rank), rest = sh.rank_dims - split.axes;
    // The piece as [count, the axes after the split]; the axes renumbered alike.
    extents_array in_sizes{}, out_sizes{}, piece_axes{};
    in_sizes[0] = out_sizes[0] = split.count(me);
    std::size_t outputs = split.count(me);
    for (std::size_t d = 1; d <= rest; ++d) {
        in_sizes[d] = sh.global[split.axes + d - 1];
        out_sizes[d] = global_out[split.axes + d - 1];
        outputs *= out_sizes[d];
    }
    for (std::size_t i = 0; i < axes.size(); ++i) piece_axes[i] = axes[i] - split.axes + 1;
    std::vector<U> result(outputs);
    if (outputs > 0)
        reduce_locally(exec,
                       tensor_view<const T>(piece.data(), std::span<const std::size_t>(in_sizes.data(), rest + 1)),
                       tensor_view<U>(result.data(), std::span<const std::size_t>(out_sizes.data(), rest + 1)),
                       function, std::span<const std::size_t>(piece_axes.data(), axes.size()), direction);
    return result;
}

/// The global output, packed, on every rank (root < 0) or on `root` (elsewhere: empty), from each rank's reduce_piece
/// `mine` (`per_leading`: outputs per leading index). A collective.
template <class U>
[[nodiscard]] std::vector<U> gather_pieces(MPI_Comm comm, const sharding& sh, const leading_split& split,
                                           const std::vector<U>& mine, std::size_t per_leading, int root) {
    const std::size_t ranks = sh.shards.size();
    std::vector<std::size_t> count(ranks), displacement(ranks);
    for (std::size_t q = 0; q < ranks; ++q) {
        count[q] = split.count(q) * per_leading * sizeof(U);
        displacement[q] = split.begin(q) * per_leading * sizeof(U);
    }
    const bool receives = root < 0 || root == sh.here.rank;
    std::vector<U> all(receives ? split.outer * per_leading : 0);
    gather_bytes(comm, mine.data(), count, displacement, all.data(), root);
    return all;
}

/// This rank's outputs of a reduction that keeps the sharded axis, packed ([outer', count, inner'] as its local output),
/// from each rank's reduce_piece `mine` ([count(q) · between', along, inner']): `between_out` and `inner_out` the
/// output's elements between the split's axes and the sharded one, and after it. A collective.
template <class U>
[[nodiscard]] std::vector<U> route_pieces(MPI_Comm comm, const sharding& sh, const leading_split& split,
                                          const std::vector<U>& mine, std::size_t between_out, std::size_t inner_out) {
    const std::size_t me = static_cast<std::size_t>(sh.here.rank), ranks = sh.shards.size(), along = sh.along();
    const std::size_t lines = split.count(me) * between_out;  // lines of the sharded axis in this rank's piece
    const std::size_t own_run = sh.shards[me].count * inner_out;
    std::vector<U> outputs(split.outer * between_out * own_run);
    std::vector<std::vector<U>> packed(ranks);  // what goes to each rank: its range of every line of the piece
    std::vector<MPI_Request> requests;
    for (std::size_t q = 0; q < ranks; ++q) {
        const std::size_t run = sh.shards[q].count * inner_out;
        const std::size_t offset = sh.shards[q].offset * inner_out;
        U* to = q == me ? outputs.data() + split.begin(me) * between_out * own_run : nullptr;
        if (q != me) {
            packed[q].resize(lines * run);
            to = packed[q].data();
        }
        for (std::size_t line = 0; line < lines && run > 0; ++line)
            std::copy_n(mine.data() + line * along * inner_out + offset, run, to + line * run);
        if (q == me) continue;
        if (!packed[q].empty())
            post_send_bytes(comm, packed[q].data(), packed[q].size() * sizeof(U), static_cast<int>(q), gather_tag,
                            requests);
        const std::size_t from_q = split.count(q) * between_out * own_run;
        if (from_q > 0)
            post_receive_bytes(comm, outputs.data() + split.begin(q) * between_out * own_run, from_q * sizeof(U),
                               static_cast<int>(q), gather_tag, requests);
    }
    wait_for(requests);
    return outputs;
}

}  // namespace tensorops::mpi::detail
