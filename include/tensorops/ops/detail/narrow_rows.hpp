// tensorops/ops/detail/narrow_rows.hpp — rows narrower than a register, back to back: W rows held in L registers
// regrouped by constant blends and permutes into L registers of one component each (row p in lane p). Shared by the
// narrow-row kernels of reduce and of argmax/argmin.
#pragma once

#include <array>
#include <cstddef>
#include <numeric>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../../core/element.hpp"
#include "../../core/inline.hpp"
#include "../../iter/plan.hpp"
#include "../../iter/unroll.hpp"
#include "../../simd/pack.hpp"
#include "../../simd/shuffle.hpp"
#include "tuning.hpp"

namespace tensorops::detail {

/// Whether T has the narrow-row kernel: registers of 32- or 64-bit lanes, which have one-instruction permutes.
template <class T>
inline constexpr bool has_narrow_row_kernel = [] {
    if constexpr (simd::vectorized && builtin_element<T>) return sizeof(simd::compute_t<T>) >= 4 && simd::lanes<T> > 2;
    else return false;
}();

namespace narrow_rows {

/// Lanes register S is rotated up by before the blends: S mod gcd(L, W) (none when L and W are coprime).
template <std::size_t L, std::size_t S>
[[nodiscard]] constexpr unsigned rotation(unsigned w) noexcept {
    return static_cast<unsigned>(S % std::gcd(L, static_cast<std::size_t>(w)));
}
[[nodiscard]] constexpr unsigned rotation_of(std::size_t l, std::size_t s, unsigned w) noexcept {
    return static_cast<unsigned>(s % std::gcd(l, static_cast<std::size_t>(w)));
}
/// Lane q of register S rotated: its lane q − rotation.
template <std::size_t L, std::size_t S>
struct rotated_lane {
    static constexpr std::size_t get(unsigned q, unsigned w) noexcept { return (q + w - rotation<L, S>(w)) % w; }
};
/// Where element e of the W rows (register e div W, lane e mod W) lies in its register rotated.
[[nodiscard]] constexpr unsigned rotated_position(std::size_t l, std::size_t e, unsigned w) noexcept {
    return static_cast<unsigned>((e % w + rotation_of(l, e / w, w)) % w);
}
/// Component C of the W rows from the blend of the rotated registers: row p's element C (element p·L + C) at its
/// rotated position.
template <std::size_t L, std::size_t C>
struct component_lane {
    static constexpr std::size_t get(unsigned p, unsigned w) noexcept { return rotated_position(L, p * L + C, w); }
};
/// Lane q of the blend for component C: from rotated register S? That is, whether lane q of register S rotated holds
/// an element of component C — its original lane (q − rotation) mod W, element S·W + that lane of the W rows — which,
/// the components' lanes being distinct across the rotated registers (rotations_separate), is then the element C of
/// the row that lane q of the blend is for. In constant time: the masks are constant expressions, thousands of them
/// per program (argmax's narrow rows of up to W − 1 elements), and a search over the rows for each lane made them the
/// bulk of an AVX-512 consumer's front end (bench/journal/2026-11-29-ci-budget.md).
template <std::size_t L, std::size_t C, std::size_t S>
struct source_lane_in_register {
    static constexpr bool get(unsigned q, unsigned w) noexcept {
        const std::size_t original_lane = (q + w - rotation<L, S>(w)) % w;
        return (S * w + original_lane) % L == C;
    }
};
/// Whether, for every component, the W rows' elements lie in distinct lanes of the rotated registers (so that one
/// blend of them holds all): true for every 2 ≤ L ≤ W with W a power of two — an element of component C lies at a
/// lane ≡ C (mod g), g = gcd(L, W), which the rotation makes ≡ C + S (mod g) (checked here for the W in use).
[[nodiscard]] constexpr bool rotations_separate(std::size_t l, unsigned w) noexcept {
    for (std::size_t c = 0; c < l; ++c)
        for (unsigned p = 0; p < w; ++p)
            for (unsigned r = p + 1; r < w; ++r)
                if (rotated_position(l, p * l + c, w) == rotated_position(l, r * l + c, w)) return false;
    return true;
}
/// The row lane q of register S belongs to: element S·W + q of the W rows.
template <std::size_t L, std::size_t S>
struct row_of_lane {
    static constexpr std::size_t get(unsigned q, unsigned w) noexcept { return (S * w + q) / L; }
};

/// The L components of the W rows held in v (component c: lane p = row p's element c). Algorithm: register S is
/// rotated up by S mod gcd(L, W) lanes (a permute, none where L and W are coprime), after which each component's W
/// elements lie in distinct lanes across the L registers: L − 1 constant blends gather them into one register, and
/// one permute puts row p's in lane p. 2L permutes at most and L(L − 1) blends, where permuting every register for
/// every component takes L² permutes: a constant blend is cheaper than a cross-lane permute (more ports, less latency).
template <std::size_t L, class P>
[[TENSOROPS_ALWAYS_INLINE]] inline std::array<P, L> components(const std::array<P, L>& v) noexcept {
    constexpr std::size_t W = P::size;
    static_assert(L >= 2 && L <= W && rotations_separate(L, W));
    std::array<P, L> rotated;
    iter::unrolled<L>([&](auto s) TENSOROPS_INLINE_STEP {
        if constexpr (rotation<L, s>(W) == 0) rotated[s] = v[s];
        else rotated[s] = simd::permute_constant<rotated_lane<L, s>>(v[s]);
    });
    std::array<P, L> out;
    iter::unrolled<L>([&](auto c) TENSOROPS_INLINE_STEP {
        P blend = rotated[0];
        iter::unrolled<L - 1>([&](auto s) TENSOROPS_INLINE_STEP {
            blend = simd::select_constant<source_lane_in_register<L, c, s + 1>>(rotated[s + 1], blend);
        });
        out[c] = simd::permute_constant<component_lane<L, c>>(blend);
    });
    return out;
}

/// Lane-wise, reduce_lanes' tree over W virtual lanes: lane c < L is component c (lifted already), the others r's
/// identity; lane i is combined with lane i + K for K = W/2 … 1. Pairs of identities stay the identity without an
/// instruction (e ∘ e = e for every reduction); a lane meeting an identity is still combined (−0 + 0 = +0).
template <std::size_t W, std::size_t L, class P, class R>
[[TENSOROPS_ALWAYS_INLINE]] inline P fold_rows(const std::array<P, L>& components, const R& r) noexcept {
    using C = typename P::value_type;
    std::array<P, W> lane;
    iter::unrolled<W>([&](auto c) {
        if constexpr (c < L) lane[c] = components[c];
        else lane[c] = P(static_cast<C>(r.identity()));
    });
    const auto level = [&]<std::size_t K>(std::integral_constant<std::size_t, K>, const auto& self) {
        iter::unrolled<K>([&](auto i) {
            if constexpr (i < L || i + K < L) lane[i] = r.combine_lanes(lane[i], lane[i + K]);
        });
        if constexpr (K > 1) self(std::integral_constant<std::size_t, K / 2>{}, self);
    };
    level(std::integral_constant<std::size_t, W / 2>{}, level);
    return lane[0];
}

}  // namespace narrow_rows

/// The lanes reduce's narrow-row kernel computes rows of T in: T's own, or 32-bit lanes for 8- and 16-bit integers
/// (sign- or zero-extended on load, simd::load_widened). Integer reductions keep their value modulo 2^n in wider
/// lanes (sums, products: every T's reduction wraps) or exactly (max, min), so the truncated results are the narrow
/// lanes' bit for bit; and eight uint8 rows of 3 become three registers of eight lanes, which the 32-bit permutes
/// and blends take apart (reduce_narrow_rows), where the short-row kernel reads one 32-lane register a row and folds
/// it (the figures: bench/journal/notes-reduce-and-log-sum-exp.md).
template <class T>
using narrow_row_lane_t =
    std::conditional_t<std::is_integral_v<T> && (sizeof(T) < 4), std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>, T>;

/// Whether reduce has the narrow-row kernel for rows of T (in narrow_row_lane_t lanes), and for how many elements a
/// row at most: narrow_row_max, below a register's lanes.
template <class T>
inline constexpr bool has_narrow_reduce_kernel = [] {
    if constexpr (builtin_element<T>) return has_narrow_row_kernel<narrow_row_lane_t<T>>;
    else return false;
}();

template <class T>
inline constexpr std::size_t narrow_reduce_row_max = [] {
    if constexpr (has_narrow_reduce_kernel<T>) return std::min(narrow_row_max, simd::lanes<narrow_row_lane_t<T>> - 1);
    else return std::size_t{0};
}();

/// Whether the short-row kernel's rows of `length` elements (the innermost dimension of `kept`) go to the narrow-row
/// kernel: back to back, 2 ≤ length ≤ narrow_reduce_row_max<T>.
template <class T>
[[nodiscard]] bool takes_narrow_row_kernel(const iter::loop_nest<2>& kept, std::size_t length) noexcept {
    const bool back_to_back = kept.rank != 0 && kept.strides[1][kept.rank - 1] == static_cast<std::ptrdiff_t>(length);
    return has_narrow_reduce_kernel<T> && back_to_back && length >= 2 && length <= narrow_reduce_row_max<T>;
}

/// Walks n back-to-back rows of L elements at x (2 ≤ L < W, W the lanes of narrow_row_lane_t<T>), W rows at a time:
/// rows_of(v) takes the L registers v[0 … L) holding them (element e of the W rows in lane e mod W of register e div W;
/// the rows past the last are zero lanes) and returns row p's finished value in lane p, which is written to
/// y[p · out_step]. Always inlined into its caller, whose rows_of stays in registers.
template <std::size_t L, class T, class RowsOf>
[[TENSOROPS_ALWAYS_INLINE]] inline void walk_narrow_rows(const T* x, T* y, std::size_t n, std::ptrdiff_t out_step,
                                                         RowsOf&& rows_of) {
    using U = narrow_row_lane_t<T>;
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t W = P::size;
    constexpr bool widened = !std::is_same_v<U, T>;
    static_assert(L >= 2 && L < W);
    // A whole register to consecutive outputs at once, otherwise element by element (float16, bfloat16: simd::store
    // and the element conversion round alike, NaN payloads included — core/float16.hpp, core/bfloat16.hpp; widened lanes: truncated to T, the
    // value modulo 2^n).
    const auto store = [&](T* out, const P& values, std::size_t count) TENSOROPS_INLINE_STEP {
        if (out_step == 1 && count == W) {
            if constexpr (widened) return simd::store_narrowed<T, U>(out, values);
            else return simd::store(out, values);
        }
        const auto lanes = simd::to_array(values);
        for (std::size_t k = 0; k < count; ++k) out[static_cast<std::ptrdiff_t>(k) * out_step] = static_cast<T>(lanes[k]);
    };
    std::size_t i = 0;
    for (; i + W <= n; i += W, x += W * L, y += static_cast<std::ptrdiff_t>(W) * out_step) {
        std::array<P, L> v;
        iter::unrolled<L>([&](auto s) { v[s] = simd::load_as<U>(x + s * W); });
        store(y, rows_of(v), W);
    }
    if (const std::size_t rest = n - i; rest != 0) {  // partial loads; the lanes past the rows are not stored
        std::array<P, L> v;
        iter::unrolled<L>([&](auto s) {
            const std::size_t first = s * W, available = rest * L > first ? std::min(W, rest * L - first) : 0;
            if (available == W) v[s] = simd::load_as<U>(x + first);  // load_partial takes fewer than W
            else v[s] = available == 0 ? P(C(0)) : simd::load_partial_as<U>(x + first, available);
        });
        store(y, rows_of(v), rest);
    }
}

/// Calls kernel(std::integral_constant<std::size_t, L>) for L = `length`, 2 ≤ length ≤ narrow_reduce_row_max<T>.
template <class T, class Kernel>
[[TENSOROPS_ALWAYS_INLINE]] inline void with_narrow_row_length(std::size_t length, Kernel&& kernel) {
    iter::unrolled<narrow_row_max - 1>([&](auto k) {
        constexpr std::size_t L = k + 2;
        if constexpr (L <= narrow_reduce_row_max<T>) {
            if (length == L) kernel(std::integral_constant<std::size_t, L>{});
        }
    });
}

}  // namespace tensorops::detail
