#!/usr/bin/env bash
# Builds and runs every test, in three configurations (CI runs exactly these):
#   clang-v3-san     clang++ -O0, -march=x86-64-v3, AddressSanitizer + UndefinedBehaviorSanitizer, plus the dml tests,
#                    the tests that no instruction set changes (validation, views, plans, the pool: tests/CMakeLists.txt),
#                    the examples (the demo and custom_type, run as tests, uninstrumented) and the README example as a
#                    strict consumer (-Wall -Wextra -Wpedantic -Wshadow -Werror, at v3 and at baseline); the typed
#                    tests over the integer set 2 (uint8, int16, uint32, int64; gcc-v3, by name, takes the other four)
#   gcc-baseline     g++ -Og, -march=x86-64 (SSE2 through xsimd; every element type; the tests without forced inlining,
#                    core/inline.hpp), plus the package tests (their consumers strict, at baseline), tensorops::compiled
#                    for float32 (its isolated per-level objects and the choice of level; not forced inline either)
#                    and the README example compiled as a g++ -O2 -Werror consumer at x86-64-v3 (compile only: GCC's
#                    flow warnings depend on the optimisation level) and checked as a g++ -O0 one at x86-64-v4 (front
#                    end: GCC's -O0 intrinsic macros)
#   clang-mpi        the tests of tensorops::mpi (tests/mpi) and its example, each run under mpiexec on 1-4 ranks
#                    (clang++ -O0 -march=x86-64-v3: they only have to run); installs Open MPI in its lane, beside the
#                    other builds
# clang-v3-san also builds the simd tests with xsimd switched off (tensorops_tests_scalar). And, when asked for by name:
#   gcc-v3           g++ -O2, -march=x86-64-v3 (AVX2, FMA, F16C): what most consumers build, with GCC's contraction
#                    of multiplies and adds into FMAs (the tests that compare bits across kernels see it); the typed
#                    tests over the integer set 1 (int8, uint16, int32, uint64; clang-v3-san takes the other four, so
#                    that the two test every integer type at this instruction set), float16 outside the exhaustive
#                    sweeps (clang-v3-san sweeps it). Out of the default run since 2026-11-30: its 555 CPU-seconds of
#                    -O2 compilation kept CI at 20 minutes (journal 2026-11-29-ci-budget.md). Run it after changing a
#                    kernel's floating arithmetic, an optimised path or an integer kernel
#   gcc-scalar-san   g++ -Og, -march=x86-64, xsimd disabled (every operator on the scalar paths), AddressSanitizer +
#                    UndefinedBehaviorSanitizer; the typed tests over the integer set 1 (the scalar code differs by width
#                    and signedness, not by type). Out of the default run since 2026-11-29: its 330 CPU-seconds kept the
#                    run over CI's 15 minutes (journal 2026-11-29-ci-budget.md). Run it after changing a scalar path
#                    or anything the sanitisers watch (raw memory, integer arithmetic, the pool)
#   gcc-baseline-san g++ -Og, -march=x86-64 with xsimd and the sanitizers (its reductions unit alone took 13 CPU-minutes
#                    and 10 GB: journal 2026-11-29-ci-budget.md)
#   clang-fuzz       the libFuzzer target (fuzz/fuzzer.cpp: the typed API and tensorops::dml, every result compared with
#                    the scalar reference; clang++ -O1, -march=x86-64-v3, the sanitizers) and a run of
#                    TENSOROPS_FUZZ_SECONDS (default 300) that first replays the seed corpus, every input checked: run it
#                    after changing an operator, dml/ or a kernel's edge handling (fuzz/README.md)
#   gcc-v4           g++, -march=x86-64-v4 (512-bit registers), on a CPU with AVX-512 (F, BW, DQ, VL), and the README
#                    example as a strict consumer at x86-64-v4 and at baseline: run it after changing simd/ or a kernel's
#                    vector steps
#   clang-compiled   tensorops::compiled with every element type (clang++ -O2; ~25 CPU-minutes) and its tests: the
#                    dispatched results against header-only builds at each level the CPU runs, bit for bit (run it
#                    after changing src/, the routes in ops/ or a kernel)
# Translation units that instantiate the whole dml layer (every operator × data type × index type: the dml tests, the
# demo) take minutes each to compile and exercise dispatch code that is the same at every ISA level, so they are built
# once, in clang-v3-san (clang compiles them several times faster than g++).
# Usage: tools/run-tests.sh [configuration ...]   (default: the three above)
# TENSOROPS_COMPILE_PROFILE=1 records each translation unit's CPU seconds and peak memory in
# build/test-<configuration>/compile-profile.txt (tools/compile-profile.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=ensure-packages.sh
source "$root/tools/ensure-packages.sh"
ensure_packages cmake ninja-build g++ clang libclang-rt-14-dev catch2 libxsimd-dev pkg-config

