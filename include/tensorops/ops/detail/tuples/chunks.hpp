// tensorops/ops/detail/tuples/chunks.hpp — pass 2's walk: the tuples in row-major order, in chunks of tuple_chunk,
// each chunk's offsets computed one chunk ahead so that its slices are hinted while the chunk before is consumed;
// and for one piece of a parallel scatter, only the tuples it owns.
//
// Type erasure. The chunk filler depends on the index type only, the consumer on the element type (and reduction)
// only, and the walk on neither: filler and consumer are called through function pointers (tuple_source,
// chunk_consumer), once per chunk, so index type × element type × reduction instantiate additively, not
// multiplicatively, and the walk is compiled once.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

#include "../../../core/inline.hpp"
#include "../../../iter/nd_loop.hpp"
#include "../../../simd/prefetch.hpp"
#include "../tuning.hpp"
#include "fused_copy.hpp"
#include "offsets.hpp"
#include "plan.hpp"

namespace tensorops::detail {

/// The indices of a call with the pass-2 routines for their element type (type-erased: see the file comment):
/// `fill` computes a chunk of offsets, `fill_owned` those of the tuples a piece owns; `scatter_copy` and
/// `gather_copy` are the fused copies (fused_copy.hpp).
struct tuple_source {
    using fill_function = void (*)(const void*, std::ptrdiff_t, std::ptrdiff_t, std::size_t, const tuple_plan&, std::ptrdiff_t,
                                   std::ptrdiff_t, std::ptrdiff_t*);
    using fill_owned_function = std::size_t (*)(const void*, std::ptrdiff_t, std::ptrdiff_t, std::size_t, const tuple_plan&, std::ptrdiff_t,
                                                std::ptrdiff_t, const tuple_owner&, std::ptrdiff_t*, std::ptrdiff_t*);
    using scatter_copy_function = void (*)(const void*, const tuple_plan&, std::byte*, const std::byte*, std::size_t, std::size_t);
    using gather_copy_function = void (*)(const void*, const tuple_plan&, const std::byte*, std::byte*, std::size_t, std::size_t);
    const void* indices = nullptr;
    std::size_t index_bytes = 0;  // sizeof the index type
    fill_function fill = nullptr;
    fill_owned_function fill_owned = nullptr;
    scatter_copy_function scatter_copy = nullptr;
    gather_copy_function gather_copy = nullptr;
};

/// The tuple_source of an index array of type I.
template <index_element I>
[[nodiscard]] tuple_source make_tuple_source(const I* indices) noexcept {
    return {indices, sizeof(I), &fill_positions<I>, &fill_owned_positions<I>, &copy_tuples<I, true>, &copy_tuples<I, false>};
}

/// True when a tuple's slice is one run of several elements, contiguous in both tensors (the fused copies apply).
[[nodiscard]] inline bool slice_is_one_run(const iter::loop_nest<2>& slice) noexcept {
    return slice.rank == 1 && slice.strides[0][0] == 1 && slice.strides[1][0] == 1;
}

/// The elements of a slice that is a single element (rank 0) or one run (slice_is_one_run).
[[nodiscard]] inline std::size_t run_length(const iter::loop_nest<2>& slice) noexcept { return slice.rank == 0 ? 1 : slice.sizes[0]; }

/// The data offsets of a chunk's tuples: data + i · stride (all tuples of a line), or listed one by one (the
/// tuples a piece owns, packed by fill_owned_positions).
struct strided_offsets {
    std::ptrdiff_t first;
    std::ptrdiff_t stride;
    [[nodiscard]] std::ptrdiff_t operator()(std::size_t i) const noexcept { return first + static_cast<std::ptrdiff_t>(i) * stride; }
};

struct listed_offsets {
    const std::ptrdiff_t* offsets;
    [[nodiscard]] std::ptrdiff_t operator()(std::size_t i) const noexcept { return offsets[i]; }
};

/// What consumes the chunks of pass 2, type-erased so that the walk is compiled once, not once per element type ×
/// reduction (the consumer is called once per chunk): `kernel(positions, data_at, count)` with data_at a
/// strided_offsets (`consume`) or, for the pieces of a parallel scatter, a listed_offsets (`consume_listed`).
struct chunk_consumer {
    void (*consume)(const void* context, const std::ptrdiff_t* positions, std::ptrdiff_t data, std::ptrdiff_t data_stride,
                    std::size_t count) = nullptr;
    void (*consume_listed)(const void* context, const std::ptrdiff_t* positions, const std::ptrdiff_t* data, std::size_t count) = nullptr;
    const void* context = nullptr;
    /// Where the slices of the indexed tensor lie, for hints (no hints when `indexed` is null): the walk hints the
    /// `hinted_bytes` at indexed + position · element_bytes of the next chunk's tuples while this chunk is consumed,
    /// as lines about to be written when `for_write`.
    const std::byte* indexed = nullptr;
    std::size_t element_bytes = 0;
    std::size_t hinted_bytes = 0;
    bool for_write = false;
};

/// `consumer` with hints for the slices of `count` tuples at `positions` of an indexed tensor at `indexed`: the first
/// `slice_bytes` bytes of each (0: one element), for writing when `for_write`.
[[nodiscard]] inline chunk_consumer with_hints(chunk_consumer consumer, const void* indexed, std::size_t element_bytes, std::size_t slice_bytes,
                                               bool for_write) noexcept {
    consumer.indexed = static_cast<const std::byte*>(indexed);
    consumer.element_bytes = element_bytes;
    consumer.hinted_bytes = slice_bytes;
    consumer.for_write = for_write;
    return consumer;
}

/// hint_chunk's loop: the slices of `bytes` bytes at indexed + positions[i] · element_bytes (single elements: their line).
template <bool ForWrite>
[[TENSOROPS_ALWAYS_INLINE]] inline void hint_slices(const std::byte* indexed, std::ptrdiff_t element_bytes,
                                                    std::size_t bytes, const std::ptrdiff_t* positions,
                                                    std::size_t count) noexcept {
    if (bytes <= static_cast<std::size_t>(element_bytes))
        for (std::size_t i = 0; i < count; ++i) simd::prefetch_line_as<ForWrite>(indexed + positions[i] * element_bytes);
    else
        for (std::size_t i = 0; i < count; ++i) simd::prefetch_slice_start<ForWrite>(indexed + positions[i] * element_bytes, bytes);
}

/// The hints of with_hints for one chunk. Always inlined: GCC drops the calls of a function whose only effect is a
/// prefetch (see simd::prefetch_ahead).
[[TENSOROPS_ALWAYS_INLINE]] inline void hint_chunk(const chunk_consumer& consumer, const std::ptrdiff_t* positions,
                                                   std::size_t count) noexcept {
    if (consumer.indexed == nullptr) return;
    const std::byte* indexed = consumer.indexed;
    const auto size = static_cast<std::ptrdiff_t>(consumer.element_bytes);
    const std::size_t bytes = consumer.hinted_bytes;
    if (consumer.for_write) hint_slices<true>(indexed, size, bytes, positions, count);
    else hint_slices<false>(indexed, size, bytes, positions, count);
}

/// A chunk_consumer calling `kernel(positions, strided_offsets, count)` (kernel must outlive the walk).
template <class Kernel>
[[nodiscard]] chunk_consumer consumer_of(const Kernel& kernel) noexcept {
    chunk_consumer consumer;
    consumer.consume = [](const void* context, const std::ptrdiff_t* positions, std::ptrdiff_t data, std::ptrdiff_t data_stride,
                          std::size_t count) { (*static_cast<const Kernel*>(context))(positions, strided_offsets{data, data_stride}, count); };
    consumer.context = &kernel;
    return consumer;
}

/// consumer_of with the listed form too (for the pieces of a parallel scatter).
template <class Kernel>
[[nodiscard]] chunk_consumer listing_consumer_of(const Kernel& kernel) noexcept {
    chunk_consumer consumer = consumer_of(kernel);
    consumer.consume_listed = [](const void* context, const std::ptrdiff_t* positions, const std::ptrdiff_t* data, std::size_t count) {
        (*static_cast<const Kernel*>(context))(positions, listed_offsets{data}, count);
    };
    return consumer;
}

/// Pass 2: calls the consumer for every chunk of tuples, in row-major order of the index array, with
/// positions[i] the element offset, in the indexed tensor, of the slice tuple i selects (batch origin included)
/// and data + i · data_stride the offset of tuple i's slice in the data tensor. Each chunk's positions are computed
/// one chunk ahead, so that the consumer's hints (with_hints) for a chunk go out while the chunk before it is
/// consumed: tuple_chunk tuples ahead.
inline void for_each_tuple_chunk(const tuple_plan& plan, const tuple_source& source, const chunk_consumer& consumer) {
    std::array<std::array<std::ptrdiff_t, tuple_chunk>, 2> positions;
    for_each_tuple_line(plan, [&](const std::array<std::ptrdiff_t, 3>& line, std::size_t length, const std::array<std::ptrdiff_t, 3>& strides) {
        const auto fill = [&](std::size_t start, std::ptrdiff_t* into) {
            const std::size_t count = std::min(tuple_chunk, length - start);
            const auto skip = static_cast<std::ptrdiff_t>(start);
            source.fill(source.indices, line[0] + skip * strides[0], strides[0], count, plan, line[2] + skip * strides[2], strides[2], into);
            return count;
        };
        const std::size_t group = consumer.hinted_bytes > consumer.element_bytes ? hint_group : tuple_chunk;
        std::size_t current = 0, count = length == 0 ? 0 : fill(0, positions[0].data());
        hint_chunk(consumer, positions[0].data(), count);
        for (std::size_t start = 0; start < length; start += tuple_chunk) {
            const std::size_t next_count = start + tuple_chunk < length ? fill(start + tuple_chunk, positions[current ^ 1].data()) : 0;
            // Slices of several lines: the chunk in quarters, each after the hints for a quarter of the next chunk —
            // hints go out a few at a time, as the work they are ahead of frees the core's miss buffers (a burst of a
            // whole chunk's hints stalls on them). Single elements: one line each, the whole chunk at once.
            for (std::size_t part = 0; part < count; part += group) {
                const std::size_t hinted = part < next_count ? std::min(group, next_count - part) : 0;
                hint_chunk(consumer, positions[current ^ 1].data() + part, hinted);
                const auto skip = static_cast<std::ptrdiff_t>(start + part);
                consumer.consume(consumer.context, positions[current].data() + part, line[1] + skip * strides[1], strides[1],
                                 std::min(group, count - part));
            }
            current ^= 1;
            count = next_count;
        }
    });
}

/// Pass 2 for one piece of a parallel scatter (no batch dimensions): like for_each_tuple_chunk (one chunk ahead,
/// hinted), but only the tuples `owner` names reach the consumer's listed form, still in row-major order.
inline void for_each_owned_tuple_chunk(const tuple_plan& plan, const tuple_source& source, const tuple_owner& owner,
                                       const chunk_consumer& consumer) {
    std::array<std::array<std::ptrdiff_t, tuple_chunk>, 2> positions, data_offsets;
    for_each_tuple_line(plan, [&](const std::array<std::ptrdiff_t, 3>& line, std::size_t length, const std::array<std::ptrdiff_t, 3>& strides) {
        const auto fill = [&](std::size_t start, std::size_t buffer) {
            const std::size_t count = std::min(tuple_chunk, length - start);
            const auto skip = static_cast<std::ptrdiff_t>(start);
            const std::size_t kept = source.fill_owned(source.indices, line[0] + skip * strides[0], strides[0], count, plan, line[1] + skip * strides[1],
                                                       strides[1], owner, positions[buffer].data(), data_offsets[buffer].data());
            hint_chunk(consumer, positions[buffer].data(), kept);
            return kept;
        };
        std::size_t current = 0, kept = length == 0 ? 0 : fill(0, 0);
        for (std::size_t start = 0; start < length; start += tuple_chunk) {
            const std::size_t next_kept = start + tuple_chunk < length ? fill(start + tuple_chunk, current ^ 1) : 0;
            if (kept != 0) consumer.consume_listed(consumer.context, positions[current].data(), data_offsets[current].data(), kept);
            current ^= 1;
            kept = next_kept;
        }
    });
}

}  // namespace tensorops::detail
