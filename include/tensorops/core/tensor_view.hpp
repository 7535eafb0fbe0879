// tensorops/core/tensor_view.hpp — a non-owning, strided view of a tensor of rank 0..8.
//
// Vocabulary follows std::mdspan / layout_stride: sizes ("extents") and strides are in elements, strides
// are signed (negative = reversed dimension, 0 = broadcast), and `required_span_size()` is the number of
// elements between the lowest and the highest addressed element, inclusive. The rank is a run-time value,
// so one kernel instantiation serves every rank.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "error.hpp"

namespace tensorops {

/// The largest rank a view may have (DirectML's limit).
inline constexpr std::size_t max_rank = 8;

/// Whether a layout gives every coordinate its own element (tensor_view::uniqueness): `unique`; `shared` (two
/// coordinates name one element); or `unproven` (no rule settled it and it was too large to enumerate).
enum class layout_uniqueness { unique, shared, unproven };

/// The most offsets tensor_view::uniqueness lists to decide a layout its rules do not settle: a buffer of this many
/// std::ptrdiff_t on the stack (16 KiB), never the heap.
inline constexpr std::size_t unique_enumeration_limit = 2048;

using extents_array = std::array<std::size_t, max_rank>;
using strides_array = std::array<std::ptrdiff_t, max_rank>;

/// The sizes and strides of a view, whatever its element type: every question about its shape (element count, reach,
/// packing, uniqueness) is answered here, once for all element types — tensor_view<T> adds the data pointer and typed
/// access. (One class rather than a member of each tensor_view<T>: a program viewing twelve element types compiles
/// these functions once, not twelve times.)
class tensor_layout {
public:
    /// An empty layout: rank 1, size 0.
    tensor_layout() noexcept = default;

    /// The number of dimensions (0–8).
    [[nodiscard]] std::size_t rank() const noexcept { return rank_; }
    /// The size and the stride (in elements, signed) of `dimension`, which must be below rank() (unchecked).
    [[nodiscard]] std::size_t size(std::size_t dimension) const noexcept {
        assert(dimension < rank_);
        return sizes_[dimension];
    }
    [[nodiscard]] std::ptrdiff_t stride(std::size_t dimension) const noexcept {
        assert(dimension < rank_);
        return strides_[dimension];
    }
    /// All sizes and all strides, rank() entries each.
    [[nodiscard]] std::span<const std::size_t> sizes() const noexcept { return {sizes_.data(), rank_}; }
    [[nodiscard]] std::span<const std::ptrdiff_t> strides() const noexcept { return {strides_.data(), rank_}; }
    /// Sizes and strides as fixed arrays (entries past rank() are 1 and 0).
    [[nodiscard]] const extents_array& extents() const noexcept { return sizes_; }
    [[nodiscard]] const strides_array& stride_array() const noexcept { return strides_; }

    /// Product of the sizes (1 for rank 0).
    [[nodiscard]] std::size_t element_count() const noexcept {
        std::size_t count = 1;
        for (std::size_t d = 0; d < rank_; ++d) count *= sizes_[d];
        return count;
    }
    [[nodiscard]] bool empty() const noexcept { return element_count() == 0; }

    /// Offset in elements of a multi-index from data().
    [[nodiscard]] std::ptrdiff_t offset_of(std::span<const std::size_t> index) const noexcept {
        std::ptrdiff_t offset = 0;
        for (std::size_t d = 0; d < index.size(); ++d) offset += static_cast<std::ptrdiff_t>(index[d]) * strides_[d];
        return offset;
    }

    /// The offset of `index` after checking it: tensorops::error ("tensor_view::at", "index") for a wrong index count
    /// or an index out of range.
    [[nodiscard]] std::ptrdiff_t checked_offset_of(std::span<const std::size_t> index) const {
        if (index.size() != rank_)
            throw error("tensor_view::at", "index",
                        "has " + std::to_string(index.size()) + " entries for a view of rank " +
                            std::to_string(rank_));
        for (std::size_t d = 0; d < rank_; ++d)
            if (index[d] >= sizes_[d])
                throw error("tensor_view::at", "index",
                            "entry " + std::to_string(d) + " is " + std::to_string(index[d]) +
                                ", outside [0, " + std::to_string(sizes_[d]) + ")");
        return offset_of(index);
    }

