// tests/mpi/test_mpi_collectives.cpp — the byte exchanges under every sharded operator, of any size: MPI's counts and
// displacements are ints, so past 2 GiB the gathers, the alltoallv and the point-to-point chain go in pieces. The
// limit is a parameter of each; here it is a few bytes, so that random blocks (empty ones included) cross it in every
// way, and every byte must arrive where the one-call exchange puts it.
#include "mpi_support.hpp"

#include <tensorops/mpi/detail/collectives.hpp>
#include <tensorops/mpi/detail/reshard.hpp>
#include <tensorops/mpi/detail/tuple_routing.hpp>

namespace mpi_test {

inline unsigned char byte_of(std::size_t from, std::size_t to, std::size_t i, std::size_t trial) {
    return static_cast<unsigned char>(from * 131 + to * 17 + i * 7 + trial * 3 + 1);
}

void collectives_trial(context& c, std::size_t trial) {
    namespace d = tensorops::mpi::detail;
    const auto ranks = static_cast<std::size_t>(c.ranks), me = static_cast<std::size_t>(c.rank);
    const std::size_t limit = c.chance(0.2) ? d::message_byte_limit : c.uniform(1, 40);
    const std::size_t round_bytes = c.uniform(1, 200);
    const std::string what = "trial " + std::to_string(trial) + ", limit " + std::to_string(limit) + ", rounds of " + std::to_string(round_bytes);

    // gather_bytes: every rank's block (the same counts on every rank), on every rank or on a root, placed with gaps.
    std::vector<std::size_t> count(ranks), displacement(ranks);
    std::size_t total = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
        count[r] = c.chance(0.2) ? 0 : c.uniform(1, 120);
        total += c.uniform(0, 3);  // a gap
        displacement[r] = total;
        total += count[r];
    }
    const int root = c.chance(0.5) ? -1 : static_cast<int>(c.uniform(0, ranks - 1));
    std::vector<unsigned char> mine(count[me]), all(total, 0xEE);
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = byte_of(me, 0, i, trial);
    d::gather_bytes(c.comm, mine.data(), count, displacement, all.data(), root, limit);
    if (root < 0 || root == c.rank) {
        std::size_t wrong = 0;
        for (std::size_t r = 0; r < ranks; ++r)
            for (std::size_t i = 0; i < count[r]; ++i) wrong += all[displacement[r] + i] != byte_of(r, 0, i, trial);
        c.check(wrong == 0, "gather_bytes, " + what + ", root " + std::to_string(root) + ": " + std::to_string(wrong) + " bytes wrong");
    }

    // exchange_bytes: a random matrix of block sizes (sender × receiver), the same on every rank.
    std::vector<std::size_t> matrix(ranks * ranks);
    for (auto& bytes : matrix) bytes = c.chance(0.25) ? 0 : c.uniform(1, 150);
    std::vector<std::size_t> sends(ranks), receives(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
        sends[r] = matrix[me * ranks + r];
        receives[r] = matrix[r * ranks + me];
    }
    const d::byte_blocks send(sends, [](std::size_t) { return std::size_t{1}; }), receive(receives, [](std::size_t) { return std::size_t{1}; });
    std::vector<unsigned char> outgoing(send.total), incoming(receive.total, 0xEE);
    for (std::size_t r = 0; r < ranks; ++r)
        for (std::size_t i = 0; i < send.bytes[r]; ++i) outgoing[send.displacement[r] + i] = byte_of(me, r, i, trial);
    d::exchange_bytes(c.comm, outgoing.data(), send, incoming.data(), receive, limit, round_bytes);
    std::size_t wrong = 0;
    for (std::size_t s = 0; s < ranks; ++s)
        for (std::size_t i = 0; i < receive.bytes[s]; ++i) wrong += incoming[receive.displacement[s] + i] != byte_of(s, me, i, trial);
    c.check(wrong == 0, "exchange_bytes, " + what + ": " + std::to_string(wrong) + " bytes wrong");

    // reshard_flat: a tensor sharded along axis 1 or 2 moved into even ranges of its rows, by MPI_Alltoallw with types
    // (limit: the default) or packed through exchange_bytes (a small limit): every element at its global place.
    {
        d::sharding sh;
        sh.rank_dims = 3;
        sh.axis = c.uniform(1, 2);
        sh.global = {c.uniform(1, 5), c.uniform(1, 9), c.uniform(1, 7), 1, 1, 1, 1, 1};
        sh.here = {c.rank, c.ranks};
        const auto counts = random_split(c, sh.global[sh.axis]);
        sh.shards.resize(ranks);
        for (std::size_t r = 0, offset = 0; r < ranks; offset += counts[r], ++r) sh.shards[r] = {offset, counts[r]};
        const std::size_t width = c.chance(0.5) ? 1 : sh.global[2];
        std::vector<std::uint32_t> shard;
        const auto& mine_shard = sh.mine();
        for (std::size_t p = 0; p < sh.outer(); ++p)
            for (std::size_t s = 0; s < mine_shard.count * sh.inner(); ++s)
                shard.push_back(static_cast<std::uint32_t>((p * sh.along() + mine_shard.offset) * sh.inner() + s));
        tensorops::mpi::shard_range flat;
        const auto line = d::reshard_flat(c.comm, sh, shard.data(), width, flat, limit);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < flat.count; ++i) bad += line[i] != flat.offset + i;
        c.check(bad == 0 && flat.count % width == 0,
                "reshard_flat, " + what + ": " + std::to_string(bad) + " elements misplaced");
    }

    // send_bytes / receive_bytes around the ring.
    if (ranks > 1) {
        const std::size_t size = c.uniform(0, 90);
        const int next = static_cast<int>((me + 1) % ranks), previous = static_cast<int>((me + ranks - 1) % ranks);
        std::vector<unsigned char> message(size), received(size, 0xEE);
        for (std::size_t i = 0; i < size; ++i) message[i] = byte_of(me, 1, i, trial);
        if (me % 2 == 0) {
            d::send_bytes(c.comm, message.data(), size, next, d::chain_tag, limit);
            d::receive_bytes(c.comm, received.data(), size, previous, d::chain_tag, limit);
        } else {
            d::receive_bytes(c.comm, received.data(), size, previous, d::chain_tag, limit);
            d::send_bytes(c.comm, message.data(), size, next, d::chain_tag, limit);
        }
        std::size_t bad = 0;
        for (std::size_t i = 0; i < size; ++i) bad += received[i] != byte_of(static_cast<std::size_t>(previous), 1, i, trial);
        c.check(bad == 0, "send_bytes / receive_bytes, " + what + ": " + std::to_string(bad) + " bytes wrong");
    }
}

}  // namespace mpi_test

int main(int argc, char** argv) {
    std::size_t trial = 0;
    return mpi_test::run_trials(argc, argv, "test_mpi_collectives", 200,
                                [&](mpi_test::context& c, tensorops::thread_pool&) { mpi_test::collectives_trial(c, trial++); });
}
