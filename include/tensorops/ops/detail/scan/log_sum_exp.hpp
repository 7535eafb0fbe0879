// tensorops/ops/detail/scan/log_sum_exp.hpp — the cumulative log-sum-exp: y[i] = ln(e^x[0] + … + e^x[i]) along a line
// (exclusive: of the elements before i; −inf for none), never overflowing where the running maximum is finite.
//
// The running state. (m, s): m the running maximum, s = Σ e^(x − m) over the elements so far, so y = m + ln s. An
// element x above m rescales the sum to it: s ← s·e^(m − x) + 1, m ← x; any other adds its term: s ← s + e^(x − m).
// Every term is at most 1, so nothing overflows while m is finite, and s ≥ 1 once an element is finite. The state
// starts at (−inf, 0), whose value is −inf. Non-finite elements: −inf adds nothing (its term is 0); +inf makes m
// +inf, and the value stays +inf; NaN makes m NaN, and the value stays NaN (the first NaN met). float16 and bfloat16 are computed
// in float and rounded once per output; float and double in themselves.
//
// Not associative in floating point, so no blocks: every line is computed sequentially, by one kernel chosen by the
// layout alone, in an order fixed by the line's length — the threads of an executor take whole lines (or, across
// rows, strips of columns), never parts of one line, so the results are bit-identical for any executor and thread
// count. Kernels (dispatch below):
//   contiguous   the axis is innermost with stride ±1: lse_scan_group vectors of W elements at a time, against one
//                reference, the largest of the running maximum and their elements (top): the terms e^(x − top) in
//                vector exponentials, their running sums by in-register scans, the carried sum rescaled to top and
//                added on from vector to vector, and y = top + ln(sum) in vector logarithms (simd::log_of_normal,
//                inlined). Lane i's sum then holds its own maximum's term e^(m_i − top), so the step is taken only
//                where that is not tiny — top − m_0 ≤ lse_scan_reach (m_0: the smallest running maximum of the step, its
//                first element's) — and top is finite; any other step is taken one element at a time by the scalar
//                step, as are the last elements (n mod G·W). A step with no element above a finite running maximum
//                (most steps past a line's first few, on data without a trend) keeps top = that maximum and the
//                carried sum s as it is: y = top + ln(s + L) for the step's own running sums L, and where L ≤ s/4
//                that is top + ln s + ln(1 + L/s) — one logarithm for the step, a short polynomial per vector
//                (simd::add_log1p_small). An exclusive scan stores each inclusive value one position on;
//   across rows  another dimension is innermost with stride 1: each column's state in lanes (a carry row of m and
//                s), one exponential e^−|x − m| and one logarithm per element (simd::log_of_normal where m is finite),
//                the row's last columns by the scalar step;
//   strided      anything else, and every build without vectors: the scalar step, one line at a time.
// Each column of an across-rows scan is always in the same kernel's lanes or always scalar (pieces cut the innermost
// dimension in whole vectors: exec/split.hpp), so its bits do not depend on the cut either.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "../../../core/inline.hpp"
#include "../../../iter/nd_loop.hpp"
#include "../../../iter/plan.hpp"
#include "../../../iter/unroll.hpp"
#include "../../../simd/horizontal.hpp"
#include "../../../simd/log_normal.hpp"
#include "../../../simd/math.hpp"
#include "../../../simd/minmax.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../../../simd/scan.hpp"
#include "../../../simd/select.hpp"
#include "../../../simd/shuffle.hpp"

namespace tensorops::detail {

/// How far below the reference `top` a vector's smallest running maximum may lie for the contiguous kernel's vector
/// step: each lane's sum then holds a term of at least e^−64, far above where its terms are floored (2^−125 for float
/// lanes, e^−708 for double: simd::exp_shifted), and the rounding of top + ln(sum) stays within an ulp or two of
/// max(|top|, 64). Changes floating results.
inline constexpr double lse_scan_reach = 64.0;

/// Columns per block of the across-rows kernel: the carry (two rows of the compute type, 8 or 16 KiB) stays in L1, and
/// rows of up to this many are walked whole, row after row — one stream through memory (blocks of half a 4 KiB row
/// walked over all the rows, then the other halves, left the hardware prefetchers behind). No effect on the results.
inline constexpr std::size_t lse_scan_columns = 1024;

/// The running state of a cumulative log-sum-exp (see the file comment).
template <class C>
struct lse_running {
    C maximum = -std::numeric_limits<C>::infinity();
    C sum = 0;

