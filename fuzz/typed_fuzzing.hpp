// Shared by the typed API's fuzzer (typed_one_input.cpp: decoding the operator, element type and executor;
// typed_scan.cpp, typed_extreme_scan.cpp, typed_reduce.cpp, typed_tuples.cpp: one operator family each): memory,
// layouts, values, what the contract expects of a call, and the checks of its outcome. The property is in fuzzer.cpp's
// file comment.
//
// Memory. Every view lives in an arena, a heap block of exactly the bytes its views reach (plus a few slack bytes
// at either end, or none: AddressSanitizer then reports any access past the block). An arena holds one view, or an
// output together with the view it aliases exactly (in place), interleaves with (the same element size, offsets in
// different residues of a common stride factor) or overlaps (placed at a random element of the other's range).
// Before a call every arena is copied; after it every byte that the output does not address must be unchanged
// (after a refusal, every byte at all).
#pragma once

#include <tensorops/tensorops.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "reader.hpp"
#include "reference.hpp"

namespace tensorops_fuzz::typed {

namespace ref = tensorops_test::reference;
using tensorops::float16;

// ---------------------------------------------------------------------------------------------
// Outcomes, per operator: refused as the contract requires, refused where the contract allows either (the overlap
// test is conservative for intersecting ranges it cannot prove disjoint), run and checked. Printed at exit when
// TENSOROPS_FUZZ_STATS is set; the corpus replay requires each operator run and some calls refused.

enum class operation {
    cumulative_sum, cumulative_product, cumulative_max, cumulative_min, cumulative_log_sum_exp, reduce, argmax, argmin, scatter_nd, gather_nd
};
inline constexpr const char* operation_names[] = {"cumulative_sum", "cumulative_product", "cumulative_max", "cumulative_min",
                                                  "cumulative_log_sum_exp", "reduce", "argmax", "argmin", "scatter_nd", "gather_nd"};
inline constexpr std::size_t operation_count = std::size(operation_names);
enum outcome { refused, refused_unprovable, checked };
inline std::uint64_t outcomes[operation_count][3] = {};
inline operation current = operation::cumulative_sum;
inline void count(outcome what) { ++outcomes[static_cast<std::size_t>(current)][what]; }

// ---------------------------------------------------------------------------------------------
// What the contract says of a call, decided from the arguments alone, before the library sees them.

struct expectation {
    const char* broken = nullptr;  // the first rule the call breaks: the library must refuse it
    bool may_refuse = false;       // no rule broken, but the library may refuse (an overlap it cannot rule out)
    void breaks(const char* rule) {
        if (broken == nullptr) broken = rule;
    }
};

// ---------------------------------------------------------------------------------------------
// Views and arenas

constexpr std::size_t max_views = 5;

/// Where a view lives: its arena, the byte offset of data() in it, sizes and strides (elements), element size.
struct placed {
    std::size_t arena = 0;
    std::size_t base = 0;
    std::size_t element_bytes = 0;
    std::size_t rank = 0;
    std::array<std::size_t, 8> sizes{};
    std::array<std::ptrdiff_t, 8> strides{};

