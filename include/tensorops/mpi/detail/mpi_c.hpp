// tensorops/mpi/detail/mpi_c.hpp — <mpi.h>, its C interface only: tensorops::mpi never uses the deprecated C++ bindings,
// whose Open MPI headers do not compile clean under -Wextra -Werror with g++.
#pragma once

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
