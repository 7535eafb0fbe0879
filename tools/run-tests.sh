#!/usr/bin/env bash
# Builds and runs every test, in four configurations:
#   gcc-baseline   g++ -Og, -march=x86-64 (SSE2), plus the package-consumption tests
#   gcc-v3         g++ -O2, -march=x86-64-v3 (AVX2, FMA, F16C)
#   clang-v3-san   clang++, -march=x86-64-v3, AddressSanitizer + UndefinedBehaviorSanitizer, plus the dml tests and the
#                  replay of the fuzzer's seed corpus (fuzz/corpus: every input, typed API or dml, checked as the fuzzer
#                  checks it)
#   gcc-scalar-san g++, -march=x86-64, xsimd disabled (scalar paths), AddressSanitizer + UndefinedBehaviorSanitizer,
#                  plus the examples
# and, when asked for by name:
#   clang-fuzz     the libFuzzer target (fuzz/fuzzer.cpp: the typed API and tensorops::dml, every result compared with
#                  the scalar reference; clang++ -O1, -march=x86-64-v3, the sanitizers; scan bands of 1 KiB and blocks
#                  of 16 KiB, the least allowed, so the fuzzer's larger tensors reach the banded scans) and a run of it
#                  of TENSOROPS_FUZZ_SECONDS (default 300) from the seed corpus: run it after changing an operator, dml/
#                  or a kernel's edge handling, and commit a few of the inputs it adds to fuzz/corpus (merged:
#                  -merge=1). For a long run: build/test-clang-fuzz/fuzz/tensorops_fuzzer -entropic=0 -runs=N
#                  -max_len=512 -print_final_stats=1 DIR fuzz/corpus (fuzz/README.md). Not in the default run, which CI
#                  runs: the fuzzer compiles every operator a second time, optimised (minutes of CPU), while the replay
#                  of its corpus shares the tests' instantiations.
#   gcc-v4         g++, -march=x86-64-v4 (512-bit registers), on a CPU with AVX-512 (F, BW, DQ, VL): run it after
#                  changing simd/ or a kernel's vector steps (a fifth optimised build of every test: ~4 more minutes).
# Translation units that instantiate the whole dml layer (every operator × data type × index type) take minutes
# each to compile and exercise dispatch code that is the same at every ISA level, so they are built where they add
# something: the dml tests and the corpus replay in clang-v3-san (under the sanitizers), the examples (the demo and
# custom_type, run as tests, under the sanitizers) in gcc-scalar-san (at -O0: they only have to run, and the demo took
# 130 s at -O1; there its 60-100 s overlap the shorter of the two unity groups, where in gcc-baseline they added
# ~45 s to the build). The kernels behind them are tested in every configuration.
# Usage: tools/run-tests.sh [configuration ...]   (default: the four above; clang-fuzz and gcc-v4 only by name)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=ensure-packages.sh
source "$root/tools/ensure-packages.sh"
ensure_packages cmake ninja-build g++ clang libclang-rt-14-dev catch2 libxsimd-dev pkg-config

jobs=$(nproc)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# Optimised builds use -O2 (what most consumers build with; -O3 doubled the compile time of the template-heavy
# tests for no extra coverage); gcc-baseline -Og (the SSE2 paths and the packaging are what it adds, and gcc-v3 has the
# -O2 optimiser over the same code: its build took 2:00 against -O1's 3:19, its tests 1:05 against 1:00). Sanitised
# builds are about finding errors, not speed, and compile time dominates
# them: gcc uses -Og (a third of -O1's compile time, tests run within 10 % of -O1), clang -O0 (a quarter of -O1's
# compile time; its -Og is -O1). The fuzzer is the exception: its executions per second are its worth, and -O1 runs
# several times as many as -O0 (bench/journal/2026-11-28-fuzz.md). No debug information: with -g, gcc took over
# nine minutes for the reduce tests alone.
# The test files are compiled in two unity translation units per configuration (TENSOROPS_UNITY_TESTS: each
# operator's kernels compiled once per group rather than once per file — half the compile time). In the sanitised
# builds the few tests that sweep large tensors over every function and shape run every other combination, or one in
# four for tensors past the block sizes (tests/support.hpp, runs_in_this_build), and CTest runs the test binary once per
# test file rather than once per test case (TENSOROPS_TESTS_PER_FILE: a sanitised process takes 0.15-0.4 s to start
# and exit, ~160 CPU-seconds over ~650 cases in clang-v3-san).
# The sanitised builds and gcc-baseline scan in blocks of 64 KiB and bands of 256 KiB (the defaults are 512 KiB and
# 2 MiB, which gcc-v3 tests): the tests of long scans size their tensors from these, and at the default sizes took
# about a third of clang-v3-san's test time (cumulative blocks 67 s, parallel long scans 55 s) for the same paths.
small_blocks="-DTENSOROPS_SCAN_BLOCK_BYTES=65536 -DTENSOROPS_SCAN_BAND_BYTES=262144"
fuzz_blocks="-DTENSOROPS_SCAN_BLOCK_BYTES=16384 -DTENSOROPS_SCAN_BAND_BYTES=1024"
release=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG")
release_og=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-Og -DNDEBUG")
sanitized=(-DCMAKE_BUILD_TYPE= -DTENSOROPS_SANITIZE=ON -DTENSOROPS_TESTS_PER_FILE=ON)
without_dml=(-DTENSOROPS_BUILD_EXAMPLES=OFF -DTENSOROPS_DML_TESTS=OFF)

