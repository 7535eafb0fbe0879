// What every part of the fuzzer shares (the dml descriptors' fuzzing.hpp and the typed API's typed_fuzzing.hpp): the
// input read as a stream of decisions, and the failure that ends the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace tensorops_fuzz {

/// Ends the process with `what` on stderr: libFuzzer (or the corpus replay's test) reports the input that caused it.
[[noreturn]] inline void fail(const char* what) {
    std::fprintf(stderr, "tensorops fuzzer: %s\n", what);
    std::abort();
}

/// The input as a stream of decisions. Past its end the stream goes on with pseudo-random bytes seeded by the
/// input (xorshift), so a short input still decodes to a complete call, and the same input always to the same one.
class reader {
public:
    reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {
        for (std::size_t i = 0; i < size; ++i) state_ = (state_ ^ data[i]) * 0x100000001b3ull;
    }
    std::uint8_t byte() {
        if (position_ < size_) return data_[position_++];
        state_ ^= state_ << 13;
        state_ ^= state_ >> 7;
        state_ ^= state_ << 17;
        return static_cast<std::uint8_t>(state_ >> 56);
    }
    std::uint32_t below(std::uint32_t bound) { return bound == 0 ? 0 : byte() % bound; }  // [0, bound)
    bool chance(std::uint8_t in_256) { return byte() < in_256; }
    std::uint32_t word() {
        std::uint32_t value = 0;
        for (int i = 0; i < 4; ++i) value = value << 8 | byte();
        return value;
    }
    void bytes(void* out, std::size_t count) {
        auto* target = static_cast<std::uint8_t*>(out);
        for (std::size_t i = 0; i < count; ++i) target[i] = byte();
    }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t position_ = 0;
    std::uint64_t state_ = 0xcbf29ce484222325ull;
};

}  // namespace tensorops_fuzz