jobs=$(nproc)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# Optimised builds use -O2 (what most consumers build with; -O3 doubled the compile time of the template-heavy tests
# for no extra coverage). Sanitised builds are about finding errors, not speed, and compile time dominates them: gcc
# uses -Og (a third of -O1's compile time, tests run within 10 % of -O1), clang -O0 (a quarter of -O1's compile time;
# its -Og is -O1). The fuzzer is the exception: its executions per second are its worth, and -O1 runs several times as
# many as -O0 (bench/journal/2026-11-28-fuzz.md). No debug information: with -g, gcc took over nine minutes for the
# reduce tests alone. Nor forced inlining where the build tests correctness, not speed (core/inline.hpp: off at clang's
# -O0 by default, and in gcc-baseline's -Og tests by TENSOROPS_TEST_FORCE_INLINE=0): every forced call site is a copy of
# its callee for the compiler to translate (and instrument), and those tests run as fast without it.
# The test files are compiled in two unity translation units per configuration (TENSOROPS_UNITY_TESTS: each
# operator's kernels compiled once per group rather than once per file — half the compile time). In the sanitised
# builds the few tests that sweep large tensors over every function and shape run a share of the combinations
# (tests/support.hpp, runs_in_this_build), and in every configuration CTest runs the test binary once per test file
# rather than once per test case (TENSOROPS_TESTS_PER_FILE: a process start costs 0.05 s optimised, 0.15-0.4 s
# sanitised, over 800-1000 test cases; `ctest -R` by test case is for your own build directories).
# The scan block sizes are fixed constants (ops/detail/tuning.hpp: they decide where a long floating scan is rounded),
# so every build tests them at their real sizes; the sanitised builds run a smaller share of the long-scan cases.
# g++'s garbage collector runs less often (a collection when its heap has grown five-fold, none below 2 GB): its unity
# units compile in a quarter less CPU time for about twice the memory (9.3 GiB at -O2, 6.0 at -Og; tools/build-slot.sh's
# estimates count it; journal 2026-11-29-ci-budget.md). No effect on the code generated.
gcc_fewer_collections="--param ggc-min-expand=400 --param ggc-min-heapsize=2097152"
release=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG")
release_og=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-Og -DNDEBUG")
sanitized=(-DCMAKE_BUILD_TYPE= -DTENSOROPS_SANITIZE=ON)
without_dml=(-DTENSOROPS_BUILD_EXAMPLES=OFF -DTENSOROPS_DML_TESTS=OFF)

