// tensorops/mpi/detail/scan_indices.hpp — the indices of the running extremes along the sharded axis, from the
// running values every rank holds already (computed by the sharded scan), equal to the single process's.
//
// Algorithm. The single process writes a line's indices from its running values alone (ops/detail/scan/extreme.hpp):
// position 0 gets its coordinate; position t > 0 gets changed_at(t) — the coordinate of t, or of t − 1 for an
// exclusive scan — where the value at t beats the value at t − 1, else the index at t − 1. A rank holding traversal
// positions [t0, t1) of every line (and column) therefore needs, from the ranks before it, only the value and the
// index at t0 − 1; and what it passes on — the value and the index at t1 − 1 — is its own last change where it has
// one. Three steps, per line and column:
//   1. search: each rank finds, from its shard's end backwards, the last local position whose value beats the one
//              before it (vectors of W positions compared at once; a running extreme is rarely beaten late in a line,
//              so this reads up to the whole shard, once, and writes nothing);
//   2. chain:  each non-empty rank receives the value and index at t0 − 1 from the non-empty rank before it in
//              traversal order, resolves its first index (changed_at(t0) where its first value beats that value, else
//              that index) and its last (its last change, else its first), and sends its last value and index on: one
//              message of lines × columns values and indices per rank, the only sequential part;
//   3. write:  each rank writes its indices from its first, by the library's own passes (a contiguous line in
//              vectors, or rows from the row before them).
#pragma once

#include "mpi_c.hpp"

#include <cstddef>
#include <cstring>
#include <vector>

#include "../../core/element.hpp"
#include "../../ops/detail/scan/extreme.hpp"
#include "../../simd/pack.hpp"
#include "collectives.hpp"
#include "scan_chain.hpp"

