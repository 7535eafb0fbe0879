// bench/read_write_probe.hpp — the read + write limit's probe (bench/shape_sweep.cpp, bench/ab/wide_rows.cpp): for
// reductions whose output is not small next to their input, reading the input and writing the output's bytes.
#pragma once

#include "harness.hpp"

namespace tensorops_bench {

/// Writes `bytes` at `to` (a multiple of 4) in native vectors, ordinary stores, each 256 bytes hinting the page 64 KiB
/// ahead for writing (as the copy probe's destination); lanes differ, so that no compiler makes it a memset (whose
/// large sizes may take non-temporal stores, which the library never uses).
[[gnu::noinline]] inline void write_probe(void* to, std::size_t bytes, std::uint32_t seed) noexcept {
    constexpr std::size_t vector_bytes = probe_vector_bytes;
    using vec = std::uint32_t __attribute__((vector_size(vector_bytes)));
    vec v;
    for (std::size_t j = 0; j < vector_bytes / 4; ++j) v[j] = seed + static_cast<std::uint32_t>(j);
    auto* d = static_cast<unsigned char*>(to);
    std::size_t i = 0;
    for (; i + 256 <= bytes; i += 256) {
        probe_hint_page_ahead<true>(d + i, 256);
#pragma GCC unroll 16
        for (std::size_t k = 0; k < 256; k += vector_bytes) std::memcpy(d + i + k, &v, sizeof v);
    }
    for (; i + 4 <= bytes; i += 4) std::memcpy(d + i, &seed, 4);
}

/// The read + write probe, for reductions whose output is not small next to their input (a reduction over two rows of
/// 32 MiB reads 64 MiB and writes 32 MiB): the input at `from` read as read_probe_words reads it, the output written by
/// write_probe. Over [from, from + in) and [to, to + out): `paged` reads the input's share of each 4 KiB page
/// of output (in / out of it, whole 256-byte trips) and then writes that page, so both streams run at once; otherwise
/// it reads the whole input, then writes the whole output.
inline void read_write_probe(const unsigned char* from, std::size_t in, unsigned char* to, std::size_t out, bool paged) {
    if (!paged || out == 0) {
        const std::uint32_t sink = read_probe_words(from, in);
        write_probe(to, out, sink);
        return;
    }
    constexpr std::size_t page = 4096;
    std::size_t read = 0;
    for (std::size_t written = 0; written < out; written += page) {
        const std::size_t w = std::min(page, out - written);
        // The input's share up to the end of this page, in whole 256-byte trips (all of it at the last page).
        const double share = static_cast<double>(in) * static_cast<double>(written + w) / static_cast<double>(out);
        const std::size_t read_to = written + w == out ? in : static_cast<std::size_t>(share) / 256 * 256;
        const std::uint32_t sink = read_probe_words(from + read, read_to - read);
        read = read_to;
        write_probe(to + written, w, sink);
    }
}

}  // namespace tensorops_bench