    /// Lowest and highest element offsets the view addresses, relative to data() (0 and 0 for rank 0;
    /// meaningless for an empty view).
    [[nodiscard]] std::ptrdiff_t min_offset() const noexcept {
        std::ptrdiff_t offset = 0;
        for (std::size_t d = 0; d < rank_; ++d)
            if (strides_[d] < 0 && sizes_[d] > 0) offset += static_cast<std::ptrdiff_t>(sizes_[d] - 1) * strides_[d];
        return offset;
    }
    [[nodiscard]] std::ptrdiff_t max_offset() const noexcept {
        std::ptrdiff_t offset = 0;
        for (std::size_t d = 0; d < rank_; ++d)
            if (strides_[d] > 0 && sizes_[d] > 0) offset += static_cast<std::ptrdiff_t>(sizes_[d] - 1) * strides_[d];
        return offset;
    }

    /// Number of elements from the lowest to the highest addressed element, inclusive; 0 when empty.
    /// A buffer must hold this many elements starting at `data() + min_offset()`.
    [[nodiscard]] std::size_t required_span_size() const noexcept {
        if (empty()) return 0;
        return static_cast<std::size_t>(max_offset() - min_offset()) + 1;
    }

    /// True when the strides are the packed row-major ones for these sizes (size-1 dimensions may
    /// carry any stride).
    [[nodiscard]] bool is_packed() const noexcept {
        std::ptrdiff_t expected = 1;
        for (std::size_t d = rank_; d-- > 0;) {
            if (sizes_[d] != 1 && strides_[d] != expected) return false;
            expected *= static_cast<std::ptrdiff_t>(sizes_[d]);
        }
        return true;
    }

