// tensorops/ops/detail/arg_reduce_kernels.hpp — the kernels behind argmax / argmin.
//
// The nest has three operands: 0 = output (index type, stride 0 on reduced dimensions), 1 = input,
// 2 = the flat-index pseudo-operand (row-major strides over the reduced axes, 0 on kept ones), so a walk knows
// each element's flat index. The reduced dimensions are planned `ordered`: a group is walked in increasing
// flat index, so "first" is a strict comparison and "last" a non-strict one. NaN counts as the extreme: the
// first (or last) NaN wins over every number. Layouts:
//   inner    (the innermost reduced dimension is contiguous): the group is cut into blocks; a block's extreme
//            is found with vector max/min (NaN-propagating), blocks are compared as scalars, and only the
//            winning block is searched again for the position — one pass over memory, plus one block;
//   outer    (a kept dimension is contiguous, lanes of 32 or 64 bits): per lane, the best value and its flat
//            index, updated with compares and selects while the walk goes over the group; no search;
//   strided  every other case, user types and 8/16-bit lanes in the outer layout: scalar, ties broken by
//            flat index, so it does not depend on the walk order.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "../../core/element.hpp"
#include "../../iter/nd_loop.hpp"
#include "../../simd/pack.hpp"
#include "reduce_kernels.hpp"

namespace tensorops::detail {

template <bool Maximum, bool Last, class T, class I>
void arg_reduce_strided(const T* input, I* output, const iter::loop_nest<3>& nest, iter::axis_set reduced,
                        std::ptrdiff_t index_base = 0) {
    using V = accumulator_t<T, accumulation::ordering>;
    const auto parts = split_reduce_nest(nest, reduced);
    const auto is_nan = [](const V& v) {
        if constexpr (std::is_floating_point_v<V>) return v != v;
        else return false;
    };
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 3>& at) {
        const T* base = input + at[1];
        V best{};
        std::ptrdiff_t best_index = -1;
        bool best_is_nan = false;
        iter::for_each_element(parts.group, [&](const std::array<std::ptrdiff_t, 3>& element) {
            const auto value = static_cast<V>(base[element[1]]);
            const std::ptrdiff_t index = index_base + at[2] + element[2];  // the group's base plus the walk
            const bool value_is_nan = is_nan(value);
            bool take;
            if (best_index < 0) take = true;
            else if (value_is_nan || best_is_nan) take = value_is_nan && (!best_is_nan || (Last ? index > best_index : index < best_index));
            else if (Maximum ? best < value : value < best) take = true;
            else if (Maximum ? value < best : best < value) take = false;
            else take = Last ? index > best_index : index < best_index;  // equal values
            if (take) {
                best = value;
                best_index = index;
                best_is_nan = value_is_nan;
            }
        });
        output[at[0]] = static_cast<I>(best_index);
    });
}

// ---------------------------------------------------------------------------------------------
// Shared comparison rule.

/// Does `candidate` replace `best`, given the walk meets candidate after best? NaN is the extreme.
template <bool Maximum, bool Last, class V>
[[nodiscard]] constexpr bool replaces(const V& candidate, bool candidate_is_nan, const V& best, bool best_is_nan) {
    if (candidate_is_nan || best_is_nan) return candidate_is_nan && (Last || !best_is_nan);
    if constexpr (Last) return Maximum ? !(candidate < best) : !(best < candidate);
    else return Maximum ? best < candidate : candidate < best;
}

// ---------------------------------------------------------------------------------------------
// Inner: block extremes, then one search.

inline constexpr std::size_t arg_block = 2048;

template <bool Maximum, bool Last, class T, class I>
void arg_reduce_inner(const T* input, I* output, const reduce_nests<3>& parts) {
    using C = simd::compute_t<T>;
    using P = simd::pack<T>;
    constexpr std::size_t W = P::size;
    const extreme_reduction<T, Maximum> extreme;
    const auto combine = [&](const P& a, const P& b) { return extreme.combine_lanes(a, b); };
    const auto is_nan = [](C v) {
        if constexpr (std::is_floating_point_v<C>) return v != v;
        else return false;
    };
    const std::size_t last = parts.group.rank - 1;
    const std::size_t length = parts.group.sizes[last];
    const std::ptrdiff_t index_step = parts.group.strides[2][last];
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 3>& at) {
        const T* base = input + at[1];
        C best{};
        bool best_is_nan = false, found = false;
        const T* best_block = nullptr;
        std::size_t best_length = 0;
        std::ptrdiff_t best_first_index = 0;
        iter::for_each_outer_index(parts.group, last, [&](const std::array<std::ptrdiff_t, 3>& line) {
            const T* x = base + line[1];
            for (std::size_t start = 0; start < length; start += arg_block) {
                const std::size_t count = std::min(arg_block, length - start);
                const T* block = x + start;
                P a0(static_cast<C>(extreme.identity())), a1 = a0;
                std::size_t j = 0;
                for (; j + 2 * W <= count; j += 2 * W) {
                    a0 = combine(a0, simd::load(block + j));
                    a1 = combine(a1, simd::load(block + j + W));
                }
                for (; j + W <= count; j += W) a0 = combine(a0, simd::load(block + j));
                C m = static_cast<C>(extreme.reduce_lanes(combine(a0, a1)));
                for (; j < count; ++j) m = static_cast<C>(extreme.combine(m, static_cast<C>(block[j])));
                const bool m_is_nan = is_nan(m);
                if (!found || replaces<Maximum, Last>(m, m_is_nan, best, best_is_nan)) {
                    found = true;
                    best = m;
                    best_is_nan = m_is_nan;
                    best_block = block;
                    best_length = count;
                    best_first_index = at[2] + line[2] + static_cast<std::ptrdiff_t>(start) * index_step;
                }
            }
        });
        // The winning block holds the extreme; its first (or last) occurrence is the answer.
        std::size_t position = 0;
        for (std::size_t k = 0; k < best_length; ++k) {
            const std::size_t j = Last ? best_length - 1 - k : k;
            const C v = static_cast<C>(best_block[j]);
            if (best_is_nan ? is_nan(v) : v == best) {
                position = j;
                break;
            }
        }
        output[at[0]] = static_cast<I>(best_first_index + static_cast<std::ptrdiff_t>(position) * index_step);
    });
}

