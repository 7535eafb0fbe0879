// tests/support.hpp — what every test shares: element type lists, a seeded random source that says its
// seed, random shapes and layouts, and buffers with guard zones that detect writes outside a view.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <tensorops/tensorops.hpp>

#if __has_include(<sys/mman.h>) && __has_include(<unistd.h>)
#include <sys/mman.h>
#include <unistd.h>
#define TENSOROPS_TEST_HAS_PAGE_GUARD 1
#else
#define TENSOROPS_TEST_HAS_PAGE_GUARD 0
#endif

// Set by the build (tests/CMakeLists.txt) when the tests are built with sanitizers.
#ifndef TENSOROPS_TEST_SANITIZED
#define TENSOROPS_TEST_SANITIZED 0
#endif

namespace tensorops_test {

using tensorops::bfloat16;
using tensorops::float16;

// ---------------------------------------------------------------------------------------------
// Sampling in sanitised builds.

/// True in the sanitised builds (unoptimised, every access checked: ten to thirty times slower).
inline constexpr bool sanitized_build = TENSOROPS_TEST_SANITIZED != 0;

/// Whether combination number `index` of an edge-case test runs in this build: every combination in the optimised
/// builds; one in three in the sanitised builds, where the few tests that sweep large tensors over every
/// function and shape would otherwise take most of the run. Tests index their combinations so that, over the
/// sweep, each function still meets several shapes (e.g. shape number + function number), so every kernel path
/// still runs under the sanitizers. The sweeps of tensors past the library's block sizes (megabytes per
/// combination) run one in `sanitized_share` (4 or 6), indexed so that each shape still runs.
constexpr bool runs_in_this_build(std::size_t index, std::size_t sanitized_share = 3) {
    return !sanitized_build || index % sanitized_share == 0;
}

/// The position of T in the type list List (a std::tuple): tests of large tensors let each type take a different share
/// of their shapes in the sanitised builds (runs_in_this_build(shape_number + type_position<T, List>, 4)).
template <class T, class List>
constexpr std::size_t type_position = []<class... Types>(std::type_identity<std::tuple<Types...>>) {
    std::size_t position = 0;
    const bool found = ((std::is_same_v<T, Types> || (++position, false)) || ...);
    return found ? position : sizeof...(Types);
}(std::type_identity<List>{});

// ---------------------------------------------------------------------------------------------
// Element types.

// The integer types of the typed tests: all eight, or (TENSOROPS_TEST_INTEGER_SET 1 or 2, tools/run-tests.sh) one of each
// width with both signednesses among them — set 1 int8, uint16, int32, uint64; set 2 uint8, int16, uint32, int64. The
// two AVX2 configurations take one set each (clang-v3-san set 2 in the default run, gcc-v3 set 1 by name), so that
// every integer type is tested at that instruction set and each build compiles a third fewer typed tests (a test
// build's cost is its compilation); gcc-baseline keeps all eight (SSE2 emulates several integer operations per width
// and signedness); the scalar build takes set 1 (its code differs by width and signedness, not by type).
#if !defined(TENSOROPS_TEST_INTEGER_SET)
#define TENSOROPS_TEST_INTEGER_SET 0
#endif
using floating_types = std::tuple<double, float, float16>;
/// The 16-bit floating storage types: float16 and bfloat16.
template <class T>
inline constexpr bool is_16_bit_float = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;
/// Floating types including bfloat16: the NaN, infinity and edge-value property tests.
using floating_types_with_bfloat16 = std::tuple<double, float, float16, bfloat16>;
#if TENSOROPS_TEST_INTEGER_SET == 1
using integer_types = std::tuple<std::int8_t, std::uint16_t, std::int32_t, std::uint64_t>;
#elif TENSOROPS_TEST_INTEGER_SET == 2
using integer_types = std::tuple<std::uint8_t, std::int16_t, std::uint32_t, std::int64_t>;
#else
using integer_types = std::tuple<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                                 std::uint16_t, std::uint32_t, std::uint64_t>;
#endif
/// The built-in types of the exhaustive sweeps: the floating types and integer_types. bfloat16 takes float16's code
/// paths (float lanes, one rounding per output), so there it would add its instantiations (compile time) more than
/// coverage; the random tests against the reference take it (random_test_types). With TENSOROPS_TEST_FLOAT16_SWEEPS 0
/// the sweeps leave float16 out too (gcc-v3: clang-v3-san sweeps it at the same instruction set, as the two share the
/// integer types; float16 keeps its own tests and the random ones).
#if !defined(TENSOROPS_TEST_FLOAT16_SWEEPS)
#define TENSOROPS_TEST_FLOAT16_SWEEPS 1
#endif
#if TENSOROPS_TEST_FLOAT16_SWEEPS
using builtin_types = decltype(std::tuple_cat(floating_types{}, integer_types{}));
#else
using builtin_types = decltype(std::tuple_cat(std::tuple<double, float>{}, integer_types{}));
#endif
/// builtin_types and bfloat16: the random tests against the reference (shapes, layouts, axes, directions).
using random_test_types = decltype(std::tuple_cat(floating_types_with_bfloat16{}, integer_types{}));

template <class T>
constexpr std::string_view type_name() {
    if constexpr (std::is_same_v<T, double>) return "float64";
    else if constexpr (std::is_same_v<T, float>) return "float32";
    else if constexpr (std::is_same_v<T, float16>) return "float16";
    else if constexpr (std::is_same_v<T, bfloat16>) return "bfloat16";
    else if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
    else if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
    else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
    else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
    else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
    else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
    else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
    else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
    else return "user type";
}

// ---------------------------------------------------------------------------------------------
// Reproducible randomness. The base seed is TENSOROPS_TEST_SEED when set, else a fixed number; each test
// derives its own stream from it and its name. Tests write `INFO(rng.describe())` so a failure prints
// what reproduces it.

inline std::uint64_t base_seed() {
    static const std::uint64_t seed = [] {
        if (const char* text = std::getenv("TENSOROPS_TEST_SEED")) return static_cast<std::uint64_t>(std::strtoull(text, nullptr, 0));
        return std::uint64_t{20261122};
    }();
    return seed;
}

/// A seeded random stream (std::mt19937_64). A class template of its engine only so that a test build can compile its
/// members once, optimised (support.cpp's explicit instantiation, declared below where TENSOROPS_TEST_SUPPORT_COMPILED
/// is set), rather than unoptimised in every test translation unit: test_rng is the one instance.
template <class Engine>
class basic_test_rng {
public:
    explicit basic_test_rng(std::string_view stream) : stream_(stream) {
        std::uint64_t hash = 1469598103934665603ull;  // FNV-1a of the stream name, mixed with the base seed
        for (char c : stream) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
        seed_ = hash ^ base_seed();
        engine_.seed(seed_);
    }
    [[nodiscard]] std::string describe() const {
        return "random stream '" + stream_ + "', TENSOROPS_TEST_SEED=" + std::to_string(base_seed());
    }
    Engine& engine() { return engine_; }