    /// Whether no two multi-indices address the same element (the rule every output must meet), decided from the
    /// sizes and strides without touching the heap. Reversing a dimension does not change the answer, so only
    /// |stride| matters. The dimensions of size above 1 are taken in increasing |stride| (a stride 0 among them:
    /// `shared`); each must lay its copies of the offsets below it (set S, spanning [0, reach]) apart:
    ///   1. nested: |stride| > reach, the copies follow one another. Packed, transposed, padded, reversed and
    ///      interleaved layouts (re/im planes of complex pairs: [2, n] with strides {1, 2}; colour planes of RGB
    ///      triples: [3, n] with {1, 3}; …) are nested throughout: settled in a few operations whatever their size;
    ///   2. second of two: S is one dimension's progression (stride a ≤ b, sizes m, n). The nearest coincidence is
    ///      i·a = j·b at i = b/g, j = a/g (g = gcd(a, b)): unique exactly when b/g ≥ m or a/g ≥ n;
    ///   3. tiling: S is listed and its offsets are distinct modulo |stride|: the copies cannot meet;
    ///   4. otherwise S with its copies is listed, sorted and searched for a repeat.
    /// S is listed (on the stack) while it has at most unique_enumeration_limit offsets. A dimension that rules
    /// 1–3 do not settle while S is too large to list leaves the layout `unproven`: not known to share an element,
    /// not shown not to; operators refuse such outputs with an error saying so.
    [[nodiscard]] layout_uniqueness uniqueness() const noexcept {
        if (empty()) return layout_uniqueness::unique;  // nothing is addressed at all
        std::array<std::size_t, max_rank> order{};
        std::array<std::size_t, max_rank> magnitude{};  // |stride|: the constructor bounds every reach
        std::size_t count = 0;
        for (std::size_t d = 0; d < rank_; ++d) {
            if (sizes_[d] == 1) continue;
            if (strides_[d] == 0) return layout_uniqueness::shared;
            magnitude[d] = strides_[d] < 0 ? std::size_t(0) - static_cast<std::size_t>(strides_[d]) : static_cast<std::size_t>(strides_[d]);
            order[count++] = d;
        }
        for (std::size_t i = 1; i < count; ++i)  // insertion sort by stride magnitude (≤ 8 entries)
            for (std::size_t j = i; j > 0 && magnitude[order[j]] < magnitude[order[j - 1]]; --j) std::swap(order[j], order[j - 1]);
        {  // rule 1 for every dimension — every layout the peers accept — settles it without listing anything
            std::size_t below = 0;
            bool nested = true;
            for (std::size_t i = 0; i < count && nested; ++i) {
                nested = magnitude[order[i]] > below;
                below += magnitude[order[i]] * (sizes_[order[i]] - 1);
            }
            if (nested) return layout_uniqueness::unique;
        }

        std::array<std::size_t, unique_enumeration_limit> offsets;  // S while `listed`: offsets[0, listed)
        offsets[0] = 0;
        std::size_t listed = 1;
        bool is_listed = true;
        std::size_t reach = 0;  // the largest offset in S
        const auto by_residue = [&](std::size_t stride) {
            std::sort(offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(listed),
                      [stride](std::size_t x, std::size_t y) { return x % stride < y % stride; });
            for (std::size_t k = 1; k < listed; ++k)
                if (offsets[k] % stride == offsets[k - 1] % stride) return false;
            return true;
        };
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t d = order[i], stride = magnitude[d], size = sizes_[d];
            const bool fits = is_listed && size <= unique_enumeration_limit / listed;
            bool settled = stride > reach;                                                                     // rule 1
            if (!settled && i == 1) {                                                                          // rule 2
                const std::size_t a = magnitude[order[0]], g = std::gcd(a, stride);
                if (stride / g < sizes_[order[0]] && a / g < size) return layout_uniqueness::shared;
                settled = true;
            }
            if (!settled && is_listed && listed <= stride) settled = by_residue(stride);                      // rule 3
            if (!settled && !fits) return layout_uniqueness::unproven;
            if (fits) {  // S with its copies: the next S, and rule 4's list
                for (std::size_t k = 1; k < size; ++k)
                    for (std::size_t n = 0; n < listed; ++n) offsets[k * listed + n] = offsets[n] + k * stride;
                listed *= size;
                if (!settled) {                                                                                // rule 4
                    std::sort(offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(listed));
                    if (std::adjacent_find(offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(listed)) !=
                        offsets.begin() + static_cast<std::ptrdiff_t>(listed))
                        return layout_uniqueness::shared;
                }
            } else {
                is_listed = false;
            }
            reach += stride * (size - 1);
        }
        return layout_uniqueness::unique;
    }

