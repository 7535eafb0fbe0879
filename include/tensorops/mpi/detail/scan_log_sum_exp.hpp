// tensorops/mpi/detail/scan_log_sum_exp.hpp — the cumulative log-sum-exp of a sharded tensor, computed by every rank
// on its shard exactly as the single process computes it on the packed global tensor.
//
// The single process (ops/detail/scan/log_sum_exp.hpp) computes every line sequentially — the operation is not
// associative in floating point, so there are no blocks — by the kernel its layout calls for, and each column of rows
// scanned across is always in vector lanes or always scalar: the first m / W · W of the m columns in lanes, the rest
// by the scalar step. Three cases here:
//   columns: the scanned axis is not the sharded one, the sharded one lies among the columns after it: each rank scans
//            its columns whole, each one in lanes or scalar as its place among the global columns says (a stretch of
//            columns in lanes whose length is no multiple of W ends in a scratch W columns wide, in chunks of rows);
//   rows:    along the sharded axis, rows scanned across: each column's running state (maximum, sum) passes from
//            rank to rank, in stages of lines and blocks of lse_scan_columns columns, so that rank r + 1 scans a
//            stage while rank r scans the next (a pipeline: lines × blocks stages, P − 1 of them of start-up);
//   line:    along the sharded axis, contiguous lines: the kernel takes steps of G·W elements from a line's start
//            and its last n mod G·W elements one at a time; a step's result depends on all its elements. Each rank
//            receives the state at the start of the step its shard's start cuts and that step's elements before it
//            (the fragment), has the elements after its end up to the end of the step its end cuts (the lookahead,
//            exchanged first), computes the cut steps on a scratch step, keeps its own outputs, and sends on the
//            state at the start of its last cut step with that step's elements it holds. Lines in groups of about
//            lse_chain_group_bytes, one message per group: a pipeline over the lines; one long line is computed one
//            rank after the other (the single process's order allows nothing else).
#pragma once

#include "mpi_c.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <limits>
#include <vector>

#include "../../ops/detail/scan/log_sum_exp.hpp"
#include "../../simd/pack.hpp"
#include "collectives.hpp"
#include "scan_chain.hpp"

