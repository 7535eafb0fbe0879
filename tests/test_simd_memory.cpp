// Tests of simd/: loads and stores (whole, partial, widened and narrowed), copies and prefetch hints, against plain
// scalar loops for every built-in element type. Compiled twice: with xsimd at the build's ISA level, and with
// TENSOROPS_NO_XSIMD (one-lane registers).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include <tensorops/simd/arithmetic.hpp>
#include <tensorops/simd/copy.hpp>
#include <tensorops/simd/horizontal.hpp>
#include <tensorops/simd/math.hpp>
#include <tensorops/simd/minmax.hpp>
#include <tensorops/simd/pack.hpp>
#include <tensorops/simd/prefetch.hpp>
#include <tensorops/simd/scan.hpp>
#include <tensorops/simd/shuffle.hpp>

#include "simd_helpers.hpp"
#include "support.hpp"

using namespace tensorops;
using tensorops_test::test_rng;

// The counted page hints of a row walk (page_hint_walk) must be prefetch_page_ahead's at every step: the first line of
// each page that begins within a step's bytes `distance` on — whatever the start's alignment and the distance.
template <std::size_t StepBytes>
void check_page_hint_walk(test_rng& rng) {
    constexpr std::uintptr_t page = simd::page_bytes;
    for (int trial = 0; trial < 200; ++trial) {
        // The first trials start page-aligned with a whole number of pages ahead (the hint on step 0, as for the
        // outer kernels' page-aligned rows); the rest anywhere.
        const bool aligned = trial < 10;
        const std::uintptr_t start = std::uintptr_t{1} << 30 | (aligned ? 0 : rng.uniform<std::uintptr_t>(0, 3 * page));
        const auto distance = static_cast<std::ptrdiff_t>(aligned ? rng.uniform<std::size_t>(0, 16) * page
                                                                  : rng.uniform<std::size_t>(0, 20000));
        simd::page_hint_walk<StepBytes> walk(reinterpret_cast<const void*>(start), distance);
        std::size_t hints = 0;
        for (std::size_t k = 0; k < 5 * page / StepBytes; ++k) {
            const std::uintptr_t first = start + static_cast<std::uintptr_t>(distance) + k * StepBytes;
            const std::uintptr_t next_page = (first + page - 1) / page * page;
            const void* expected = next_page - first < StepBytes ? reinterpret_cast<const void*>(next_page) : nullptr;
            INFO("step " << k << " of " << StepBytes << " bytes from " << start << ", " << distance << " ahead");
            REQUIRE(walk.at(k) == expected);
            hints += expected != nullptr;
        }
        CHECK(hints >= 4);  // a hint for every page the walk's look-ahead enters
    }
}

TEST_CASE("simd: page_hint_walk hints what prefetch_page_ahead hints at every step, counting steps between pages") {
    test_rng rng("page hint walk");
    INFO(rng.describe());
    check_page_hint_walk<64>(rng);
    check_page_hint_walk<256>(rng);
    check_page_hint_walk<4096>(rng);
}

TEST_CASE("simd: register width matches the build") {
#if defined(TENSOROPS_NO_XSIMD)
    STATIC_REQUIRE_FALSE(simd::vectorized);
    STATIC_REQUIRE(W<float> == 1);
#else
    STATIC_REQUIRE(simd::vectorized);
#if defined(__AVX512BW__)
    STATIC_REQUIRE(W<float> == 16);
    STATIC_REQUIRE(W<float16> == 16);
    STATIC_REQUIRE(W<bfloat16> == 16);
    STATIC_REQUIRE(W<std::int8_t> == 64);
#elif defined(__AVX2__)
    STATIC_REQUIRE(W<float> == 8);
    STATIC_REQUIRE(W<float16> == 8);
    STATIC_REQUIRE(W<bfloat16> == 8);
    STATIC_REQUIRE(W<std::int8_t> == 32);
#elif defined(__SSE2__)
    STATIC_REQUIRE(W<float> == 4);
    STATIC_REQUIRE(W<double> == 2);
    STATIC_REQUIRE(W<bfloat16> == 4);
#endif
#endif
}

TEMPLATE_LIST_TEST_CASE("simd: load and store at every misalignment", "", tensorops_test::random_test_types) {
    using T = TestType;
    test_rng rng("simd load/store");
    INFO(rng.describe());
    std::vector<T> source(4 * W<T> + 8), destination(4 * W<T> + 8);
    for (auto& v : source) v = tensorops_test::random_value<T>(rng);
    for (std::size_t shift = 0; shift < W<T> + 3; ++shift) {
        for (auto& v : destination) v = T(0);
        const auto p = simd::load(source.data() + shift);
        const auto lanes = simd::to_array(p);
        for (std::size_t i = 0; i < W<T>; ++i) CHECK(same<T>(lanes[i], static_cast<C<T>>(source[shift + i])));
        simd::store(destination.data() + shift + 1, p);
        for (std::size_t i = 0; i < destination.size(); ++i) {
            const bool inside = i >= shift + 1 && i < shift + 1 + W<T>;
            CHECK(tensorops_test::same_bits(destination[i], inside ? source[i - 1] : T(0)));
        }
    }
}

