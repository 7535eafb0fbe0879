// src/kernel_table.hpp — the compiled library's kernel table: for one instruction-set level, a pointer to every
// operator's detail:: function for every built-in element type (and index type), compiled for that level.
//
// The members' types are the detail:: functions' own (decltype of their address), so a table entry and the call a
// header-only build makes are the same function with the same validation: the dispatched path adds only the indirect
// call. One level's table lives in that level's isolated object (src/CMakeLists.txt), reached through its one global
// symbol, the entry function tensorops_kernel_table_<level>.
#pragma once

#include <cstdint>
#include <tuple>

#include <tensorops/tensorops.hpp>

namespace tensorops::compiled {

/// A list of types (never an object).
template <class... Types>
struct type_list {};

/// The element types the library holds kernels for: every built-in one (core/element.hpp's builtin_element).
using element_types = type_list<double, float, float16, bfloat16, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                                std::uint16_t, std::uint32_t, std::uint64_t>;

/// The index types of argmax/argmin, the running extremes' indices, scatter-ND and gather-ND (index_element).
using index_types = type_list<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;

/// The kernels of element type T whose signature also has an index type I.
template <class T, class I>
struct index_kernels {
    decltype(&detail::arg_reduce<T, I>) arg_reduce;
    decltype(&detail::cumulative_extreme_with_indices<true, T, I>) cumulative_max;
    decltype(&detail::cumulative_extreme_with_indices<false, T, I>) cumulative_min;
    decltype(&detail::scatter<T, I>) scatter;
    decltype(&detail::gather<T, I>) gather;
};

template <class T, class List>
struct index_kernels_of;
template <class T, class... I>
struct index_kernels_of<T, type_list<I...>> {
    using type = std::tuple<index_kernels<T, I>...>;
};

/// The kernels of element type T: every operator's detail:: function. cumulative_log_sum_exp is null for integers
/// (the public entry point does not compile for them).
template <class T>
struct element_kernels {
    decltype(&detail::reduce_values<T>) reduce;
    decltype(&detail::wrapping_cumulative<detail::sum_scan, T>) cumulative_sum;
    decltype(&detail::wrapping_cumulative<detail::product_scan, T>) cumulative_product;
    decltype(&detail::cumulative<T, detail::extreme_scan<T, true>>) cumulative_max;
    decltype(&detail::cumulative<T, detail::extreme_scan<T, false>>) cumulative_min;
    decltype(&detail::cumulative_log_sum_exp<T>) cumulative_log_sum_exp;
    typename index_kernels_of<T, index_types>::type indexed;  // one index_kernels per index type
};

template <class List>
struct kernel_table_of;
template <class... T>
struct kernel_table_of<type_list<T...>> {
    isa_level level;
    std::tuple<const element_kernels<T>*...> elements;  // null for a type the build left out (TENSOROPS_COMPILED_TYPES)
};

/// One level's table.
using kernel_table = kernel_table_of<element_types>;

/// The kernels of T compiled for the translation unit's level: defined in fill_kernels.hpp, instantiated by the
/// level's per-type sources.
template <class T>
const element_kernels<T>& kernels_of() noexcept;

}  // namespace tensorops::compiled

// The entry symbols of the three levels' isolated objects: their table, built on the first call (no static
// initialiser runs a level's code). Call one only where the CPU runs the level.
extern "C" const tensorops::compiled::kernel_table* tensorops_kernel_table_sse2() noexcept;
extern "C" const tensorops::compiled::kernel_table* tensorops_kernel_table_avx2() noexcept;
extern "C" const tensorops::compiled::kernel_table* tensorops_kernel_table_avx512() noexcept;
