// Support for the parallel tests (test_parallel.cpp: the pool, executors, scans and scatter; test_parallel_reduce.cpp:
// the reductions): executors of the tests' own, random large tensors, and the check that every executor and thread
// count gives the sequential result bit for bit. The two files are compiled in different unity groups
// (tests/CMakeLists.txt), each beside the other tests of its operators' kernels.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "support.hpp"

namespace tensorops_test::parallel {

using tensorops::float16;
using tensorops::sequential;
using tensorops::thread_pool;


/// Ends the process unless destroyed within `limit`: a test that deadlocks then fails, with the name of what hung on
/// stderr, instead of hanging the suite (a thread stuck in a deadlock can be neither joined nor abandoned while the
/// pools and buffers it uses are destroyed).
class deadline {
public:
    explicit deadline(std::string what, std::chrono::seconds limit = std::chrono::seconds(20)) : what_(std::move(what)) {
        watcher_ = std::thread([this, limit] {
            std::unique_lock lock(mutex_);
            if (!met_.wait_for(lock, limit, [&] { return done_; })) {
                std::fprintf(stderr, "FATAL: '%s' did not return within %lld s (a deadlock): aborting the test run\n", what_.c_str(),
                             static_cast<long long>(limit.count()));
                std::fflush(stderr);
                std::abort();
            }
        });
    }
    deadline(const deadline&) = delete;
    deadline& operator=(const deadline&) = delete;
    ~deadline() {
        {
            std::lock_guard lock(mutex_);
            done_ = true;
        }
        met_.notify_one();
        watcher_.join();
    }

private:
    std::string what_;
    std::mutex mutex_;
    std::condition_variable met_;
    bool done_ = false;
    std::thread watcher_;
};

/// The thread counts every parallel result is compared over: more threads than cores included. The sanitised builds
/// (ten to thirty times slower) take two of them: an odd count and more threads than cores (a pool of one thread asks
/// for one piece, exec/split.hpp's wanted_pieces: the sequential route, which every comparison runs first).
constexpr std::size_t all_thread_counts[] = {1, 2, 3, 4, 7, 8};
constexpr std::size_t sanitized_thread_counts[] = {3, 8};
constexpr std::span<const std::size_t> thread_counts =
    tensorops_test::sanitized_build ? std::span<const std::size_t>(sanitized_thread_counts) : std::span<const std::size_t>(all_thread_counts);

/// The executors of these tests cut work from 4 KiB of traffic on (the library's default is 256 KiB), so tensors
/// of tens of KiB already exercise every way of cutting: the tests stay fast under the sanitizers.
constexpr std::size_t test_piece_bytes = 4 << 10;

/// An executor of the test's own: it records what it is asked and runs the pieces on the calling thread, in reverse
/// order (so any dependence on the order of pieces shows) or, `forward`, in order — then it claims pieces in order,
/// and every piece finds all the pieces before it finished (which the one-pass scans and the argmax bands use).
struct recording_executor {
    bool forward = false;
    std::size_t calls = 0;
    std::size_t pieces = 0;
    [[nodiscard]] std::size_t concurrency() const { return 4; }
    [[nodiscard]] std::size_t min_piece_bytes() const { return test_piece_bytes; }
    [[nodiscard]] bool claims_in_order() const { return forward; }
    template <class Task>
    void parallel_for(std::size_t count, const Task& task) {
        ++calls;
        pieces += count;
        if (forward)
            for (std::size_t i = 0; i < count; ++i) task(i);
        else
            for (std::size_t i = count; i-- > 0;) task(i);
    }
};

/// An executor whose pool refuses work.
struct refusing_executor {
    [[nodiscard]] std::size_t concurrency() const { return 2; }
    template <class Task>
    void parallel_for(std::size_t, const Task&) {
        throw std::runtime_error("the host's pool is shutting down");
    }
};

/// Random sizes of the given rank whose elements of type T take between min_kib and max_kib KiB: large enough for
/// the test executors to cut the work into pieces (from 8 KiB of memory traffic on).
template <class T>
std::vector<std::size_t> large_sizes(test_rng& rng, std::size_t rank, std::size_t min_kib, std::size_t max_kib) {
    const std::size_t min_elements = (min_kib << 10) / sizeof(T), max_elements = (max_kib << 10) / sizeof(T);
    for (;;) {
        std::vector<std::size_t> sizes(rank, 1);
        std::size_t count = 1;
        const double target = rng.uniform_real(static_cast<double>(min_elements), static_cast<double>(max_elements));
        for (std::size_t d = 0; d < rank; ++d) {
            const double remaining = target / static_cast<double>(count);
            const double share = d + 1 == rank ? remaining : std::pow(remaining, rng.uniform_real(0.2, 0.8));
            sizes[d] = std::max<std::size_t>(1, static_cast<std::size_t>(share));
            count *= sizes[d];
        }
        std::shuffle(sizes.begin(), sizes.end(), rng.engine());
        if (count >= min_elements && count <= max_elements) return sizes;
    }
}

/// Random axes to reduce among `rank`: each with probability ½, but neither none nor all (then one at random).
inline std::vector<std::size_t> random_axes(test_rng& rng, std::size_t rank) {
    std::vector<std::size_t> axes;
    for (std::size_t d = 0; d < rank; ++d)
        if (rng.chance(0.5)) axes.push_back(d);
    if (axes.empty() || axes.size() == rank) axes = {rng.uniform<std::size_t>(0, rank - 1)};
    return axes;
}

constexpr layout_kind layouts[] = {layout_kind::packed, layout_kind::transposed, layout_kind::padded, layout_kind::reversed,
                                   layout_kind::mixed};

template <class T>
guarded_buffer<T> random_tensor(test_rng& rng, const std::vector<std::size_t>& sizes, layout_kind kind, bool near_one = false) {
    guarded_buffer<T> buffer(sizes, tensorops_test::random_strides(rng, sizes, kind));
    std::vector<T> values(buffer.values().size());
    for (auto& v : values) {
        if constexpr (std::is_floating_point_v<T> || tensorops_test::is_16_bit_float<T>) {
            // Products of values near 1 neither overflow nor vanish; NaN now and then checks its propagation.
            v = near_one ? static_cast<T>(static_cast<float>(1.0 + rng.uniform_real(-1e-3, 1e-3))) : tensorops_test::random_value<T>(rng);
            if (rng.chance(1e-5)) v = std::numeric_limits<T>::quiet_NaN();
        } else {
            v = tensorops_test::random_value<T>(rng);
        }
    }
    buffer.assign(values);
    return buffer;
}

/// Bytes of the view's elements, row-major: equal bytes = bit-identical results.
template <class T>
std::vector<unsigned char> bytes_of(const guarded_buffer<T>& buffer) {
    const auto values = buffer.values();
    std::vector<unsigned char> out(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
}

/// The first element (row-major) whose bytes differ, or the element count if none does: a short report where
/// comparing the byte vectors themselves would print all of them.
template <class T>
std::size_t first_different_element(const std::vector<unsigned char>& actual, const std::vector<unsigned char>& expected) {
    if (actual.size() != expected.size()) return 0;
    if (actual == expected) return actual.size() / sizeof(T);  // one memcmp: the search below is a loop of calls unoptimised
    const auto mismatch = std::mismatch(actual.begin(), actual.end(), expected.begin());
    return static_cast<std::size_t>(mismatch.first - actual.begin()) / sizeof(T);
}

/// Runs `operation(executor, output_view)` sequentially into one fresh output and on pools of every thread count
/// and the recording executor (pieces in reverse, then in order) into others; every result must equal the sequential
/// one bit for bit, and nothing outside the outputs may change. Returns how many pieces the recording executor was
/// given (in reverse).
template <class U, class Operation>
std::size_t check_same_for_every_executor(const std::vector<std::size_t>& sizes, const std::vector<std::ptrdiff_t>& strides,
                                          const Operation& operation) {
    guarded_buffer<U> expected(sizes, strides);
    operation(sequential, expected.view());
    const auto expected_bytes = bytes_of(expected);
    const std::size_t count = expected_bytes.size() / sizeof(U);
    for (std::size_t threads : thread_counts) {
        INFO("threads: " << threads << " (of " << count << " elements, the first that differs is shown)");
        thread_pool pool(threads, test_piece_bytes);
        guarded_buffer<U> actual(sizes, strides);
        operation(pool, actual.view());
        CHECK(first_different_element<U>(bytes_of(actual), expected_bytes) == count);
        CHECK(actual.untouched_outside_view());
    }
    std::size_t reversed_pieces = 0;
    for (const bool forward : {false, true}) {
        INFO("the recording executor (pieces " << (forward ? "in order" : "in reverse") << "), " << count << " elements");
        recording_executor recorder{.forward = forward};
        guarded_buffer<U> actual(sizes, strides);
        operation(recorder, actual.view());
        CHECK(first_different_element<U>(bytes_of(actual), expected_bytes) == count);
        if (!forward) reversed_pieces = recorder.pieces;
    }
    return reversed_pieces;
}

using parallel_types = std::tuple<double, float, float16, std::int32_t>;
/// parallel_types and bfloat16: the determinism properties of each operator family (the tests of kernel edges keep
/// parallel_types: bfloat16 runs float16's code paths).
using parallel_types_with_bfloat16 = std::tuple<double, float, float16, tensorops::bfloat16, std::int32_t>;

/// Whether the build has the vector kernels: the bands of rows and the chunks of one line belong to them, so a
/// scalar build (TENSOROPS_NO_XSIMD) cuts fewer cases into pieces — with the same results.
constexpr bool vector_kernels = tensorops::simd::vectorized;

/// The recording executor was given more than one piece (expected where the build has the vector kernels).
inline bool was_cut(std::size_t pieces) { return pieces > 1 || !vector_kernels; }


}  // namespace tensorops_test::parallel
