// tensorops/ops/detail/arg_reduce/policy.hpp — what every argmax/argmin kernel shares: the index output seen as
// unsigned integers of its width, and the comparison rule (first or last extreme, NaN as the extreme).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../../core/element.hpp"
#include "../../../core/inline.hpp"
#include "../../../iter/unroll.hpp"
#include "../../../simd/minmax.hpp"
#include "../../../simd/pack.hpp"
#include "../reductions.hpp"

namespace tensorops::detail {

/// The output of argmax / argmin: index-typed storage addressed in elements. Every answer is a non-negative flat
/// index that the index type can hold (checked before a kernel runs), so it is written through the unsigned type
/// of the same width — which may access an object of the signed type too ([basic.lval]).
class index_output {
public:
    template <index_element I>
    explicit index_output(I* data) : data_(data), wide_(sizeof(I) == 8) {}

    /// Writes `value` to the element at `offset`.
    void put(std::ptrdiff_t offset, std::ptrdiff_t value) const {
        if (wide_) static_cast<std::uint64_t*>(data_)[offset] = static_cast<std::uint64_t>(value);
        else static_cast<std::uint32_t*>(data_)[offset] = static_cast<std::uint32_t>(value);
    }

    /// Writes values[0..count) to the contiguous elements from `offset` on. Inlined: where count is a constant (the
    /// narrow-row kernel's W answers at once) the copy becomes a few vector stores, widened or narrowed to the index type.
    template <class L>
    [[TENSOROPS_ALWAYS_INLINE]] void put_contiguous(std::ptrdiff_t offset, const L* values, std::size_t count) const {
        if (wide_) std::copy_n(values, count, static_cast<std::uint64_t*>(data_) + offset);
        else std::copy_n(values, count, static_cast<std::uint32_t*>(data_) + offset);
    }

    /// The output seen from element `offset` on.
    [[nodiscard]] index_output shifted(std::ptrdiff_t offset) const {
        index_output moved = *this;
        moved.data_ = wide_ ? static_cast<void*>(static_cast<std::uint64_t*>(data_) + offset)
                            : static_cast<void*>(static_cast<std::uint32_t*>(data_) + offset);
        return moved;
    }

private:
    void* data_;
    bool wide_;
};

/// Is v a NaN (never, for types without one)?
template <class V>
[[nodiscard]] constexpr bool is_nan_value(const V& v) {
    if constexpr (std::is_floating_point_v<V>) return v != v;
    else return false;
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

/// `replaces` for two values whose NaN-ness is not tracked separately.
template <bool Maximum, bool Last, class V>
[[nodiscard]] constexpr bool replaces_value(const V& candidate, const V& best) {
    return replaces<Maximum, Last>(candidate, is_nan_value(candidate), best, is_nan_value(best));
}

/// Lanes where `candidate` (met later in the walk) replaces `best` — `replaces`, lane-wise. Floating lanes, first
/// extreme: "not (candidate ≤ best)" holds where candidate > best or either is NaN, and "best = best" where best is
/// not NaN — together exactly `replaces`, in two compares (the outer kernel tests this for every vector it reads).
template <bool Maximum, bool Last, class P>
[[nodiscard]] simd::mask_of<P> replaces_lanes(const P& candidate, const P& best) {
    if constexpr (!std::is_floating_point_v<typename P::value_type>)
        return Maximum ? (Last ? candidate >= best : candidate > best) : (Last ? candidate <= best : candidate < best);
    else if constexpr (Last)
        return (Maximum ? candidate >= best : candidate <= best) | simd::is_nan(candidate);
    else
        return simd::and_not(best == best, Maximum ? candidate <= best : candidate >= best);  // ordered compares: false at NaN
}

/// simd::any(replaces_lanes(candidate, best)), the test the outer kernel makes of every vector it reads: for the
/// first extreme of floating lanes the and-not of its two compares is left to the test instruction (any_and_not).
template <bool Maximum, bool Last, class P>
[[nodiscard]] bool any_replaces(const P& candidate, const P& best) {
    if constexpr (std::is_floating_point_v<typename P::value_type> && !Last)
        return simd::any_and_not(best == best, Maximum ? candidate <= best : candidate >= best);
    else
        return simd::any(replaces_lanes<Maximum, Last>(candidate, best));
}

/// Whether any lane of any of `candidates` replaces `best` (each any_replaces against the same best). For the first
/// extreme of floating lanes the compares "candidate ≤ best" are and-ed first and the NaN test of best made once.
template <bool Maximum, bool Last, class P, std::size_t G>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline bool any_replaces_any(const std::array<P, G>& candidates, const P& best) {
    if constexpr (std::is_floating_point_v<typename P::value_type> && !Last) {
        auto kept = Maximum ? candidates[0] <= best : candidates[0] >= best;
        iter::unrolled<G - 1>(
            [&](auto g) { kept = kept & (Maximum ? candidates[g + 1] <= best : candidates[g + 1] >= best); });
        return simd::any_and_not(best == best, kept);
    } else {
        auto replace = replaces_lanes<Maximum, Last>(candidates[0], best);
        iter::unrolled<G - 1>(
            [&](auto g) { replace = replace | replaces_lanes<Maximum, Last>(candidates[g + 1], best); });
        return simd::any(replace);
    }
}

}  // namespace tensorops::detail
