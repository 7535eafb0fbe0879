// tensorops/ops/detail/arg_reduce/inner.hpp — the inner layout: the innermost reduced dimension is contiguous;
// short rows, narrow rows and long stretches each to their kernel.
#pragma once

#include <array>
#include <cstddef>

#include "../../../iter/nd_loop.hpp"
#include "../reduce_nest.hpp"
#include "../stream_hints.hpp"
#include "contiguous.hpp"
#include "narrow_rows.hpp"
#include "short_rows.hpp"

namespace tensorops::detail {

template <bool Maximum, bool Last, class T>
void arg_reduce_inner(const T* input, const index_output& output, const reduce_nests<3>& parts) {
    using C = simd::compute_t<T>;
    const std::size_t last = parts.group.rank - 1;
    const std::size_t length = parts.group.sizes[last];
    const std::ptrdiff_t index_step = parts.group.strides[2][last];
    if (parts.group.rank == 1 && length <= short_arg_row<T>) {  // one short row per output
        const std::ptrdiff_t row_offset = parts.group.offsets[1], index_offset = parts.group.offsets[2];
        const auto one_row = [&](std::ptrdiff_t x_offset, std::ptrdiff_t y_offset, std::ptrdiff_t flat_index, bool whole_tail) {
            const std::size_t position = locate_in_short_row<Maximum, Last>(input + x_offset + row_offset, length, whole_tail);
            output.put(y_offset, flat_index + index_offset + static_cast<std::ptrdiff_t>(position) * index_step);
        };
        if (parts.kept.rank == 0) {
            one_row(parts.kept.offsets[1], parts.kept.offsets[0], parts.kept.offsets[2], false);
            return;
        }
        // The innermost kept dimension as a plain loop. Where its rows lie back to back, row i's last vector may be
        // read whole when it ends within rows i … (the dimension's last): the input's own elements, which nothing
        // writes during the call (the output may share no memory with the input). Elsewhere it is read in part.
        const std::size_t inner = parts.kept.rank - 1, rows = parts.kept.sizes[inner];
        const std::ptrdiff_t x_step = parts.kept.strides[1][inner], y_step = parts.kept.strides[0][inner], i_step = parts.kept.strides[2][inner];
        const bool back_to_back = x_step == static_cast<std::ptrdiff_t>(length);
        const std::size_t vector_end = length / simd::lanes<T> * simd::lanes<T> + simd::lanes<T>;  // past a row's start
        const bool narrow = back_to_back && length >= 2 && length <= narrow_arg_row_max<T>;
        iter::for_each_outer_index(parts.kept, inner, [&](const std::array<std::ptrdiff_t, 3>& line) {
            if constexpr (narrow_arg_row_max<T> >= 2) {
                if (narrow)
                    return locate_in_narrow_rows<Maximum, Last>(input + line[1] + row_offset, length, rows, output, line[0], y_step,
                                                                line[2] + index_offset, i_step, index_step);
            }
            for (std::size_t i = 0; i < rows; ++i) {
                const auto k = static_cast<std::ptrdiff_t>(i);
                one_row(line[1] + k * x_step, line[0] + k * y_step, line[2] + k * i_step, back_to_back && vector_end <= (rows - i) * length);
            }
        });
        return;
    }
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 3>& at) {
        const T* base = input + at[1];
        extreme_site<C> best{};
        bool found = false;
        const T* best_site = nullptr;       // the winner's site in memory
        std::ptrdiff_t best_site_index = 0;  // and the flat index of its first element
        iter::for_each_outer_index(parts.group, last, [&](const std::array<std::ptrdiff_t, 3>& line) {
            const T* x = base + line[1];
            for (std::size_t start = 0; start < length; start += arg_block) {
                const auto site = locate_extreme<Maximum, Last>(x + start, std::min(arg_block, length - start));
                if (!found || replaces_value<Maximum, Last>(site.value, best.value)) {
                    found = true;
                    best = site;
                    best_site = x + start + site.start;
                    best_site_index = at[2] + line[2] + static_cast<std::ptrdiff_t>(start + site.start) * index_step;
                }
            }
        });
        // The winning site holds the extreme; its first (or last) occurrence is the answer.
        const std::size_t position = find_in_block<Last>(best_site, best.length, best.value);
        output.put(at[0], best_site_index + static_cast<std::ptrdiff_t>(position) * index_step);
    });
}

}  // namespace tensorops::detail
