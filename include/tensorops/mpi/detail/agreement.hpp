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

/// Throws tensorops::error (naming `name`) unless `other` is sharded exactly as `input`: the same axis and shards.
inline void require_sharded_as(std::string_view operation, std::string_view name, const sharding& input,
                               const sharding& other) {
    if (input.axis != other.axis || input.shards.size() != other.shards.size())
        throw tensorops::error(operation, std::string(name).append(".axis"),
                               "differs from input.axis: it is sharded as the input");
    for (std::size_t r = 0; r < input.shards.size(); ++r)
        if (input.shards[r].offset != other.shards[r].offset || input.shards[r].count != other.shards[r].count)
            throw tensorops::error(operation, std::string(name).append(".offset"),
                                   "rank " + std::to_string(r) + "'s shard differs from its input shard");
}

/// The shardings of an operator's input and of its N outputs (named `names`, sharded as the input), checked
/// collectively (agree_on): every rank passes or every rank throws the same tensorops::error, before anything is
/// written. `local_checks` are this rank's own argument checks: called without arguments before the shardings are
/// checked, or, when it takes them, with the agreed shardings (input first) after.
template <class In, class LocalChecks, class... Outs>
[[nodiscard]] std::array<sharding, 1 + sizeof...(Outs)> agree_on_all_shardings(
    std::string_view operation, const sharded_view<In>& input,
    const std::array<std::string_view, sizeof...(Outs)>& names, const LocalChecks& local_checks,
    const sharded_view<Outs>&... outputs) {
    constexpr std::size_t views = 1 + sizeof...(Outs);
    const MPI_Comm comm = input.comm();
    if (comm == MPI_COMM_NULL) throw tensorops::error(operation, "input.comm", "is MPI_COMM_NULL: the ranks have no communicator to agree on");
    const place here = place_in(comm);
    const std::array<MPI_Comm, views - 1> comms{outputs.comm()...};
    const auto records =
        all_gather(comm, std::array<shard_record, views>{shard_record_of(input), shard_record_of(outputs)...});
    std::array<sharding, views> result;
    agree_on(comm, [&] {
        for (std::size_t v = 0; v + 1 < views; ++v)
            if (comms[v] != comm)
                throw tensorops::error(operation, std::string(names[v]).append(".comm"), "differs from input.comm");
        constexpr bool given_shardings = std::invocable<const LocalChecks&, const std::array<sharding, views>&>;
        if constexpr (!given_shardings) local_checks();
        std::vector<shard_record> of_view(records.size());
        for (std::size_t v = 0; v < views; ++v) {
            for (std::size_t r = 0; r < records.size(); ++r) of_view[r] = records[r][v];
            result[v] = sharding_of(operation, v == 0 ? std::string_view("input") : names[v - 1], of_view, here);
            if (v > 0) require_sharded_as(operation, names[v - 1], result[0], result[v]);
        }
        if constexpr (given_shardings) local_checks(std::as_const(result));
    });
    return result;
}

/// agree_on_all_shardings for an input and one output named "output"; `local_checks` given the pair of shardings if
/// it takes them.
template <class In, class Out, class LocalChecks>
[[nodiscard]] std::pair<sharding, sharding> agree_on_shardings(std::string_view operation,
                                                               const sharded_view<In>& input,
                                                               const sharded_view<Out>& output,
                                                               const LocalChecks& local_checks) {
    constexpr bool given_shardings = std::invocable<const LocalChecks&, const std::pair<sharding, sharding>&>;
    const auto checks = [&](const std::array<sharding, 2>& shardings) {
        if constexpr (given_shardings) local_checks(std::pair<sharding, sharding>(shardings[0], shardings[1]));
        else local_checks();
    };
    const auto shardings =
        agree_on_all_shardings(operation, input, std::array<std::string_view, 1>{"output"}, checks, output);
    return {shardings[0], shardings[1]};
}

}  // namespace tensorops::mpi::detail