    /// ln(e^x0 + …): maximum + ln(sum) (−inf, +inf or NaN where the maximum is).
    [[nodiscard]] C value() const { return maximum + std::log(sum); }

    /// Takes one more element. (The rescaling product is one fused multiply-add, std::fma, so that no compiler can
    /// round it differently in different copies of this step.)
    [[TENSOROPS_ALWAYS_INLINE]] void add(C x) {
        if (x > maximum) {
            sum = std::fma(sum, std::exp(maximum - x), C(1));  // maximum −inf or x +inf: e^−inf = 0, the sum restarts at 1
            maximum = x;
        } else if (x <= maximum) {
            sum += x == maximum ? C(1) : std::exp(x - maximum);  // equal infinities add 1: harmless, the value stays ±inf
        } else if (maximum == maximum) {
            maximum = x;  // the first NaN met
        }
    }
};

/// One scalar line of n elements (x, y stepping by in_step, out_step) from `running`; returns the state after it.
template <bool Exclusive, class T>
lse_running<simd::compute_t<T>> lse_scan_column(const T* x, T* y, std::size_t n, std::ptrdiff_t in_step,
                                                std::ptrdiff_t out_step, lse_running<simd::compute_t<T>> running = {}) {
    using C = simd::compute_t<T>;
    for (std::size_t i = 0; i < n; ++i, x += in_step, y += out_step) {
        const auto value = static_cast<C>(*x);  // read before the write: in place is safe
        if constexpr (Exclusive) *y = static_cast<T>(running.value());
        running.add(value);
        if constexpr (!Exclusive) *y = static_cast<T>(running.value());
    }
    return running;
}

/// Every line of `nest` along `axis` by the scalar step (operand 0 output, operand 1 input).
template <bool Exclusive, class T>
void lse_scan_strided(const T* input, T* output, const iter::loop_nest<2>& nest, std::size_t axis) {
    const std::size_t n = nest.sizes[axis];
    const std::ptrdiff_t out_step = nest.strides[0][axis], in_step = nest.strides[1][axis];
    iter::axis_set along;
    along.set(axis);
    iter::for_each_element(iter::remove_dimensions(nest, along), [&](const std::array<std::ptrdiff_t, 2>& line) {
        lse_scan_column<Exclusive>(input + line[1], output + line[0], n, in_step, out_step);
    });
}

/// Vectors per step of the contiguous kernel: one reference for all of them, so that the loop-carried chain (the
/// reference, the carried sum rescaled to it, each vector's last sum) is paid once per lse_scan_group vectors while their
/// exponentials and logarithms overlap. Changes floating results.
inline constexpr std::size_t lse_scan_group = 4;

/// The state of a contiguous line between two steps of lse_scan_contiguous_line: the running state, and the
/// inclusive value at the position before, as the kernel computed it (an exclusive scan stores it next; −inf at the
/// line's start).
template <class C>
struct lse_line_state {
    lse_running<C> running;
    C entering = -std::numeric_limits<C>::infinity();
};

/// Elements of one step of the contiguous kernel (lse_scan_group vectors).
template <class T>
inline constexpr std::size_t lse_scan_step = lse_scan_group* simd::pack<T>::size;

/// A contiguous line of n elements (stepping backwards from input / output when Backward): see "contiguous" above, in
/// steps of lse_scan_group vectors (G·W elements) against one reference, the rest by the scalar step. With `resume`:
/// a part of a line from the state there, n a multiple of G·W (whole steps only, as the line takes them from its
/// start), the state after it left in *resume.
template <bool Exclusive, bool Backward, class T>
void lse_scan_contiguous_line(const T* input, T* output, std::size_t n,
                              lse_line_state<simd::compute_t<T>>* resume = nullptr) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    constexpr std::size_t W = P::size, G = lse_scan_group;
    constexpr std::ptrdiff_t step = Backward ? -1 : 1;
    // Address of the W elements at traversal positions [i, i + W).
    const auto block = [](auto* base, std::size_t i) {
        if constexpr (Backward) return base - static_cast<std::ptrdiff_t>(i + W - 1);
        else return base + i;
    };
    const auto add = [](const P& a, const P& b) { return a + b; };
    const auto last = [](const P& v) {
        if constexpr (Backward) return simd::broadcast_first(v);
        else return simd::broadcast_last(v);
    };
    lse_running<C> running = resume != nullptr ? resume->running : lse_running<C>{};
    std::size_t i = 0;
    if constexpr (W > 1) {
        // The steps are unrolled (iter::unrolled): with the vectors of a step in an array indexed by constants the
        // compiler keeps them in registers (a loop over the array kept them on the stack, each vector stored in halves
        // and reloaded whole: a store-forwarding stall per vector). carried: running.sum in every lane.
        P carried(running.sum);
        // Stores a step's values y (inclusive; Exclusive: each one position on, `entering` — the inclusive value one
        // position before the step, as the kernel computed it: −inf at the start — entering at the first).
        C entering = resume != nullptr ? resume->entering : -std::numeric_limits<C>::infinity();
        const auto store_step = [&](const std::array<P, G>& y) {
            iter::unrolled<G>([&](auto g) {
                P value = y[g];
                if constexpr (Exclusive) {
                    const C inclusive_last = simd::to_array(value)[Backward ? 0 : W - 1];
                    if constexpr (Backward) value = simd::shift_lanes_down<1>(value, entering);
                    else value = simd::shift_lanes_up<1>(value, entering);
                    entering = inclusive_last;
                }
                simd::store(block(output, i + g * W), value);
            });
        };
        for (; i + G * W <= n; i += G * W) {
            std::array<P, G> x, sums;
            iter::unrolled<G>([&](auto g) { x[g] = simd::load(block(input, i + g * W)); });  // read before the writes: in place is safe
            const P maximum_lanes(running.maximum);
            const bool finite = std::abs(running.maximum) < std::numeric_limits<C>::infinity();
            auto at_most = x[0] <= maximum_lanes;
            iter::unrolled<G - 1>([&](auto g) { at_most = at_most & (x[g + 1] <= maximum_lanes); });
            if (finite && !simd::any_and_not(maximum_lanes == maximum_lanes, at_most)) {
                // No element above the running maximum: top is the running maximum, and the carried sum needs no
                // rescaling. The step's own running sums L first; y = top + ln(carried + L), and where the step adds at
                // most a quarter to the carried sum (on data without a trend, most steps past a line's first few dozen elements) that is
                // top + ln(carried) + ln(1 + L / carried): one logarithm for the step and a short polynomial per vector.
                iter::unrolled<G>([&](auto g) { sums[g] = simd::scan_lanes<Backward>(simd::exp_shifted(x[g], maximum_lanes), add, C(0)); });
                iter::unrolled<G - 1>([&](auto g) { sums[g + 1] = last(sums[g]) + sums[g + 1]; });
                const P total = last(sums[G - 1]);
                std::array<P, G> y;
                if (std::is_same_v<C, float> && !simd::any(total * P(C(4)) > carried)) {
                    const P inverse = P(C(1)) / carried, base = maximum_lanes + simd::log_of_normal(carried);
                    if constexpr (std::is_same_v<C, float>)  // float's polynomial: doubles take the logarithms below
                        iter::unrolled<G>([&](auto g) { y[g] = simd::add_log1p_small(base, sums[g] * inverse); });
                } else {
                    iter::unrolled<G>([&](auto g) { y[g] = maximum_lanes + simd::log_of_normal(carried + sums[g]); });
                }
                store_step(y);
                carried = carried + total;
                continue;
            }
            P largest = x[0];
            iter::unrolled<G - 1>([&](auto g) { largest = simd::max_propagate_nan(largest, x[g + 1]); });
            const C top = simd::max_propagate_nan(running.maximum, simd::reduce_max(largest));
            const auto first = static_cast<C>(input[step * static_cast<std::ptrdiff_t>(i)]);  // the step's first element
            const C lowest_maximum = simd::max_propagate_nan(running.maximum, first);
            if (!(std::abs(top) < std::numeric_limits<C>::infinity() && top - lowest_maximum <= static_cast<C>(lse_scan_reach))) {
                running.sum = simd::to_array(carried)[0];
                for (std::size_t k = 0; k < G * W; ++k) {  // each element read before its output is written: in place is safe
                    const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(i + k);
                    const auto value = static_cast<C>(input[at]);
                    if constexpr (Exclusive) output[at] = static_cast<T>(running.value());
                    running.add(value);
                    if constexpr (!Exclusive) output[at] = static_cast<T>(running.value());
                }
                carried = P(running.sum);
                if constexpr (Exclusive) entering = running.value();
                continue;
            }
            const P top_lanes(top);
            iter::unrolled<G>([&](auto g) { sums[g] = simd::scan_lanes<Backward>(simd::exp_shifted(x[g], top_lanes), add, C(0)); });
            // The carried sum rescaled to top (0·tiny for a maximum of −inf) and added in one fused step (the same
            // rounding in every copy of this kernel), then each vector's sums on from the last lane of the one before.
            sums[0] = simd::fms(carried, simd::exp_shifted(maximum_lanes, top_lanes), -sums[0]);
            iter::unrolled<G - 1>([&](auto g) { sums[g + 1] = last(sums[g]) + sums[g + 1]; });
            std::array<P, G> y;
            iter::unrolled<G>([&](auto g) { y[g] = top_lanes + simd::log_of_normal(sums[g]); });  // every sum holds a term ≥ 2^−125.5
            store_step(y);
            running.maximum = top;
            carried = last(sums[G - 1]);
        }
        running.sum = simd::to_array(carried)[0];
        if (resume != nullptr) resume->entering = entering;
    }
    if (resume != nullptr) {
        resume->running = running;
        return;
    }
    const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(i);
    lse_scan_column<Exclusive>(input + at, output + at, n - i, step, step, running);
}

