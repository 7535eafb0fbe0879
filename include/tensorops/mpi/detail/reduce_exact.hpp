// tensorops/mpi/detail/reduce_exact.hpp — the reductions over the sharded axis that are exact in any order: the
// integer SUM, L1, SUM_SQUARE, MULTIPLY, MAX, MIN (wrapping arithmetic and comparisons), whose per-rank partials MPI
// may combine in its own tree with the library's arithmetic (combine_exactly), and ARGMAX / ARGMIN of any type, whose
// per-rank candidates (value and global flat index) are gathered and the best kept (arg_reduce_across).
#pragma once

#include "mpi_c.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "../../core/tensor_view.hpp"
#include "../../exec/executor.hpp"
#include "../../ops/arg_reduce.hpp"
#include "../../ops/reduce.hpp"
#include "../sharded.hpp"
#include "collectives.hpp"
#include "reduce_parts.hpp"
#include "staging.hpp"

namespace tensorops::mpi::detail {

/// The MPI datatype of an integer of T's width and signedness.
template <class T>
[[nodiscard]] MPI_Datatype integer_datatype() noexcept {
    switch (sizeof(T)) {
        case 1: return std::is_signed_v<T> ? MPI_INT8_T : MPI_UINT8_T;
        case 2: return std::is_signed_v<T> ? MPI_INT16_T : MPI_UINT16_T;
        case 4: return std::is_signed_v<T> ? MPI_INT32_T : MPI_UINT32_T;
        default: return std::is_signed_v<T> ? MPI_INT64_T : MPI_UINT64_T;
    }
}

/// An MPI user operation: inout[i] = combine(in[i], inout[i]) for `combine` one of the exact integer functions —
/// wrapping sums (SUM, L1, SUM_SQUARE: sums of the partial sums) and products in unsigned arithmetic, MAX and MIN as
/// T compares. The library's own arithmetic, not MPI's: Open MPI 4.1's built-in MPI_SUM on MPI_UINT8_T saturates at
/// 255 where two's complement wraps (Debian bookworm's Open MPI 4.1.4: bench/mpi.md).
template <class T, reduce_function Function>
void combine_partials(void* in, void* inout, int* length, MPI_Datatype*) {
    using wide = std::make_unsigned_t<T>;
    const auto* a = static_cast<const T*>(in);
    auto* b = static_cast<T*>(inout);
    for (int i = 0; i < *length; ++i) {
        if constexpr (Function == reduce_function::max) b[i] = std::max(a[i], b[i]);
        else if constexpr (Function == reduce_function::min) b[i] = std::min(a[i], b[i]);
        else if constexpr (Function == reduce_function::multiply)
            b[i] = static_cast<T>(static_cast<std::uint64_t>(static_cast<wide>(a[i])) * static_cast<wide>(b[i]));
        else b[i] = static_cast<T>(static_cast<std::uint64_t>(static_cast<wide>(a[i])) + static_cast<wide>(b[i]));
    }
}

/// Every rank's `partial` (one per output) combined by `function` into `result` on every rank (root < 0, as
/// MPI_Allreduce) or on `root` (MPI_Reduce): integer SUM, L1, SUM_SQUARE, MULTIPLY, MAX, MIN — exact in any order,
/// so MPI may combine them in its own tree (outputs · log P per rank instead of every rank's partials on every rank),
/// with the library's arithmetic (combine_partials). In calls of at most INT_MAX elements.
template <class T>
void combine_exactly(MPI_Comm comm, const std::vector<T>& partial, std::vector<T>& result, reduce_function function,
                     int root) {
    MPI_User_function* combine = &combine_partials<T, reduce_function::sum>;  // SUM, L1, SUM_SQUARE
    if (function == reduce_function::multiply) combine = &combine_partials<T, reduce_function::multiply>;
    if (function == reduce_function::max) combine = &combine_partials<T, reduce_function::max>;
    if (function == reduce_function::min) combine = &combine_partials<T, reduce_function::min>;
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create(combine, /*commute*/ 1, &op);
    const std::size_t limit = static_cast<std::size_t>(INT_MAX);
    for (std::size_t done = 0; done < partial.size(); done += limit) {
        const int n = static_cast<int>(std::min(limit, partial.size() - done));
        if (root < 0) MPI_Allreduce(partial.data() + done, result.data() + done, n, integer_datatype<T>(), op, comm);
        else
            MPI_Reduce(partial.data() + done, result.empty() ? nullptr : result.data() + done, n, integer_datatype<T>(),
                       op, root, comm);
    }
    MPI_Op_free(&op);
}

/// ARGMAX / ARGMIN over axes that include the sharded one: each rank's extreme (value and global flat index) per
/// output, gathered, the best kept (NaN first, then the value, then the lower or higher index).
template <class T, class U>
void arg_reduce_across(const executor_ref& exec, const sharding& sh, MPI_Comm comm, const T* input,
                       std::span<const std::size_t> local_sizes, const tensor_view<U>& output, bool maximum,
                       std::span<const std::size_t> axes, axis_direction direction, int root) {
    const std::vector<std::size_t> out_sizes = reduced_sizes(local_sizes, axes);
    std::size_t outputs = 1;
    for (std::size_t size : out_sizes) outputs *= size;
    const bool has = sh.mine().count > 0;
    std::vector<std::uint64_t> local_index(outputs, 0);
    if (has && outputs > 0) {
        const tensor_view<const T> in(input, local_sizes);
        const tensor_view<std::uint64_t> where(local_index.data(), out_sizes);
        if (maximum) tensorops::argmax(exec, in, where, axes, direction);
        else tensorops::argmin(exec, in, where, axes, direction);
    }
    std::vector<std::size_t> reduced(axes.begin(), axes.end());
    std::sort(reduced.begin(), reduced.end());
    const std::size_t rank = local_sizes.size();
    const auto local_strides = mpi::detail::packed_strides(
        [&] {
        extents_array e{};
        for (std::size_t d = 0; d < rank; ++d) e[d] = local_sizes[d];
        return e;
        }(),
        rank);
    struct candidate {
        T value;
        std::uint64_t index;
        std::uint8_t present;
    };
    constexpr std::size_t record = sizeof(T) + sizeof(std::uint64_t) + 1;
    std::vector<unsigned char> mine(outputs * record);
    std::vector<std::size_t> coordinate(rank);
    for (std::size_t o = 0; o < outputs; ++o) {
        std::size_t rest = o;
        for (std::size_t d = rank; d-- > 0;) {
            coordinate[d] = rest % out_sizes[d];
            rest /= out_sizes[d];
        }
        candidate c{T{}, 0, static_cast<std::uint8_t>(has ? 1 : 0)};
        if (has) {
            std::uint64_t flat = local_index[o];
            for (std::size_t i = reduced.size(); i-- > 0;) {
                coordinate[reduced[i]] = flat % local_sizes[reduced[i]];
                flat /= local_sizes[reduced[i]];
            }
            std::ptrdiff_t at = 0;
            for (std::size_t d = 0; d < rank; ++d) at += static_cast<std::ptrdiff_t>(coordinate[d]) * local_strides[d];
            c.value = input[at];
            for (std::size_t axis : reduced)
                c.index = c.index * sh.global[axis] + coordinate[axis] + (axis == sh.axis ? sh.mine().offset : 0);
        }
        unsigned char* bytes = mine.data() + o * record;
        std::memcpy(bytes, &c.value, sizeof(T));
        std::memcpy(bytes + sizeof(T), &c.index, sizeof(std::uint64_t));
        bytes[record - 1] = c.present;
    }
    const std::size_t ranks = sh.shards.size();
    std::vector<std::size_t> count(ranks, mine.size()), displacement(ranks);
    for (std::size_t r = 0; r < ranks; ++r) displacement[r] = r * mine.size();
    const bool receives = root < 0 || root == sh.here.rank;
    std::vector<unsigned char> all(receives ? ranks * mine.size() : 0);
    gather_bytes(comm, mine.data(), count, displacement, all.data(), root);
    if (!receives || outputs == 0) return;
    const bool last = direction == axis_direction::decreasing;
    std::vector<U> result(outputs);
    for (std::size_t o = 0; o < outputs; ++o) {
        bool found = false;
        T best_value{};
        std::uint64_t best_index = 0;
        for (std::size_t r = 0; r < ranks; ++r) {
            const unsigned char* bytes = all.data() + r * mine.size() + o * record;
            if (bytes[record - 1] == 0) continue;
            T value;
            std::uint64_t index;
            std::memcpy(&value, bytes, sizeof(T));
            std::memcpy(&index, bytes + sizeof(T), sizeof(std::uint64_t));
            if (!found || beats(value, index, best_value, best_index, maximum, last)) {
                best_value = value;
                best_index = index;
                found = true;
            }
        }
        result[o] = static_cast<U>(best_index);
    }
    unpack_into(result.data(), output);
}

}  // namespace tensorops::mpi::detail
