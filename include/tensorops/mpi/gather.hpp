// tensorops/mpi/gather.hpp — gather-ND from a sharded input: each rank gathers its own index tuples (in global
// coordinates) from the global tensor, the slices fetched from the ranks that hold them; bit-identical to
// tensorops::gather_nd on the gathered input.
#pragma once

#include "detail/mpi_c.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../core/element.hpp"
#include "../core/tensor_view.hpp"
#include "../exec/executor.hpp"
#include "../ops/arguments.hpp"
#include "../ops/gather.hpp"
#include "detail/agreement.hpp"
#include "detail/collectives.hpp"
#include "detail/staging.hpp"
#include "detail/tuple_routing.hpp"
#include "sharded.hpp"

namespace tensorops::mpi {
namespace detail {

/// The sharded gather (see gather_nd below). Algorithm, after the collective checks (which validate every tuple):
///   1. each rank routes its tuples (detail/tuple_routing.hpp: to the owner of the slice, or to every non-empty
///      shard when the sharded axis lies within the slices), and the ranks exchange how many (MPI_Alltoall);
///   2. the tuples travel to the ranks asked (MPI_Alltoallv), which gather them from their shard with the library's
///      gather_nd, the received tuples as one index array of batch position ++ coordinates (batch_dims 0);
///   3. the slices (or their parts) travel back (MPI_Alltoallv) in the order the tuples were sent, and each rank puts
///      them in row-major order of its index array — a copy of the same elements, so the bits are the single process's.
template <class T, class I>
void sharded_gather(const executor_ref& exec, std::string_view operation, const sharded_view<const T>& input,
                    const tensor_view<const I>& indices, const tensor_view<T>& output, std::size_t batch_dims) {
    const tensor_view<const T>& local = input.local();
    const sharding sh = agree_on_sharding(operation, input, [&](const sharding& s) {
        const global_layout global(s);
        tensorops::detail::require_gather_shapes(operation, global.get(), tensorops::detail::layout_of(indices),
                                                 tensorops::detail::layout_of(output), batch_dims);
        tensorops::detail::require_unique(operation, "output", output);
        tensorops::detail::require_disjoint(operation, "output", output, "input.local", local);
        tensorops::detail::require_disjoint(operation, "output", output, "indices", indices);
        const auto plan =
            tensorops::detail::plan_tuples(tensorops::detail::layout_of(indices), tensorops::detail::layout_of(output),
                                           global.get(), batch_dims);
        validate_global_tuples(exec, operation, indices, plan,
                               s.here.rank);  // every tuple of every rank, before any exchange
    });
    const MPI_Comm comm = input.comm();
    const auto me = static_cast<std::size_t>(sh.here.rank);
    const tuple_routing routing(sh, batch_dims + indices.size(indices.rank() - 1));
    const routed_tuples routed = route_tuples(indices, routing, batch_dims);
    const std::vector<std::size_t> asked = exchange_counts(comm, routed.count);  // tuples each rank asks of this one
    const std::size_t record = routing.prefix * sizeof(std::int64_t);
    const byte_blocks tuples_out(routed.count, [&](std::size_t) { return record; }),
        tuples_in(asked, [&](std::size_t) { return record; });
    const byte_blocks slices_out(asked, [&](std::size_t) { return routing.piece_elements(me) * sizeof(T); });
    const byte_blocks slices_in(routed.count, [&](std::size_t r) { return routing.piece_elements(r) * sizeof(T); });

    std::vector<std::int64_t> requests(tuples_in.total / sizeof(std::int64_t));
    exchange_bytes(comm, routed.coordinates.data(), tuples_out, requests.data(), tuples_in);
    const std::size_t requested = requests.size() / routing.prefix;
    std::vector<T> answers(requested * routing.piece_elements(me));
    if (!answers.empty()) {
        const std::vector<std::size_t> request_sizes{requested, routing.prefix};
        const std::vector<std::size_t> answer_sizes = records_of(requested, local.sizes(), routing.prefix);
        tensorops::gather_nd(exec, local, tensor_view<const std::int64_t>(requests.data(), request_sizes),
                             tensor_view<T>(answers.data(), answer_sizes));
    }
    std::vector<T> slices(slices_in.total / sizeof(T));
    exchange_bytes(comm, answers.data(), slices_out, slices.data(), slices_in);

    if (output.empty()) return;
    const std::size_t slice = routing.slice_elements();
    std::vector<T> staging;
    T* result = output.data();
    if (!is_packed(output)) {
        staging.resize(output.element_count());
        result = staging.data();
    }
    for (std::size_t n = 0; n < routed.tuples; ++n) {
        if (!routing.spread) {
            routing.paste(slices.data() + routed.position[n] * slice, result + n * slice, 0);
            continue;
        }
        for (std::size_t r = 0; r < sh.shards.size(); ++r)
            if (sh.shards[r].count > 0)
                routing.paste(slices.data() + slices_in.displacement[r] / sizeof(T) + n * routing.piece_elements(r),
                              result + n * slice, r);
    }
    if (!staging.empty()) unpack_into(staging.data(), output);
}

}  // namespace detail

/// Gather-ND from a sharded input: for every index tuple p of this rank's `indices` (shape [..., k]),
///   output[p, j…] = global[p[0:b]…, indices[p, 0], …, indices[p, k−1], j…]
/// where `global` is the tensor the ranks' shards of `input` form (tensorops::gather_nd's rules, with batch_dims b,
/// applied to the global tensor: output sizes = indices.shape[:-1] ++ global.shape[b+k:]). `indices` and `output` are
/// this rank's own (any sizes, any strides; each rank may gather a different number of tuples, none included); the
/// coordinates index the GLOBAL tensor (the sharded axis's global indices; signed ones may count from the end).
/// A collective: every rank of the communicator calls it, in the same order as its other collectives.
///
/// Result: on every rank, bit for bit what tensorops::gather_nd writes for that rank's indices on the gathered global
/// tensor — for any number of ranks, any shard sizes (unequal, empty), any sharded axis (among the batch
/// dimensions, the indexed ones or the slice's) and any executor. Duplicate tuples read the same slice twice.
/// T: any `element` that is trivially copyable (slices travel as bytes). Aliasing: output must not overlap
/// input.local() or indices.
/// Errors (tensorops::error, on every rank, before anything is written or exchanged on any rank): the sharding errors
/// of mpi::cumulative_sum; what tensorops::gather_nd refuses, on any rank, for that rank's indices and output against
/// the global tensor — a tuple out of range on one rank is reported on every rank (the lowest such rank's first bad
/// tuple, "on rank r" in its rule).
/// Communication (P ranks): the checks (one allgather, one allreduce), one alltoall of counts, an alltoallv of the
/// tuples (b + k int64 each) and one of the slices, each after an allreduce of the rounds it needs (one while every
/// rank's blocks fit MPI's int counts, 2 GiB; more past it: detail::exchange_bytes). Each tuple goes to the one rank
/// that holds its slice, or, when the sharded axis lies within the slices, to every non-empty shard, which returns its
/// part.
template <element T, index_element I, class E>
    requires executor<std::remove_reference_t<E>> && std::is_trivially_copyable_v<T>
void gather_nd(E&& exec, sharded_view<const std::type_identity_t<T>> input, tensor_view<const I> indices,
               tensor_view<T> output, std::size_t batch_dims = 0) {
    detail::sharded_gather<T, I>(exec, "mpi::gather_nd", input, indices, output, batch_dims);
}
/// mpi::gather_nd on the calling thread of each rank.
template <element T, index_element I>
    requires std::is_trivially_copyable_v<T>
void gather_nd(sharded_view<const std::type_identity_t<T>> input, tensor_view<const I> indices, tensor_view<T> output,
               std::size_t batch_dims = 0) {
    detail::sharded_gather<T, I>(sequential, "mpi::gather_nd", input, indices, output, batch_dims);
}

}  // namespace tensorops::mpi