/// maximum + ln(sum) per lane for running states (lse_running::value): where the maximum is finite the sum is at least
/// 1 (its own term), else the value is the maximum itself (−inf with a sum of 0, +inf, NaN).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P lse_value_lanes(const P& maximum, const P& sum) noexcept {
    using C = typename P::value_type;
    return simd::select(simd::abs(maximum) < P(std::numeric_limits<C>::infinity()), maximum + simd::log_of_normal(sum), maximum);
}

/// n rows of m columns (the innermost dimension contiguous for both operands; row steps in_step, out_step): see
/// "across rows" above. Columns in blocks of lse_scan_columns, each block's state in a carry on the stack. With
/// `carried` (maxima and sums, m each): a part of the rows from each column's state there, the state after it left
/// there.
template <bool Exclusive, class T>
void lse_scan_across_rows(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step,
                          std::size_t m, std::array<simd::compute_t<T>*, 2> carried = {nullptr, nullptr}) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    constexpr std::size_t W = P::size;
    constexpr C infinity = std::numeric_limits<C>::infinity();
    alignas(64) std::array<C, lse_scan_columns> maxima, sums;
    // Rows walked downward in memory (a decreasing scan) have their columns walked downward too: one descending stream,
    // which the hardware prefetchers follow (ascending rows taken downward one after the other ran at half the speed).
    // Page hints in the rows a page or more on (simd::prefetch_page_ahead, or _below walking downward): the hardware
    // prefetchers stop at page ends.
    const bool downward = in_step < 0;
    const std::ptrdiff_t in_ahead = simd::rows_ahead_bytes<T>(in_step), out_ahead = simd::rows_ahead_bytes<T>(out_step);
    const std::size_t ahead = std::max(simd::rows_ahead<T>(in_step), simd::rows_ahead<T>(out_step));

    for (std::size_t first = 0; first < m; first += lse_scan_columns) {
        const std::size_t width = std::min(lse_scan_columns, m - first);
        const std::size_t vectors_end = width / W * W;
        if (carried[0] != nullptr) {
            std::copy_n(carried[0] + first, width, maxima.begin());
            std::copy_n(carried[1] + first, width, sums.begin());
        } else {
            std::fill(maxima.begin(), maxima.begin() + static_cast<std::ptrdiff_t>(width), -infinity);
            std::fill(sums.begin(), sums.begin() + static_cast<std::ptrdiff_t>(width), C(0));
        }
        // One row's vectors (the columns walked downward, Downward, or upward), each hinting the row `ahead` on.
        const auto row = [&]<bool Downward>(const T* x, T* y, bool hint) {
            for (std::size_t k = 0; k < vectors_end; k += W) {
                const std::size_t j = Downward ? vectors_end - W - k : k;
                if (hint) {  // written out here: GCC drops a call whose only effect is a prefetch (simd/prefetch.hpp)
                    if constexpr (Downward) {
                        simd::prefetch_page_below(x + j, -in_ahead, W * sizeof(T));
                        simd::prefetch_page_below<true>(y + j, -out_ahead, W * sizeof(T));
                    } else {
                        simd::prefetch_page_ahead(x + j, in_ahead, W * sizeof(T));
                        simd::prefetch_page_ahead<true>(y + j, out_ahead, W * sizeof(T));
                    }
                }
                const P value = simd::load(x + j);  // read before the write: in place is safe
                const P maximum = simd::load(maxima.data() + j), sum = simd::load(sums.data() + j);
                if constexpr (Exclusive) simd::store(y + j, lse_value_lanes(maximum, sum));
                // e^−|x − m| against the larger of the two (NaN-propagating); 0 where that is not finite, so that an
                // element +inf restarts the sum at 1 and −inf against −inf adds nothing.
                const P top = simd::max_propagate_nan(maximum, value);
                const P low = simd::select(value < maximum, value, maximum);
                const P term = simd::select(simd::abs(top) < P(infinity), simd::exp_shifted(low, top), P(C(0)));
                const auto rises = value > maximum;
                const P next_sum = simd::select(rises, simd::fms(sum, term, P(C(-1))), sum + term);  // s·e^(m − x) + 1, or s + e^(x − m)
                simd::store(maxima.data() + j, top);
                simd::store(sums.data() + j, next_sum);
            }
            // Inclusive: the row's values from the states just stored, in a loop of their own — each vector's logarithm
            // then waits for no exponential, and the vectors' logarithms overlap (after the read of the whole row: in
            // place is safe).
            if constexpr (!Exclusive) {
                for (std::size_t k = 0; k < vectors_end; k += W) {
                    const std::size_t j = Downward ? vectors_end - W - k : k;
                    simd::store(y + j, lse_value_lanes(simd::load(maxima.data() + j), simd::load(sums.data() + j)));
                }
            }
        };
        const T* x = input + first;
        T* y = output + first;
        for (std::size_t i = 0; i < n; ++i, x += in_step, y += out_step) {
            if (downward) row.template operator()<true>(x, y, i + ahead < n);
            else row.template operator()<false>(x, y, i + ahead < n);
            for (std::size_t j = vectors_end; j < width; ++j) {
                lse_running<C> running{maxima[j], sums[j]};
                const auto value = static_cast<C>(x[j]);
                if constexpr (Exclusive) y[j] = static_cast<T>(running.value());
                running.add(value);
                if constexpr (!Exclusive) y[j] = static_cast<T>(running.value());
                maxima[j] = running.maximum;
                sums[j] = running.sum;
            }
        }
        if (carried[0] != nullptr) {
            std::copy_n(maxima.begin(), width, carried[0] + first);
            std::copy_n(sums.begin(), width, carried[1] + first);
        }
    }
}

