// tensorops/mpi/detail/reduce_running_row.hpp — a floating MULTIPLY of lines of rows over the sharded axis
// (is_a_line_of_rows): the outer kernel's one running row of each line passed along the ranks, in stages of columns
// that pipeline.
//
// Why this gives the single process's bits: a floating product has no row blocks (restarting from 1 every block would
// take data in [0, 1) through subnormals again each time), so the outer kernel (reduce_rows_of_group) keeps one
// running row per line and panel of columns and folds the rows into it in order — fused `fuse` at a time where narrow
// rows lie back to back (row i into the running row's segment i mod fuse, the rows fusing leaves over into segment
// 0), the segments combined at the end. Every step is lane-wise, so a lane's product depends on its own values in row
// order and nothing else: the ranks fold their rows in rank order into the running row, passed from rank to rank, and
// columns (lanes) may be taken in any stretches. Here each line's panels of columns are the stages: a rank folds its
// rows of a stage and passes that stage's running row on while it folds the next, so the ranks work one stage apart
// where there are several (several lines, or rows wider than a panel) and one after another where there is one. The last rank combines the
// segments and finishes. Communication per rank: each line's running row once (fuse · width accumulators), whatever
// n; the outputs.
#pragma once

#include "mpi_c.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "../../ops/detail/reduce/outer.hpp"
#include "../../ops/detail/row_walk.hpp"
#include "../../simd/pack.hpp"
#include "../sharded.hpp"
#include "collectives.hpp"
#include "reduce_rows.hpp"

namespace tensorops::mpi::detail {

/// Floating MULTIPLY (policy r, the product policy) of `line` (is_a_line_of_rows), this rank's shard packed at
/// `shard`: the lines · width outputs into `result` on every rank (root < 0) or on `root`. Bit for bit the outer
/// kernel's outputs on the gathered lines (the file comment says why). A collective.
template <class T, class R>
void multiply_line_of_rows(const sharding& sh, MPI_Comm comm, const T* shard, const line_of_rows& line, T* result,
                           int root, const R& r) {
    using C = simd::compute_t<T>;
    namespace lib = tensorops::detail;
    const std::size_t me = static_cast<std::size_t>(sh.here.rank), ranks = sh.shards.size();
    const std::size_t n = line.n, width = line.width, lines = line.lines;
    const std::size_t first_row = sh.shards[me].offset * line.rows_per_index;
    const std::size_t end_row = first_row + sh.shards[me].count * line.rows_per_index, mine = end_row - first_row;
    // The kernel's panels and fusion for a line (reduce_rows_of_group: one row of accumulators).
    const std::size_t panel = lib::accumulator_rows<C, 1>::panel;
    const std::size_t fuse = lib::fused_rows<T>(width, static_cast<std::ptrdiff_t>(width), panel);
    const std::size_t fused_end = n - n % fuse;  // rows before it go to segment i mod fuse, the others to segment 0
    // Stages: the kernel's panels, so that each rank reads every row's stretch as the local kernel does (narrower
    // stages would pipeline more finely but read each row in pieces the prefetchers follow badly: bench/mpi.md).
    const std::size_t stage = std::min(panel, width);
    const std::size_t stages_per_line = (width + stage - 1) / stage;

    // The running rows: line l, stage s at running + (l · width + s · stage) · fuse, (fuse segments of its columns).
    std::vector<C> running(lines * width * fuse, static_cast<C>(r.identity()));
    const std::ptrdiff_t ahead = simd::rows_ahead_bytes<T>(static_cast<std::ptrdiff_t>(width));  // as the kernel hints
    const std::ptrdiff_t fused_ahead = simd::rows_ahead_bytes<T>(static_cast<std::ptrdiff_t>(fuse * width));
    std::vector<MPI_Request> sends;
    std::vector<T> outputs(lines * width);  // finished on the last rank, delivered from there
    for (std::size_t l = 0; l < lines; ++l)
        for (std::size_t s = 0; s < stages_per_line; ++s) {
            const std::size_t start = s * stage, w = std::min(stage, width - start), lanes = fuse * w;
            C* const row = running.data() + (l * width + start) * fuse;
            if (me > 0) receive_bytes(comm, row, lanes * sizeof(C), static_cast<int>(me - 1), chain_tag);
            const T* x = shard + l * mine * width + start;  // this rank's first row of the line, at the stage's columns
            std::size_t i = first_row;
            const auto fold_one = [&] {  // row i alone, into its segment
                const std::size_t segment = i < fused_end ? i % fuse : 0;
                lib::fold_row(x + (i - first_row) * width, row + segment * w, w, r, ahead);
                ++i;
            };
            while (i < end_row && i < fused_end && i % fuse != 0) fold_one();
            // Whole fused visits: fuse rows back to back, all segments in one fold (w = width here).
            for (; i + fuse <= std::min(end_row, fused_end) && fuse > 1; i += fuse)
                lib::fold_row(x + (i - first_row) * width, row, lanes, r, fused_ahead);
            while (i < end_row) fold_one();
            if (me + 1 < ranks)
                post_send_bytes(comm, row, lanes * sizeof(C), static_cast<int>(me + 1), chain_tag, sends);
            else lib::finish_segments(row, w, fuse, outputs.data() + l * width + start, n, r);
        }
    wait_for(sends);
    deliver_outputs(comm, sh, outputs, result, root);
}

}  // namespace tensorops::mpi::detail
