// tensorops/mpi/detail/scan_chain.hpp — a scan along the sharded axis, computed by every rank on its shard exactly as
// the single process computes it on the packed global tensor.
//
// Algorithm. The single-process scan of a packed tensor cuts each line (along the axis) into fixed blocks that depend
// only on the global shape and the element type (ops/detail/scan/policy.hpp, "Blocks"): blocks of line_scan_block
// elements when the axis is contiguous (global_scan_geometry: `contiguous`), bands of across_rows_band rows when rows
// are scanned across, or one block, the whole line, on the strided path. Block b is scanned from the identity
// (running value r) and written as r (b = 0) or P_b ∘ r, with P_1 = total_0 and P_b+1 = P_b ∘ total_b. Each block is a
// chain of steps — a row (across rows, strided), or a pair of vectors of 2W elements from the block's start and then
// single elements (contiguous) — and a step's arithmetic depends only on the running value before it and its own
// elements. So a rank whose shard covers traversal positions [t0, t1) computes exactly the single process's values if
// it knows, at t0, the state of the block there: the running value at the last step boundary at or before t0 (the
// "cut") and, for a vector pair cut by t0, the pair's elements before t0 (the "fragment", fewer than 2W). Three phases:
//   1. chain:   each rank computes the state at t1 of the block crossing t1 (from the block's start if that is in its
//               shard, else from the state at t0 it received) and sends it to the rank after it in traversal order;
//               a block longer than several shards passes rank to rank, the only sequential part;
//   2. totals:  each rank computes the totals of the blocks that end in its shard; one allgather gives every rank
//               every block total (P·lines·width values for P blocks: independent of the shard sizes' split), and each
//               rank folds the prefixes P_b of its blocks in block order, as the single process does;
//   3. outputs: each rank scans its part of each block from the identity or the received state, writing P_b ∘ r.
// A pair cut by a shard boundary is computed on a buffer of 2W elements (the fragment, the rank's elements, the
// identity after them: lane i of an in-register scan depends on lanes ≤ i only), and its outputs copied out.
// Memory traffic per rank: its shard read twice (phases 2 and 3) and written once; in place is safe (every element is
// read before it is written, and phases 1 and 2 write nothing).
#pragma once

#include "mpi_c.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <utility>
#include <type_traits>
#include <vector>

#include "../../iter/plan.hpp"
#include "../../ops/detail/scan/contiguous.hpp"
#include "../../ops/detail/scan/dispatch.hpp"
#include "../../ops/detail/scan/outer.hpp"
#include "../../ops/detail/scan/outer_bands.hpp"
#include "../../ops/detail/scan/policy.hpp"
#include "../../simd/pack.hpp"
#include "../sharded.hpp"
#include "collectives.hpp"
#include "staging.hpp"

