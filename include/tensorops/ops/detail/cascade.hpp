// tensorops/ops/detail/cascade.hpp — pairwise summation of a stream of blocks (the cascade) and the balanced tree that
// combines a kernel's accumulators: the two orders of operations every vectorised reduction kernel shares.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "../../core/inline.hpp"
#include "../../iter/unroll.hpp"
#include "tuning.hpp"

namespace tensorops::detail {

/// Pairwise summation of a stream of block totals, like a binary counter: level k holds the sum of 2^k blocks,
/// and a new block carries upwards through the occupied levels. The rounding error of the total grows with
/// log2(blocks) instead of with the number of blocks. Works on scalars and on simd packs; levels that were
/// never filled are never read (so they need no initialisation).
template <class V>
class cascade {
public:
    template <class Combine>
    void push(V block, Combine&& combine) {
        push_at(block, 0, combine);
    }
    /// Adds the sum of 2^level blocks that a cascade of their own computed (its level `level`), while every level
    /// below is empty here — exactly what pushing those blocks one by one would have done.
    template <class Combine>
    void push_at(V block, std::size_t level, Combine&& combine) {
        for (; level + 1 < levels && (occupied_ >> level & 1u); ++level) {
            block = combine(levels_[level], block);
            occupied_ &= ~(std::uint64_t{1} << level);
        }
        if (occupied_ >> level & 1u) block = combine(levels_[level], block);  // the top level absorbs (2^40 blocks)
        levels_[level] = block;
        occupied_ |= std::uint64_t{1} << level;
    }
    /// Level `level`: after 2^level pushes into an empty cascade, the sum of those blocks.
    [[nodiscard]] const V& level(std::size_t level) const noexcept { return levels_[level]; }
    /// The sum of every pushed block and `rest`, smallest levels first.
    template <class Combine>
    [[nodiscard]] V total(V rest, Combine&& combine) const {
        for (std::uint64_t remaining = occupied_; remaining != 0; remaining &= remaining - 1)
            rest = combine(rest, levels_[static_cast<std::size_t>(std::countr_zero(remaining))]);
        return rest;
    }

private:
    static constexpr std::size_t levels = 40;
    std::array<V, levels> levels_;
    std::uint64_t occupied_ = 0;
};

/// The combination of the N ≥ 1 accumulators, as a balanced tree (an odd count's last joins the tree of the others).
template <class P, std::size_t N, class Combine>
[[TENSOROPS_ALWAYS_INLINE]] inline P combine_all(const std::array<P, N>& accumulators, Combine&& combine) {
    static_assert(N >= 1);
    if constexpr (N == 1) {
        return accumulators[0];
    } else if constexpr (N % 2 == 1) {
        std::array<P, N - 1> even;
        iter::unrolled<N - 1>([&](auto k) { even[k] = accumulators[k]; });
        return combine(combine_all(even, combine), accumulators[N - 1]);
    } else {
        std::array<P, N / 2> half;
        iter::unrolled<N / 2>([&](auto k) { half[k] = combine(accumulators[k], accumulators[k + N / 2]); });
        return combine_all(half, combine);
    }
}

}  // namespace tensorops::detail
