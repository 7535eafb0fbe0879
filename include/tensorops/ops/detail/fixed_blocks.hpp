// tensorops/ops/detail/fixed_blocks.hpp — a contiguous run computed in fixed blocks, each from scratch, their values
// folded in order: for the functions without a cascade of blocks (log-sum-exp, floating products), so that a run can
// be shared between threads with the same bits.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "../../exec/executor.hpp"
#include "../../exec/split.hpp"
#include "tuning.hpp"

namespace tensorops::detail {

// ---------------------------------------------------------------------------------------------
// Runs in fixed blocks, for the functions without a cascade of blocks: log-sum-exp and floating products.
//
// Log-sum-exp merges the states of its stretches in order, and a floating product keeps running products: neither
// can be cut into the aligned chunks of a block cascade (reduce_line_in_chunks). A contiguous run of one of them is
// computed in fixed blocks of line_fold_block elements instead: each block from scratch, the block values then
// folded in order (merge, ×). The blocks do not depend on the executor, so threads may compute them while the
// calling thread folds: bit-identical for any executor and thread count. A run of one block computes as it did
// before there were blocks. (A floating product restarts from 1 every block: for data in [0, 1) it passes through
// subnormals once per 64 Ki elements, a few dozen steps per lane — nothing like the 128-row blocks it does not
// take in the outer kernel.)

/// value(start, count) for the blocks of a run of `length` ≥ 1 elements, folded in order: fold(fold(v0, v1), v2)….
template <class S, class Value, class Fold>
S fold_blocks(std::size_t length, const Value& value, const Fold& fold) {
    S folded = value(std::size_t{0}, std::min(line_fold_block, length));
    for (std::size_t start = line_fold_block; start < length; start += line_fold_block)
        folded = fold(folded, value(start, std::min(line_fold_block, length - start)));
    return folded;
}

/// fold_blocks with the block values computed in pieces on `exec` (each writes its own), then folded on the
/// calling thread in the same order: the same result. Sequentially where the run is not worth cutting.
template <class S, class Value, class Fold>
S fold_blocks(const executor_ref& exec, std::size_t length, std::size_t element_bytes, const Value& value, const Fold& fold) {
    const std::size_t blocks = (length + line_fold_block - 1) / line_fold_block;
    const std::size_t pieces = std::min(wanted_pieces(exec, length * element_bytes), blocks);
    if (pieces < 2) return fold_blocks<S>(length, value, fold);
    std::vector<S> values(blocks);
    exec.parallel_for(pieces, [&](std::size_t piece) {
        for (std::size_t b = piece * blocks / pieces; b < (piece + 1) * blocks / pieces; ++b) {
            const std::size_t start = b * line_fold_block;
            values[b] = value(start, std::min(line_fold_block, length - start));
        }
    });
    S folded = values[0];
    for (std::size_t b = 1; b < blocks; ++b) folded = fold(folded, values[b]);
    return folded;
}

/// fold_blocks on *exec, or sequentially when exec is null.
template <class S, class Value, class Fold>
S fold_blocks_on(const executor_ref* exec, std::size_t length, std::size_t element_bytes, const Value& value, const Fold& fold) {
    return exec == nullptr ? fold_blocks<S>(length, value, fold) : fold_blocks<S>(*exec, length, element_bytes, value, fold);
}

}  // namespace tensorops::detail