namespace tensorops::mpi::detail {

/// Shard bytes per message of the log-sum-exp chains: enough work per stage that the messages' latency stays small
/// beside it, few enough that the next rank starts early. No effect on the results.
inline constexpr std::size_t lse_chain_group_bytes = std::size_t{256} << 10;

/// n rows of `width` columns, each column by the library's scalar step (lse_scan_column) from its state in
/// maxima[j], sums[j] (updated).
template <bool Exclusive, class T, class C>
void lse_rows_scalar(const T* x, T* y, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step,
                     std::size_t width, C* maxima, C* sums) {
    for (std::size_t j = 0; j < width; ++j) {
        const auto running =
            tensorops::detail::lse_scan_column<Exclusive>(x + j, y + j, n, in_step, out_step, {maxima[j], sums[j]});
        maxima[j] = running.maximum;
        sums[j] = running.sum;
    }
}

/// n rows of `width` columns from the carry (maxima, sums), every column in vector lanes (`lanes`, in a vectorised
/// build) or by the scalar step. Lanes are independent, so a last few columns fewer than W go through a scratch W
/// columns wide (their state, then padding), 64 rows at a time.
template <bool Exclusive, class T, class C>
void lse_rows_segment(const T* x, T* y, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step,
                      std::size_t width, C* maxima, C* sums, bool lanes) {
    if constexpr (simd::vectorized) {
        if (lanes) {
            constexpr std::size_t W = simd::pack<T>::size, chunk = 64;
            const std::size_t whole = width / W * W;
            if (whole > 0)
                tensorops::detail::lse_scan_across_rows<Exclusive>(x, y, n, in_step, out_step, whole, {maxima, sums});
            const std::size_t rest = width - whole;
            if (rest == 0) return;
            std::array<C, W> maximum_lanes, sum_lanes;
            maximum_lanes.fill(-std::numeric_limits<C>::infinity());
            sum_lanes.fill(C(0));
            std::copy(maxima + whole, maxima + width, maximum_lanes.begin());
            std::copy(sums + whole, sums + width, sum_lanes.begin());
            std::vector<T> scratch(chunk * W, T(0));
            for (std::size_t i = 0; i < n; i += chunk) {
                const std::size_t rows = std::min(chunk, n - i);
                for (std::size_t r = 0; r < rows; ++r)
                    std::copy(x + static_cast<std::ptrdiff_t>(i + r) * in_step + whole,
                              x + static_cast<std::ptrdiff_t>(i + r) * in_step + width,
                              scratch.begin() + static_cast<std::ptrdiff_t>(r * W));
                const auto w = static_cast<std::ptrdiff_t>(W);
                tensorops::detail::lse_scan_across_rows<Exclusive>(scratch.data(), scratch.data(), rows, w, w, W,
                                                                   {maximum_lanes.data(), sum_lanes.data()});
                for (std::size_t r = 0; r < rows; ++r)
                    std::copy(scratch.begin() + static_cast<std::ptrdiff_t>(r * W),
                              scratch.begin() + static_cast<std::ptrdiff_t>(r * W + rest),
                              y + static_cast<std::ptrdiff_t>(i + r) * out_step + whole);
            }
            std::copy(maximum_lanes.begin(), maximum_lanes.begin() + static_cast<std::ptrdiff_t>(rest), maxima + whole);
            std::copy(sum_lanes.begin(), sum_lanes.begin() + static_cast<std::ptrdiff_t>(rest), sums + whole);
            return;
        }
    }
    lse_rows_scalar<Exclusive>(x, y, n, in_step, out_step, width, maxima, sums);
}

/// Columns in vector lanes in the single process's scan across rows of m columns: the first m / W · W (none without
/// vectors).
template <class T>
[[nodiscard]] constexpr std::size_t lse_lane_columns(std::size_t m) noexcept {
    if constexpr (simd::vectorized) return m / simd::pack<T>::size * simd::pack<T>::size;
    else return 0;
}

/// The columns case (see the file comment). x, y: the packed shard; `local`: its sizes; the scan along `axis`, the
/// sharded axis sh.axis after it.
template <bool Exclusive, class T>
void lse_scan_sharded_columns(const T* x, T* y, const std::vector<std::size_t>& local, const sharding& sh,
                              std::size_t axis, bool decreasing) {
    using C = simd::compute_t<T>;
    std::size_t outer = 1, stretches = 1, post = 1;
    for (std::size_t d = 0; d < axis; ++d) outer *= local[d];
    for (std::size_t d = axis + 1; d < sh.axis; ++d) stretches *= local[d];
    for (std::size_t d = sh.axis + 1; d < local.size(); ++d) post *= local[d];
    const std::size_t n = local[axis], count = sh.mine().count, stretch = count * post;
    const std::size_t m = stretches * stretch, global_m = stretches * sh.along() * post,
                      lane_end = lse_lane_columns<T>(global_m);
    const auto row_step = static_cast<std::ptrdiff_t>(m) * (decreasing ? -1 : 1);
    std::vector<C> maxima, sums;
    for (std::size_t l = 0; l < outer; ++l) {
        const std::size_t first_row = l * n * m + (decreasing ? (n - 1) * m : 0);
        for (std::size_t p = 0; p < stretches; ++p) {
            const std::size_t global_first = (p * sh.along() + sh.mine().offset) * post, local_first = p * stretch;
            const std::size_t in_lanes = std::min(stretch, lane_end > global_first ? lane_end - global_first : 0);
            const auto segment = [&](std::size_t from, std::size_t width, bool lanes) {
                if (width == 0) return;
                maxima.assign(width, -std::numeric_limits<C>::infinity());
                sums.assign(width, C(0));
                const std::size_t at = first_row + local_first + from;
                lse_rows_segment<Exclusive>(x + at, y + at, n, row_step, row_step, width, maxima.data(), sums.data(),
                                            lanes);
            };
            segment(0, in_lanes, true);
            segment(in_lanes, stretch - in_lanes, false);
        }
    }
}

/// The rows case (see the file comment): this rank's `count` rows of each of `outer` lines of `inner` columns (packed
/// [outer, count, inner] at x, y), each column's state received from `previous` (or fresh: `first_rows`, the rank
/// holding each line's start) and sent to `next` (or -1). The blocks of columns are the single process's, so each
/// column is in lanes or scalar as there. The stages are sized by `typical_rows` (≥ 1, the same on every rank).
template <bool Exclusive, class T>
void lse_scan_sharded_rows(MPI_Comm comm, const T* x, T* y, std::size_t outer, std::size_t count, std::size_t inner,
                           std::size_t typical_rows, bool decreasing, int previous, int next, bool first_rows) {
    using C = simd::compute_t<T>;
    const std::size_t block = tensorops::detail::lse_scan_columns;
    const std::size_t blocks = (inner + block - 1) / block;
    const std::size_t stage_units =
        std::max<std::size_t>(1, lse_chain_group_bytes / (typical_rows * std::min(inner, block) * sizeof(T)));
    const auto row_step = static_cast<std::ptrdiff_t>(inner) * (decreasing ? -1 : 1);
    std::vector<C> carry;  // per unit of the stage: the block's maxima, then its sums
    for (std::size_t unit = 0; unit < outer * blocks; unit += stage_units) {
        const std::size_t units = std::min(stage_units, outer * blocks - unit);
        const auto width_of = [&](std::size_t u) { return std::min(block, inner - u % blocks * block); };
        std::size_t values = 0;
        for (std::size_t u = unit; u < unit + units; ++u) values += 2 * width_of(u);
        carry.resize(values);
        if (first_rows) {
            for (std::size_t u = unit, at = 0; u < unit + units; at += 2 * width_of(u), ++u) {
                std::fill_n(carry.begin() + static_cast<std::ptrdiff_t>(at), width_of(u),
                            -std::numeric_limits<C>::infinity());
                std::fill_n(carry.begin() + static_cast<std::ptrdiff_t>(at + width_of(u)), width_of(u), C(0));
            }
        } else {
            receive_bytes(comm, carry.data(), values * sizeof(C), previous, chain_tag);
        }
        for (std::size_t u = unit, at = 0; u < unit + units; at += 2 * width_of(u), ++u) {
            const std::size_t line = u / blocks, first = u % blocks * block, width = width_of(u);
            const std::size_t start = line * count * inner + (decreasing ? (count - 1) * inner : 0) + first;
            C* maxima = carry.data() + at;
            C* sums = maxima + width;
            if constexpr (simd::vectorized)
                tensorops::detail::lse_scan_across_rows<Exclusive>(x + start, y + start, count, row_step, row_step,
                                                                   width, {maxima, sums});
            else lse_rows_scalar<Exclusive>(x + start, y + start, count, row_step, row_step, width, maxima, sums);
        }
        if (next >= 0) send_bytes(comm, carry.data(), values * sizeof(C), next, chain_tag);
    }
}

/// The line case (see the file comment) for contiguous lines: this rank's traversal positions `mine` of each of
/// `outer` lines (packed [outer, count] at x, y; traversal position t at x[t − t0], or x[t1 − 1 − t] when Backward) of
/// the global axis' n; `ranges[r]`: rank r's positions; previous / next: the nearest ranks holding elements before
/// and after this one in traversal order (or -1).
template <bool Exclusive, bool Backward, class T>
void lse_scan_sharded_lines(MPI_Comm comm, const T* x, T* y, std::size_t outer, std::size_t n,
                            const std::vector<traversal_range>& ranges, const traversal_range& mine, int previous,
                            int next) {
    using C = simd::compute_t<T>;
    using state = tensorops::detail::lse_line_state<C>;
    const int me = place_in(comm).rank;
    constexpr std::size_t S = tensorops::detail::lse_scan_step<T>;
    const bool steps = simd::vectorized && simd::pack<T>::size > 1;
    const std::size_t t0 = mine.begin, t1 = mine.end, count = t1 - t0, steps_end = steps ? n / S * S : 0;
    const auto cut_at = [&](std::size_t t) { return t < steps_end ? t % S : 0; };  // elements of the step before t
    const auto at = [&](std::size_t line, std::size_t t) { return line * count + (Backward ? t1 - 1 - t : t - t0); };

    // The lookahead: the elements after each rank's end up to the end of the step it cuts, from the ranks holding them.
    const auto needs = [&](const traversal_range& r) {
        const std::size_t cut = r.begin < r.end ? cut_at(r.end) : 0;
        return cut == 0 ? traversal_range{r.end, r.end} : traversal_range{r.end, r.end - cut + S};
    };
    const auto overlap = [](const traversal_range& a, const traversal_range& b) {
        const std::size_t begin = std::max(a.begin, b.begin), end = std::min(a.end, b.end);
        return begin < end ? traversal_range{begin, end} : traversal_range{begin, begin};
    };
    const traversal_range wanted = needs(mine);
    const std::size_t ahead = wanted.end - wanted.begin;
    std::vector<T> lookahead(outer * ahead);
    std::vector<std::vector<T>> outgoing, incoming;  // (reserved: the buffers stay where the requests point)
    outgoing.reserve(ranges.size());
    incoming.reserve(ranges.size());
    std::vector<traversal_range> incoming_ranges;
    std::vector<MPI_Request> requests;
    for (std::size_t r = 0; r < ranges.size(); ++r) {
        if (static_cast<int>(r) == me) continue;
        const traversal_range give = overlap(needs(ranges[r]), mine), take = overlap(wanted, ranges[r]);
        if (give.begin < give.end) {
            std::vector<T>& bytes = outgoing.emplace_back();
            for (std::size_t line = 0; line < outer; ++line)
                for (std::size_t t = give.begin; t < give.end; ++t) bytes.push_back(x[at(line, t)]);
            post_send_bytes(comm, bytes.data(), bytes.size() * sizeof(T), static_cast<int>(r), gather_tag, requests);
        }
        if (take.begin < take.end) {
            std::vector<T>& bytes = incoming.emplace_back(outer * (take.end - take.begin));
            incoming_ranges.push_back(take);
            post_receive_bytes(comm, bytes.data(), bytes.size() * sizeof(T), static_cast<int>(r), gather_tag, requests);
        }
    }
    wait_for(requests);
    for (std::size_t k = 0; k < incoming.size(); ++k) {
        const traversal_range& take = incoming_ranges[k];
        const std::size_t length = take.end - take.begin;
        for (std::size_t line = 0; line < outer; ++line)
            std::copy_n(incoming[k].begin() + static_cast<std::ptrdiff_t>(line * length), length,
                        lookahead.begin() + static_cast<std::ptrdiff_t>(line * ahead + (take.begin - wanted.begin)));
    }

    // The chain, in groups of lines: per line, a state and a step's fragment (its first cut_at elements).
    struct message {
        state entering;
        std::array<T, S> fragment;
    };
    const std::size_t typical =
        std::max<std::size_t>(1, n / ranges.size());  // the same on every rank, as the groups must be
    const std::size_t group = std::max<std::size_t>(1, lse_chain_group_bytes / (typical * sizeof(T)));
    std::vector<message> in_messages(std::min(group, outer)), out_messages(std::min(group, outer));
    // A scratch step: slot k holds traversal offset k (mirrored when Backward, as the line lies in memory).
    const auto slot = [](std::size_t k) { return Backward ? S - 1 - k : k; };
    const auto run_step = [&](const std::array<T, S>& in, std::array<T, S>& out, state& s) {
        tensorops::detail::lse_scan_contiguous_line<Exclusive, Backward>(in.data() + slot(0), out.data() + slot(0), S,
                                                                         &s);
    };
    for (std::size_t first_line = 0; first_line < outer; first_line += group) {
        const std::size_t lines = std::min(group, outer - first_line);
        if (t0 > 0 && previous >= 0)
            receive_bytes(comm, in_messages.data(), lines * sizeof(message), previous, chain_tag);
        for (std::size_t k = 0; k < lines; ++k) {
            const std::size_t line = first_line + k;
            state s = t0 > 0 ? in_messages[k].entering : state{};
            message& sent = out_messages[k];
            const auto own = [&](std::size_t t) { return x[at(line, t)]; };
            const auto step_from =
                [&](std::size_t start, const T* fragment) {  // the step [start, start + S) on scratch
                std::array<T, S> in{}, out{};
                for (std::size_t k2 = 0; k2 < S; ++k2) {
                    const std::size_t t = start + k2;
                    in[slot(k2)] = t < t0 ? fragment[k2] : t < t1 ? own(t) : lookahead[line * ahead + (t - t1)];
                }
                if (start + S > t1) {  // the step my end cuts: its state and my part of it go on
                    sent.entering = s;
                    for (std::size_t k2 = 0; start + k2 < t1; ++k2) sent.fragment[k2] = in[slot(k2)];
                }
                run_step(in, out, s);
                for (std::size_t t = std::max(start, t0); t < std::min(start + S, t1); ++t)
                    y[at(line, t)] = out[slot(t - start)];
            };
            std::size_t t = t0;
            if (cut_at(t0) > 0) {
                step_from(t0 - cut_at(t0), in_messages[k].fragment.data());
                t = t0 - cut_at(t0) + S;
            }
            if (t < t1 && t < steps_end) {
                const std::size_t whole = (std::min(t1, steps_end) - t) / S;
                if (whole > 0)
                    tensorops::detail::lse_scan_contiguous_line<Exclusive, Backward>(x + at(line, t), y + at(line, t),
                                                                                     whole * S, &s);
                t += whole * S;
                if (t < t1 && t < steps_end) {
                    step_from(t, nullptr);
                    t = t1;
                }
            }
            if (t < t1) {  // the line's last elements, one at a time (the kernel's scalar step)
                constexpr std::ptrdiff_t direction = Backward ? -1 : 1;
                s.running = tensorops::detail::lse_scan_column<Exclusive>(x + at(line, t), y + at(line, t), t1 - t,
                                                                          direction, direction, s.running);
            }
            if (cut_at(t1) == 0) sent.entering = s;
        }
        if (next >= 0 && t1 < n) send_bytes(comm, out_messages.data(), lines * sizeof(message), next, chain_tag);
    }
}

}  // namespace tensorops::mpi::detail