    [[nodiscard]] std::size_t count() const {
        std::size_t n = 1;
        for (std::size_t d = 0; d < rank; ++d) n *= sizes[d];
        return n;
    }
    [[nodiscard]] std::ptrdiff_t min_offset() const {
        std::ptrdiff_t offset = 0;
        for (std::size_t d = 0; d < rank; ++d)
            if (strides[d] < 0 && sizes[d] > 0) offset += static_cast<std::ptrdiff_t>(sizes[d] - 1) * strides[d];
        return offset;
    }
    [[nodiscard]] std::ptrdiff_t max_offset() const {
        std::ptrdiff_t offset = 0;
        for (std::size_t d = 0; d < rank; ++d)
            if (strides[d] > 0 && sizes[d] > 0) offset += static_cast<std::ptrdiff_t>(sizes[d] - 1) * strides[d];
        return offset;
    }
    /// Elements from the lowest to the highest one addressed.
    [[nodiscard]] std::size_t span() const { return static_cast<std::size_t>(max_offset() - min_offset()) + 1; }
    /// Calls f(element offset) for every coordinate, in row-major order.
    template <class F>
    void for_each_offset(F&& f) const {
        if (count() == 0) return;
        std::array<std::size_t, 8> index{};
        std::ptrdiff_t offset = 0;
        for (std::size_t n = count(); n-- > 0;) {
            f(offset);
            for (std::size_t d = rank; d-- > 0;) {
                offset += strides[d];
                if (++index[d] < sizes[d]) break;
                offset -= static_cast<std::ptrdiff_t>(sizes[d]) * strides[d];
                index[d] = 0;
            }
        }
    }
    [[nodiscard]] std::vector<std::size_t> size_vector() const { return {sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(rank)}; }
    [[nodiscard]] std::vector<std::ptrdiff_t> stride_vector() const {
        return {strides.begin(), strides.begin() + static_cast<std::ptrdiff_t>(rank)};
    }
};

/// The arenas of one call; views are placed (their lowest byte at `start`), then the arenas allocated to fit.
class memory {
public:
    /// A new arena for `v`, with 0 to a few elements of slack before and after it.
    void place_alone(reader& in, placed& v) {
        v.arena = arena_count_++;
        place_at(v, in.chance(160) ? 0 : v.element_bytes * (1 + in.below(3)));
        slack_[v.arena] = in.chance(160) ? 0 : 1 + in.below(8);
    }
    /// `v` in the arena of `other`, its lowest element at a random element of other's range (rounded to v's
    /// alignment): the two may or may not share bytes.
    void place_over(reader& in, placed& v, const placed& other) {
        v.arena = other.arena;
        const std::size_t low = other.base + static_cast<std::size_t>(other.min_offset() * static_cast<std::ptrdiff_t>(other.element_bytes));
        std::size_t start = low + in.below(static_cast<std::uint32_t>(other.span() * other.element_bytes));
        start -= start % v.element_bytes;
        place_at(v, start);
    }
    /// Allocates every arena (bytes from the input) and copies them: the state every check compares with.
    void allocate(reader& in, const std::span<placed* const> views) {
        std::array<std::size_t, max_views> bytes{};
        for (const placed* v : views) {
            const std::size_t end = v->base + static_cast<std::size_t>(v->max_offset() * static_cast<std::ptrdiff_t>(v->element_bytes)) + v->element_bytes;
            bytes[v->arena] = std::max(bytes[v->arena], end);
        }
        for (std::size_t a = 0; a < arena_count_; ++a) {
            blocks_[a].assign(bytes[a] + slack_[a], 0);  // exactly this many bytes on the heap
            in.bytes(blocks_[a].data(), std::min<std::size_t>(blocks_[a].size(), 16));
            for (std::size_t i = 16; i < blocks_[a].size(); ++i) blocks_[a][i] = static_cast<std::uint8_t>(i * 167 + blocks_[a][i % 16]);
        }
    }
    template <class T>
    [[nodiscard]] T* data(const placed& v) {
        return reinterpret_cast<T*>(blocks_[v.arena].data() + v.base);
    }
    template <class T>
    [[nodiscard]] tensorops::tensor_view<T> view(const placed& v) {
        return tensorops::tensor_view<T>(data<T>(v), std::span<const std::size_t>(v.sizes.data(), v.rank),
                                         std::span<const std::ptrdiff_t>(v.strides.data(), v.rank));
    }
    /// The elements of `v` as a dense row-major tensor.
    template <class T>
    [[nodiscard]] ref::dense<T> read(const placed& v) {
        return ref::read(data<const T>(v), v.size_vector(), v.stride_vector());
    }
    /// Writes value(i) to the i-th element of `v` in row-major order (a broadcast element keeps the last one).
    template <class T, class F>
    void write(const placed& v, F&& value) {
        T* const at = data<T>(v);
        std::size_t i = 0;
        v.for_each_offset([&](std::ptrdiff_t offset) {
            const T element = value(i++);
            std::memcpy(at + offset, &element, sizeof(T));
        });
    }

