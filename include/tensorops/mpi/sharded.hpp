// tensorops/mpi/sharded.hpp — a tensor sharded across the ranks of an MPI communicator: each rank's local view and its
// place in the global tensor, and the collective check that every rank describes the same global tensor.
#pragma once

#include "detail/mpi_c.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../core/error.hpp"
#include "../core/tensor_view.hpp"
#include "detail/collectives.hpp"

namespace tensorops::mpi {

/// One rank's part of a tensor sharded along one axis in a block distribution: rank r holds the global indices
/// [offset, offset + local.size(axis)) of `axis`, every other axis whole. The shards of the ranks of `comm` tile the
/// axis in rank order (rank 0 from 0, each next rank where the one before ends, the last ending at global_size);
/// shards may have any sizes, unequal and empty included. `local` is any tensor_view (any strides, reversed or
/// padded); the global tensor it belongs to has local's sizes but global_size along `axis`.
///
/// The operators of tensorops::mpi compute, on every rank's shard, bit for bit what the single-process operator
/// computes on the gathered global tensor laid out packed row-major (the layout the single-process result is
/// defined for: a transposed global tensor is scanned in a different order). The descriptor is checked collectively
/// by each operator (see there): nothing here communicates.
template <class T>
class sharded_view {
public:
    sharded_view() noexcept = default;
    /// Records the shard; checked by the operators, never here (a check here could not reach the other ranks).
    sharded_view(tensor_view<T> local, std::size_t axis, std::size_t offset, std::size_t global_size, MPI_Comm comm) noexcept
        : local_(local), axis_(axis), offset_(offset), global_size_(global_size), comm_(comm) {}

    /// A sharded_view<T> converts to sharded_view<const T>.
    template <class U>
        requires(std::same_as<const U, T> && !std::same_as<U, T>)
    sharded_view(const sharded_view<U>& other) noexcept  // NOLINT(google-explicit-constructor): as tensor_view's
        : local_(other.local()), axis_(other.axis()), offset_(other.offset()), global_size_(other.global_size()), comm_(other.comm()) {}

    [[nodiscard]] const tensor_view<T>& local() const noexcept { return local_; }
    [[nodiscard]] std::size_t axis() const noexcept { return axis_; }
    [[nodiscard]] std::size_t offset() const noexcept { return offset_; }
    [[nodiscard]] std::size_t global_size() const noexcept { return global_size_; }
    [[nodiscard]] MPI_Comm comm() const noexcept { return comm_; }

private:
    tensor_view<T> local_;
    std::size_t axis_ = 0;
    std::size_t offset_ = 0;
    std::size_t global_size_ = 0;
    MPI_Comm comm_ = MPI_COMM_NULL;
};

/// A rank's range of the sharded axis.
struct shard_range {
    std::size_t offset = 0;
    std::size_t count = 0;
};

/// The even block distribution of `global_size` indices over `ranks` ranks: rank r gets
/// [r·global_size / ranks, (r + 1)·global_size / ranks) (sizes differ by at most one; more ranks than indices
/// leaves some empty).
[[nodiscard]] inline shard_range block_shard(std::size_t global_size, int rank, int ranks) noexcept {
    const auto r = static_cast<std::size_t>(rank), p = static_cast<std::size_t>(std::max(ranks, 1));
    const std::size_t begin = r * global_size / p, end = (r + 1) * global_size / p;
    return {begin, end - begin};
}

/// block_shard for the calling rank of `comm`.
[[nodiscard]] inline shard_range block_shard(std::size_t global_size, MPI_Comm comm) {
    const detail::place here = detail::place_in(comm);
    return block_shard(global_size, here.rank, here.ranks);
}

namespace detail {

/// What a rank says of its shard, exchanged so that every rank checks every rank's (shard_record_of).
struct shard_record {
    std::size_t rank_dims = 0, axis = 0, offset = 0, count = 0, global_size = 0;
    std::array<std::size_t, max_rank> global{};  // the local sizes, global_size along the axis (if it is one)
};

template <class T>
[[nodiscard]] shard_record shard_record_of(const sharded_view<T>& view) {
    shard_record record;
    record.rank_dims = view.local().rank();
    record.axis = view.axis();
    record.offset = view.offset();
    record.global_size = view.global_size();
    for (std::size_t d = 0; d < view.local().rank(); ++d) record.global[d] = view.local().size(d);
    if (view.axis() < view.local().rank()) {
        record.count = view.local().size(view.axis());
        record.global[view.axis()] = view.global_size();
    }
    return record;
}

/// The sharding every rank agreed on: the global sizes, the axis, each rank's range, this rank's place.
struct sharding {
    std::size_t rank_dims = 0, axis = 0;
    extents_array global{};
    std::vector<shard_range> shards;  // by rank
    place here;

