// tensorops/ops/detail/reduce/blocks.hpp — a floating product of a contiguous run in fixed blocks (fixed_blocks.hpp).
#pragma once

#include <cstddef>

#include "../../../exec/executor.hpp"
#include "../fixed_blocks.hpp"
#include "contiguous.hpp"

namespace tensorops::detail {

/// A floating product of the `count` contiguous elements at x with the inner kernel's accumulators.
template <class T, class R>
typename R::accumulator product_block(const T* x, std::size_t count, const R& r, bool hint_lines = true) {
    return accumulate_runs(x, iter::loop_nest<2>{}, count, r, r.identity(), 0, all_runs, hint_lines);
}

/// A floating product of one contiguous run of `length` elements, in fixed blocks (fixed_blocks.hpp): sequentially when
/// exec is null, else with the blocks in pieces on *exec; the same bits either way. `hint_lines`: see hint_stream_step.
template <class T, class R>
typename R::accumulator product_run_in_blocks(const executor_ref* exec, const T* x, std::size_t length, const R& r, bool hint_lines = true) {
    using A = typename R::accumulator;
    return fold_blocks_on<A>(
        exec, length, sizeof(T), [&](std::size_t start, std::size_t n) { return product_block(x + start, n, r, hint_lines); },
        [&](const A& a, const A& b) { return r.combine(a, b); });
}

}  // namespace tensorops::detail
