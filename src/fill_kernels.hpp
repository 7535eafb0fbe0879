// src/fill_kernels.hpp — the one template that fills a level's kernels of an element type: included only by that
// level's per-type sources (generated from element_kernels.cpp.in), compiled with the level's -march.
#pragma once

#include "kernel_table.hpp"

namespace tensorops::compiled {

template <class T, class I>
constexpr index_kernels<T, I> make_index_kernels() noexcept {
    return {&detail::arg_reduce<T, I>, &detail::cumulative_extreme_with_indices<true, T, I>, &detail::cumulative_extreme_with_indices<false, T, I>,
            &detail::scatter<T, I>, &detail::gather<T, I>};
}

template <class T, class... I>
constexpr typename index_kernels_of<T, type_list<I...>>::type make_indexed(type_list<I...>) noexcept {
    return {make_index_kernels<T, I>()...};
}

/// The table of T's kernels, a constant (initialised at compile time: no code runs to build it).
template <class T>
const element_kernels<T>& kernels_of() noexcept {
    static constexpr element_kernels<T> kernels{
        .reduce = &detail::reduce_values<T>,
        .cumulative_sum = &detail::wrapping_cumulative<detail::sum_scan, T>,
        .cumulative_product = &detail::wrapping_cumulative<detail::product_scan, T>,
        .cumulative_max = &detail::cumulative<T, detail::extreme_scan<T, true>>,
        .cumulative_min = &detail::cumulative<T, detail::extreme_scan<T, false>>,
        .cumulative_log_sum_exp = [] {
            if constexpr (builtin_floating<T>) return &detail::cumulative_log_sum_exp<T>;
            else return static_cast<decltype(&detail::cumulative_log_sum_exp<T>)>(nullptr);
        }(),
        .indexed = make_indexed<T>(index_types{}),
    };
    return kernels;
}

}  // namespace tensorops::compiled