    /// True when the layout is proven unique (uniqueness() == unique): no two multi-indices address one element.
    [[nodiscard]] bool is_unique() const noexcept { return uniqueness() == layout_uniqueness::unique; }

protected:
    /// Sets the layout of a view of elements of `element_bytes` bytes at `address` (its data pointer as an integer: a
    /// pointer to the caller's possibly uninitialised output, passed to a function, would be taken for a read by
    /// GCC's -Wmaybe-uninitialized), enforcing tensor_view's address rule (see its constructors); `packed`: row-major
    /// strides from the sizes, `strides` ignored.
    void assign_layout(std::uintptr_t address, std::size_t element_bytes, std::span<const std::size_t> sizes, std::span<const std::ptrdiff_t> strides,
                       bool packed) {
        if (sizes.size() > max_rank)
            throw error("tensor_view", "sizes",
                        "rank " + std::to_string(sizes.size()) + " exceeds the maximum rank " + std::to_string(max_rank));
        if (!packed && strides.size() != sizes.size())
            throw error("tensor_view", "strides",
                        "has " + std::to_string(strides.size()) + " entries but sizes has " +
                            std::to_string(sizes.size()));
        constexpr auto limit = static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max());
        const std::size_t max_span = limit / element_bytes;  // the most elements PTRDIFF_MAX bytes hold
        rank_ = sizes.size();
        std::size_t count = 1;
        bool is_empty = false;
        for (std::size_t d = 0; d < rank_; ++d) {
            sizes_[d] = sizes[d];
            if (sizes[d] == 0) is_empty = true;
            else if (count > limit / sizes[d])
                throw error("tensor_view", "sizes", "the element count overflows std::ptrdiff_t");
            else count *= sizes[d];
        }
        for (std::size_t d = rank_; d < max_rank; ++d) sizes_[d] = 1;  // past the rank, as before any assignment
        std::size_t below = 0, above = 0;  // elements addressed below and above data (each ≤ max_span − 1)
        if (packed) {
            if (!is_empty && count > max_span)
                throw error("tensor_view", "sizes",
                            "describe " + std::to_string(count) + " packed elements of " + std::to_string(element_bytes) +
                                " bytes, more than PTRDIFF_MAX = " + std::to_string(limit) + " bytes");
            above = is_empty ? 0 : count - 1;
            std::ptrdiff_t stride = 1;
            for (std::size_t d = rank_; d-- > 0;) {
                strides_[d] = is_empty ? 0 : stride;
                stride *= static_cast<std::ptrdiff_t>(is_empty ? 1 : sizes_[d]);
            }
        } else {
            std::size_t reach = 0;  // Σ (size − 1)·|stride|, kept ≤ max_span − 1 so that (reach + 1)·sizeof(T) fits
            for (std::size_t d = 0; d < rank_; ++d) {
                strides_[d] = strides[d];
                if (is_empty || sizes_[d] <= 1) continue;
                const std::size_t magnitude =
                    strides[d] < 0 ? std::size_t(0) - static_cast<std::size_t>(strides[d]) : static_cast<std::size_t>(strides[d]);
                if (magnitude != 0 && (sizes_[d] - 1 > (max_span - 1) / magnitude || reach > max_span - 1 - (sizes_[d] - 1) * magnitude))
                    throw error("tensor_view", "strides",
                                "dimension " + std::to_string(d) + " (size " + std::to_string(sizes_[d]) + ", stride " +
                                    std::to_string(strides[d]) + ") takes the view past PTRDIFF_MAX bytes; the bytes a view addresses, (sum of (size - 1) x |stride| + 1) x " +
                                    std::to_string(element_bytes) + ", must not exceed PTRDIFF_MAX = " + std::to_string(limit) +
                                    " (data + offset must not overflow)");
                reach += (sizes_[d] - 1) * magnitude;
                (strides[d] < 0 ? below : above) += (sizes_[d] - 1) * magnitude;
            }
        }
        if (address == 0 && !is_empty && rank_ > 0)
            throw error("tensor_view", "data", "is null but the view has elements");
        if (address == 0 && rank_ == 0)
            throw error("tensor_view", "data", "is null but a rank-0 view has one element");
        if (address != 0 && !is_empty) {
            // Both byte counts are at most PTRDIFF_MAX (the span rule above): the comparisons cannot overflow.
            const std::uintptr_t low = below * element_bytes, high = (above + 1) * element_bytes;
            if (low > address || high > std::numeric_limits<std::uintptr_t>::max() - address)
                throw error("tensor_view", packed ? "sizes" : "strides",
                            "address the bytes from data - " + std::to_string(low) + " to data + " + std::to_string(high) +
                                ", which run out of the address space (data is at " + std::to_string(address) +
                                "); every element's address must be representable");
        }
    }

private:
    std::size_t rank_ = 1;                             // a default view is empty: rank 1, size 0
    extents_array sizes_ = {0, 1, 1, 1, 1, 1, 1, 1};
    strides_array strides_ = {};
};

/// A non-owning view of `element_count()` elements of type T laid out with arbitrary signed strides.
/// Copying a view copies the description, never the data. `tensor_view<T>` converts implicitly to
/// `tensor_view<const T>`.
template <class T>
class tensor_view : public tensor_layout {
public:
    using element_type = T;
    using value_type = std::remove_cv_t<T>;

