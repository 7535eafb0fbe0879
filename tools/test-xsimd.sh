#!/usr/bin/env bash
# The xsimd compatibility matrix: builds and runs tensorops against each xsimd installation given, at each instruction
# set, and checks that every xsimd gives the same bits.
#
# Usage: tools/test-xsimd.sh [PREFIX ...]
#   PREFIX   an installed xsimd (what its own `cmake --install` or a distribution package puts under a prefix:
#            include/xsimd/ and its CMake package); default: /usr (Debian's libxsimd-dev). One per release to test,
#            e.g. 8.1, 9, 10, 11, 12, 13, 14 (README, "xsimd versions").
# Environment: TENSOROPS_XSIMD_ISAS (default "x86-64 x86-64-v3", plus x86-64-v4 on a CPU with AVX-512 F/BW/DQ/VL),
#   CXX (default clang++), JOBS (default 1), TENSOROPS_XSIMD_STAGES (default "consumer package tests digest"; also "simd"),
#   TENSOROPS_XSIMD_OPT (default -O1: the optimisation level of the tests and the digest).
#
# For each PREFIX (its version read from its headers):
#   package   tensorops installed once, then its CMake package used by tests/package/consumer with this xsimd's prefix
#             on CMAKE_PREFIX_PATH: find_package(tensorops) must find this xsimd (the configure message names it), and
#             the consumer must build warning-free and run;
# and for each PREFIX × ISA:
#   consumer  the README example and a call of every operator (tests/consumer/readme_example.cpp, usage.cpp) compiled as a strict consumer against this xsimd's headers
#             alone (-Wall -Wextra -Wpedantic -Wshadow -Werror, -fsyntax-only): the quick check of the headers;
#   tests     tensorops configured with CMAKE_PREFIX_PATH=PREFIX (find_package(xsimd) must report this version), the
#             tests that exercise simd/ and each operator family (tensorops_tests_xsimd, -O1) built, and run where
#             this CPU runs the ISA;
#   simd      configured likewise, the tests of simd/ alone (tensorops_tests_xsimd_simd: where the releases differ) built
#             and run likewise (CI's quick check against a newer xsimd);
#   digest    tests/output_digest.cpp built and run: its digests of every operator family's outputs must be equal for
#             every PREFIX at one ISA (bit-identical results across xsimd versions).
# Builds go to build/xsimd-<version>-<isa>; the summary, a version × ISA table, to build/xsimd-matrix/summary.md.
# Exits non-zero if any stage failed or any two digests at one ISA differ.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=ensure-packages.sh
source "$root/tools/ensure-packages.sh"
# xtl-dev: newer xsimd packages' CMake configs require xtl (find_dependency), which a fresh machine lacks.
ensure_packages cmake ninja-build clang catch2 g++ xtl-dev

cxx=${CXX:-clang++}
jobs=${JOBS:-1}
stages=" ${TENSOROPS_XSIMD_STAGES:-consumer package tests digest} "
# Whether this CPU runs code built for -march=$1 (the features the simd tests' code can use at that level).
cpu_runs() {
  local flags
  case "$1" in
    x86-64-v4) flags="avx512f avx512bw avx512dq avx512vl avx2 fma f16c" ;;
    x86-64-v3) flags="avx2 fma f16c bmi2" ;;
    *) flags="" ;;
  esac
  for flag in $flags; do grep -qw "$flag" /proc/cpuinfo || return 1; done
}
prefixes=("$@")
[ ${#prefixes[@]} -gt 0 ] || prefixes=(/usr)
if [ -n "${TENSOROPS_XSIMD_ISAS:-}" ]; then
  read -r -a isas <<<"$TENSOROPS_XSIMD_ISAS"
else
  isas=(x86-64 x86-64-v3)
  if cpu_runs x86-64-v4; then isas+=(x86-64-v4); fi
fi
matrix="$root/build/xsimd-matrix"
mkdir -p "$matrix"
failures=0

# The version an xsimd include directory declares (MAJOR.MINOR.PATCH).
xsimd_version() {
  sed -n -E 's/^#define XSIMD_VERSION_(MAJOR|MINOR|PATCH) ([0-9]+).*/\2/p' "$1/xsimd/config/xsimd_config.hpp" | paste -sd.
}
# The counts of a Catch2 run's log $1: "N cases, M assertions" when all passed, else its "test cases:" line.
catch_counts() {
  local summary
  summary=$(grep -E "^(All tests passed|test cases:)" "$1" | tail -1)
  sed -E 's/^All tests passed \(([0-9]+) assertions in ([0-9]+) test cases\).*/\2 cases, \1 assertions/' <<<"$summary"
}
# Records result $3 of stage $2 for cell $1 (version/isa) and counts failures.
record() {
  echo "$1 $2 $3" >>"$matrix/results"
  case "$3" in FAILED*) failures=$((failures + 1)); echo "== $1 $2: $3" ;; *) echo "== $1 $2: $3" ;; esac
}

