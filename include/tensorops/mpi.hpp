// tensorops/mpi.hpp — the optional MPI part: operators over tensors sharded across the ranks of a communicator, their
// results bit-identical to the single-process operators on the gathered tensor (mpi/sharded.hpp says how). Needs an MPI
// implementation (CMake target tensorops::mpi); nothing of the rest of the library includes it.
#pragma once

#include "mpi/cumulative.hpp"
#include "mpi/gather.hpp"
#include "mpi/reduce.hpp"
#include "mpi/scatter.hpp"
#include "mpi/sharded.hpp"