    /// An empty view: rank 1, size 0, no data — nothing to read or write, so an operator given one as an argument that
    /// must hold elements reports its sizes instead of touching memory. Assign a real view before use.
    tensor_view() noexcept = default;

    /// A packed row-major view (the last dimension has stride 1).
    /// Throws tensorops::error ("sizes") if the rank exceeds 8 or the view's bytes break the address rule
    /// below; ("data") if `data` is null while the view is not empty.
    ///
    /// The address rule, which every constructor enforces so that no operator ever receives a view that breaks it:
    /// the element count fits std::ptrdiff_t, and the bytes the view addresses, from its lowest to its highest
    /// element inclusive ((Σ (size − 1)·|stride| + 1)·sizeof(T) of them), number at most PTRDIFF_MAX and lie
    /// inside the address space (below data by at most the address of data, above it without wrapping). Then every
    /// `data + offset` and every difference of two element addresses is computed without overflow: element offsets
    /// that differ can never name one address (a stride of 2^62 floats, 2^64 bytes, is refused, not wrapped).
    tensor_view(T* data, std::span<const std::size_t> sizes) { assign(data, sizes, {}, true); }

    /// A view with explicit strides in elements (signed; 0 broadcasts a dimension).
    /// Throws tensorops::error if the rank exceeds 8 ("sizes"), `strides` and `sizes` differ in length
    /// ("strides"), the element count overflows std::ptrdiff_t ("sizes"), the strides break the address rule
    /// above ("strides"), or `data` is null while the view is not empty ("data").
    tensor_view(T* data, std::span<const std::size_t> sizes, std::span<const std::ptrdiff_t> strides) {
        assign(data, sizes, strides, false);
    }

    tensor_view(T* data, std::initializer_list<std::size_t> sizes)
        : tensor_view(data, std::span<const std::size_t>(sizes.begin(), sizes.size())) {}

    tensor_view(T* data, std::initializer_list<std::size_t> sizes, std::initializer_list<std::ptrdiff_t> strides)
        : tensor_view(data, std::span<const std::size_t>(sizes.begin(), sizes.size()),
                      std::span<const std::ptrdiff_t>(strides.begin(), strides.size())) {}

    /// Adds const: tensor_view<float> → tensor_view<const float>.
    template <class U>
        requires(std::same_as<const U, T> && !std::same_as<U, T>)
    tensor_view(const tensor_view<U>& other) noexcept  // NOLINT(google-explicit-constructor): implicit on purpose
        : tensor_layout(other), data_(other.data()) {}

    [[nodiscard]] T* data() const noexcept { return data_; }

    /// Element access without checks: exactly rank() indices, each below its size.
    template <std::integral... Index>
    [[nodiscard]] T& operator()(Index... indices) const noexcept {
        assert(sizeof...(Index) == rank());
        const std::size_t index_array[] = {static_cast<std::size_t>(indices)..., 0};
        return data_[offset_of(std::span<const std::size_t>(index_array, sizeof...(Index)))];
    }

    /// Checked element access: throws tensorops::error for a wrong index count or an index out of range.
    [[nodiscard]] T& at(std::span<const std::size_t> index) const { return data_[checked_offset_of(index)]; }

private:
    void assign(T* data, std::span<const std::size_t> sizes, std::span<const std::ptrdiff_t> strides, bool packed) {
        assign_layout(reinterpret_cast<std::uintptr_t>(data), sizeof(T), sizes, strides, packed);
        data_ = data;
    }