: >"$matrix/results"
tensorops_prefix="$matrix/tensorops-prefix"
if [[ $stages == *" package "* ]]; then
  rm -rf "$tensorops_prefix" "$matrix/tensorops-install-build"
  cmake -S "$root" -B "$matrix/tensorops-install-build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DTENSOROPS_BUILD_TESTS=OFF \
    -DTENSOROPS_BUILD_EXAMPLES=OFF >/dev/null
  cmake --install "$matrix/tensorops-install-build" --prefix "$tensorops_prefix" >/dev/null
fi

versions=()
for prefix in "${prefixes[@]}"; do
  prefix=$(cd "$prefix" && pwd)
  include="$prefix/include"
  [ -f "$include/xsimd/xsimd.hpp" ] || { echo "no xsimd/xsimd.hpp under $include" >&2; exit 2; }
  version=$(xsimd_version "$include")
  versions+=("$version")
  echo "== xsimd $version ($prefix)"

  if [[ $stages == *" package "* ]]; then
    consumer_build="$matrix/package-$version"
    rm -rf "$consumer_build"
    if log=$(cmake -S "$root/tests/package/consumer" -B "$consumer_build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DMODE=find_package \
               "-DCMAKE_PREFIX_PATH=$tensorops_prefix;$prefix" 2>&1) &&
       grep -q "tensorops: xsimd $version in $include" <<<"$log" &&
       nice -n 10 cmake --build "$consumer_build" >"$consumer_build.log" 2>&1 && "$consumer_build/consumer" >/dev/null; then
      record "$version/all" package ok
    else
      echo "$log" | grep -i "xsimd" || true
      record "$version/all" package "FAILED (find_package(tensorops) with this xsimd: $consumer_build.log)"
    fi
  fi

  for isa in "${isas[@]}"; do
    cell="$version/$isa"
    if [[ $stages == *" consumer "* ]]; then
      # (The system's own include directory is searched already: naming it with -isystem would put it before the C++
      # library's, whose <cstdlib> then cannot #include_next <stdlib.h>.)
      xsimd_include=(-isystem "$include")
      if [ "$include" = /usr/include ]; then xsimd_include=(); fi
      if nice -n 10 "$cxx" -std=c++20 -march="$isa" -fsyntax-only -Wall -Wextra -Wpedantic -Wshadow -Werror "${xsimd_include[@]}" \
           -I "$root/include" "$root/tests/consumer/usage.cpp" "$root/tests/consumer/readme_example.cpp" >"$matrix/consumer-$version-$isa.log" 2>&1; then
        record "$cell" consumer ok
      else
        record "$cell" consumer "FAILED ($(grep -c 'error:' "$matrix/consumer-$version-$isa.log") errors: $matrix/consumer-$version-$isa.log)"
        continue
      fi
    fi
    [[ $stages == *" tests "* || $stages == *" simd "* || $stages == *" digest "* ]] || continue
    build="$root/build/xsimd-$version-$isa"
    rm -rf "$build"
    if ! log=$(cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" "-DCMAKE_PREFIX_PATH=$prefix" \
                 -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=${TENSOROPS_XSIMD_OPT:--O1} -DNDEBUG" "-DCMAKE_CXX_FLAGS=-march=$isa" \
                 -DTENSOROPS_XSIMD_MATRIX=ON -DTENSOROPS_DML_TESTS=OFF -DTENSOROPS_BUILD_EXAMPLES=OFF -DTENSOROPS_WERROR=ON 2>&1) ||
       ! grep -q "tensorops: xsimd $version in $include" <<<"$log"; then
      echo "$log" | grep -i "xsimd" || true
      record "$cell" configure "FAILED (find_package(xsimd) did not report $version in $include)"
      continue
    fi
    if [[ $stages == *" tests "* ]]; then
      if nice -n 10 cmake --build "$build" --target tensorops_tests_xsimd --parallel "$jobs" >"$build/build.log" 2>&1; then
        if ! cpu_runs "$isa"; then
          record "$cell" tests "built (not run: this CPU lacks $isa)"
        elif "$build/tests/tensorops_tests_xsimd" >"$build/tests.log" 2>&1; then
          record "$cell" tests "passed: $(catch_counts "$build/tests.log")"
        else
          record "$cell" tests "FAILED: $(catch_counts "$build/tests.log") ($build/tests.log)"
        fi
      else
        record "$cell" tests "FAILED to build ($(grep -c 'error:' "$build/build.log") errors: $build/build.log)"
      fi
    fi
    if [[ $stages == *" simd "* ]]; then
      if nice -n 10 cmake --build "$build" --target tensorops_tests_xsimd_simd --parallel "$jobs" >"$build/simd-build.log" 2>&1; then
        if ! cpu_runs "$isa"; then
          record "$cell" simd "built (not run: this CPU lacks $isa)"
        elif "$build/tests/tensorops_tests_xsimd_simd" >"$build/simd-tests.log" 2>&1; then
          record "$cell" simd "passed: $(catch_counts "$build/simd-tests.log")"
        else
          record "$cell" simd "FAILED: $(catch_counts "$build/simd-tests.log") ($build/simd-tests.log)"
        fi
      else
        record "$cell" simd "FAILED to build ($(grep -c 'error:' "$build/simd-build.log") errors: $build/simd-build.log)"
      fi
    fi
    if [[ $stages == *" digest "* ]]; then
      mkdir -p "$matrix/$isa"
      if nice -n 10 cmake --build "$build" --target tensorops_output_digest --parallel "$jobs" >"$build/digest-build.log" 2>&1 &&
         "$build/tests/tensorops_output_digest" >"$matrix/$isa/$version.digest"; then
        record "$cell" digest "ok $(tail -1 "$matrix/$isa/$version.digest" | cut -d' ' -f2)"
      else
        record "$cell" digest "FAILED ($build/digest-build.log)"
      fi
    fi
  done
done

# The digests (every line but the first, which names the xsimd) must agree at each ISA.
if [[ $stages == *" digest "* ]]; then
  for isa in "${isas[@]}"; do
    first=""
    for version in "${versions[@]}"; do
      file="$matrix/$isa/$version.digest"
      [ -f "$file" ] || continue
      if [ -z "$first" ]; then first=$file; continue; fi
      if ! diff <(tail -n +2 "$first") <(tail -n +2 "$file") >/dev/null; then
        failures=$((failures + 1))
        echo "== $isa: xsimd $version's digests differ from $(basename "$first" .digest)'s:"
        diff <(tail -n +2 "$first") <(tail -n +2 "$file") || true
      fi
    done
  done
fi

# The table: one row per version, one column per ISA (and the package check).
{
  printf "| xsimd | package |"; for isa in "${isas[@]}"; do printf " %s |" "$isa"; done; echo
  printf "|---|---|"; for _ in "${isas[@]}"; do printf -- "---|"; done; echo
  for version in "${versions[@]}"; do
    package=$(awk -v c="$version/all" '$1 == c && $2 == "package" {sub(/^[^ ]+ [^ ]+ /, ""); print}' "$matrix/results")
    printf "| %s | %s |" "$version" "${package:--}"
    for isa in "${isas[@]}"; do
      cell=$(awk -v c="$version/$isa" '$1 == c {sub(/^[^ ]+ /, ""); printf "%s; ", $0}' "$matrix/results")
      printf " %s |" "${cell%; }"
    done
    echo
  done
} >"$matrix/summary.md"
cat "$matrix/summary.md"
if [ "$failures" -ne 0 ]; then
  echo "== xsimd matrix: $failures failures"
  exit 1
fi
if [[ $stages == *" digest "* ]]; then
  echo "== xsimd matrix: every stage passed, digests equal at each ISA"
else
  echo "== xsimd matrix: every stage passed"
fi
