// tensorops/version.hpp — the version of these headers. The one place it is written: CMakeLists.txt reads it from here
// for the CMake package and the pkg-config file.
#pragma once

/// MAJOR.MINOR.PATCH, Semantic Versioning: a MINOR release adds to the public API (tensorops.hpp) without breaking it.
#define TENSOROPS_VERSION_MAJOR 0
#define TENSOROPS_VERSION_MINOR 1
#define TENSOROPS_VERSION_PATCH 0

/// The version as one number for `#if` comparisons: MAJOR · 10000 + MINOR · 100 + PATCH.
#define TENSOROPS_VERSION (TENSOROPS_VERSION_MAJOR * 10000 + TENSOROPS_VERSION_MINOR * 100 + TENSOROPS_VERSION_PATCH)