    void save() {
        for (std::size_t a = 0; a < arena_count_; ++a) saved_[a] = blocks_[a];
    }
    void restore() {
        for (std::size_t a = 0; a < arena_count_; ++a) blocks_[a] = saved_[a];
    }
    [[nodiscard]] bool unchanged() const {
        for (std::size_t a = 0; a < arena_count_; ++a)
            if (blocks_[a] != saved_[a]) return false;
        return true;
    }
    /// Every byte outside the elements of `output` (and of `second`, a second output where there is one) is as saved.
    [[nodiscard]] bool unchanged_outside(const placed& output, const placed* second = nullptr) const {
        for (std::size_t a = 0; a < arena_count_; ++a) {
            std::vector<bool> addressed(blocks_[a].size(), false);
            for (const placed* v : {&output, second}) {
                if (v == nullptr || v->arena != a) continue;
                v->for_each_offset([&](std::ptrdiff_t offset) {
                    const std::size_t first = v->base + static_cast<std::size_t>(offset * static_cast<std::ptrdiff_t>(v->element_bytes));
                    for (std::size_t b = 0; b < v->element_bytes; ++b) addressed[first + b] = true;
                });
            }
            for (std::size_t i = 0; i < blocks_[a].size(); ++i)
                if (!addressed[i] && blocks_[a][i] != saved_[a][i]) return false;
        }
        return true;
    }

private:
    void place_at(placed& v, std::size_t start) {
        v.base = start + static_cast<std::size_t>(-v.min_offset() * static_cast<std::ptrdiff_t>(v.element_bytes));
    }
    std::size_t arena_count_ = 0;
    std::array<std::size_t, max_views> slack_{};
    std::array<std::vector<std::uint8_t>, max_views> blocks_;
    std::array<std::vector<std::uint8_t>, max_views> saved_;
};

// ---------------------------------------------------------------------------------------------
// Shapes and layouts

/// A rank in [low, high], the lower ones more often.
inline std::size_t choose_rank(reader& in, std::size_t low, std::size_t high) {
    const std::size_t span = high - low + 1;
    return low + std::min<std::size_t>(in.below(static_cast<std::uint32_t>(span)), in.below(static_cast<std::uint32_t>(span + 1)));
}

/// The element budget of a call: 64, or (one call in 32) 2048, where the kernels' wider paths and the scans'
/// bands begin.
inline std::size_t choose_budget(reader& in) { return in.chance(8) ? 2048 : 64; }

/// Sizes for dimensions [first, first + count) of `v` with at most `budget` elements in all; now and then a 0.
inline void choose_sizes(reader& in, placed& v, std::size_t first, std::size_t count, std::size_t budget) {
    std::size_t left = budget;
    for (std::size_t d = first; d < first + count; ++d) {
        const std::size_t cap = std::max<std::size_t>(1, std::min<std::size_t>(left, count == 1 ? budget : count == 2 ? 48 : 8));
        v.sizes[d] = 1 + in.below(static_cast<std::uint32_t>(cap));
        left = std::max<std::size_t>(1, left / v.sizes[d]);
    }
    if (count > 0 && in.chance(3)) v.sizes[first + in.below(static_cast<std::uint32_t>(count))] = 0;
}

/// Strides for v's sizes: packed, permuted, padded, reversed (negative), broadcast (0: inputs only, unless
/// `output` and the input asks for a shared output now and then), random in [−6, 6], or gapped (× 2, × 3).
inline void choose_strides(reader& in, placed& v, bool output) {
    std::array<std::size_t, 8> order{};
    for (std::size_t d = 0; d < v.rank; ++d) order[d] = d;
    const std::uint32_t kind = in.below(16);
    if (kind >= 5 && kind <= 10)
        for (std::size_t d = v.rank; d > 1; --d) std::swap(order[d - 1], order[in.below(static_cast<std::uint32_t>(d))]);
    std::ptrdiff_t step = 1;
    for (std::size_t i = v.rank; i-- > 0;) {
        const std::size_t d = order[i];
        v.strides[d] = step;
        step = step * static_cast<std::ptrdiff_t>(std::max<std::size_t>(v.sizes[d], 1)) + (kind == 7 || kind == 8 ? in.below(3) : 0);
    }
    if (v.rank == 0) return;
    if (kind == 9 || kind == 10)
        for (std::size_t d = 0; d < v.rank; ++d)
            if (in.chance(128)) v.strides[d] = -v.strides[d];
    if (kind == 11 && (!output || in.chance(64)))
        for (std::size_t d = 0; d < v.rank; ++d)
            if (in.chance(100)) v.strides[d] = 0;
    if (kind == 12 || kind == 13)
        for (std::size_t d = 0; d < v.rank; ++d) v.strides[d] = static_cast<std::ptrdiff_t>(in.below(13)) - 6;
    if (kind >= 14)
        for (std::size_t d = 0; d < v.rank; ++d) v.strides[d] *= kind == 14 ? 2 : 3;
}

/// Whether the layout gives every coordinate its own element (listing every offset: views here are small).
inline bool unique(const placed& v) {
    std::vector<std::ptrdiff_t> offsets;
    offsets.reserve(v.count());
    v.for_each_offset([&](std::ptrdiff_t offset) { offsets.push_back(offset); });
    std::sort(offsets.begin(), offsets.end());
    return std::adjacent_find(offsets.begin(), offsets.end()) == offsets.end();
}

/// How an output relates to another view: apart (no byte in common; `provable`: their byte ranges do not meet, or
/// they interleave — the case the contract names), the same view (exact: same arena, data, element size and rank,
/// equal sizes, equal strides where the size is not 1), or sharing bytes.
struct relation {
    bool shares_bytes = false;
    bool exact = false;
    bool provable = true;
};
inline relation relate(const placed& a, const placed& b, bool interleaved_by_design) {
    relation r;
    if (a.arena != b.arena || a.count() == 0 || b.count() == 0) return r;
    r.exact = a.base == b.base && a.element_bytes == b.element_bytes && a.rank == b.rank;
    for (std::size_t d = 0; r.exact && d < a.rank; ++d) r.exact = a.sizes[d] == b.sizes[d] && (a.sizes[d] == 1 || a.strides[d] == b.strides[d]);
    const auto low = [](const placed& v) { return static_cast<std::ptrdiff_t>(v.base) + v.min_offset() * static_cast<std::ptrdiff_t>(v.element_bytes); };
    const auto high = [](const placed& v) {
        return static_cast<std::ptrdiff_t>(v.base) + (v.max_offset() + 1) * static_cast<std::ptrdiff_t>(v.element_bytes);
    };
    if (high(a) <= low(b) || high(b) <= low(a)) return r;
    std::vector<std::uint8_t> marks(static_cast<std::size_t>(std::max(high(a), high(b))), 0);
    a.for_each_offset([&](std::ptrdiff_t o) {
        for (std::size_t i = 0; i < a.element_bytes; ++i) marks[a.base + static_cast<std::size_t>(o * static_cast<std::ptrdiff_t>(a.element_bytes)) + i] = 1;
    });
    b.for_each_offset([&](std::ptrdiff_t o) {
        for (std::size_t i = 0; i < b.element_bytes; ++i)
            if (marks[b.base + static_cast<std::size_t>(o * static_cast<std::ptrdiff_t>(b.element_bytes)) + i]) r.shares_bytes = true;
    });
    r.provable = interleaved_by_design;
    return r;
}

/// The output may be exactly its input (in place) or apart from it; sharing bytes otherwise breaks the rule.
inline void expect_in_place_or_apart(expectation& e, const relation& r, const char* rule) {
    if (r.exact) return;
    if (r.shares_bytes) e.breaks(rule);
    else if (!r.provable) e.may_refuse = true;
}
/// The output must not share a byte with the other view.
inline void expect_apart(expectation& e, const relation& r, const char* rule) {
    if (r.shares_bytes) e.breaks(rule);
    else if (!r.provable) e.may_refuse = true;
}

/// Places `input` and `output` (of one element size) interleaved in one arena: both layouts' strides times a factor
/// f of 2 to 4, the input's elements at offsets ≡ 0 and the output's ≡ lane (1 … f − 1) modulo f.
inline void interleave(reader& in, memory& m, placed& input, placed& output) {
    const std::ptrdiff_t f = 2 + in.below(3);
    for (placed* v : {&input, &output})
        for (std::size_t d = 0; d < v->rank; ++d) v->strides[d] *= f;
    m.place_alone(in, input);
    output.arena = input.arena;
    const std::ptrdiff_t lane = 1 + in.below(static_cast<std::uint32_t>(f - 1));
    const std::ptrdiff_t input_low = static_cast<std::ptrdiff_t>(input.base) + input.min_offset() * static_cast<std::ptrdiff_t>(input.element_bytes);
    output.base = static_cast<std::size_t>(input_low + (lane - output.min_offset()) * static_cast<std::ptrdiff_t>(output.element_bytes));
}

/// The input and output views of a scan (any cumulative_* operator) and its options: rank 0–4; an axis (out of range
/// now and then), a direction (not an axis_direction now and then), exclusive one time in two; the output apart, in
/// place, interleaved with the input or over it, with other sizes now and then — and the expectation all that implies.
template <class T>
void place_scan_views(reader& in, memory& m, placed& x, placed& y, expectation& e, tensorops::scan_options& options) {
    x.element_bytes = y.element_bytes = sizeof(T);
    x.rank = choose_rank(in, in.chance(4) ? 0 : 1, 4);
    choose_sizes(in, x, 0, x.rank, choose_budget(in));
    options.axis = x.rank == 0 || in.chance(4) ? x.rank + in.below(2) : in.below(static_cast<std::uint32_t>(x.rank));
    if (options.axis >= x.rank) e.breaks("options.axis below the rank");
    options.direction = static_cast<tensorops::axis_direction>(in.chance(3) ? 2 + in.below(2) : in.below(2));
    if (static_cast<int>(options.direction) > 1) e.breaks("options.direction an axis_direction");
    options.exclusive = in.chance(128);

    const std::uint32_t arrangement = in.below(8);  // 0-3 apart, 4-5 in place, 6 interleaved, 7 overlapping
    choose_strides(in, x, false);
    y.rank = x.rank;
    y.sizes = x.sizes;
    if (arrangement < 4 || arrangement > 5) {
        if (x.rank > 0 && in.chance(4)) {
            y.sizes[in.below(static_cast<std::uint32_t>(y.rank))] += 1;
            e.breaks("output sizes equal to the input's");
        }
        choose_strides(in, y, true);
    }
    if (arrangement < 4) {
        m.place_alone(in, x);
        m.place_alone(in, y);
    } else if (arrangement < 6) {
        m.place_alone(in, x);
        y = x;
    } else if (arrangement == 6) {
        interleave(in, m, x, y);
    } else {
        m.place_alone(in, x);
        m.place_over(in, y, x);
    }
    if (!unique(y)) e.breaks("an output element per coordinate");
    expect_in_place_or_apart(e, relate(y, x, arrangement == 6), "output exactly the input or apart from it");
}

// ---------------------------------------------------------------------------------------------
// Values

template <class T>
inline constexpr bool floating = std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, tensorops::bfloat16>;

/// How an input's values are drawn. Exact classes keep every sum and product exact in every order (small
/// integers and halves; −1, 0, 1 and the powers ±2, ±½ for products), so the library must equal the reference;
/// the others are arbitrary floats, compared within the tolerance of the arithmetic.
enum class values {
    exact,      // halves in [−4, 4], now and then NaN or ±inf
    ordering,   // exact, with many ties, ±0, NaN and ±inf (max, min, arg, scatter, gather)
    product,    // −1, 0, 1, ±2, ±½ (±inf and NaN now and then)
    general,    // any float in (−4, 4)
    positive,   // any float in (0, 1) (log_sum)
    exponent,   // any float in (−20, 20) (log_sum_exp)
    magnitude,  // any float in ±(½, 2) (products)
};
inline bool exact_class(values v) { return v == values::exact || v == values::ordering || v == values::product; }

template <class T>
T draw(reader& in, values kind) {
    if constexpr (std::is_integral_v<T>) {
        if (in.chance(128)) return static_cast<T>(static_cast<int>(in.below(7)) - (std::is_signed_v<T> ? 3 : 0));  // ties
        T value;
        in.bytes(&value, sizeof value);
        return value;
    } else {
        const std::uint8_t b = in.byte();
        constexpr float inf = std::numeric_limits<float>::infinity();
        if (exact_class(kind) && b >= 252) {
            const float specials[] = {std::numeric_limits<float>::quiet_NaN(), inf, -inf, -0.0f};
            return static_cast<T>(specials[b - 252]);
        }
        switch (kind) {
            case values::exact: return static_cast<T>(static_cast<float>(static_cast<int>(b % 17) - 8) * 0.5f);
            case values::ordering: return static_cast<T>(static_cast<float>(static_cast<int>(b % 5) - 2));
            case values::product: {
                constexpr float factors[] = {-1, 0, 1, 1, -1, 2, -2, 0.5f, -0.5f};
                return static_cast<T>(factors[b % 9]);
            }
            default: break;
        }
        const double unit = (static_cast<double>(in.word()) + 0.5) / 4294967296.0;  // (0, 1)
        switch (kind) {
            case values::general: return static_cast<T>(8 * unit - 4);
            case values::positive: return static_cast<T>(unit);
            case values::exponent: return static_cast<T>(40 * unit - 20);
            default: return static_cast<T>((b & 1 ? -1 : 1) * (0.5 + 1.5 * unit));
        }
    }
}

/// Fills the elements of `v` with values of `kind` (floats of an exact class one time in four as general ones
/// instead, where the caller allows).
template <class T>
void fill(reader& in, memory& m, const placed& v, values kind) {
    m.write<T>(v, [&](std::size_t) { return draw<T>(in, kind); });
}

// ---------------------------------------------------------------------------------------------
// Comparing with the reference

template <class T>
long double value_of(const T& v) {
    return static_cast<long double>(ref::widen(v));
}

/// Whether `got` equals the exact value `expected` rounded to T (NaN equal to NaN, +0 to −0) or, with a nonzero
/// bound, lies within `bound` of it; an infinity where T's largest finite value is within the bound of `expected`.
template <class T>
bool within(const T& got, long double expected, long double bound) {
    if constexpr (std::is_integral_v<T>) {
        return got == static_cast<T>(expected);
    } else {
        const long double value = value_of(got);
        if (std::isnan(expected) || std::isnan(value)) return std::isnan(expected) && std::isnan(value);
        const long double rounded = value_of(ref::narrow<T>(expected));
        if (value == rounded) return true;
        if (std::isinf(value) || std::isinf(rounded)) {
            const long double largest = value_of(std::numeric_limits<T>::max());
            const long double finite = std::isinf(value) ? rounded : value;
            return !std::isinf(finite) && std::signbit(value) == std::signbit(rounded) && std::fabs(finite) == largest &&
                   std::fabs(std::fabs(expected) - largest) <= bound + largest * value_of(std::numeric_limits<T>::epsilon());
        }
        return std::fabs(value - expected) <= bound;
    }
}

/// The arithmetic's precisions: the accumulator's (float for float16) and T's own.
template <class T>
long double accumulator_epsilon() {
    if constexpr (std::is_same_v<T, double>) return std::numeric_limits<double>::epsilon();
    else return std::numeric_limits<float>::epsilon();
}
template <class T>
long double output_epsilon() {
    if constexpr (std::is_integral_v<T>) return 0;
    else return value_of(std::numeric_limits<T>::epsilon());
}
/// The smallest positive T (subnormal): results below the normal range are compared with this much slack.
template <class T>
long double smallest() {
    if constexpr (std::is_integral_v<T>) return 0;
    else return value_of(std::numeric_limits<T>::denorm_min());
}

// ---------------------------------------------------------------------------------------------
// Executors

/// An executor of the fuzzer's own: every piece runs on the calling thread, in an order the input picks
/// (increasing, decreasing, or the odd pieces first), with the concurrency and least piece traffic the input picks,
/// so the operators cut even these small tensors into pieces. It claims in-order starts only when it runs them so.
struct inline_executor {
    std::size_t threads = 2;
    std::size_t piece_bytes = 64;
    unsigned order = 0;  // 0 increasing, 1 decreasing, 2 odd ones first
    bool claims = false;