namespace tensorops::mpi::detail {

using tensorops::detail::block_output;

/// A rank's traversal positions of the sharded axis: [begin, end) counted in the scan's direction.
struct traversal_range {
    std::size_t begin = 0, end = 0;
};

/// Every rank's traversal positions of the sharded axis, by rank: its shard counted from the axis' start, or from its
/// end when `decreasing`.
[[nodiscard]] inline std::vector<traversal_range> traversal_ranges(const sharding& sh, bool decreasing) {
    const std::size_t n = sh.along();
    std::vector<traversal_range> ranges(sh.shards.size());
    for (std::size_t r = 0; r < ranges.size(); ++r) {
        const shard_range& s = sh.shards[r];
        ranges[r] = decreasing ? traversal_range{n - s.offset - s.count, n - s.offset}
                               : traversal_range{s.offset, s.offset + s.count};
    }
    return ranges;
}

/// How the single process scans the packed global tensor along `axis`: lines (outer of them, of n elements, columns
/// `inner` wide), the kernel family and the traversal positions per block.
struct scan_geometry {
    std::size_t outer = 1, n = 0, inner = 1;
    bool contiguous = false;   // the axis is contiguous: vector pairs within line blocks
    bool vector_rows = false;  // rows scanned across by the vector kernels (else the strided path, one scalar column at a time)
    std::size_t block = 1;     // traversal positions per block
};

/// The geometry the single-process operator plans for the packed global tensor (iter::plan_loops, scan_layout_of,
/// across_rows_band: the library's own decisions, on the global shape).
template <class T, class Scan>
[[nodiscard]] scan_geometry global_scan_geometry(const extents_array& global, std::size_t rank, std::size_t axis, bool decreasing) {
    scan_geometry g;
    for (std::size_t d = 0; d < axis; ++d) g.outer *= global[d];
    for (std::size_t d = axis + 1; d < rank; ++d) g.inner *= global[d];
    g.n = global[axis];
    iter::loop_request<2> request;
    request.rank = rank;
    request.sizes = global;
    request.strides[0] = request.strides[1] = packed_strides(global, rank);
    request.keep.set(axis);
    request.ordered.set(axis);
    if (decreasing) request.reverse.set(axis);
    const auto nest = iter::plan_loops(request);
    const std::size_t position = nest.position_of(axis);
    g.block = std::max<std::size_t>(g.n, 1);
    if (nest.element_count() == 0) return g;
    switch (tensorops::detail::scan_layout_of<T, Scan>(nest, position)) {
        case tensorops::detail::scan_layout::contiguous:
            g.contiguous = true;
            g.block = tensorops::detail::line_scan_block<T>;
            break;
        case tensorops::detail::scan_layout::across_rows:
            g.vector_rows = true;
            g.block = std::max<std::size_t>(1, tensorops::detail::across_rows_band<T>(nest, position));
            break;
        case tensorops::detail::scan_layout::strided: break;
    }
    return g;
}

/// One rank's part of the scan along the sharded axis (see the file comment). x, y: the packed shard [outer, count,
/// inner] (y may be x); t0, t1: its traversal positions; `previous` / `next`: the ranks before and after it in
/// traversal order (or -1).
template <bool Exclusive, class T, class Scan>
class sharded_axis_scan {
public:
    using A = typename Scan::accumulator;
    /// The running values' storage: the kernels' compute type where they are vectorised (an integer's own width: its
    /// wrapped values are all that matter), else the accumulator.
    using C = std::conditional_t<Scan::vectorizable && simd::vectorized, simd::compute_t<T>, A>;
    static_assert(std::is_trivially_copyable_v<C> && std::is_trivially_copyable_v<T>, "MPI sends the running values as bytes");

    sharded_axis_scan(const T* x, T* y, const scan_geometry& g, std::size_t t0, std::size_t t1, bool decreasing, const Scan& scan)
        : x_(x), y_(y), g_(g), t0_(t0), t1_(t1), decreasing_(decreasing), scan_(scan), width_(g.contiguous ? 1 : g.inner) {}

    /// Runs the three phases. `ranges[r]`: rank r's traversal positions (for the block totals' places).
    void run(MPI_Comm comm, int previous, int next, const std::vector<traversal_range>& ranges) {
        const std::size_t n = g_.n;
        // Phase 1: the state at t0 (received) and at t1 (sent on).
        state entering = fresh(), leaving = fresh();
        const bool need_in = t0_ > 0 && t0_ < n && t0_ % g_.block != 0, need_out = t1_ < n && t1_ % g_.block != 0;
        bool received = false;
        if (need_out) {
            const std::size_t start = t1_ / g_.block * g_.block;
            if (start >= t0_ && t0_ < t1_) {
                advance<block_output::none>(leaving, start, t1_, nullptr);
            } else {
                receive(comm, previous, entering, t0_);
                received = true;
                leaving = entering;
                advance<block_output::none>(leaving, t0_, t1_, nullptr);
            }
            send(comm, next, leaving, t1_);
        }
        if (need_in && !received) receive(comm, previous, entering, t0_);
        if (t0_ == t1_ && g_.block >= n) return;  // nothing of mine, and no block totals to share

        // Phase 2: the totals of the blocks ending in each shard, shared; the prefixes of mine folded.
        const std::size_t blocks = (n + g_.block - 1) / g_.block;
        const std::size_t per_block = g_.outer * width_;
        std::vector<C> prefixes;  // P_b for my blocks b in [first_block, last_block], per line
        std::size_t first_block = 0;
        if (blocks > 1) {
            std::vector<C> totals(blocks * per_block);
            const auto [my_first, my_end] = ending_blocks(t0_, t1_);
            for (std::size_t b = my_first; b < my_end; ++b) {
                state s = start_state(b, entering);
                advance<block_output::none>(s, std::max(block_start(b), t0_), block_end(b), nullptr);
                std::copy(s.carry.begin(), s.carry.end(), totals.begin() + static_cast<std::ptrdiff_t>(b * per_block));
            }
            std::vector<std::size_t> count(ranges.size()), displacement(ranges.size());
            for (std::size_t r = 0; r < ranges.size(); ++r) {
                const auto [first, end] = ending_blocks(ranges[r].begin, ranges[r].end);
                count[r] = (end - first) * per_block * sizeof(C);
                displacement[r] = first * per_block * sizeof(C);
            }
            const std::vector<C> mine(totals.begin() + static_cast<std::ptrdiff_t>(my_first * per_block),
                                      totals.begin() + static_cast<std::ptrdiff_t>(my_end * per_block));
            gather_bytes(comm, mine.data(), count, displacement, totals.data(), -1);
            if (t0_ < t1_) {
                first_block = t0_ / g_.block;
                const std::size_t last_block = (t1_ - 1) / g_.block;
                prefixes.resize((last_block - first_block + 1) * per_block);
                fold_prefixes(totals, first_block, last_block, prefixes);
            }
        }
        if (t0_ == t1_) return;

        // Phase 3: my part of each block, from the identity or the state received, prefixed from block 1 on.
        for (std::size_t b = t0_ / g_.block; b * g_.block < t1_; ++b) {
            state s = start_state(b, entering);
            const std::size_t from = std::max(block_start(b), t0_), to = std::min(block_end(b), t1_);
            if (b == 0) advance<block_output::plain>(s, from, to, nullptr);
            else advance<block_output::prefixed>(s, from, to, prefixes.data() + (b - first_block) * per_block);
        }
    }