    [[nodiscard]] const shard_range& mine() const { return shards[static_cast<std::size_t>(here.rank)]; }
    [[nodiscard]] std::size_t along() const noexcept { return global[axis]; }
    /// Elements of the global tensor before / after the sharded axis (products of the sizes).
    [[nodiscard]] std::size_t outer() const noexcept {
        std::size_t product = 1;
        for (std::size_t d = 0; d < axis; ++d) product *= global[d];
        return product;
    }
    [[nodiscard]] std::size_t inner() const noexcept {
        std::size_t product = 1;
        for (std::size_t d = axis + 1; d < rank_dims; ++d) product *= global[d];
        return product;
    }
};

inline std::string describe_sizes(const shard_record& record) {
    std::string text = "{";
    for (std::size_t d = 0; d < std::min(record.rank_dims, max_rank); ++d) text += (d ? ", " : "") + std::to_string(record.global[d]);
    return text + "}";
}

/// Checks that the records (one per rank, in rank order) describe one global tensor sharded in a block
/// distribution, and returns it; throws tensorops::error naming `operation` and `name` otherwise. Every rank runs
/// it on the same records, so every rank reaches the same verdict.
[[nodiscard]] inline sharding sharding_of(std::string_view operation, std::string_view name, const std::vector<shard_record>& records,
                                          place here) {
    const shard_record& first = records.front();
    const auto fail = [&](std::string_view field, const std::string& rule) { throw tensorops::error(operation, std::string(name).append(field), rule); };
    for (std::size_t r = 0; r < records.size(); ++r) {
        const shard_record& record = records[r];
        const std::string who = "rank " + std::to_string(r);
        if (record.rank_dims == 0) fail(".local", who + " gives a rank-0 view: a sharded tensor has an axis to shard");
        if (record.axis >= record.rank_dims)
            fail(".axis", who + " gives axis " + std::to_string(record.axis) + " for a view of rank " + std::to_string(record.rank_dims));
        if (record.rank_dims != first.rank_dims || record.axis != first.axis)
            fail(".axis", who + " shards axis " + std::to_string(record.axis) + " of a rank-" + std::to_string(record.rank_dims) +
                              " tensor, rank 0 axis " + std::to_string(first.axis) + " of a rank-" + std::to_string(first.rank_dims) + " tensor");
        if (record.global != first.global)
            fail(".local", who + " describes a global tensor of sizes " + describe_sizes(record) + ", rank 0 one of " + describe_sizes(first));
    }
    std::size_t expected = 0;
    for (std::size_t r = 0; r < records.size(); ++r) {
        if (records[r].offset != expected)
            fail(".offset", "rank " + std::to_string(r) + " starts at " + std::to_string(records[r].offset) + " but the shards before it end at " +
                                std::to_string(expected) + " (shards tile the axis in rank order, without gaps or overlaps)");
        expected += records[r].count;
    }
    if (expected != first.global_size)
        fail(".global_size", "the shards cover " + std::to_string(expected) + " indices of an axis of global size " + std::to_string(first.global_size));
    sharding result;
    result.rank_dims = first.rank_dims;
    result.axis = first.axis;
    for (std::size_t d = 0; d < max_rank; ++d) result.global[d] = d < first.rank_dims ? first.global[d] : 1;
    result.shards.resize(records.size());
    for (std::size_t r = 0; r < records.size(); ++r) result.shards[r] = {records[r].offset, records[r].count};
    result.here = here;
    return result;
}

/// Whether `view` is packed row-major (strides of the dimensions of size > 1 as a packed layout has them).
template <class T>
[[nodiscard]] bool is_packed(const tensor_view<T>& view) noexcept {
    std::ptrdiff_t expected = 1;
    for (std::size_t d = view.rank(); d-- > 0;) {
        if (view.size(d) > 1 && view.stride(d) != expected) return false;
        expected *= static_cast<std::ptrdiff_t>(view.size(d));
    }
    return true;
}

}  // namespace detail
}  // namespace tensorops::mpi
