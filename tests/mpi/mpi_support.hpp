// tests/mpi/mpi_support.hpp — what the tests of tensorops::mpi share: one random stream on every rank (the seed of rank
// 0, broadcast), a failure count agreed at the end, random shards and local layouts, and the bitwise comparison of a
// rank's shard with the single-process result on the gathered (packed) tensor.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <tensorops/mpi.hpp>
#include <tensorops/tensorops.hpp>

namespace mpi_test {

using tensorops::float16;

/// The test's communicator and random stream: the same stream on every rank (rank 0's seed), so every rank draws the
/// same shapes and data; failures are counted per rank and agreed at the end.
struct context {
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = 0, ranks = 1;
    std::uint64_t seed = 0;
    std::mt19937_64 random;
    long failures = 0, checks = 0;

    context() {
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &ranks);
        unsigned long long chosen = 0;
        if (rank == 0) {
            const char* given = std::getenv("TENSOROPS_TEST_SEED");
            chosen = given != nullptr ? std::strtoull(given, nullptr, 10) : std::random_device{}();
        }
        MPI_Bcast(&chosen, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
        seed = chosen;
        random.seed(seed);
    }
    std::size_t uniform(std::size_t low, std::size_t high) { return std::uniform_int_distribution<std::size_t>(low, high)(random); }
    bool chance(double p) { return std::bernoulli_distribution(p)(random); }

    void fail(const std::string& what) {
        ++failures;
        if (failures <= 20) std::fprintf(stderr, "rank %d: FAILED (seed %llu): %s\n", rank, static_cast<unsigned long long>(seed), what.c_str());
    }
    void check(bool condition, const std::string& what) {
        ++checks;
        if (!condition) fail(what);
    }
};

template <class T>
std::string type_name() {
    if constexpr (std::is_same_v<T, double>) return "float64";
    else if constexpr (std::is_same_v<T, float>) return "float32";
    else if constexpr (std::is_same_v<T, float16>) return "float16";
    else if constexpr (std::is_same_v<T, tensorops::bfloat16>) return "bfloat16";
    else return std::string(std::is_signed_v<T> ? "int" : "uint") + std::to_string(8 * sizeof(T));
}

template <class T>
bool same_bits(const T& a, const T& b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// A random value: floating in [low, high], integers over their whole range.
template <class T>
T random_value(context& c, double low, double high) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(c.random());
    else return static_cast<T>(std::uniform_real_distribution<double>(low, high)(c.random));
}

/// A random split of `size` indices into c.ranks shards (some empty when asked or when there are few).
inline std::vector<std::size_t> random_split(context& c, std::size_t size) {
    std::vector<std::size_t> cuts(static_cast<std::size_t>(c.ranks) - 1);
    const bool even = c.chance(0.3);
    for (std::size_t r = 0; r < cuts.size(); ++r)
        cuts[r] = even ? tensorops::mpi::block_shard(size, static_cast<int>(r) + 1, c.ranks).offset : c.uniform(0, size);
    std::sort(cuts.begin(), cuts.end());
    std::vector<std::size_t> counts(static_cast<std::size_t>(c.ranks));
    std::size_t previous = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        const std::size_t end = r < cuts.size() ? cuts[r] : size;
        counts[r] = end - previous;
        previous = end;
    }
    return counts;
}

/// Packed row-major strides.
inline std::vector<std::ptrdiff_t> packed_strides(const std::vector<std::size_t>& sizes) {
    std::vector<std::ptrdiff_t> strides(sizes.size());
    std::ptrdiff_t step = 1;
    for (std::size_t d = sizes.size(); d-- > 0;) {
        strides[d] = step;
        step *= static_cast<std::ptrdiff_t>(sizes[d]);
    }
    return strides;
}

/// A local buffer holding a view of `sizes` in a random layout: packed, padded (every pitch larger), or with one
/// dimension reversed. `base`: the offset of the view's first element in the buffer.
struct layout {
    std::vector<std::ptrdiff_t> strides;
    std::size_t buffer = 0;
    std::ptrdiff_t base = 0;
};
inline layout random_layout(context& c, const std::vector<std::size_t>& sizes) {
    layout l;
    l.strides.resize(sizes.size());
    const int kind = static_cast<int>(c.uniform(0, 3));  // 0, 1 packed; 2 padded; 3 reversed
    std::ptrdiff_t step = 1;
    for (std::size_t d = sizes.size(); d-- > 0;) {
        l.strides[d] = step;
        step *= static_cast<std::ptrdiff_t>(sizes[d]) + (kind == 2 ? 1 : 0);
    }
    l.buffer = static_cast<std::size_t>(step) + 1;
    if (kind == 3 && !sizes.empty()) {
        const std::size_t d = c.uniform(0, sizes.size() - 1);
        if (sizes[d] > 0) {
            l.base = static_cast<std::ptrdiff_t>(sizes[d] - 1) * l.strides[d];
            l.strides[d] = -l.strides[d];
        }
    }
    return l;
}

