// tensorops/iter/plan.hpp — turns the layouts of several operands into the simplest equivalent loop nest.
//
// The planner is a pure function: sizes and per-operand strides in, a (usually much smaller) loop nest out.
// Kernels then see at most "lines × length" with the contiguous dimension last. Steps, in order:
//   1. a dimension of size 0 makes the whole nest empty (rank 1, size 0);
//   2. dimensions marked `reverse` are walked backwards: their strides are negated and every operand's
//      base offset moves to the last index (how a DECREASING scan becomes a forward scan);
//   3. dimensions of size 1 are dropped (unless marked `keep`);
//   4. a dimension whose traversal order does not matter (not `ordered`) and whose first non-zero operand
//      stride is negative is flipped, so that memory is walked upwards (downwards with `walk_down`);
//   5. dimensions are ordered by stride, smallest last, comparing operand 0 first and later operands to break
//      ties or zero strides (the TensorIterator rule); `ordered` dimensions of one group keep their relative
//      order;
//   6. neighbours merge when they are in the same group, neither is `keep`, and for every operand
//      stride[outer] == stride[inner] · size[inner] (so the merged dimension walks memory identically).
// Operand 0 should be the output: its layout decides the loop order.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <tuple>
#include <utility>

#include "../core/tensor_view.hpp"

