// tensorops/ops/detail/scan/policy.hpp — the scan family's shared policy: the scan operations (sum, product, a
// caller's operation), the fixed blocks a long scan is computed in, and the one step every kernel takes.
//
// Kernels never validate and never throw. They receive a planned loop nest (operand 0 = output,
// operand 1 = input; the scan axis kept whole, reversed already for a DECREASING scan, so every kernel scans
// "forward" along the strides it is given) and one of three layouts (dispatch.hpp chooses):
//   contiguous    (contiguous.hpp) the axis is the innermost dimension with stride +1 (or −1) for both operands:
//                 an in-register prefix scan per vector with a decoupled carry;
//   across rows   (outer.hpp, outer_bands.hpp, outer_rows.hpp) another dimension is innermost with stride 1 for
//                 both operands: vectorise across it, row[i] = row[i−1] ∘ x[i], with the running row in registers,
//                 the previous output row or a carry buffer;
//   strided       (strided.hpp) anything else, and every user-defined element type: one scalar line at a time.
// In place (output == input exactly) is safe in all three: each element is read before it is written.
// Operand order: every kernel combines as scan(earlier, later) and scan.lanes(earlier, later) — the running value or
// prefix first, the element after it second — so an operation need not be commutative (a maximum that keeps the first
// of equal values: extreme.hpp). Inside one register the lanes are scanned by scan_register: the operation's own
// in-register scan where it has one, else simd::scan_lanes (which needs a commutative operation).
//
// Blocks. A long scan (a contiguous line of more than scan_block_bytes, or rows scanned across of more than
// scan_band_bytes: fixed constants in tuning.hpp) is computed
// in fixed blocks along its axis — lines in blocks of scan_block_bytes, rows in bands of band_rows(…) — each block
// scanned from the identity (its local running value r) and its outputs written as P ∘ r, where P, the prefix
// entering the block, is chained on from the block before: P₁ = total₀, P_b+1 = P_b ∘ total_b. The first
// block writes r itself, so a scan shorter than one block is computed exactly as without blocks. The blocks
// depend only on the shape and the element type, never on threads, so a parallel scan (blocked.hpp:
// block totals first, then the blocks with their prefixes) gives the same bits as the sequential one, which walks
// the same blocks in order. Integer arithmetic wraps and is associative, so for integers blocks change nothing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>

#include "../../../core/element.hpp"
#include "../../../core/inline.hpp"
#include "../../../simd/arithmetic.hpp"
#include "../../../simd/scan.hpp"
#include "../tuning.hpp"

namespace tensorops::detail {

// Scan operations: how to combine accumulators and lanes, and the identity.

/// Running sums: integers wrap (unsigned accumulator), float16 and bfloat16 carry a float.
template <class T>
struct sum_scan {
    using accumulator = accumulator_t<T>;
    static constexpr bool vectorizable = builtin_element<T>;
    [[nodiscard]] accumulator identity() const { return element_identity<accumulator>::zero(); }
    [[nodiscard]] accumulator operator()(const accumulator& a, const accumulator& b) const { return a + b; }
    template <class P>
    [[nodiscard]] P lanes(const P& a, const P& b) const { return simd::add(a, b); }
    /// lanes, for a running value carried step to step (see running_lanes).
    template <class P>
    [[nodiscard]] P chained_lanes(const P& a, const P& b) const { return simd::add_in_chain(a, b); }
};

/// Running products: integers wrap (unsigned accumulator), float16 and bfloat16 carry a float.
template <class T>
struct product_scan {
    using accumulator = accumulator_t<T>;
    static constexpr bool vectorizable = builtin_element<T>;
    [[nodiscard]] accumulator identity() const { return element_identity<accumulator>::one(); }
    [[nodiscard]] accumulator operator()(const accumulator& a, const accumulator& b) const { return a * b; }
    template <class P>
    [[nodiscard]] P lanes(const P& a, const P& b) const { return simd::mul(a, b); }
};

/// scan.lanes(running, next) where the running value is carried from one step to the next in a register, so that the
/// steps form one dependence chain and its instruction's latency is the kernel's speed: the operation's own
/// `chained_lanes` where it has one (the sum: simd::add_in_chain), else lanes. The same bits either way.
template <class Scan, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P running_lanes(const Scan& scan, const P& running, const P& next) {
    if constexpr (requires { scan.chained_lanes(running, next); }) return scan.chained_lanes(running, next);
    else return scan.lanes(running, next);
}

/// A caller's associative operation, computed in T itself on the strided path.
template <class T, class Operation>
struct custom_scan {
    using accumulator = T;
    static constexpr bool vectorizable = false;
    Operation operation;
    T identity_value;
    [[nodiscard]] T identity() const { return identity_value; }
    [[nodiscard]] T operator()(const T& a, const T& b) const { return static_cast<T>(std::invoke(operation, a, b)); }
};

// Blocks of a long scan (see the file comment; their sizes are in tuning.hpp).

/// Elements per block of a contiguous line (a power of two: a multiple of twice every vector width).
template <class T>
inline constexpr std::size_t line_scan_block = scan_block_bytes / sizeof(T);

/// Rows per band of an across-rows scan whose rows are m elements of `element_size` bytes. Always taken from the
/// whole tensor's rows: a piece that has some of the columns keeps the bands of the whole.
[[nodiscard]] constexpr std::size_t band_rows(std::size_t m, std::size_t element_size) noexcept {
    return std::max<std::size_t>(1, scan_band_bytes / std::max<std::size_t>(1, m * element_size));
}

/// The inclusive scan of the lanes of one register for `scan` (forward: lane i = x0 ∘ … ∘ xi; Backward: from the
/// highest lane down): the operation's own `in_register<Backward>` if it has one, else simd::scan_lanes.
template <bool Backward, class Scan, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P scan_register(const Scan& scan, const P& value,
                                                              typename P::value_type identity) {
    if constexpr (requires { scan.template in_register<Backward>(value, identity); })
        return scan.template in_register<Backward>(value, identity);
    else
        return simd::scan_lanes<Backward>(value, [&](const P& a, const P& b) { return scan.lanes(a, b); }, identity);
}

/// What a block writes: its running values (the first block), the prefix combined with them (later blocks), or
/// nothing (only its total is wanted: the first pass of a parallel scan).
enum class block_output { plain, prefixed, none };

/// One step of a running scan: `store` receives the running value before (Exclusive) or after it is combined with
/// `value`. Every kernel's element or vector step is this one, so inclusive and exclusive are decided in one place.
template <bool Exclusive, class Running, class Combine, class Store>
[[TENSOROPS_ALWAYS_INLINE]] inline void scan_step(Running& running, const Running& value, const Combine& combine,
                                                  const Store& store) {
    if constexpr (Exclusive) {
        store(running);
        running = combine(running, value);
    } else {
        running = combine(running, value);
        store(running);
    }
}

}  // namespace tensorops::detail