    /// The whole of every line on this rank, from the identity (the geometry's lines wholly local, one block each).
    void run_local() {
        state s = fresh();
        advance<block_output::plain>(s, t0_, t1_, nullptr);
    }

private:
    /// The running state of every line at one traversal position: its running value(s) and its fragment.
    struct state {
        std::vector<C> carry;        // outer × width
        std::vector<T> fragment;     // outer × pair
        std::size_t fragment_length = 0;
    };

    static constexpr std::size_t pair_length() {
        if constexpr (Scan::vectorizable && simd::vectorized) return simd::lanes<T> > 1 ? 2 * simd::lanes<T> : 1;
        else return 1;
    }

    [[nodiscard]] state fresh() const {
        state s;
        s.carry.assign(g_.outer * width_, static_cast<C>(scan_.identity()));
        if (g_.contiguous) s.fragment.resize(g_.outer * pair_length());
        return s;
    }
    [[nodiscard]] state start_state(std::size_t b, const state& entering) const { return block_start(b) >= t0_ ? fresh() : entering; }
    [[nodiscard]] std::size_t block_start(std::size_t b) const noexcept { return b * g_.block; }
    [[nodiscard]] std::size_t block_end(std::size_t b) const noexcept { return std::min((b + 1) * g_.block, g_.n); }

    /// The blocks [first, end) whose last position lies in [t0, t1).
    [[nodiscard]] std::pair<std::size_t, std::size_t> ending_blocks(std::size_t t0, std::size_t t1) const noexcept {
        if (t0 >= t1) return {0, 0};
        const std::size_t first = t0 / g_.block, last = (t1 - 1) / g_.block;
        const std::size_t end = block_end(last) == t1 ? last + 1 : last;
        return {first, std::max(first, end)};
    }

    /// Length of the fragment at traversal position t: the positions since the last step boundary of its block.
    [[nodiscard]] std::size_t fragment_length_at(std::size_t t) const noexcept {
        if (!g_.contiguous || t >= g_.n) return 0;
        constexpr std::size_t pair = pair_length();
        const std::size_t start = t / g_.block * g_.block, length = std::min(g_.block, g_.n - start);
        const std::size_t pairs_end = start + length / pair * pair;
        return t >= pairs_end ? 0 : (t - start) % pair;
    }