namespace tensorops::iter {

/// A set of dimensions (0..max_rank-1), usable in constant evaluation (std::bitset is not, before C++23).
class axis_set {
public:
    constexpr axis_set() noexcept = default;
    constexpr void set(std::size_t axis) noexcept { bits_ = static_cast<std::uint16_t>(bits_ | (1u << axis)); }
    constexpr void set() noexcept { bits_ = (1u << max_rank) - 1; }
    constexpr void reset(std::size_t axis) noexcept { bits_ = static_cast<std::uint16_t>(bits_ & ~(1u << axis)); }
    [[nodiscard]] constexpr bool test(std::size_t axis) const noexcept { return (bits_ >> axis) & 1u; }
    [[nodiscard]] constexpr std::size_t count() const noexcept { return static_cast<std::size_t>(std::popcount(bits_)); }
    [[nodiscard]] constexpr bool none() const noexcept { return bits_ == 0; }
    constexpr axis_set& operator|=(axis_set other) noexcept {
        bits_ = static_cast<std::uint16_t>(bits_ | other.bits_);
        return *this;
    }
    friend constexpr bool operator==(axis_set, axis_set) noexcept = default;

private:
    std::uint16_t bits_ = 0;
};

/// What the planner is given. Dimensions [0, rank) are in the caller's (row-major, outermost first) order.
template <std::size_t Operands>
struct loop_request {
    std::size_t rank = 0;
    extents_array sizes{};
    std::array<strides_array, Operands> strides{};
    /// Dimensions merge only with dimensions of the same group (e.g. reduced vs kept axes).
    std::array<std::uint8_t, max_rank> group{};
    /// Never dropped (even at size 1) and never merged: the axis a kernel must see by itself.
    axis_set keep;
    /// Traversal order matters: never flipped, and kept in place relative to the other ordered
    /// dimensions of its group (e.g. the reduced axes of argmax, whose index is row-major over them).
    axis_set ordered;
    /// Walk this dimension from its last index to its first.
    axis_set reverse;
    /// Step 4 walks memory downwards instead: the lines of a scan whose contiguous axis is reversed, so that the
    /// whole walk is one descending stream rather than a sawtooth (down one line, up to the end of the next).
    bool walk_down = false;
};

/// The planned loop nest: dimensions [0, rank), outermost first; the last one is the innermost.
template <std::size_t Operands>
struct loop_nest {
    std::size_t rank = 0;
    extents_array sizes{};
    std::array<strides_array, Operands> strides{};
    /// Element offset to add to each operand's data pointer before walking the nest.
    std::array<std::ptrdiff_t, Operands> offsets{};
    std::array<std::uint8_t, max_rank> group{};
    /// The caller's dimensions that each planned dimension stands for.
    std::array<axis_set, max_rank> origin{};

    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    /// Position of the caller's dimension `axis` in the nest, or npos if it was dropped.
    [[nodiscard]] constexpr std::size_t position_of(std::size_t axis) const noexcept {
        for (std::size_t d = 0; d < rank; ++d)
            if (origin[d].test(axis)) return d;
        return npos;
    }
    [[nodiscard]] constexpr std::size_t element_count() const noexcept {
        std::size_t count = 1;
        for (std::size_t d = 0; d < rank; ++d) count *= sizes[d];
        return count;
    }
    /// True when the innermost dimension exists and every operand listed walks it with stride 1.
    [[nodiscard]] constexpr bool inner_is_contiguous(std::initializer_list<std::size_t> operands) const noexcept {
        if (rank == 0) return false;
        for (std::size_t operand : operands)
            if (strides[operand][rank - 1] != 1) return false;
        return true;
    }
};

namespace detail {
constexpr std::ptrdiff_t magnitude(std::ptrdiff_t stride) noexcept { return stride < 0 ? -stride : stride; }
}  // namespace detail

/// Plans the loop nest for `request` (see the file comment for the rules). Pure and constexpr.
template <std::size_t Operands>
[[nodiscard]] constexpr loop_nest<Operands> plan_loops(const loop_request<Operands>& request) {
    loop_nest<Operands> nest;
    for (std::size_t d = 0; d < request.rank; ++d) {
        if (request.sizes[d] == 0) {  // 1. empty
            nest.rank = 1;
            nest.sizes[0] = 0;
            nest.origin[0].set(d);
            nest.group[0] = request.group[d];
            return nest;
        }
    }

    // 2–4. Surviving dimensions, walked upwards or reversed as asked; strides and offsets adjusted in place.
    std::array<std::ptrdiff_t, Operands> offsets{};
    std::array<strides_array, Operands> strides = request.strides;
    std::array<std::size_t, max_rank> order{};  // surviving caller dimensions, outermost first
    std::size_t count = 0;
    for (std::size_t d = 0; d < request.rank; ++d) {
        const std::size_t size = request.sizes[d];
        if (size == 1 && !request.keep.test(d)) continue;  // 3. drop size 1
        bool flip = request.reverse.test(d);              // 2. reversed walk
        if (!flip && !request.ordered.test(d)) {           // 4. walk memory upwards (or downwards)
            for (std::size_t o = 0; o < Operands; ++o) {
                if (strides[o][d] == 0) continue;
                flip = request.walk_down ? strides[o][d] > 0 : strides[o][d] < 0;
                break;
            }
        }
        if (flip) {
            for (std::size_t o = 0; o < Operands; ++o) {
                offsets[o] += static_cast<std::ptrdiff_t>(size - 1) * strides[o][d];
                strides[o][d] = -strides[o][d];
            }
        }
        order[count++] = d;
    }

    // 5. Order by stride, innermost (smallest) last: a bubble sort (a few entries) whose swaps respect the
    // ordered-dimension constraint.
    const auto belongs_inside = [&](std::size_t a, std::size_t b) {  // should caller dimension a be inner to b?
        for (std::size_t o = 0; o < Operands; ++o) {
            const std::ptrdiff_t sa = detail::magnitude(strides[o][a]), sb = detail::magnitude(strides[o][b]);
            if (sa == 0 || sb == 0 || sa == sb) continue;
            return sa < sb;
        }
        return false;
    };
    for (std::size_t pass = 0; pass + 1 < count; ++pass) {
        bool swapped = false;
        for (std::size_t i = 0; i + 1 < count; ++i) {
            const std::size_t outer = order[i], inner = order[i + 1];
            const bool pinned = request.ordered.test(outer) && request.ordered.test(inner) &&
                                request.group[outer] == request.group[inner];
            if (!pinned && belongs_inside(outer, inner)) {
                order[i] = inner;
                order[i + 1] = outer;
                swapped = true;
            }
        }
        if (!swapped) break;
    }

    // 6. Merge neighbours that chain for every operand, from the inside out, writing the nest back to front.
    std::size_t merged = 0;
    std::array<std::size_t, max_rank> source{};  // the innermost caller dimension of each planned one
    for (std::size_t i = count; i-- > 0;) {
        const std::size_t d = order[i];
        if (merged > 0) {
            const std::size_t slot = max_rank - merged;
            const std::size_t inner = source[slot];
            bool chains = !request.keep.test(d) && !request.keep.test(inner) && request.group[d] == request.group[inner] &&
                          request.ordered.test(d) == request.ordered.test(inner);
            for (std::size_t o = 0; o < Operands && chains; ++o)
                chains = strides[o][d] == nest.strides[o][slot] * static_cast<std::ptrdiff_t>(nest.sizes[slot]);
            if (chains) {
                nest.sizes[slot] *= request.sizes[d];
                nest.origin[slot].set(d);
                continue;
            }
        }
        ++merged;
        const std::size_t slot = max_rank - merged;
        source[slot] = d;
        nest.sizes[slot] = request.sizes[d];
        nest.group[slot] = request.group[d];
        nest.origin[slot] = axis_set{};
        nest.origin[slot].set(d);
        for (std::size_t o = 0; o < Operands; ++o) nest.strides[o][slot] = strides[o][d];
    }
    // Move the dimensions from the back of the arrays to the front.
    nest.rank = merged;
    for (std::size_t r = 0; r < merged; ++r) {
        const std::size_t slot = max_rank - merged + r;
        nest.sizes[r] = nest.sizes[slot];
        nest.group[r] = nest.group[slot];
        nest.origin[r] = nest.origin[slot];
        for (std::size_t o = 0; o < Operands; ++o) nest.strides[o][r] = nest.strides[o][slot];
    }
    for (std::size_t r = merged; r < max_rank; ++r) {
        nest.sizes[r] = 1;
        nest.group[r] = 0;
        nest.origin[r] = axis_set{};
        for (std::size_t o = 0; o < Operands; ++o) nest.strides[o][r] = 0;
    }
    nest.offsets = offsets;
    return nest;
}

/// The nest without the dimensions in `removed` (positions in the nest), base offsets unchanged: what an
/// odometer walks when a kernel handles those dimensions itself.
template <std::size_t Operands>
[[nodiscard]] constexpr loop_nest<Operands> remove_dimensions(const loop_nest<Operands>& nest, axis_set removed) {
    loop_nest<Operands> rest;
    rest.offsets = nest.offsets;
    for (std::size_t d = 0; d < nest.rank; ++d) {
        if (removed.test(d)) continue;
        const std::size_t r = rest.rank++;
        rest.sizes[r] = nest.sizes[d];
        rest.group[r] = nest.group[d];
        rest.origin[r] = nest.origin[d];
        for (std::size_t o = 0; o < Operands; ++o) rest.strides[o][r] = nest.strides[o][d];
    }
    return rest;
}

/// The nest restricted to indices [begin, end) of dimension `d` (a position in the nest): the base offsets move
/// to index `begin`, the size becomes end − begin. A piece of the walk, for splitting work between threads.
template <std::size_t Operands>
[[nodiscard]] constexpr loop_nest<Operands> restrict_dimension(const loop_nest<Operands>& nest, std::size_t d, std::size_t begin,
                                                             std::size_t end) {
    loop_nest<Operands> piece = nest;
    piece.sizes[d] = end - begin;
    for (std::size_t o = 0; o < Operands; ++o) piece.offsets[o] += static_cast<std::ptrdiff_t>(begin) * nest.strides[o][d];
    return piece;
}

/// Convenience: a request over views of equal rank and sizes (operand 0 first), every dimension in
/// group 0, nothing kept, ordered or reversed. Callers then adjust group/keep/ordered/reverse.
template <class... Views>
[[nodiscard]] constexpr loop_request<sizeof...(Views)> make_request(const Views&... views) {
    loop_request<sizeof...(Views)> request;
    const auto& first = std::get<0>(std::forward_as_tuple(views...));
    request.rank = first.rank();
    for (std::size_t d = 0; d < request.rank; ++d) request.sizes[d] = first.size(d);
    std::size_t operand = 0;
    ((request.strides[operand++] = views.stride_array()), ...);
    return request;
}

}  // namespace tensorops::iter
