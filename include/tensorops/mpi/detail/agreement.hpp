// tensorops/mpi/detail/agreement.hpp — the collective checks every sharded operator opens with: the shard descriptors of
// every rank gathered in one allgather, checked identically on every rank together with the caller's own argument
// checks (agree_on), so that every rank passes or every rank throws the same tensorops::error before anything is
// written or exchanged.
#pragma once

#include "mpi_c.hpp"

#include <array>
#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../core/error.hpp"
#include "../sharded.hpp"
#include "collectives.hpp"

namespace tensorops::mpi::detail {

/// The checks of one sharded view, collectively (agree_on): every rank passes or every rank throws the same error.
template <class In, class LocalChecks>
[[nodiscard]] sharding agree_on_sharding(std::string_view operation, const sharded_view<In>& input, const LocalChecks& local_checks) {
    const MPI_Comm comm = input.comm();
    if (comm == MPI_COMM_NULL) throw tensorops::error(operation, "input.comm", "is MPI_COMM_NULL: the ranks have no communicator to agree on");
    const place here = place_in(comm);
    const auto records = all_gather(comm, shard_record_of(input));
    sharding result;
    agree_on(comm, [&] {
        result = sharding_of(operation, "input", records, here);
        local_checks(result);
    });
    return result;
}

/// The sharding of an operator's input and output, checked collectively (agree_on): every rank passes or every rank
/// throws the same tensorops::error, before anything is written. `local_checks` are this rank's own argument checks:
/// called without arguments before the shardings are checked, or, when it takes them, with the agreed shardings after.
template <class In, class Out, class LocalChecks>
[[nodiscard]] std::pair<sharding, sharding> agree_on_shardings(std::string_view operation, const sharded_view<In>& input,
                                                               const sharded_view<Out>& output, const LocalChecks& local_checks) {
    const MPI_Comm comm = input.comm();
    if (comm == MPI_COMM_NULL) throw tensorops::error(operation, "input.comm", "is MPI_COMM_NULL: the ranks have no communicator to agree on");
    const place here = place_in(comm);
    const auto records = all_gather(comm, std::array<shard_record, 2>{shard_record_of(input), shard_record_of(output)});
    std::pair<sharding, sharding> result;
    agree_on(comm, [&] {
        if (output.comm() != comm) throw tensorops::error(operation, "output.comm", "differs from input.comm");
        constexpr bool given_shardings = std::invocable<const LocalChecks&, const std::pair<sharding, sharding>&>;
        if constexpr (!given_shardings) local_checks();
        std::vector<shard_record> in(records.size()), out(records.size());
        for (std::size_t r = 0; r < records.size(); ++r) {
            in[r] = records[r][0];
            out[r] = records[r][1];
        }
        result.first = sharding_of(operation, "input", in, here);
        result.second = sharding_of(operation, "output", out, here);
        if (result.first.axis != result.second.axis || result.first.shards.size() != result.second.shards.size())
            throw tensorops::error(operation, "output.axis", "differs from input.axis: the output is sharded as the input");
        for (std::size_t r = 0; r < result.first.shards.size(); ++r)
            if (result.first.shards[r].offset != result.second.shards[r].offset || result.first.shards[r].count != result.second.shards[r].count)
                throw tensorops::error(operation, "output.offset", "rank " + std::to_string(r) + "'s output shard differs from its input shard");
        if constexpr (given_shardings) local_checks(std::as_const(result));
    });
    return result;
}

}  // namespace tensorops::mpi::detail