    [[nodiscard]] std::size_t message_bytes(std::size_t t) const noexcept {
        return g_.outer * (width_ * sizeof(C) + fragment_length_at(t) * sizeof(T));
    }
    void send(MPI_Comm comm, int to, const state& s, std::size_t t) const {
        std::vector<unsigned char> bytes(message_bytes(t));
        std::memcpy(bytes.data(), s.carry.data(), s.carry.size() * sizeof(C));
        unsigned char* at = bytes.data() + s.carry.size() * sizeof(C);
        const std::size_t length = fragment_length_at(t);
        for (std::size_t line = 0; line < g_.outer && length > 0; ++line, at += length * sizeof(T))
            std::memcpy(at, s.fragment.data() + line * pair_length(), length * sizeof(T));
        send_bytes(comm, bytes.data(), bytes.size(), to, chain_tag);
    }
    void receive(MPI_Comm comm, int from, state& s, std::size_t t) const {
        std::vector<unsigned char> bytes(message_bytes(t));
        receive_bytes(comm, bytes.data(), bytes.size(), from, chain_tag);
        std::memcpy(s.carry.data(), bytes.data(), s.carry.size() * sizeof(C));
        const unsigned char* at = bytes.data() + s.carry.size() * sizeof(C);
        const std::size_t length = fragment_length_at(t);
        for (std::size_t line = 0; line < g_.outer && length > 0; ++line, at += length * sizeof(T))
            std::memcpy(s.fragment.data() + line * pair_length(), at, length * sizeof(T));
        s.fragment_length = length;
    }

    /// P_b for b in [first, last] (b ≥ 1; block 0's slot is unused), folded from block 0's total in block order.
    void fold_prefixes(const std::vector<C>& totals, std::size_t first, std::size_t last, std::vector<C>& prefixes) const {
        const std::size_t per_block = g_.outer * width_;
        std::vector<C> running(totals.begin(), totals.begin() + static_cast<std::ptrdiff_t>(per_block));  // P_1 = total_0
        std::vector<C> next(per_block);
        for (std::size_t b = 1; b <= last; ++b) {
            if (b >= first) std::copy(running.begin(), running.end(), prefixes.begin() + static_cast<std::ptrdiff_t>((b - first) * per_block));
            if (b == last) break;
            const C* total = totals.data() + b * per_block;
            if (g_.contiguous) {
                for (std::size_t line = 0; line < g_.outer; ++line) running[line] = static_cast<C>(scan_(static_cast<A>(running[line]), static_cast<A>(total[line])));
            } else if constexpr (Scan::vectorizable && simd::vectorized) {
                std::copy(total, total + per_block, next.begin());
                for (std::size_t line = 0; line < g_.outer; ++line)
                    tensorops::detail::chain_prefix<T>(running.data() + line * width_, next.data() + line * width_, width_, scan_);
                std::swap(running, next);
            }
        }
    }

    /// Pointer to traversal position t of a line whose shard starts at `line` (packed [count, inner] rows).
    template <class P>
    [[nodiscard]] P* at(P* line, std::size_t t) const noexcept {
        const std::size_t row = decreasing_ ? t1_ - 1 - t : t - t0_;
        return line + static_cast<std::ptrdiff_t>(row * g_.inner);
    }
    [[nodiscard]] std::size_t line_elements() const noexcept { return (t1_ - t0_) * g_.inner; }

    /// Every line's state advanced over traversal positions [from, to) of one block, writing what Output says.
    /// `prefix`: per line, the block's prefix (width values) when prefixed.
    template <block_output Output>
    void advance(state& s, std::size_t from, std::size_t to, const C* prefix) const {
        if (from >= to) return;
        std::size_t length = s.fragment_length;
        for (std::size_t line = 0; line < g_.outer; ++line) {
            const T* x = x_ + line * line_elements();
            T* y = y_ + line * line_elements();
            C* carry = s.carry.data() + line * width_;
            const C* before = Output == block_output::prefixed ? prefix + line * width_ : nullptr;
            if (g_.contiguous) {
                if constexpr (Scan::vectorizable && simd::vectorized)
                    length = advance_line<Output>(x, y, *carry, s.fragment.data() + line * pair_length(), s.fragment_length, from, to,
                                                  before == nullptr ? scan_.identity() : static_cast<A>(*before));
            } else {
                advance_rows<Output>(x, y, carry, from, to, before);
            }
        }
        s.fragment_length = length;
    }