    template <class Task>
    void parallel_for(std::size_t count, const Task& task) const {
        if (order == 1) {
            for (std::size_t i = count; i-- > 0;) task(i);
            return;
        }
        if (order == 2)
            for (std::size_t i = 1; i < count; i += 2) task(i);
        for (std::size_t i = 0; i < count; i += order == 2 ? 2 : 1) task(i);
    }
    [[nodiscard]] std::size_t concurrency() const noexcept { return threads; }
    [[nodiscard]] std::size_t min_piece_bytes() const noexcept { return piece_bytes; }
    [[nodiscard]] bool claims_in_order() const noexcept { return claims && order == 0; }
};

/// The executor of one call: none (the overloads without one), the inline executor, or a pool of two threads that
/// cuts work from 64 bytes of traffic on.
class executor_choice {
public:
    executor_choice(const executor_choice&) = delete;
    executor_choice& operator=(const executor_choice&) = delete;
    explicit executor_choice(reader& in) {
        const std::uint32_t pick = in.below(16);
        if (pick < 8) return;
        if (pick < 15) {
            inline_.threads = 2 + in.below(7);
            inline_.piece_bytes = std::size_t{1} << in.below(10);
            inline_.order = in.below(3);
            inline_.claims = in.chance(128);
            executor_.emplace(inline_);
        } else {
            static tensorops::thread_pool pool(2, 64);
            executor_.emplace(pool);
        }
    }
    /// The executor to pass, or null for the overloads without one.
    [[nodiscard]] const tensorops::executor_ref* get() const { return executor_ ? &*executor_ : nullptr; }

private:
    inline_executor inline_;
    std::optional<tensorops::executor_ref> executor_;  // refers to inline_ or to the pool
};

// ---------------------------------------------------------------------------------------------
// Running a call

/// Runs call(executor) and checks its outcome against the expectation: a refusal (tensorops::error) must leave every
/// arena unchanged and be allowed; a return must be allowed. Returns whether the call ran (the caller then checks
/// the results with check_results and, on an executor, calls again without one through same_without_executor).
template <class Call>
bool run(Call&& call, const expectation& e, memory& m, const executor_choice& exec) {
    m.save();
    try {
        call(exec.get());
    } catch (const tensorops::error&) {
        if (!m.unchanged()) fail("a refused call changed memory");
        if (e.broken == nullptr && !e.may_refuse) fail("a call the contract accepts was refused");
        count(e.broken != nullptr ? refused : refused_unprovable);
        return false;
    }
    if (e.broken != nullptr) {
        std::fprintf(stderr, "tensorops fuzzer: the call breaks the rule '%s'\n", e.broken);
        fail("a call that breaks a rule of the contract returned");
    }
    count(checked);
    return true;
}

/// Calls call() — for the operator's overload without an executor — or, given one, call(*executor).
template <class Call>
void with_executor_or_none(const tensorops::executor_ref* executor, Call&& call) {
    if (executor == nullptr) call();
    else call(*executor);
}

/// After a call on an executor ran and was checked: runs it again from the saved memory without one, and requires
/// the same bits in every output element (every executor gives the sequential result bit for bit) and every other byte
/// as it was (NaN results too: a floating reduction writes one fixed NaN, and a scan's order of operations does not
/// depend on the executor).
template <class T, class Call>
void same_without_executor(Call&& call, memory& m, const executor_choice& exec, const placed& output) {
    if (exec.get() == nullptr) return;
    const ref::dense<T> with = m.read<T>(output);
    m.restore();
    call(nullptr);
    const ref::dense<T> without = m.read<T>(output);
    for (std::size_t i = 0; i < with.values.size(); ++i) {
        if (std::memcmp(&with.values[i], &without.values[i], sizeof(T)) == 0) continue;
        fail("the result on an executor differs from the sequential one");
    }
    if (!m.unchanged_outside(output)) fail("a byte outside the output changed (the call without an executor)");
}

/// Every output element against the reference: exactly, or within bound(i) for element i.
template <class T, class V, class Bound>
void check_results(memory& m, const placed& output, const ref::dense<V>& expected, Bound&& bound) {
    const ref::dense<T> got = m.read<T>(output);
    if (got.values.size() != expected.values.size()) fail("the reference has another number of elements");
    for (std::size_t i = 0; i < got.values.size(); ++i) {
        if (!within(got.values[i], value_of(expected.values[i]), bound(i))) {
            std::fprintf(stderr, "tensorops fuzzer: element %zu is %.17Lg, the reference %.17Lg (bound %.3Lg)\n", i,
                         value_of(got.values[i]), value_of(expected.values[i]), bound(i));
            fail("a result differs from the reference");
        }
    }
    if (!m.unchanged_outside(output)) fail("a byte outside the output changed");
}

}  // namespace tensorops_fuzz::typed