    /// Uniform integer in [low, high].
    template <class I = std::size_t>
    I uniform(I low, I high) { return std::uniform_int_distribution<I>(low, high)(engine_); }
    /// Uniform in [low, high): canonical() · (high − low) + low.
    double uniform_real(double low, double high) { return canonical() * (high - low) + low; }
    /// True with the given probability: canonical() < probability.
    bool chance(double probability) { return canonical() < probability; }

private:
    /// Uniform in [0, 1): the engine's 64 bits as a double (rounded to 53), over 2^64, kept below 1 — the draws
    /// libstdc++'s std::generate_canonical<double, 53> makes from a 64-bit engine, which std::uniform_real_distribution
    /// and std::bernoulli_distribution use, written out: clang cannot fold the logarithms it takes of constants on
    /// every call.
    double canonical() {
        static_assert(Engine::min() == 0 && Engine::max() == std::numeric_limits<std::uint64_t>::max(), "a 64-bit engine");
        const double r = static_cast<double>(engine_()) * 0x1p-64;
        return r < 1.0 ? r : std::nextafter(1.0, 0.0);
    }

    std::string stream_;
    std::uint64_t seed_ = 0;
    Engine engine_;
};
using test_rng = basic_test_rng<std::mt19937_64>;

#if defined(TENSOROPS_TEST_SUPPORT_COMPILED)
// Compiled once, optimised, in tests/support.cpp: the stream and uniform() for the integer types the tests draw.
extern template class basic_test_rng<std::mt19937_64>;
extern template int test_rng::uniform<int>(int, int);
extern template long test_rng::uniform<long>(long, long);
extern template unsigned long test_rng::uniform<unsigned long>(unsigned long, unsigned long);
extern template unsigned int test_rng::uniform<unsigned int>(unsigned int, unsigned int);
extern template unsigned short test_rng::uniform<unsigned short>(unsigned short, unsigned short);
#endif

/// A random value of type T: floats uniform in [-1, 1) (or small integers when `small`), integers over
/// their whole range (or in [-8, 8] / [0, 16] when `small`: products and sums stay exact).
template <class T>
T random_value(test_rng& rng, bool small = false) {
    if constexpr (is_16_bit_float<T> || std::is_floating_point_v<T>) {
        if (small) return static_cast<T>(static_cast<float>(rng.uniform<int>(-4, 4)));
        return static_cast<T>(rng.uniform_real(-1.0, 1.0));
    } else if (small) {
        if constexpr (std::is_signed_v<T>) return static_cast<T>(rng.uniform<int>(-8, 8));
        else return static_cast<T>(rng.uniform<int>(0, 16));
    } else {
        using wide = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
        return static_cast<T>(rng.uniform<wide>(std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()));
    }
}

/// Bitwise equality (NaN equals the same NaN; +0 differs from -0).
template <class T>
bool same_bits(const T& a, const T& b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// ---------------------------------------------------------------------------------------------
// Random shapes and layouts.

/// Random sizes of the given rank with at most `max_elements` elements in all (each size ≥ 1).
inline std::vector<std::size_t> random_sizes(test_rng& rng, std::size_t rank, std::size_t max_elements) {
    std::vector<std::size_t> sizes(rank, 1);
    std::size_t budget = max_elements;
    for (std::size_t d = 0; d < rank; ++d) {
        const std::size_t per_dim_cap = std::max<std::size_t>(1, std::min<std::size_t>(budget, rank <= 2 ? 70 : 9));
        sizes[d] = rng.uniform<std::size_t>(1, per_dim_cap);
        budget = std::max<std::size_t>(1, budget / sizes[d]);
    }
    std::shuffle(sizes.begin(), sizes.end(), rng.engine());
    return sizes;
}

/// How the elements of a view are laid out in its buffer.
enum class layout_kind {
    packed,      // row-major, stride 1 last
    transposed,  // packed in a random permutation of the dimensions
    padded,      // row-major with gaps between rows and elements
    reversed,    // packed, then some dimensions walked backwards (negative strides)
    broadcast,   // some dimensions have stride 0 (inputs only)
    mixed,       // permuted, padded and partly reversed at once
};
inline constexpr layout_kind output_layout_kinds[] = {layout_kind::packed, layout_kind::transposed, layout_kind::padded,
                                                      layout_kind::reversed, layout_kind::mixed};
inline constexpr layout_kind input_layout_kinds[] = {layout_kind::packed,   layout_kind::transposed,
                                                     layout_kind::padded,   layout_kind::reversed,
                                                     layout_kind::broadcast, layout_kind::mixed};

inline std::string_view layout_name(layout_kind kind) {
    switch (kind) {
        case layout_kind::packed: return "packed";
        case layout_kind::transposed: return "transposed";
        case layout_kind::padded: return "padded";
        case layout_kind::reversed: return "reversed";
        case layout_kind::broadcast: return "broadcast";
        case layout_kind::mixed: return "mixed";
    }
    return "?";
}

/// Strides (in elements) for `sizes` laid out as `kind`; every non-broadcast layout is unique.
inline std::vector<std::ptrdiff_t> random_strides(test_rng& rng, const std::vector<std::size_t>& sizes, layout_kind kind) {
    const std::size_t rank = sizes.size();
    std::vector<std::size_t> order(rank);  // order[0] is the outermost dimension in memory
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (kind == layout_kind::transposed || kind == layout_kind::mixed) std::shuffle(order.begin(), order.end(), rng.engine());
    const bool pad = kind == layout_kind::padded || kind == layout_kind::mixed;
    std::vector<std::ptrdiff_t> strides(rank, 0);
    std::ptrdiff_t step = pad && rng.chance(0.3) ? 2 : 1;  // sometimes even the innermost dimension is spread
    for (std::size_t i = rank; i-- > 0;) {
        const std::size_t d = order[i];
        strides[d] = step;
        step *= static_cast<std::ptrdiff_t>(sizes[d]);
        if (pad) step += static_cast<std::ptrdiff_t>(rng.uniform<std::size_t>(0, 3));
    }
    if (kind == layout_kind::reversed || kind == layout_kind::mixed)
        for (std::size_t d = 0; d < rank; ++d)
            if (rng.chance(0.5)) strides[d] = -strides[d];
    if (kind == layout_kind::broadcast) {
        for (std::size_t d = 0; d < rank; ++d)
            if (rng.chance(0.4)) strides[d] = 0;
    }
    return strides;
}

// ---------------------------------------------------------------------------------------------
// Buffers with guard zones.

/// Owns the memory behind one view: the elements it addresses, plus guard elements around them and in
/// its gaps, all set to a sentinel. The view starts `misalignment` elements past a 64-byte boundary.
/// `untouched_outside_view()` proves that nothing outside the view was written.
template <class T>
class guarded_buffer {
public:
    guarded_buffer(const std::vector<std::size_t>& sizes, const std::vector<std::ptrdiff_t>& strides,
                   std::size_t misalignment = 0, std::size_t guard = 16)
        : sizes_(sizes), strides_(strides) {
        std::ptrdiff_t low = 0, high = 0;
        bool empty = false;
        for (std::size_t d = 0; d < sizes.size(); ++d) {
            if (sizes[d] == 0) empty = true;
            const auto reach = static_cast<std::ptrdiff_t>(sizes[d] == 0 ? 0 : sizes[d] - 1) * strides[d];
            (reach < 0 ? low : high) += reach;
        }
        const std::size_t span = empty ? 0 : static_cast<std::size_t>(high - low) + 1;
        constexpr std::size_t alignment_slack = 64 / sizeof(T) + 1;
        storage_.resize(span + 2 * guard + alignment_slack + misalignment);
        std::size_t first = 0;  // first element on a 64-byte boundary
        while (reinterpret_cast<std::uintptr_t>(storage_.data() + first) % 64 != 0 && first < alignment_slack) ++first;
        origin_ = static_cast<std::ptrdiff_t>(first + guard + misalignment) - low;
        std::memset(static_cast<void*>(storage_.data()), sentinel_byte, storage_.size() * sizeof(T));
        addressed_.assign(storage_.size(), 0);
        if (!empty) for_each_offset([&](std::ptrdiff_t offset) { addressed_[static_cast<std::size_t>(origin_ + offset)] = 1; });
    }

    [[nodiscard]] tensorops::tensor_view<T> view() {
        return tensorops::tensor_view<T>(storage_.data() + origin_, sizes_, strides_);
    }
    [[nodiscard]] tensorops::tensor_view<const T> const_view() const {
        return tensorops::tensor_view<const T>(storage_.data() + origin_, sizes_, strides_);
    }
    [[nodiscard]] const std::vector<std::size_t>& sizes() const { return sizes_; }
    [[nodiscard]] const std::vector<std::ptrdiff_t>& strides() const { return strides_; }

    /// Calls f(offset) for every element of the view in row-major order of its indices: an odometer over the outer
    /// coordinates, each step a run along the last dimension.
    template <class F>
    void for_each_offset(F&& f) const {
        const std::size_t count = element_count();
        if (count == 0) return;
        if (sizes_.empty()) {
            f(std::ptrdiff_t{0});
            return;
        }
        const std::size_t last = sizes_.size() - 1;
        std::vector<std::size_t> index(sizes_.size(), 0);  // index[last] stays 0
        for (std::size_t n = 0; n < count; n += sizes_[last]) {
            std::ptrdiff_t offset = 0;
            for (std::size_t d = 0; d < last; ++d) offset += static_cast<std::ptrdiff_t>(index[d]) * strides_[d];
            for (std::size_t i = 0; i < sizes_[last]; ++i, offset += strides_[last]) f(offset);
            for (std::size_t d = last; d-- > 0;) {
                if (++index[d] < sizes_[d]) break;
                index[d] = 0;
            }
        }
    }
    /// The view's elements in row-major order of their indices.
    [[nodiscard]] std::vector<T> values() const {
        std::vector<T> out;
        out.reserve(element_count());
        for_each_offset([&](std::ptrdiff_t offset) { out.push_back(storage_[static_cast<std::size_t>(origin_ + offset)]); });
        return out;
    }
    /// Writes `source` (row-major order of indices) into the view's elements.
    void assign(const std::vector<T>& source) {
        std::size_t i = 0;
        for_each_offset([&](std::ptrdiff_t offset) { storage_[static_cast<std::size_t>(origin_ + offset)] = source[i++]; });
    }
    /// True when every element outside the view still holds the sentinel.
    [[nodiscard]] bool untouched_outside_view() const {
        T sentinel;
        std::memset(static_cast<void*>(&sentinel), sentinel_byte, sizeof(T));
        for (std::size_t i = 0; i < storage_.size(); ++i)
            if (!addressed_[i] && !same_bits(storage_[i], sentinel)) return false;
        return true;
    }

private:
    [[nodiscard]] std::size_t element_count() const {
        std::size_t count = 1;
        for (std::size_t s : sizes_) count *= s;
        return count;
    }

    static constexpr int sentinel_byte = 0x5A;
    std::vector<std::size_t> sizes_;
    std::vector<std::ptrdiff_t> strides_;
    std::vector<T> storage_;
    // One byte per element, not std::vector<bool>: its proxy iterators stay function calls in the unoptimised and -Og
    // builds, where they were a large share of the long tests' time.
    std::vector<unsigned char> addressed_;
    std::ptrdiff_t origin_ = 0;
};

#if defined(TENSOROPS_TEST_SUPPORT_COMPILED)
// Compiled once, optimised, in tests/support.cpp, for the built-in element types (a member template — for_each_offset
// with a test's own function — is still instantiated where it is called).
extern template class guarded_buffer<double>;
extern template class guarded_buffer<float>;
extern template class guarded_buffer<float16>;
extern template class guarded_buffer<bfloat16>;
extern template class guarded_buffer<std::int8_t>;
extern template class guarded_buffer<std::int16_t>;
extern template class guarded_buffer<std::int32_t>;
extern template class guarded_buffer<std::int64_t>;
extern template class guarded_buffer<std::uint8_t>;
extern template class guarded_buffer<std::uint16_t>;
extern template class guarded_buffer<std::uint32_t>;
extern template class guarded_buffer<std::uint64_t>;
#endif

#if TENSOROPS_TEST_HAS_PAGE_GUARD
/// `count` elements whose last one ends a readable page, the page after it inaccessible (POSIX mmap/mprotect): a
/// kernel that reads past them faults, in every build, sanitised or not (a read past a heap block that its
/// allocation's slack still holds is seen by AddressSanitizer only). The elements start zeroed.
template <class T>
class page_end_array {
public:
    explicit page_end_array(std::size_t count) : count_(count) {
        page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        readable_ = (count * sizeof(T) + page_ - 1) / page_ * page_;
        mapping_ = mmap(nullptr, readable_ + page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapping_ == MAP_FAILED || mprotect(static_cast<char*>(mapping_) + readable_, page_, PROT_NONE) != 0) std::abort();
    }
    page_end_array(const page_end_array&) = delete;
    page_end_array& operator=(const page_end_array&) = delete;
    ~page_end_array() { munmap(mapping_, readable_ + page_); }
    [[nodiscard]] T* data() { return reinterpret_cast<T*>(static_cast<char*>(mapping_) + readable_) - count_; }
    [[nodiscard]] std::size_t size() const { return count_; }

private:
    std::size_t count_, page_ = 0, readable_ = 0;
    void* mapping_ = nullptr;
};
#endif

/// Describes a layout for INFO() messages.
inline std::string describe_layout(const std::vector<std::size_t>& sizes, const std::vector<std::ptrdiff_t>& strides) {
    std::ostringstream out;
    out << "sizes {";
    for (std::size_t d = 0; d < sizes.size(); ++d) out << (d ? "," : "") << sizes[d];
    out << "} strides {";
    for (std::size_t d = 0; d < strides.size(); ++d) out << (d ? "," : "") << strides[d];
    out << "}";
    return out.str();
}

}  // namespace tensorops_test