TEST_CASE("simd: float16 stores round each lane once, to nearest even") {
    using P = simd::pack<float16>;
    std::array<float, W<float16>> values;
    const float candidates[] = {2049.0f, 2051.0f, 1.0f + 1.0f / 2048, 65519.0f, 65520.0f, -0.0f, 1e-8f, 3.0e-8f,
                                std::numeric_limits<float>::infinity(), 0.1f};
    std::size_t next = 0;
    for (std::size_t start = 0; start < std::size(candidates); start += W<float16>) {
        for (auto& v : values) v = candidates[next++ % std::size(candidates)];
        std::array<float16, W<float16>> stored;
        simd::store(stored.data(), simd::from_array<P>(values));
        for (std::size_t i = 0; i < W<float16>; ++i) CHECK(stored[i].to_bits() == float16(values[i]).to_bits());
    }
}

TEMPLATE_LIST_TEST_CASE("simd: partial loads and stores touch only their elements", "", tensorops_test::random_test_types) {
    using T = TestType;
    test_rng rng("simd partial");
    INFO(rng.describe());
    std::vector<T> source(W<T> + 2);
    for (auto& v : source) v = tensorops_test::random_value<T>(rng);
    for (std::size_t count = 0; count <= W<T>; ++count) {
        if (count < W<T>) {
            // From a heap block of exactly `count` elements, so that AddressSanitizer sees a read past them; with
            // fill 0 too (the masked loads leave zeros there, without a blend).
            const std::vector<T> exact(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(count));
            for (const C<T> fill : {C<T>(7), C<T>(0)}) {
                const auto lanes = simd::to_array(simd::load_partial(exact.data(), count, fill));
                for (std::size_t i = 0; i < W<T>; ++i) CHECK(same<T>(lanes[i], i < count ? static_cast<C<T>>(source[i]) : fill));
            }
        }
        std::vector<T> destination(W<T> + 2, T(3));
        simd::store_partial(destination.data() + 1, simd::load(source.data()), count);
        CHECK(tensorops_test::same_bits(destination[0], T(3)));
        for (std::size_t i = 0; i < count; ++i) CHECK(tensorops_test::same_bits(destination[1 + i], source[i]));
        for (std::size_t i = count; i < W<T> + 1; ++i) CHECK(tensorops_test::same_bits(destination[1 + i], T(3)));
    }
}

#if TENSOROPS_TEST_HAS_PAGE_GUARD
TEMPLATE_LIST_TEST_CASE("simd: a partial load or store ending at a page's end touches nothing past it", "", tensorops_test::random_test_types) {
    using T = TestType;
    tensorops_test::page_end_array<T> page_end(W<T>);  // the page after it faults when read or written
    for (std::size_t i = 0; i < W<T>; ++i) page_end.data()[i] = static_cast<T>(static_cast<C<T>>(i % 5 + 1));
    for (std::size_t count = 0; count < W<T>; ++count) {
        const T* const source = page_end.data() + (W<T> - count);  // its last element ends the page
        const auto lanes = simd::to_array(simd::load_partial(source, count, C<T>(7)));
        for (std::size_t i = 0; i < W<T>; ++i) CHECK(same<T>(lanes[i], i < count ? static_cast<C<T>>(source[i]) : C<T>(7)));
    }
    const auto nines = simd::pack<T>(static_cast<C<T>>(9));
    for (std::size_t count = 0; count <= W<T>; ++count) {
        T* const destination = page_end.data() + (W<T> - count);
        simd::store_partial(destination, nines, count);
        for (std::size_t i = 0; i < count; ++i) CHECK(same<T>(static_cast<C<T>>(destination[i]), C<T>(9)));
    }
}
#endif

