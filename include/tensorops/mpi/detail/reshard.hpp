// tensorops/mpi/detail/reshard.hpp — a floating reduction whose order the ranks cannot follow shard by shard, computed
// on pieces of whole groups instead of on a gathered copy of the tensor on every rank.
//
// When the leading axes of the global tensor (axis 0 and those right after it, before the sharded one) are kept, the
// tensor is re-sharded along them: every rank takes a range of their combined index with every other axis whole — its
// piece — received from the ranks that hold its parts a chunk at a time and reduced by the library chunk by chunk; the
// outputs go where the call wants them (to every rank or the root when the sharded axis is reduced, to the ranks that
// own their range of it when it is kept). A chunk is the global nest cut along an outer kept dimension, so its outputs
// get the bits the whole call gives them (reduce/dispatch.hpp, run_reduce_on: a range of an outer kept axis reduced
// alone). Each element moves at most once; each rank holds two chunk buffers (about reshard_chunk_bytes each) beside
// its shard and outputs, where gathering takes the whole tensor on every rank (and every rank reducing all of it).
// When the reduced axes are 0 … k, the sharded one among them but not axis 0, the global call reduces the rows of one
// line of rows (one line when every axis is reduced) that the ranks can follow once each holds a range of the rows:
// reshard_flat moves the tensor there (each element once), and the path of a line of rows sharded along axis 0 takes
// over.
#pragma once

#include "mpi_c.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "../../core/tensor_view.hpp"
#include "../../exec/executor.hpp"
#include "../../ops/detail/tuning.hpp"
#include "../sharded.hpp"
#include "collectives.hpp"
#include "gather.hpp"
#include "reduce_parts.hpp"
#include "tuple_routing.hpp"

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

/// The reduction over `axes` (none of the split's axes among them) of this rank's piece of the global tensor — its
/// leading indices [split.begin(me), split.begin(me + 1)), every other axis whole — packed: the global output's leading
/// range of that piece, `global_out` the global output's sizes. From every rank's packed shard `shard` ([outer, count,
/// inner]), a chunk of leading indices at a time (about reshard_chunk_bytes of the piece; the chunks of every rank's
/// piece exchanged in the same steps): each rank sends every rank the block of its shard in that rank's chunk
/// (contiguous: nonblocking, from the shard), receives its own chunk's blocks into staging, lays them out as the piece's
/// lines and reduces the chunk with the library. A chunk is a range of an outer kept axis, reduced alone with the
/// whole's bits. A collective.
template <class T, class U>
[[nodiscard]] std::vector<U> reduce_resharded(const executor_ref& exec, MPI_Comm comm, const sharding& sh,
                                              const leading_split& split, const T* shard,
                                              std::span<const std::size_t> global_out, reduce_function function,
                                              std::span<const std::size_t> axes, axis_direction direction) {
    const std::size_t me = static_cast<std::size_t>(sh.here.rank), ranks = sh.shards.size();
    const std::size_t inner = sh.inner(), along = sh.along(), rest = sh.rank_dims - split.axes;
    // A chunk as a tensor [leading indices, the axes after the split]; the axes renumbered alike.
    extents_array in_sizes{}, out_sizes{}, chunk_axes{};
    std::size_t per_leading = 1;  // outputs per leading index
    for (std::size_t d = 1; d <= rest; ++d) {
        in_sizes[d] = sh.global[split.axes + d - 1];
        out_sizes[d] = global_out[split.axes + d - 1];
        per_leading *= out_sizes[d];
    }
    for (std::size_t i = 0; i < axes.size(); ++i) chunk_axes[i] = axes[i] - split.axes + 1;
    std::vector<U> result(split.count(me) * per_leading);

    const std::size_t leading_bytes = std::max<std::size_t>(1, split.between * along * inner * sizeof(T));
    const std::size_t chunk = std::max<std::size_t>(1, tensorops::detail::reshard_chunk_bytes / leading_bytes);
    std::size_t steps = 0;
    for (std::size_t q = 0; q < ranks; ++q) steps = std::max(steps, (split.count(q) + chunk - 1) / chunk);
    const auto chunk_of = [&](std::size_t q, std::size_t step) {  // [first, first + count) of rank q's leading indices
        const std::size_t first = std::min(split.begin(q + 1), split.begin(q) + step * chunk);
        return std::pair{first, std::min(split.begin(q + 1), first + chunk) - first};
    };
    const std::size_t most = std::min(chunk, split.count(me)) * split.between;  // lines in the largest chunk here
    std::vector<T> staging(most * along * inner), piece(most * along * inner);
    std::vector<std::size_t> part_begin(ranks + 1, 0);
    std::vector<MPI_Request> requests;
    const std::size_t mine = sh.shards[me].count * inner;  // elements of one line of this rank's shard
    for (std::size_t step = 0; step < steps; ++step) {
        const auto [first, count] = chunk_of(me, step);
        const std::size_t lines = count * split.between;
        // What another rank q holds of this chunk: `lines` lines of its shard's count · inner elements each, one block,
        // received into staging; this rank's own block is laid out from the shard while those arrive.
        for (std::size_t q = 0; q < ranks; ++q)
            part_begin[q + 1] = part_begin[q] + (q == me ? 0 : lines * sh.shards[q].count * inner);
        for (std::size_t q = 0; q < ranks; ++q) {
            if (q == me) continue;
            const auto [their_first, their_count] = chunk_of(q, step);
            if (their_count > 0)
                post_send_bytes(comm, shard + their_first * split.between * mine,
                                their_count * split.between * mine * sizeof(T), static_cast<int>(q), gather_tag,
                                requests);
            if (part_begin[q + 1] > part_begin[q])
                post_receive_bytes(comm, staging.data() + part_begin[q],
                                   (part_begin[q + 1] - part_begin[q]) * sizeof(T), static_cast<int>(q), gather_tag,
                                   requests);
        }
        lay_out_lines(shard + first * split.between * mine, lines, sh.shards[me], along, inner, piece.data());
        wait_for(requests);
        if (count == 0) continue;
        for (std::size_t q = 0; q < ranks; ++q)
            if (q != me) lay_out_lines(staging.data() + part_begin[q], lines, sh.shards[q], along, inner, piece.data());
        in_sizes[0] = out_sizes[0] = count;
        if (per_leading > 0)
            reduce_locally(exec,
                           tensor_view<const T>(piece.data(), std::span<const std::size_t>(in_sizes.data(), rest + 1)),
                           tensor_view<U>(result.data() + (first - split.begin(me)) * per_leading,
                                          std::span<const std::size_t>(out_sizes.data(), rest + 1)),
                           function, std::span<const std::size_t>(chunk_axes.data(), axes.size()), direction);
    }
    return result;
}