# Sets `args` to the CMake arguments of configuration $1.
configure_args() {
  case "$1" in
    gcc-baseline)   args=(-DCMAKE_CXX_COMPILER=g++ "${release_og[@]}" "-DCMAKE_CXX_FLAGS=-march=x86-64 $small_blocks" -DTENSOROPS_PACKAGE_TESTS=ON
                          "${without_dml[@]}") ;;
    gcc-v3)         args=(-DCMAKE_CXX_COMPILER=g++ "${release[@]}" "-DCMAKE_CXX_FLAGS=-march=x86-64-v3" "${without_dml[@]}") ;;
    clang-v3-san)   args=(-DCMAKE_CXX_COMPILER=clang++ "${sanitized[@]}" "-DCMAKE_CXX_FLAGS=-march=x86-64-v3 -O0 $small_blocks" -DTENSOROPS_BUILD_EXAMPLES=OFF
                          -DTENSOROPS_DML_TESTS=ON) ;;
    clang-fuzz)     args=(-DCMAKE_CXX_COMPILER=clang++ "${sanitized[@]}" "-DCMAKE_CXX_FLAGS=-march=x86-64-v3 -O1 $fuzz_blocks" "${without_dml[@]}"
                          -DTENSOROPS_BUILD_TESTS=OFF -DTENSOROPS_BUILD_FUZZER=ON "-DTENSOROPS_FUZZ_SECONDS=${TENSOROPS_FUZZ_SECONDS:-300}") ;;
    gcc-scalar-san) args=(-DCMAKE_CXX_COMPILER=g++ "${sanitized[@]}" "-DCMAKE_CXX_FLAGS=-march=x86-64 -Og $small_blocks" -DTENSOROPS_USE_XSIMD=OFF
                          -DTENSOROPS_BUILD_EXAMPLES=ON -DTENSOROPS_EXAMPLE_COMPILE_OPTIONS=-O0 -DTENSOROPS_DML_TESTS=OFF) ;;
    # GCC 12 warns of uninitialised values inside its own avx512fintrin.h (_mm512_undefined_*): not ours. And at this
    # level it took a std::vector<std::ptrdiff_t>'s destructor in test_parallel_reduce.cpp for a delete at a nonzero
    # offset (-Wfree-nonheap-object, a false positive of that warning's known family: GCC meta-bug 99098).
    gcc-v4)         args=(-DCMAKE_CXX_COMPILER=g++ "${release[@]}"
                          "-DCMAKE_CXX_FLAGS=-march=x86-64-v4 -Wno-uninitialized -Wno-maybe-uninitialized -Wno-free-nonheap-object"
                          "${without_dml[@]}") ;;
    *) echo "unknown configuration '$1'" >&2; exit 2 ;;
  esac
}

configurations=("$@")
if [ ${#configurations[@]} -eq 0 ]; then
  configurations=(gcc-v3 clang-v3-san gcc-baseline gcc-scalar-san)  # lanes (below): gcc-v3, gcc-baseline | the sanitised
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
# The builds run in two lanes at once, each building its configurations in turn with two jobs (four compilers on two
# cores): a build's last, longest translation unit no longer leaves a core idle, which was a minute or more of each
# configuration's build. Then each configuration's tests run in turn.
for configuration in "${configurations[@]}"; do
  configure_args "$configuration"
  cmake -S "$root" -B "$root/build/test-$configuration" -G Ninja -DTENSOROPS_WERROR=ON -DTENSOROPS_UNITY_TESTS=ON "${args[@]}" >/dev/null
done
# Builds the configurations given, one after the other, each into its build/test-<configuration>/build.log.
build_lane() {
  local configuration build
  for configuration in "$@"; do
    build="$root/build/test-$configuration"
    echo "== $configuration: build"
    if ! cmake --build "$build" --parallel "$jobs" >"$build/build.log" 2>&1; then
      echo "== $configuration: build FAILED"
      cat "$build/build.log"
      return 1
    fi
    echo "== $configuration: built"
  done
}
lane_one=() lane_two=()
for index in "${!configurations[@]}"; do  # by default gcc-v3 + gcc-baseline beside the sanitised two: ~750 CPU-s each
  if [ $((index % 2)) -eq 0 ]; then lane_one+=("${configurations[$index]}"); else lane_two+=("${configurations[$index]}"); fi
done
build_lane "${lane_one[@]}" &
lane_one_pid=$!
lane_two_status=0
if [ ${#lane_two[@]} -gt 0 ]; then build_lane "${lane_two[@]}" || lane_two_status=$?; fi
lane_one_status=0
wait "$lane_one_pid" || lane_one_status=$?
if [ "$lane_one_status" -ne 0 ] || [ "$lane_two_status" -ne 0 ]; then
  exit 1
fi

total_passed=0
total_failed=0
for configuration in "${configurations[@]}"; do
  build="$root/build/test-$configuration"
  echo "== $configuration: run"
  log="$build/ctest.log"
  set +e
  ctest --test-dir "$build" --parallel "$jobs" --output-on-failure --timeout 600 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  summary=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -1)
  ran=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary")
  failed=$(sed -E 's/.* ([0-9]+) tests failed.*/\1/' <<<"$summary")
  total_passed=$((total_passed + ran - failed))
  total_failed=$((total_failed + failed))
  if [ "$status" -ne 0 ]; then
    echo "== $configuration: FAILED"
    echo "tests: $total_passed passed, $total_failed failed"
    exit 1
  fi
done
echo "== all configurations passed: ${configurations[*]}"
echo "tests: $total_passed passed, $total_failed failed"