# Sets `args` to the CMake arguments of configuration $1, `targets` to what it builds (empty: everything),
# `test_filter` to the CTest arguments that select its tests (empty: all) and `priority` to its place in the build
# queue (tools/build-slot.sh: higher first): the configurations whose tests run longest are built first, so that
# their tests run beside the other builds instead of after them (clang-v3-san's sanitised tests, then gcc-baseline's
# with the package tests).
configure_args() {
  targets=() test_filter=() priority=0
  case "$1" in
    gcc-v3)           args=(-DCMAKE_CXX_COMPILER=g++ "${release[@]}" "-DCMAKE_CXX_FLAGS=-march=x86-64-v3 $gcc_fewer_collections" "${without_dml[@]}"
                            -DTENSOROPS_TEST_INTEGER_SET=1 -DTENSOROPS_ISA_INDEPENDENT_TESTS=OFF
                            -DTENSOROPS_SCALAR_SIMD_TESTS=OFF -DTENSOROPS_TEST_FLOAT16_SWEEPS=OFF) ;;
    clang-v3-san)     args=(-DCMAKE_CXX_COMPILER=clang++ "${sanitized[@]}" "-DCMAKE_CXX_FLAGS=-march=x86-64-v3 -O0"
                            -DTENSOROPS_BUILD_EXAMPLES=ON -DTENSOROPS_EXAMPLE_COMPILE_OPTIONS=-fno-sanitize=all
                            -DTENSOROPS_STRICT_CONSUMER=ON -DTENSOROPS_DML_TESTS=ON -DTENSOROPS_TEST_INTEGER_SET=2)
                      priority=2 ;;
    gcc-baseline)     args=(-DCMAKE_CXX_COMPILER=g++ "${release_og[@]}" "-DCMAKE_CXX_FLAGS=-march=x86-64 $gcc_fewer_collections" -DTENSOROPS_PACKAGE_TESTS=ON
                            "${without_dml[@]}" -DTENSOROPS_BUILD_COMPILED=ON -DTENSOROPS_COMPILED_TYPES=float32
                            -DTENSOROPS_STRICT_CONSUMER_O2_COMPILE=ON -DTENSOROPS_TEST_FORCE_INLINE=0 -DTENSOROPS_COMPILED_FORCE_INLINE=0
                            -DTENSOROPS_CONSUMER_O0_V4_CHECK=ON
                            -DTENSOROPS_ISA_INDEPENDENT_TESTS=OFF -DTENSOROPS_SCALAR_SIMD_TESTS=OFF)
                      priority=1 ;;
    clang-compiled)   args=(-DCMAKE_CXX_COMPILER=clang++ "${release[@]}" "${without_dml[@]}" -DTENSOROPS_BUILD_COMPILED=ON)
                      targets=(tensorops_compiled tensorops_compiled_isa_level tensorops_compiled_dml_execute tensorops_output_digest_compiled
                               tensorops_output_digest_sse2 tensorops_output_digest_avx2 tensorops_output_digest_avx512)
                      test_filter=(-R "^compiled_") ;;
    gcc-baseline-san) args=(-DCMAKE_CXX_COMPILER=g++ "${sanitized[@]}" "-DCMAKE_CXX_FLAGS=-march=x86-64 -Og" -DTENSOROPS_PACKAGE_TESTS=ON
                            -DTENSOROPS_BUILD_EXAMPLES=OFF -DTENSOROPS_DML_TESTS=OFF) ;;
    clang-fuzz)       args=(-DCMAKE_CXX_COMPILER=clang++ "${sanitized[@]}" "-DCMAKE_CXX_FLAGS=-march=x86-64-v3 -O1" "${without_dml[@]}"
                          -DTENSOROPS_BUILD_TESTS=OFF -DTENSOROPS_BUILD_FUZZER=ON "-DTENSOROPS_FUZZ_SECONDS=${TENSOROPS_FUZZ_SECONDS:-300}") ;;
    clang-mpi)        args=(-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE= "-DCMAKE_CXX_FLAGS=-march=x86-64-v3 -O0" -DTENSOROPS_BUILD_TESTS=OFF
                          -DTENSOROPS_BUILD_EXAMPLES=OFF -DTENSOROPS_MPI_TESTS=ON)
                      priority=3 ;;  # small units, first: its tests (mpiexec, ~30 s) run beside the others' builds
    gcc-scalar-san)   args=(-DCMAKE_CXX_COMPILER=g++ "${sanitized[@]}" "-DCMAKE_CXX_FLAGS=-march=x86-64 -Og" -DTENSOROPS_USE_XSIMD=OFF
                            "${without_dml[@]}" -DTENSOROPS_TEST_INTEGER_SET=1) ;;
    # GCC 12 warns of uninitialised values inside its own avx512fintrin.h (_mm512_undefined_*, GCC bug 105593): the
    # library's headers turn those warnings off around their intrinsics (simd/warnings.hpp), the tests' own vector code
    # meets them too, and the strict consumers turn them back on (tests/CMakeLists.txt). And at this
    # level it took a std::vector<std::ptrdiff_t>'s destructor in test_parallel_reduce.cpp for a delete at a nonzero
    # offset (-Wfree-nonheap-object, a false positive of that warning's known family: GCC meta-bug 99098).
    gcc-v4)           args=(-DCMAKE_CXX_COMPILER=g++ "${release[@]}"
                          "-DCMAKE_CXX_FLAGS=-march=x86-64-v4 -Wno-uninitialized -Wno-maybe-uninitialized -Wno-free-nonheap-object"
                          "${without_dml[@]}" -DTENSOROPS_STRICT_CONSUMER=ON) ;;
    *) echo "unknown configuration '$1'" >&2; exit 2 ;;
  esac
}