/// The global output, packed, on every rank (root < 0) or on `root` (elsewhere: empty), from each rank's reduce_resharded
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
/// from each rank's reduce_resharded `mine` ([count(q) · between', along, inner']): `between_out` and `inner_out` the
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

/// Calls body(shard_at, global_at, length) for each stretch of rank `holder`'s shard that lies in the flat range
/// `target` of the packed global tensor, in increasing global order: its shard is sh.outer() runs of count · inner
/// elements, run p at global (p · along + offset) · inner.
template <class Body>
void for_each_flat_stretch(const sharding& sh, std::size_t holder, const shard_range& target, const Body& body) {
    const shard_range& shard = sh.shards[holder];
    const std::size_t inner = sh.inner(), along = sh.along(), run = shard.count * inner, period = along * inner;
    const std::size_t begin = target.offset, end = target.offset + target.count, first_run = shard.offset * inner;
    if (run == 0 || begin >= end) return;
    // The first run that can reach `begin`: its end, p · period + first_run + run, past begin.
    std::size_t p = begin >= first_run + run ? (begin - first_run - run) / period : 0;
    for (; p < sh.outer(); ++p) {
        const std::size_t start = p * period + first_run;
        if (start >= end) break;
        const std::size_t from = std::max(start, begin), to = std::min(start + run, end);
        if (from < to) body(p * run + (from - start), from, to - from);
    }
}