/// Runs the cumulative log-sum-exp over a planned nest (operand 0 output, operand 1 input) whose dimension `axis` is
/// the scan axis, walked in the order the strides give: the kernel the layout calls for (see the file comment).
template <bool Exclusive, class T>
void run_log_sum_exp_scan(const T* input, T* output, const iter::loop_nest<2>& nest, std::size_t axis) {
    if constexpr (simd::vectorized) {
        const std::size_t last = nest.rank - 1;
        const std::ptrdiff_t out_step = nest.strides[0][axis], in_step = nest.strides[1][axis];
        if (axis == last && out_step == in_step && (out_step == 1 || out_step == -1)) {
            iter::axis_set along;
            along.set(axis);
            const std::size_t n = nest.sizes[axis];
            iter::for_each_element(iter::remove_dimensions(nest, along), [&](const std::array<std::ptrdiff_t, 2>& line) {
                if (out_step == 1) lse_scan_contiguous_line<Exclusive, false>(input + line[1], output + line[0], n);
                else lse_scan_contiguous_line<Exclusive, true>(input + line[1], output + line[0], n);
            });
            return;
        }
        if (axis != last && nest.inner_is_contiguous({0, 1})) {
            iter::axis_set handled;
            handled.set(axis);
            handled.set(last);
            iter::for_each_element(iter::remove_dimensions(nest, handled), [&](const std::array<std::ptrdiff_t, 2>& rows) {
                lse_scan_across_rows<Exclusive>(input + rows[1], output + rows[0], nest.sizes[axis], in_step, out_step, nest.sizes[last]);
            });
            return;
        }
    }
    lse_scan_strided<Exclusive>(input, output, nest, axis);
}

}  // namespace tensorops::detail