configurations=("$@")
if [ ${#configurations[@]} -eq 0 ]; then
  configurations=(clang-v3-san gcc-baseline clang-mpi)
  if grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo && grep -qw avx512dq /proc/cpuinfo; then
    echo "== this CPU has AVX-512: 'tools/run-tests.sh gcc-v4' tests the 512-bit paths (not part of the default run)"
  fi
fi
for configuration in "${configurations[@]}"; do
  if [ "$configuration" = gcc-v4 ] && ! { grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo && grep -qw avx512dq /proc/cpuinfo; }; then
    echo "gcc-v4 needs a CPU with AVX-512 (F, BW, DQ, VL)" >&2
    exit 2
  fi
done
# Every configuration is built and tested in a lane of its own, all at once: their compilations share the machine
# through tools/build-slot.sh (at most one compiler per core, the largest units first, their estimated peak memory
# within the machine's: the sanitised unity units take 11-14 GB each, and two of them at once overran a 24 GB machine),
# so the cores stay busy until the last build ends, and each configuration's tests run as soon as it is built, beside
# the builds still running (journal 2026-11-29-ci-budget.md). Each lane writes build/test-<configuration>/build.log and
# ctest.log, and its status to lane-status.
launchers="$root/tools/build-slot.sh"
export TENSOROPS_BUILD_SLOT_DIR="$root/build/.build-slots"  # this run's queue, empty at its start
rm -rf "$TENSOROPS_BUILD_SLOT_DIR"
mkdir -p "$TENSOROPS_BUILD_SLOT_DIR"
# The compilations of every lane queue for a few seconds (longer than the lanes' configure steps) before any starts, so
# that the order of tools/build-slot.sh decides which start first, not which lane was configured first.
echo $(($(date +%s) + 12)) >"$TENSOROPS_BUILD_SLOT_DIR/gather-until"
if [ "${TENSOROPS_COMPILE_PROFILE:-0}" = 1 ]; then ensure_packages time; launchers+=";$root/tools/compile-profile.sh"; fi
for configuration in "${configurations[@]}"; do
  rm -f "$root/build/test-$configuration/compile-profile.txt" "$root/build/test-$configuration/lane-status"
done
run_lane() {
  local configuration=$1 build="$root/build/test-$1"
  configure_args "$configuration"
  mkdir -p "$build"
  # tensorops::mpi (clang-mpi) needs an MPI implementation: installed here, while the other lanes build.
  if [ "$configuration" = clang-mpi ] && ! ensure_packages libopenmpi-dev openmpi-bin; then
    echo "== $configuration: Open MPI could not be installed"
    echo install-failed >"$build/lane-status"
    return 1
  fi
  local target_args=()
  if [ ${#targets[@]} -gt 0 ]; then target_args=(--target "${targets[@]}"); fi
  # Configured here, in its lane: the lanes' configure steps (a few seconds each, one core) run at once.
  if ! cmake -S "$root" -B "$build" -G Ninja -DTENSOROPS_WERROR=ON -DTENSOROPS_UNITY_TESTS=ON -DTENSOROPS_TESTS_PER_FILE=ON \
      "${args[@]}" "-DCMAKE_CXX_COMPILER_LAUNCHER=$launchers" >"$build/configure.log" 2>&1; then
    echo "== $configuration: configure FAILED"
    cat "$build/configure.log"
    echo configure-failed >"$build/lane-status"
    return 1
  fi
  echo "== $configuration: build"
  # Four times as many jobs as cores: the compilations wait in tools/build-slot.sh, which sees them all and starts the
  # largest first (with as many jobs as cores, a build's small units would hold its window while larger ones of other
  # builds ran, and its own large units would start last).
  if ! TENSOROPS_BUILD_PRIORITY=$priority cmake --build "$build" --parallel "$((4 * jobs))" "${target_args[@]}" >"$build/build.log" 2>&1; then
    echo "== $configuration: build FAILED"
    cat "$build/build.log"
    echo build-failed >"$build/lane-status"
    return 1
  fi
  echo "== $configuration: built; its tests run"
  if ctest --test-dir "$build" --parallel "$jobs" --output-on-failure --timeout 600 "${test_filter[@]}" >"$build/ctest.log" 2>&1; then
    echo passed >"$build/lane-status"
    echo "== $configuration: $(grep -E "tests passed" "$build/ctest.log" | tail -1)"
  else
    echo tests-failed >"$build/lane-status"
    echo "== $configuration: tests FAILED"
    cat "$build/ctest.log"
    return 1
  fi
}
status=0
lane_pids=()
for configuration in "${configurations[@]}"; do
  run_lane "$configuration" &
  lane_pids+=($!)
done
for pid in "${lane_pids[@]}"; do wait "$pid" || status=1; done

total_passed=0
total_failed=0
for configuration in "${configurations[@]}"; do
  log="$root/build/test-$configuration/ctest.log"
  summary=$(grep -sE "tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -1 || true)
  if [ -n "$summary" ]; then
    ran=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary")
    failed=$(sed -E 's/.* ([0-9]+) tests failed.*/\1/' <<<"$summary")
    total_passed=$((total_passed + ran - failed))
    total_failed=$((total_failed + failed))
  fi
done
if [ "$status" -ne 0 ]; then
  echo "== FAILED: $(for c in "${configurations[@]}"; do echo -n "$c: $(cat "$root/build/test-$c/lane-status" 2>/dev/null || echo unfinished)  "; done)"
  echo "tests: $total_passed passed, $total_failed failed"
  exit 1
fi
echo "== all configurations passed: ${configurations[*]}"
echo "tests: $total_passed passed, $total_failed failed"