    /// Rows [from, to) of one line: each column's running value in `carry`, the step of the single process's kernel
    /// (scan_rows_into_carry across rows; one scalar step per element on the strided path).
    template <block_output Output>
    void advance_rows(const T* x, T* y, C* carry, std::size_t from, std::size_t to, const C* prefix) const {
        const std::ptrdiff_t step = (decreasing_ ? -1 : 1) * static_cast<std::ptrdiff_t>(g_.inner);
        for (std::size_t t = from; t < to; ++t) {
            const T* row_in = at(x, t);
            T* row_out = Output == block_output::none ? const_cast<T*>(row_in) : at(y, t);
            if constexpr (Scan::vectorizable && simd::vectorized) {
                if (g_.vector_rows) {
                    tensorops::detail::scan_rows_into_carry<1, Output, Exclusive>(row_in, row_out, step, step, g_.inner, carry, prefix, scan_);
                    continue;
                }
            }
            for (std::size_t j = 0; j < g_.inner; ++j) {
                const auto value = static_cast<A>(row_in[j]);  // read before the write: in place is safe
                auto running = static_cast<A>(carry[j]);
                tensorops::detail::scan_step<Exclusive>(running, value, scan_, [&](const A& v) {
                    if constexpr (Output == block_output::plain) row_out[j] = static_cast<T>(v);
                    else if constexpr (Output == block_output::prefixed) row_out[j] = static_cast<T>(scan_(static_cast<A>(prefix[j]), v));
                });
                carry[j] = static_cast<C>(running);
            }
        }
    }

    /// Positions [from, to) of one contiguous line, within one block: whole vector pairs straight through the
    /// library's block kernel, a pair cut by `to` or begun before `from` on a buffer of one pair. Returns the
    /// fragment length at `to`.
    template <block_output Output>
    std::size_t advance_line(const T* x, T* y, C& stored_carry, T* fragment, std::size_t fragment_length, std::size_t from, std::size_t to,
                             const A& prefix) const {
        constexpr std::size_t pair = pair_length();
        const std::size_t start = from / g_.block * g_.block, length = std::min(g_.block, g_.n - start);
        const std::size_t pairs_end = start + length / pair * pair;
        auto carry = static_cast<A>(stored_carry);
        const auto kernel = [&](const T* in, T* out, std::size_t count, std::size_t hint_end) {
            if (decreasing_)
                return tensorops::detail::scan_contiguous_block<Output, Exclusive, true>(in, out, count, scan_, prefix, carry, hint_end);
            return tensorops::detail::scan_contiguous_block<Output, Exclusive, false>(in, out, count, scan_, prefix, carry, hint_end);
        };
        while (from < to) {
            if (from >= pairs_end) {  // the block's last elements, one at a time (no fragment here)
                stored_carry = static_cast<C>(kernel(at(x, from), at(y, from), to - from, 0));
                return 0;
            }
            if (fragment_length == 0) {
                const std::size_t count = (std::min(to, pairs_end) - from) / pair * pair;
                if (count > 0) {
                    carry = kernel(at(x, from), at(y, from), count, count);
                    from += count;
                    continue;
                }
            }
            // The pair [cut, cut + pair): the fragment, then mine up to `end`, then the identity.
            const std::size_t cut = from - fragment_length, end = std::min(to, cut + pair);
            std::array<T, pair> in{}, out{};
            const auto slot = [&](std::size_t k) { return decreasing_ ? pair - 1 - k : k; };
            for (std::size_t k = 0; k < pair; ++k) {
                const std::size_t t = cut + k;
                in[slot(k)] = k < fragment_length ? fragment[k] : t < end ? *at(x, t) : static_cast<T>(scan_.identity());
            }
            const A after = kernel(in.data() + slot(0), out.data() + slot(0), pair, 0);
            for (std::size_t t = from; t < end; ++t) fragment[t - cut] = in[slot(t - cut)];  // before the outputs: in place
            if constexpr (Output != block_output::none)
                for (std::size_t t = from; t < end; ++t) *at(y, t) = out[slot(t - cut)];
            if (end == cut + pair) {
                carry = after;
                fragment_length = 0;
            } else {
                fragment_length = end - cut;
            }
            from = end;
        }
        stored_carry = static_cast<C>(carry);
        return fragment_length;
    }

    const T* x_;
    T* y_;
    scan_geometry g_;
    std::size_t t0_, t1_;
    bool decreasing_;
    Scan scan_;
    std::size_t width_;
};

}  // namespace tensorops::mpi::detail