    T* data_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Overlap between two views.

/// How two views share memory.
///   none    no byte is addressed by both;
///   exact   the same element type size, data pointer, sizes and strides (size-1 dimensions aside):
///           every coordinate names the same element in both (what "in place" means);
///   partial anything else where the byte ranges intersect and disjointness cannot be proven.
///           The test is conservative: interleaved views (e.g. even and odd elements) are recognised as
///           disjoint when their addresses differ modulo the gcd of all strides; other intersecting
///           layouts are reported as partial.
enum class overlap { none, exact, partial };

/// memory_overlap of the views whose data pointers are at `address_a` and `address_b` (as integers: see
/// tensor_layout::assign_layout), with these layouts, of elements of `element_bytes_a` and `element_bytes_b` bytes: the
/// rule itself, once for all element types.
[[nodiscard]] inline overlap memory_overlap_of(std::uintptr_t address_a, std::size_t element_bytes_a, const tensor_layout& a,
                                               std::uintptr_t address_b, std::size_t element_bytes_b, const tensor_layout& b) {
    if (a.empty() || b.empty()) return overlap::none;
    // Unsigned address arithmetic: a view's bytes lie inside the address space and span at most PTRDIFF_MAX bytes
    // (tensor_view's address rule), so none of these sums wraps.
    const auto size_a = static_cast<std::uintptr_t>(element_bytes_a);
    const auto size_b = static_cast<std::uintptr_t>(element_bytes_b);
    const std::uintptr_t base_a = address_a, base_b = address_b;
    const auto bytes = [](std::ptrdiff_t offset, std::uintptr_t size) {
        return static_cast<std::uintptr_t>(offset < 0 ? -offset : offset) * size;
    };
    const std::uintptr_t low_a = base_a - bytes(a.min_offset(), size_a), high_a = base_a + bytes(a.max_offset(), size_a) + size_a;
    const std::uintptr_t low_b = base_b - bytes(b.min_offset(), size_b), high_b = base_b + bytes(b.max_offset(), size_b) + size_b;
    if (high_a <= low_b || high_b <= low_a) return overlap::none;

    if (size_a == size_b && base_a == base_b && a.rank() == b.rank()) {
        bool same = true;
        for (std::size_t d = 0; d < a.rank() && same; ++d)
            same = a.size(d) == b.size(d) && (a.size(d) == 1 || a.stride(d) == b.stride(d));
        if (same) return overlap::exact;
    }
    // Every element of a starts at base_a + g·k and every element of b at base_b + g·m, where g is the
    // gcd of all byte strides. Modulo g, a covers [0, size_a) and b covers [d, d + size_b) with
    // d = (base_b − base_a) mod g; when these do not meet, no byte is shared.
    std::uintptr_t g = 0;
    for (std::size_t d = 0; d < a.rank(); ++d)
        if (a.size(d) > 1) g = std::gcd(g, bytes(a.stride(d), size_a));
    for (std::size_t d = 0; d < b.rank(); ++d)
        if (b.size(d) > 1) g = std::gcd(g, bytes(b.stride(d), size_b));
    if (g != 0) {
        const std::uintptr_t shift = (base_b % g + (g - base_a % g)) % g;
        if (shift >= size_a && shift + size_b <= g) return overlap::none;
    }
    return overlap::partial;
}

/// How the views `a` and `b` share memory (see overlap).
template <class T, class U>
[[nodiscard]] overlap memory_overlap(const tensor_view<T>& a, const tensor_view<U>& b) {
    return memory_overlap_of(reinterpret_cast<std::uintptr_t>(a.data()), sizeof(T), a, reinterpret_cast<std::uintptr_t>(b.data()), sizeof(U), b);
}

namespace detail {
/// The same elements seen as K, an element type of the same size whose objects may alias T's (wrapping_kernel_t:
/// the unsigned type of a signed integer): the view a kernel instantiated for K reads or writes.
template <class K, class T>
    requires(sizeof(K) == sizeof(std::remove_const_t<T>))
[[nodiscard]] tensor_view<K> view_as(const tensor_view<T>& view) {
    if constexpr (std::is_same_v<K, T>) return view;
    else return tensor_view<K>(reinterpret_cast<K*>(view.data()), view.sizes(), view.strides());
}
}  // namespace detail

}  // namespace tensorops
