// tensorops/ops/detail/tuples/copy.hpp — element-wise `destination = source` and
// `destination = destination ∘ source` over strided runs and planned loop nests: the input → output copy
// of scatter_nd, and the slice copies (and slice reductions) of scatter_nd and gather_nd.
//
// Kernels never validate and never throw. Destination and source never overlap (the operators check it).
// Per run (one dimension, a destination stride and a source stride), by layout:
//   assign, both contiguous, trivially copyable T   simd::copy_stream (memcpy, or for long copies a loop hinting pages)
//   assign, source stride 0 (broadcast)              std::fill_n of the one value
//   add / multiply / max / min, both contiguous,
//   built-in T                                       pack<T> loads, lane-wise op, stores (float16, bfloat16 widened
//                                                    to float, rounded once per element on store)
//   anything else                                    the scalar loop, element by element
// The scalar combine is the same function the vector lanes compute, so both paths give identical bits.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>

#include "../../../core/element.hpp"
#include "../../../exec/executor.hpp"
#include "../../../exec/split.hpp"
#include "../../../iter/nd_loop.hpp"
#include "../../../iter/plan.hpp"
#include "../../../simd/arithmetic.hpp"
#include "../../../simd/copy.hpp"
#include "../../../simd/minmax.hpp"
#include "../../../simd/pack.hpp"

namespace tensorops::detail {

/// How a source element meets its destination: `assign` overwrites it; the others combine the two.
enum class combine { assign, add, multiply, max, min };

/// destination ∘= source for one element (see the file comment). Integers wrap (computed in the unsigned
/// accumulator type); float16 and bfloat16 compute in float and round once; built-in floating max/min return NaN when
/// either operand is NaN; user types use their own +, * and <. For max/min a tie keeps the destination.
template <combine Op, class T>
inline void combine_element(T& destination, const T& source) {
    if constexpr (Op == combine::assign) {
        destination = source;
    } else if constexpr (Op == combine::add) {
        destination = from_accumulator<T>(to_accumulator(destination) + to_accumulator(source));
    } else if constexpr (Op == combine::multiply) {
        destination = from_accumulator<T>(to_accumulator(destination) * to_accumulator(source));
    } else if constexpr (builtin_floating<T>) {
        using C = simd::compute_t<T>;
        const auto a = static_cast<C>(destination), b = static_cast<C>(source);
        destination = static_cast<T>(Op == combine::max ? simd::max_propagate_nan(a, b) : simd::min_propagate_nan(a, b));
    } else if constexpr (Op == combine::max) {
        if (destination < source) destination = source;
    } else {
        if (source < destination) destination = source;
    }
}

/// The lane-wise form of combine_element (built-in types only).
template <combine Op, class P>
[[nodiscard]] inline P combine_lanes(const P& destination, const P& source) noexcept {
    if constexpr (Op == combine::add) return destination + source;
    else if constexpr (Op == combine::multiply) return simd::mul(destination, source);
    else if constexpr (Op == combine::max) return simd::max_propagate_nan(destination, source);
    else return simd::min_propagate_nan(destination, source);
}

/// The scalar loop of combine_run, for runs that are not contiguous (or not vectorised): element by element.
/// Kept out of line: it is the cold path, and inlined into every caller the compiler would version and vectorise
/// it again each time (a large share of the code, and of the compile time, for no gain).
template <combine Op, class T>
[[gnu::noinline]] void combine_strided(T* destination, std::ptrdiff_t destination_stride, const T* source, std::ptrdiff_t source_stride,
                                       std::size_t count) {
    for (std::size_t i = 0; i < count; ++i)
        combine_element<Op>(destination[static_cast<std::ptrdiff_t>(i) * destination_stride],
                            source[static_cast<std::ptrdiff_t>(i) * source_stride]);
}

/// destination[i · destination_stride] ∘= source[i · source_stride] for i in [0, count).
template <combine Op, class T>
inline void combine_run(T* destination, std::ptrdiff_t destination_stride, const T* source, std::ptrdiff_t source_stride,
                        std::size_t count) {
    if constexpr (Op == combine::assign) {
        if (source_stride == 0) {
            if (destination_stride == 1) {
                std::fill_n(destination, count, *source);
                return;
            }
        } else if constexpr (std::is_trivially_copyable_v<T>) {
            if (destination_stride == 1 && source_stride == 1) {
                simd::copy_stream(reinterpret_cast<std::byte*>(destination), reinterpret_cast<const std::byte*>(source), count * sizeof(T));
                return;
            }
        }
    } else if constexpr (builtin_element<T>) {
        if (destination_stride == 1 && source_stride == 1) {
            constexpr std::size_t width = simd::lanes<T>;
            std::size_t i = 0;
            for (; i + width <= count; i += width)
                simd::store(destination + i, combine_lanes<Op>(simd::load(destination + i), simd::load(source + i)));
            for (; i < count; ++i) combine_element<Op>(destination[i], source[i]);
            return;
        }
    }
    combine_strided<Op>(destination, destination_stride, source, source_stride, count);
}

/// combine_run over every element of a planned nest whose operand 0 is the destination and operand 1 the
/// source, relative to `destination` and `source` (the nest's base offsets are added here). The innermost
/// dimension is one run; the odometer walks the others (for a single run it costs a few instructions, and
/// combine_run is then inlined once rather than twice). A rank-0 nest is one element.
template <combine Op, class T>
void combine_nest(T* destination, const T* source, const iter::loop_nest<2>& nest) {
    if (nest.rank == 0) {
        combine_element<Op>(destination[nest.offsets[0]], source[nest.offsets[1]]);
        return;
    }
    const std::size_t inner = nest.rank - 1;
    const std::size_t length = nest.sizes[inner];
    const std::ptrdiff_t destination_stride = nest.strides[0][inner], source_stride = nest.strides[1][inner];
    iter::for_each_outer_index(nest, inner, [&](const std::array<std::ptrdiff_t, 2>& at) {
        combine_run<Op>(destination + at[0], destination_stride, source + at[1], source_stride, length);
    });
}

/// Plans the element-wise walk of two views of equal sizes (operand 0 the destination, laid out as it wants:
/// dimensions ordered by its strides, merged where both chain, size-1 dimensions dropped).
template <class D, class S>
[[nodiscard]] iter::loop_nest<2> plan_copy(const tensor_view<D>& destination, const tensor_view<S>& source) {
    return iter::plan_loops(iter::make_request(destination, source));
}

/// destination = source, element by element, for two views of equal sizes that do not overlap; in pieces on the
/// executor's threads when it has several (every element is copied alike, so the result is the same).
template <class T>
void copy_view(const executor_ref& exec, const tensor_view<const T>& source, const tensor_view<T>& destination) {
    if (destination.empty()) return;
    const auto nest = plan_copy(destination, source);
    iter::axis_set every;
    for (std::size_t d = 0; d < nest.rank; ++d) every.set(d);
    for_each_piece(exec, nest, every, 2 * nest.element_count() * sizeof(T),
                   [&](const iter::loop_nest<2>& piece) { combine_nest<combine::assign>(destination.data(), source.data(), piece); });
}

}  // namespace tensorops::detail
