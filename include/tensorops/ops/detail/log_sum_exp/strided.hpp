// tensorops/ops/detail/log_sum_exp/strided.hpp — log-sum-exp's scalar kernel: any layout (and every build without
// vectors), one group at a time in two passes: its maximum, then Σ e^(x − shift).
#pragma once

#include <array>
#include <cstddef>

#include "../../../iter/nd_loop.hpp"
#include "../reduce/strided.hpp"
#include "../reduce_nest.hpp"
#include "../reductions.hpp"

namespace tensorops::detail {

/// Each output m + ln Σ e^(x − m) of its group, m its maximum (SEMANTICS.md §2: the shift is 0 where m is ±inf), in two
/// scalar passes over the group (accumulate_group).
template <class T>
void log_sum_exp_strided(const T* input, T* output, const reduce_nests<>& parts, std::size_t count) {
    using R = log_sum_exp_reduction<T>;
    const R r{};
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {
        const T* base = input + at[1];
        const auto shift = R::shift_for(accumulate_group(base, parts.group, extreme_reduction<T, true>{}, {}));
        output[at[0]] = r.finish(accumulate_group(base, parts.group, r, shift), count, shift);
    });
}

}  // namespace tensorops::detail