namespace tensorops::mpi::detail {

/// The last position t in [1, n) of a line whose running value beats the value at t − 1, or 0 where none does.
/// `first`: the value at position 0; position t lies at first + t·step (step ±1).
template <bool Maximum, class T>
[[nodiscard]] std::size_t last_change_in_line(const T* first, std::size_t n, std::ptrdiff_t step) {
    using accumulator = accumulator_t<T, accumulation::ordering>;
    const auto value = [&](std::size_t t) {
        return static_cast<accumulator>(first[step * static_cast<std::ptrdiff_t>(t)]);
    };
    std::size_t t = n == 0 ? 0 : n - 1;
    if constexpr (builtin_element<T> && simd::vectorized) {
        constexpr std::size_t W = simd::lanes<T>;
        for (; t >= W; t -= W) {  // positions (t − W, t] against (t − W − 1, t − 1]
            const T* at = step > 0 ? first + (t - W + 1) : first - static_cast<std::ptrdiff_t>(t);
            const T* before = at - step;
            if (tensorops::detail::any_beats<Maximum>(simd::load(at), simd::load(before))) break;
        }
    }
    for (; t >= 1; --t)
        if (tensorops::detail::beats<Maximum>(value(t), value(t - 1))) return t;
    return 0;
}

/// For each of m contiguous columns of n rows (row t at first + t·row_step), the last row t in [1, n) whose value
/// beats the value in the row before it, or 0, into last[0 … m).
template <bool Maximum, class T>
void last_changes_in_rows(const T* first, std::size_t n, std::size_t m, std::ptrdiff_t row_step, std::size_t* last) {
    using accumulator = accumulator_t<T, accumulation::ordering>;
    std::fill(last, last + m, std::size_t{0});
    std::size_t unresolved = m;
    for (std::size_t t = n; t-- > 1 && unresolved > 0;) {
        const T* row = first + static_cast<std::ptrdiff_t>(t) * row_step;
        const T* above = row - row_step;
        const auto one_column = [&](std::size_t j) {
            if (last[j] == 0 && tensorops::detail::beats<Maximum>(static_cast<accumulator>(row[j]),
                                                                  static_cast<accumulator>(above[j]))) {
                last[j] = t;
                --unresolved;
            }
        };
        std::size_t j = 0;
        if constexpr (builtin_element<T> && simd::vectorized) {
            constexpr std::size_t W = simd::lanes<T>;
            for (; j + W <= m; j += W)
                if (tensorops::detail::any_beats<Maximum>(simd::load(row + j), simd::load(above + j)))
                    for (std::size_t k = 0; k < W; ++k) one_column(j + k);
        }
        for (; j < m; ++j) one_column(j);
    }
}

/// The indices of the running extremes along the sharded axis (see the file comment). values, indices: this rank's
/// packed shard [outer, count, inner] of the running values (final) and of the indices (written); n: the axis' global
/// size; ranges[r]: rank r's traversal positions; previous / next: the nearest non-empty ranks before and after this
/// one in traversal order (or -1).
template <bool Maximum, bool Exclusive, class T, class I>
void write_sharded_extreme_indices(MPI_Comm comm, const T* values, I* indices, std::size_t outer, std::size_t inner,
                                   std::size_t n, const traversal_range& mine, bool decreasing, int previous,
                                   int next) {
    static_assert(std::is_trivially_copyable_v<T>, "MPI sends the running values as bytes");
    const std::size_t count = mine.end - mine.begin, t0 = mine.begin;
    if (count == 0) return;
    const std::size_t lines = outer * inner;
    const auto coordinate = [&](std::size_t t) { return static_cast<I>(decreasing ? n - 1 - t : t); };
    const auto changed_at = [&](std::size_t t) { return coordinate(Exclusive ? t - 1 : t); };
    const std::ptrdiff_t row_step = (decreasing ? -1 : 1) * static_cast<std::ptrdiff_t>(inner);
    const auto row_of = [&](auto* line, std::size_t t) {
        return line + static_cast<std::ptrdiff_t>((decreasing ? count - 1 - t : t) * inner);
    };

    // 1. The last local change of each line and column.
    std::vector<std::size_t> last_change(lines);
    for (std::size_t l = 0; l < outer; ++l) {
        const T* line = values + l * count * inner;
        if (inner == 1) last_change[l] = last_change_in_line<Maximum>(row_of(line, 0), count, row_step);
        else last_changes_in_rows<Maximum>(row_of(line, 0), count, inner, row_step, last_change.data() + l * inner);
    }

    // 2. The chain: the value and index at t0 − 1 in, the first and last indices resolved, the value and index at
    // t1 − 1 out.
    std::vector<unsigned char> message(lines * (sizeof(T) + sizeof(I)));
    const auto value_slot = [&](std::size_t k) { return message.data() + k * sizeof(T); };
    const auto index_slot = [&](std::size_t k) { return message.data() + lines * sizeof(T) + k * sizeof(I); };
    if (previous >= 0) receive_bytes(comm, message.data(), message.size(), previous, chain_tag);
    std::vector<I> first(lines);
    using accumulator = accumulator_t<T, accumulation::ordering>;
    for (std::size_t l = 0; l < outer; ++l) {
        for (std::size_t j = 0; j < inner; ++j) {
            const std::size_t k = l * inner + j;
            const T value = row_of(values + l * count * inner, 0)[j];
            if (t0 == 0) {
                first[k] = coordinate(0);
                continue;
            }
            T before;
            I before_index;
            std::memcpy(&before, value_slot(k), sizeof(T));
            std::memcpy(&before_index, index_slot(k), sizeof(I));
            first[k] =
                tensorops::detail::beats<Maximum>(static_cast<accumulator>(value), static_cast<accumulator>(before))
                    ? changed_at(t0)
                    : before_index;
        }
    }
    if (next >= 0) {
        for (std::size_t l = 0; l < outer; ++l) {
            for (std::size_t j = 0; j < inner; ++j) {
                const std::size_t k = l * inner + j;
                const I last = last_change[k] > 0 ? changed_at(t0 + last_change[k]) : first[k];
                std::memcpy(value_slot(k), row_of(values + l * count * inner, count - 1) + j, sizeof(T));
                std::memcpy(index_slot(k), &last, sizeof(I));
            }
        }
        send_bytes(comm, message.data(), message.size(), next, chain_tag);
    }

    // 3. The indices from the first ones: the library's passes, local position t written as changed_at(t0 + t).
    const auto local_changed_at = [&](std::size_t t) { return changed_at(t0 + t); };
    for (std::size_t l = 0; l < outer; ++l) {
        const T* line_values = row_of(values + l * count * inner, 0);
        I* line_indices = row_of(indices + l * count * inner, 0);
        if constexpr (builtin_element<T> && simd::vectorized) {
            if (inner == 1) {
                if (decreasing)
                    tensorops::detail::write_contiguous_line_indices<Maximum, true>(line_indices, line_values, count,
                                                                                    first[l], local_changed_at);
                else
                    tensorops::detail::write_contiguous_line_indices<Maximum, false>(line_indices, line_values, count,
                                                                                     first[l], local_changed_at);
                continue;
            }
        }
        std::copy(first.begin() + static_cast<std::ptrdiff_t>(l * inner),
                  first.begin() + static_cast<std::ptrdiff_t>((l + 1) * inner), line_indices);
        tensorops::detail::write_row_indices<Maximum>(line_indices, line_values, count, inner, row_step, row_step, 1, 1,
                                                      local_changed_at);
    }
}

}  // namespace tensorops::mpi::detail
