#!/usr/bin/env bash
# Compile time as a budget (issue 46): the CPU seconds (user + system) a consumer's translation unit costs, compile only
# (-c), for the same tasks in tensorops and in its peers, in interleaved rounds (each round compiles every case once, so
# a busy second core or a slow spell touches every case alike), and the median per case and of the per-round ratios to
# Eigen's Tensor module. The tasks (bench/compile_time/):
#   include          `#include <tensorops/tensorops.hpp>` and a trivial main
#   readme           the README's usage example (tests/consumer/readme_example.cpp, which the strict consumer test builds
#                    too): two scans, a reduction, argmax, a scatter-ND — header-only, and in compiled mode
#                    (TENSOROPS_COMPILED=1: the built-in types' operators are the library's, so the translation unit
#                    compiles only the calls)
#   readme, Eigen    the same computations with Eigen 3.4's Tensor module (eigen.cpp)
#   readme, xtensor  the same with xtensor 0.24 (xtensor.cpp)
#   dml call         one dml::execute call site (dml_execute.cpp), compiled mode, and header-only in the first round only
#                    (it instantiates the reduce operator for all twelve element types: minutes)
# Flags: -std=c++20 -O2 and nothing else (what a consumer builds with), for g++ and clang++.
#
#   bench/compile_time.sh            # print the table
#   bench/compile_time.sh --write    # also put it into bench/RESULTS.md between the compile-time markers
# Environment: TENSOROPS_CT_ROUNDS (default 5), TENSOROPS_CT_COMPILERS (default "g++ clang++"). Installs the peers' and
# GNU time's Debian packages when missing (libeigen3-dev libxtensor-dev time).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../tools/ensure-packages.sh
source "$root/tools/ensure-packages.sh"
ensure_packages libeigen3-dev libxtensor-dev libxsimd-dev time
rounds="${TENSOROPS_CT_ROUNDS:-5}"
read -r -a compilers <<<"${TENSOROPS_CT_COMPILERS:-g++ clang++}"
write=0
for arg in "$@"; do
  case "$arg" in
    --write) write=1 ;;
    *) echo "compile_time.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

sources="$root/bench/compile_time"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf '#include <tensorops/tensorops.hpp>\nint main() { return sizeof(tensorops::error) == 0 ? 1 : 0; }\n' >"$work/include.cpp"

# The cases: name | source | extra flags. "header-only" cases see only include/; "compiled" ones the same headers
# with TENSOROPS_COMPILED=1 (what linking tensorops::compiled gives a translation unit).
cases=(
  "include, header-only|$work/include.cpp|"
  "readme, header-only|$root/tests/consumer/readme_example.cpp|"
  "readme, compiled|$root/tests/consumer/readme_example.cpp|-DTENSOROPS_COMPILED=1"
  "readme, Eigen Tensor|$sources/eigen.cpp|-I/usr/include/eigen3"
  "readme, xtensor|$sources/xtensor.cpp|"
  "dml call, compiled|$sources/dml_execute.cpp|-DTENSOROPS_COMPILED=1"
  "dml call, header-only|$sources/dml_execute.cpp|"
)
first_round_only="dml call, header-only"

# cpu_seconds CXX SOURCE FLAGS... : the compiler's user + system CPU seconds for one compilation
cpu_seconds() {
  local cxx="$1" source="$2"
  shift 2
  /usr/bin/time -f '%U %S' -o "$work/time" "$cxx" -std=c++20 -O2 "$@" -I"$root/include" -c "$source" -o "$work/tu.o"
  awk '{ printf "%.2f", $1 + $2 }' "$work/time"
}

samples="$work/samples"  # compiler|case|round|seconds
: >"$samples"
for ((round = 1; round <= rounds; ++round)); do
  for cxx in "${compilers[@]}"; do
    for entry in "${cases[@]}"; do
      IFS='|' read -r name source flags <<<"$entry"
      if [ "$name" = "$first_round_only" ] && [ "$round" -gt 1 ]; then continue; fi
      # shellcheck disable=SC2086  # $flags is empty or one flag
      seconds=$(cpu_seconds "$cxx" "$source" $flags)
      echo "$cxx|$name|$round|$seconds" >>"$samples"
      echo "round $round/$rounds  $cxx  $name: $seconds s" >&2
    done
  done
done

table="$work/table.md"
{
  echo "| compiler | task | CPU seconds (median of $rounds rounds) | × Eigen Tensor's readme (median of the rounds' ratios) |"
  echo "| --- | --- | ---: | ---: |"
  for cxx in "${compilers[@]}"; do
    version="$("$cxx" --version | head -n1 | sed -E 's/.* ([0-9]+\.[0-9]+\.[0-9]+).*/\1/')"
    for entry in "${cases[@]}"; do
      IFS='|' read -r name _ _ <<<"$entry"
      awk -F'|' -v cxx="$cxx" -v name="$name" -v version="$version" '
        function median(values, n,   i, j, t) {
          for (i = 2; i <= n; ++i) for (j = i; j > 1 && values[j - 1] > values[j]; --j) { t = values[j]; values[j] = values[j - 1]; values[j - 1] = t }
          return n % 2 ? values[(n + 1) / 2] : (values[n / 2] + values[n / 2 + 1]) / 2
        }
        $1 == cxx && $2 == "readme, Eigen Tensor" { eigen[$3] = $4 }
        $1 == cxx && $2 == name { seconds[$3] = $4 }
        END {
          n = 0; r = 0
          for (round in seconds) { all[++n] = seconds[round]; if (round in eigen) ratios[++r] = seconds[round] / eigen[round] }
          printf "| %s %s | %s | %.2f%s | %.2f |\n", cxx, version, name, median(all, n), n == 1 ? " (one round)" : "", median(ratios, r)
        }' "$samples"
    done
  done
} >"$table"

header="Compile only (\`-c\`), \`-std=c++20 -O2\` and nothing else, CPU seconds of the compiler; measured $(date -u +%Y-%m-%d) by
\`bench/compile_time.sh\` on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs."
echo "$header"
echo
cat "$table"

if ((write)); then
  results="$root/bench/RESULTS.md"
  begin='<!-- compile-time:begin -->'
  end='<!-- compile-time:end -->'
  if ! grep -qF "$begin" "$results" || ! grep -qF "$end" "$results"; then
    echo "compile_time.sh: $results lacks the markers $begin / $end" >&2
    exit 1
  fi
  { echo "$header"; echo; cat "$table"; } >"$work/section.md"
  awk -v begin="$begin" -v end="$end" -v section="$work/section.md" '
    $0 == begin { print; while ((getline line < section) > 0) print line; skipping = 1; next }
    $0 == end { skipping = 0 }
    !skipping { print }
  ' "$results" >"$work/RESULTS.md"
  cp "$work/RESULTS.md" "$results"
  echo "compile_time.sh: updated $results" >&2
fi