TEMPLATE_TEST_CASE("simd: 8- and 16-bit integers widened to 32-bit lanes and narrowed back", "", std::int8_t, std::uint8_t, std::int16_t,
                   std::uint16_t) {
    using T = TestType;
    using U = std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>;
    constexpr std::size_t N = simd::lanes<U>;
    test_rng rng("simd widen");
    INFO(rng.describe());
    std::vector<T> source(N);
    for (auto& v : source) v = tensorops_test::random_value<T>(rng);
    source[0] = std::numeric_limits<T>::min();
    source[N - 1] = std::numeric_limits<T>::max();
    const auto widened = simd::to_array(simd::load_widened<U>(source.data()));
    for (std::size_t i = 0; i < N; ++i) CHECK(widened[i] == static_cast<U>(source[i]));  // sign- or zero-extended
    for (std::size_t count = 0; count <= N; ++count) {  // from a block of exactly `count` elements (AddressSanitizer)
        const std::vector<T> exact(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(count));
        const auto partial = simd::to_array(simd::load_widened_partial<U>(exact.data(), count));
        for (std::size_t i = 0; i < N; ++i) CHECK(partial[i] == (i < count ? static_cast<U>(source[i]) : U(0)));
    }
#if TENSOROPS_TEST_HAS_PAGE_GUARD
    // And from elements that end a page, the page after them unreadable (every build, sanitised or not).
    tensorops_test::page_end_array<T> page_end(N);
    std::copy(source.begin(), source.end(), page_end.data());
    for (std::size_t count = 0; count <= N; ++count) {
        const T* const at_end = page_end.data() + (N - count);
        const auto partial = simd::to_array(simd::load_widened_partial<U>(at_end, count));
        for (std::size_t i = 0; i < N; ++i) CHECK(partial[i] == (i < count ? static_cast<U>(at_end[i]) : U(0)));
    }
#endif
    // Lanes past T's range come back truncated (the value modulo 2^n); nothing is written past the N elements.
    std::array<U, N> lanes_out;
    for (std::size_t i = 0; i < N; ++i) lanes_out[i] = static_cast<U>(rng.uniform<std::uint32_t>(0, 0xFFFFFFFFu));
    std::vector<T> destination(N + 2, T(5));
    simd::store_narrowed<T, U>(destination.data() + 1, simd::from_array<simd::pack<U>>(lanes_out));
    CHECK(destination[0] == T(5));
    for (std::size_t i = 0; i < N; ++i) CHECK(destination[1 + i] == static_cast<T>(lanes_out[i]));
    CHECK(destination[N + 1] == T(5));
}

TEST_CASE("simd: copy_stream copies exactly its bytes, below and past its loop's threshold") {
    // Below stream_copy_min_bytes memcpy does it all; from it on, the hinted loop of four-register steps and memcpy
    // for the rest (a tail of 0 … step − 1 bytes); source and destination misaligned independently; the bytes around
    // the destination untouched.
    test_rng rng("copy_stream");
    INFO(rng.describe());
    constexpr std::size_t guard = 64, step = 4 * simd::copy_block_bytes;
    const std::size_t threshold = simd::stream_copy_min_bytes;
    std::vector<std::byte> source(threshold + 2 * step + 8);
    for (auto& b : source) b = static_cast<std::byte>(rng.uniform<int>(0, 255));
    const std::vector<std::size_t> lengths{0, 1, step, threshold - 1, threshold, threshold + 1, threshold + step - 1, threshold + step,
                                           threshold + 2 * step + 3};
    for (std::size_t n : lengths)
        for (std::size_t source_shift : {0, 5})
            for (std::size_t destination_shift : {0, 3, 32}) {
                std::vector<std::byte> destination(n + 2 * guard), expected;
                for (std::size_t k = 0; k < destination.size(); k += 97) destination[k] = static_cast<std::byte>(rng.uniform<int>(0, 255));
                expected = destination;
                std::copy_n(source.data() + source_shift, n, expected.data() + guard + destination_shift - 32);
                simd::copy_stream(destination.data() + guard + destination_shift - 32, source.data() + source_shift, n);
                INFO("length " << n << ", source shift " << source_shift << ", destination shift " << destination_shift);
                REQUIRE(destination == expected);
            }
}

TEST_CASE("simd: copy_bytes copies exactly its bytes, every length and misalignment") {
    // Lengths below one register (memcpy), whole and partial registers, four-register steps, the 2 KiB edge (memcpy
    // past it); source and destination misaligned independently; the bytes around the destination untouched.
    test_rng rng("copy_bytes");
    INFO(rng.describe());
    constexpr std::size_t guard = 80;
    std::vector<std::size_t> lengths;
    for (std::size_t n = 0; n <= 4 * simd::copy_block_bytes + 2 * simd::copy_block_bytes + 3; ++n) lengths.push_back(n);
    for (std::size_t n : {255, 256, 257, 511, 512, 513, 1000, 2047, 2048, 2049, 5000}) lengths.push_back(n);
    for (std::size_t n : lengths)
        for (std::size_t source_shift = 0; source_shift < 3; ++source_shift)
            for (std::size_t destination_shift : {0, 1, 7, 33}) {
                std::vector<std::byte> source(n + 8), destination(n + 2 * guard), expected;
                for (auto& b : source) b = static_cast<std::byte>(rng.uniform<int>(0, 255));
                for (auto& b : destination) b = static_cast<std::byte>(rng.uniform<int>(0, 255));
                expected = destination;
                std::memcpy(expected.data() + guard + destination_shift - 40, source.data() + source_shift, n);
                simd::copy_bytes(destination.data() + guard + destination_shift - 40, source.data() + source_shift, n);
                INFO("length " << n << ", source shift " << source_shift << ", destination shift " << destination_shift);
                REQUIRE(destination == expected);
            }
}
