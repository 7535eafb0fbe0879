// tensorops/ops/detail/reduce/strided.hpp — the scalar reduce kernel: any layout and any element type (user types
// included), one group at a time, one accumulator per output.
#pragma once

#include <array>
#include <cstddef>

#include "../cascade.hpp"
#include "../reduce_nest.hpp"
#include "../reductions.hpp"

namespace tensorops::detail {

// ---------------------------------------------------------------------------------------------
// Scalar: one group at a time.

/// The accumulated (not yet finished) value of one group starting at `base`.
template <class T, class R>
typename R::accumulator accumulate_group(const T* base, const iter::loop_nest<2>& group, const R& r,
                                         const typename R::accumulator& shift) {
    using A = typename R::accumulator;
    const auto combine = [&](const A& a, const A& b) { return r.combine(a, b); };
    A running = r.identity();
    bool started = R::has_identity;  // without an identity the group starts from its first element
    cascade<A> blocks;
    std::size_t in_block = 0;
    for_each_group_line(base, group, [&](const T* x, std::size_t length, std::ptrdiff_t step) {
        A local = running;
        for (std::size_t i = 0; i < length; ++i, x += step) {
            const A value = r.lift(*x, shift);
            if constexpr (!R::has_identity) {
                local = started ? r.combine(local, value) : value;
                started = true;
            } else {
                local = r.combine(local, value);
            }
            if constexpr (R::pairwise) {
                if (++in_block == cascade_block) {
                    blocks.push(local, combine);
                    local = r.identity();
                    in_block = 0;
                }
            }
        }
        running = local;
    });
    if constexpr (R::pairwise) return blocks.total(running, combine);
    else return running;
}

/// The strided kernel: each output its group's accumulated value, finished.
template <class T, class R>
void reduce_strided(const T* input, T* output, const reduce_nests<>& parts, std::size_t count, const R& r) {
    const typename R::accumulator no_shift = r.identity();
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {
        output[at[0]] = r.finish(accumulate_group(input + at[1], parts.group, r, no_shift), count, no_shift);
    });
}

}  // namespace tensorops::detail