/// Calls body(local_index, global_index): the packed offsets of each element of a shard (sizes `local`, its axis
/// starting at `offset`) in the shard and in the global tensor (`global` sizes).
template <class Body>
void for_each_shard_element(const std::vector<std::size_t>& local, const std::vector<std::size_t>& global, std::size_t axis, std::size_t offset,
                            const Body& body) {
    std::size_t count = 1;
    for (std::size_t size : local) count *= size;
    const auto global_strides = packed_strides(global);
    std::vector<std::size_t> index(local.size(), 0);
    for (std::size_t flat = 0; flat < count; ++flat) {
        std::size_t at = 0;
        for (std::size_t d = 0; d < local.size(); ++d) at += (index[d] + (d == axis ? offset : 0)) * static_cast<std::size_t>(global_strides[d]);
        body(index, at);
        for (std::size_t d = local.size(); d-- > 0;) {
            if (++index[d] < local[d]) break;
            index[d] = 0;
        }
    }
}

/// The element at `index` of a view.
template <class T>
T& element_at(const tensorops::tensor_view<T>& view, const std::vector<std::size_t>& index) {
    std::ptrdiff_t at = 0;
    for (std::size_t d = 0; d < index.size(); ++d) at += static_cast<std::ptrdiff_t>(index[d]) * view.stride(d);
    return view.data()[at];
}

/// Agrees on the failure count: returns the process exit status (0 when every rank passed).
inline int finish(context& c, const char* name) {
    long failures = 0, checks = 0;
    MPI_Allreduce(&c.failures, &failures, 1, MPI_LONG, MPI_SUM, c.comm);
    MPI_Allreduce(&c.checks, &checks, 1, MPI_LONG, MPI_SUM, c.comm);
    if (c.rank == 0)
        std::printf("%s on %d ranks (seed %llu): %ld checks, %ld failed\n", name, c.ranks, static_cast<unsigned long long>(c.seed), checks, failures);
    return failures == 0 && checks > 0 ? 0 : 1;
}

/// Runs `call` (made by every rank, one of them with a broken argument) and checks that every rank threw
/// tensorops::error naming `argument`, with the same message as rank 0's; returns this rank's message.
template <class Call>
std::string expect_same_error(context& c, const std::string& name, const std::string& argument, const Call& call) {
    std::string message;
    bool threw = false;
    try {
        call();
    } catch (const tensorops::error& e) {
        threw = true;
        message = e.what();
        c.check(e.argument() == argument,
                name + ": the error names argument '" + e.argument() + "', not '" + argument + "'");
    }
    c.check(threw, name + ": no tensorops::error on this rank");
    unsigned long length = message.size();
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, 0, c.comm);
    std::string first(length, ' ');
    if (c.rank == 0) first = message;
    MPI_Bcast(first.data(), static_cast<int>(length), MPI_CHAR, 0, c.comm);
    c.check(first == message, name + ": rank 0 says '" + first + "', this rank '" + message + "'");
    return message;
}

/// A random test program's main: MPI_Init; `trial(c, pool)` argv[1] times (default `default_trials`) with one context
/// and a pool of two threads per rank; then `after(c)` (checks run once, e.g. of errors); the verdict agreed on every
/// rank (finish); MPI_Finalize. Returns the process's exit status.
template <class Trial, class After>
int run_trials(int argc, char** argv, const char* name, std::size_t default_trials, Trial trial, After after) {
    MPI_Init(&argc, &argv);
    int status = 0;
    {
        context c;
        tensorops::thread_pool pool(2);
        const std::size_t trials = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : default_trials;
        for (std::size_t t = 0; t < trials; ++t) trial(c, pool);
        after(c);
        status = finish(c, name);
    }
    MPI_Finalize();
    return status;
}

/// run_trials with nothing after the trials.
template <class Trial>
int run_trials(int argc, char** argv, const char* name, std::size_t default_trials, Trial trial) {
    return run_trials(argc, argv, name, default_trials, trial, [](context&) {});
}

}  // namespace mpi_test