// ---------------------------------------------------------------------------------------------
// Outer: per-lane best value and index across a contiguous kept dimension.

template <bool Maximum, bool Last, class T, class I>
void arg_reduce_tile(const T* x, I* y, const iter::loop_nest<3>& group, std::ptrdiff_t index_base) {
    using P = simd::pack<T>;
    using Q = simd::lane_index_pack<P>;
    using C = simd::compute_t<T>;
    using index_lane = typename Q::value_type;
    constexpr std::size_t W = P::size;
    P best = simd::load(x);  // the group's first element (flat index index_base)
    Q best_index(static_cast<index_lane>(index_base));
    bool first = true;
    iter::for_each_outer_index(group, group.rank - 1, [&](const std::array<std::ptrdiff_t, 3>& line) {
        const std::size_t last = group.rank - 1;
        const T* p = x + line[1];
        std::ptrdiff_t index = index_base + line[2];
        const std::ptrdiff_t step = group.strides[1][last], index_step = group.strides[2][last];
        P b = best;
        Q bi = best_index;
        std::size_t i = 0;
        if (first) {  // the first element is the start value
            ++i;
            p += step;
            index += index_step;
            first = false;
        }
        for (; i < group.sizes[last]; ++i, p += step, index += index_step) {
            const P v = simd::load(p);
            auto take = Maximum ? (Last ? v >= b : v > b) : (Last ? v <= b : v < b);
            if constexpr (std::is_floating_point_v<C>) {
                const auto v_nan = simd::is_nan(v), b_nan = simd::is_nan(b);
                take = Last ? ((take & !b_nan) | v_nan) : ((take & !b_nan) | (v_nan & !b_nan));
            }
            b = simd::select(take, v, b);
            bi = simd::select_lanes<P>(take, Q(static_cast<index_lane>(index)), bi);
        }
        best = b;
        best_index = bi;
    });
    const auto indices = simd::to_array(best_index);
    for (std::size_t k = 0; k < W; ++k) y[k] = static_cast<I>(indices[k]);
}

template <bool Maximum, bool Last, class T, class I>
void arg_reduce_outer(const T* input, I* output, const reduce_nests<3>& parts) {
    constexpr std::size_t W = simd::lanes<T>;
    const std::size_t last = parts.kept.rank - 1;
    const std::size_t columns = parts.kept.sizes[last];
    iter::axis_set innermost;
    innermost.set(last);
    iter::for_each_element(iter::remove_dimensions(parts.kept, innermost), [&](const std::array<std::ptrdiff_t, 3>& at) {
        std::size_t j = 0;
        for (; j + W <= columns; j += W) arg_reduce_tile<Maximum, Last>(input + at[1] + j, output + at[0] + j, parts.group, at[2]);
        if (j < columns) {  // the last columns: one scalar group each
            // Walk those columns with the strided kernel: a nest holding just them and the group.
            iter::loop_nest<3> columns_nest;
            columns_nest.rank = 1 + parts.group.rank;
            columns_nest.sizes[0] = columns - j;
            columns_nest.strides[0][0] = parts.kept.strides[0][last];
            columns_nest.strides[1][0] = parts.kept.strides[1][last];
            columns_nest.strides[2][0] = 0;
            for (std::size_t d = 0; d < parts.group.rank; ++d) {
                columns_nest.sizes[1 + d] = parts.group.sizes[d];
                for (std::size_t o = 0; o < 3; ++o) columns_nest.strides[o][1 + d] = parts.group.strides[o][d];
            }
            columns_nest.offsets = {};
            iter::axis_set group_dims;
            for (std::size_t d = 0; d < parts.group.rank; ++d) group_dims.set(1 + d);
            arg_reduce_strided<Maximum, Last>(input + at[1] + static_cast<std::ptrdiff_t>(j), output + at[0] + static_cast<std::ptrdiff_t>(j),
                                              columns_nest, group_dims, at[2]);
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Dispatch by layout.

template <bool Maximum, bool Last, class T, class I>
void run_arg_reduce(const T* input, I* output, const iter::loop_nest<3>& nest, iter::axis_set reduced) {
    if constexpr (builtin_element<T> && simd::vectorized) {
        constexpr std::size_t W = simd::lanes<T>;
        const auto parts = split_reduce_nest(nest, reduced);
        const std::size_t last = nest.rank - 1;
        if (nest.rank > 0 && reduced.test(last) && nest.strides[1][last] == 1 && nest.sizes[last] >= W) {
            arg_reduce_inner<Maximum, Last>(input, output, parts);
            return;
        }
        if constexpr (sizeof(simd::compute_t<T>) >= 4) {
            if (nest.rank > 0 && !reduced.test(last) && nest.inner_is_contiguous({0, 1}) && nest.sizes[last] >= W && parts.group.rank > 0 &&
                parts.group.element_count() <= std::numeric_limits<typename simd::lane_index_pack<simd::pack<T>>::value_type>::max()) {
                arg_reduce_outer<Maximum, Last>(input, output, parts);
                return;
            }
        }
    }
    arg_reduce_strided<Maximum, Last>(input, output, nest, reduced);
}

}  // namespace tensorops::detail