/// The packed global tensor as one flat line of rows of `width` elements (width divides the tensor's elements), its
/// rows cut into even ranges (rank q's: block_shard(rows, q, ranks)): this rank's range, `flat` its place in elements,
/// received from the ranks that hold its parts in one exchange. Each element moves once, straight from the shard to
/// its place: one MPI_Alltoallw whose types list the stretches (no packing) while every rank's range fits MPI's int
/// sizes (2 GiB), else packed through exchange_bytes (an alltoallv in rounds) — the same choice on every rank, from
/// the sharding (`limit`: that bound, a parameter so that tests take both ways). A collective.
template <class T>
[[nodiscard]] std::unique_ptr<T[]> reshard_flat(MPI_Comm comm, const sharding& sh, const T* shard, std::size_t width,
                                                shard_range& flat, std::size_t limit = message_byte_limit) {
    const std::size_t ranks = sh.shards.size(), me = static_cast<std::size_t>(sh.here.rank);
    const std::size_t rows = sh.outer() * sh.along() * sh.inner() / width;
    const auto range_of = [&](std::size_t q) {
        const shard_range in_rows = block_shard(rows, static_cast<int>(q), static_cast<int>(ranks));
        return shard_range{in_rows.offset * width, in_rows.count * width};
    };
    flat = range_of(me);
    auto line = std::make_unique_for_overwrite<T[]>(flat.count);
    if ((rows + ranks - 1) / ranks * width * sizeof(T) <= limit) {
        // Each peer's stretches as one hindexed type of bytes, on the shard's side and on the line's.
        std::vector<MPI_Datatype> send_types(ranks, MPI_BYTE), receive_types(ranks, MPI_BYTE);
        std::vector<int> send_counts(ranks, 0), receive_counts(ranks, 0), zeros(ranks, 0), lengths;
        std::vector<MPI_Aint> places;
        const auto type_of =
            [&](std::size_t holder, const shard_range& target, bool sending, MPI_Datatype& type, int& count) {
            lengths.clear();
            places.clear();
            for_each_flat_stretch(sh, holder, target,
                                  [&](std::size_t shard_at, std::size_t global_at, std::size_t length) {
                lengths.push_back(byte_count(length * sizeof(T)));
                places.push_back(static_cast<MPI_Aint>((sending ? shard_at : global_at - flat.offset) * sizeof(T)));
            });
            if (lengths.empty()) return;
            MPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), places.data(), MPI_BYTE, &type);
            MPI_Type_commit(&type);
            count = 1;
        };
        for (std::size_t q = 0; q < ranks; ++q) {
            type_of(me, range_of(q), true, send_types[q], send_counts[q]);
            type_of(q, flat, false, receive_types[q], receive_counts[q]);
        }
        MPI_Alltoallw(shard, send_counts.data(), zeros.data(), send_types.data(), line.get(), receive_counts.data(),
                      zeros.data(), receive_types.data(), comm);
        for (std::size_t q = 0; q < ranks; ++q) {
            if (send_counts[q] > 0) MPI_Type_free(&send_types[q]);
            if (receive_counts[q] > 0) MPI_Type_free(&receive_types[q]);
        }
        return line;
    }
    std::vector<std::size_t> send_count(ranks), receive_count(ranks);
    for (std::size_t q = 0; q < ranks; ++q) {
        for_each_flat_stretch(sh, me, range_of(q),
                              [&](std::size_t, std::size_t, std::size_t length) { send_count[q] += length; });
        for_each_flat_stretch(sh, q, flat,
                              [&](std::size_t, std::size_t, std::size_t length) { receive_count[q] += length; });
    }
    const byte_blocks send(send_count, [](std::size_t) { return sizeof(T); }),
        receive(receive_count, [](std::size_t) { return sizeof(T); });
    std::vector<T> outgoing(send.total / sizeof(T)), incoming(receive.total / sizeof(T));
    std::size_t at = 0;
    for (std::size_t q = 0; q < ranks; ++q)
        for_each_flat_stretch(sh, me, range_of(q), [&](std::size_t shard_at, std::size_t, std::size_t length) {
            std::copy_n(shard + shard_at, length, outgoing.data() + at);
            at += length;
        });
    exchange_bytes(comm, outgoing.data(), send, incoming.data(), receive, limit);
    at = 0;
    for (std::size_t q = 0; q < ranks; ++q)
        for_each_flat_stretch(sh, q, flat, [&](std::size_t, std::size_t global_at, std::size_t length) {
            std::copy_n(incoming.data() + at, length, line.get() + (global_at - flat.offset));
            at += length;
        });
    return line;
}

}  // namespace tensorops::mpi::detail
