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
#include "../../iter/unroll.hpp"
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
// Finding a value again.

/// Lanes of v that equal `target` — or, when the target is NaN, that are NaN (target_nan: all-true lanes where
/// the target is NaN).
template <class P>
[[nodiscard]] simd::mask_of<P> matches(const P& v, const P& target, const simd::mask_of<P>& target_nan) {
    if constexpr (std::is_floating_point_v<typename P::value_type>) return (v == target) | (target_nan & simd::is_nan(v));
    else return v == target;
}

/// Position of the first (Last: the last) of the `count` elements at x that equal `target` (or are NaN, when the
/// target is NaN). The elements must hold one. Four vectors are compared per step with one test of the or-ed
/// masks; only the step holding the hit is looked into element by element.
template <bool Last, class T>
[[nodiscard]] std::size_t find_in_block(const T* x, std::size_t count, simd::compute_t<T> target) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    constexpr std::size_t W = P::size, step = 4 * W;
    const P target_lanes(target);
    bool target_is_nan = false;
    if constexpr (std::is_floating_point_v<C>) target_is_nan = target != target;
    const auto hits = [&](const T* at) {  // any of the 4W elements at `at` a match?
        simd::mask_of<P> any_lane = simd::mask_of<P>(false);
        iter::unrolled<4>([&](auto k) {
            const P v = simd::load(at + k * W);
            any_lane = any_lane | (target_is_nan ? simd::is_nan(v) : v == target_lanes);
        });
        return simd::any(any_lane);
    };
    const auto hit = [&](std::size_t j) {
        const C v = static_cast<C>(x[j]);
        return target_is_nan ? v != v : v == target;
    };
    if constexpr (!Last) {
        std::size_t j = 0;
        while (j + step <= count && !hits(x + j)) j += step;
        for (; j < count; ++j)
            if (hit(j)) return j;
    } else {
        std::size_t end = count;  // still to search: [0, end)
        for (const std::size_t full = count - count % step; end > full; --end)
            if (hit(end - 1)) return end - 1;
        while (end >= step && !hits(x + end - step)) end -= step;
        for (; end > 0; --end)
            if (hit(end - 1)) return end - 1;
    }
    return 0;  // not reached when the elements hold the target
}

// ---------------------------------------------------------------------------------------------
// Inner: block extremes, then one search.

inline constexpr std::size_t arg_block = 2048;

template <bool Maximum, bool Last, class T, class I>
void arg_reduce_inner(const T* input, I* output, const reduce_nests<3>& parts) {
    using C = simd::compute_t<T>;
    const extreme_reduction<T, Maximum> extreme;
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
                const C m = static_cast<C>(reduce_contiguous(block, count, extreme, {}));
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
        const std::size_t position = find_in_block<Last>(best_block, best_length, best);
        output[at[0]] = static_cast<I>(best_first_index + static_cast<std::ptrdiff_t>(position) * index_step);
    });
}

// ---------------------------------------------------------------------------------------------
// Outer: per column, the best value and its flat index, a block of rows at a time.
//
// Algorithm. A "row" is the stretch of the contiguous kept dimension at one element of the group; rows are
// taken in walk order (increasing flat index) in blocks of arg_block_rows. For a block: the lane-wise extreme
// of its rows (the row-streaming max/min of the reduce kernels, one cheap pass from memory); then, only in the
// vectors where some lane's block extreme replaces the running best (`replaces`, lane-wise), the block's rows
// are read again — from cache — to find that lane's first (Last: last) occurrence. On most data the running
// best soon stops changing and the second look is rare; on adversarial data (increasing rows, or many ties
// with Last) every block is read twice, the second time from L2.

inline constexpr std::size_t arg_block_rows = 64;

/// Lanes where `candidate` (met later in the walk) replaces `best` — `replaces`, lane-wise.
template <bool Maximum, bool Last, class P>
[[nodiscard]] simd::mask_of<P> replaces_lanes(const P& candidate, const P& best) {
    auto better = Maximum ? (Last ? candidate >= best : candidate > best) : (Last ? candidate <= best : candidate < best);
    if constexpr (std::is_floating_point_v<typename P::value_type>) {
        const auto candidate_nan = simd::is_nan(candidate), best_nan = simd::is_nan(best);
        better = Last ? (better | candidate_nan) : ((better | candidate_nan) & !best_nan);
    }
    return better;
}

template <bool Maximum, bool Last, class T, class I>
void arg_reduce_rows(const T* x, I* y, std::size_t width, const iter::loop_nest<3>& group, std::ptrdiff_t index_base) {
    using P = simd::pack<T>;
    using Q = simd::lane_index_pack<P>;
    using C = simd::compute_t<T>;
    using index_lane = typename Q::value_type;
    struct row_at {
        const T* row;
        std::ptrdiff_t index;
    };
    const extreme_reduction<T, Maximum> extreme;
    accumulator_rows<C, 2, outer_row_budget / 2> values;  // 0: running best, 1: block extreme
    accumulator_rows<index_lane, 1, outer_row_budget / 2> indices;
    constexpr std::size_t panel = std::min(values.panel, indices.panel);
    std::array<row_at, arg_block_rows> block;
    for (std::size_t start = 0; start < width; start += panel) {
        const std::size_t w = std::min(panel, width - start);
        C* best = values.row(0);
        C* block_extreme = values.row(1);
        index_lane* best_index = indices.row(0);
        bool first_block = true;
        std::size_t pending = 0;
        const auto flush = [&] {
            fill_row(block_extreme, w, static_cast<C>(extreme.identity()));
            std::size_t i = 0;
            for (; i + 4 <= pending; i += 4)
                fold_rows<4, T>({block[i].row, block[i + 1].row, block[i + 2].row, block[i + 3].row}, block_extreme, nullptr, w, extreme);
            for (; i < pending; ++i) fold_rows<1, T>({block[i].row}, block_extreme, nullptr, w, extreme);
            for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) {
                const P candidate = load(block_extreme + j);
                const P current = first_block ? candidate : load(best + j);
                const auto replace = first_block ? simd::mask_of<P>(true) : replaces_lanes<Maximum, Last>(candidate, current);
                if (!simd::any(replace)) return;
                // The rows of this block, in walk order (Last: backwards), until every replaced lane is found.
                const auto candidate_nan = simd::is_nan(candidate);
                auto missing = replace;
                Q found_index(index_lane(0));
                for (std::size_t k = 0; k < pending && simd::any(missing); ++k) {
                    const row_at& r = block[Last ? pending - 1 - k : k];
                    const auto hit = missing & matches(P(load(r.row + j)), candidate, candidate_nan);
                    found_index = simd::select_lanes<P>(hit, Q(static_cast<index_lane>(r.index)), found_index);
                    missing = missing & !hit;
                }
                store(best + j, simd::select(replace, candidate, current));
                store(best_index + j, simd::select_lanes<P>(replace, found_index, first_block ? found_index : Q(load(best_index + j))));
            });
            first_block = false;
            pending = 0;
        };
        const std::size_t last = group.rank - 1;
        iter::for_each_outer_index(group, last, [&](const std::array<std::ptrdiff_t, 3>& line) {
            const T* row = x + start + line[1];
            std::ptrdiff_t index = index_base + line[2];
            for (std::size_t i = 0; i < group.sizes[last]; ++i, row += group.strides[1][last], index += group.strides[2][last]) {
                block[pending] = {row, index};
                if (++pending == arg_block_rows) flush();
            }
        });
        if (pending != 0) flush();
        for (std::size_t j = 0; j < w; ++j) y[start + j] = static_cast<I>(best_index[j]);
    }
}

template <bool Maximum, bool Last, class T, class I>
void arg_reduce_outer(const T* input, I* output, const reduce_nests<3>& parts) {
    const std::size_t last = parts.kept.rank - 1;
    const std::size_t columns = parts.kept.sizes[last];
    iter::axis_set innermost;
    innermost.set(last);
    iter::for_each_element(iter::remove_dimensions(parts.kept, innermost), [&](const std::array<std::ptrdiff_t, 3>& at) {
        arg_reduce_rows<Maximum, Last>(input + at[1], output + at[0], columns, parts.group, at[2]);
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
