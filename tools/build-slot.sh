#!/usr/bin/env bash
# A compiler launcher (CMAKE_CXX_COMPILER_LAUNCHER) that lets several builds share one machine: every compilation of
# every build directory that uses it waits for a slot — at most TENSOROPS_BUILD_SLOTS compilers at once (default: the
# number of cores), whose estimated peak memory together stays within TENSOROPS_BUILD_MEMORY_GB (default: the
# machine's memory less 3 GB for the test runs beside them) — then runs the compiler command it is given.
# tools/run-tests.sh builds all its configurations at once through it: the cores never idle while one build ends
# and another waits, and no two of the sanitised unity units, which take 11-14 GB each, ever run together on a
# 24 GB machine.
#
# Scheduling: of the compilations waiting that fit in the free memory, those of the highest TENSOROPS_BUILD_PRIORITY
# (an integer, default 0: tools/run-tests.sh builds first the configurations whose tests run longest) start first, and
# among them the one expected to take longest (longest processing time first: the builds then end together instead
# of one long unit starting last), ties in order of arrival. A unit that fits nowhere (an estimate above the budget)
# runs alone.
#
# The estimates are the CPU seconds and peak memory measured by tools/compile-profile.sh
# (bench/journal/2026-11-29-ci-budget.md), by kind of unit, in GiB — a unity unit of the tests (UNITY_BUILD) optimised
# at -O2 or -O3 without the sanitizers: 270 s, 6 GiB (10 with g++'s garbage collector slowed, --param ggc-min-expand:
# 9.3 measured); unoptimised: 110 s, 5 GiB (7 slowed: 6.0 measured); with the sanitizers' instrumentation: clang's dml
# unit (the dml and the reduction tests, tests/CMakeLists.txt) 190 s, 14 GiB (13.7 measured), its others 120 s, 11 GiB
# (10.7), g++'s 150 s, 8 GiB; any other source: 20 s, 3 GiB. On 24 GiB (a budget of 20) clang's dml unit then runs
# beside the small sources only: no other unity unit of tools/run-tests.sh's configurations fits beside it.
#
# The ledger is TENSOROPS_BUILD_SLOT_DIR/ledger (default /tmp/tensorops-build-slots-$UID), guarded by flock: a line
# "run PID GB" per running compiler, "wait PID GB ARRIVAL RANK" per waiting one (RANK: priority × 100000 + expected
# seconds); lines of processes that no longer exist are dropped.
set -u
slot_dir=${TENSOROPS_BUILD_SLOT_DIR:-/tmp/tensorops-build-slots-$(id -u)}
slots=${TENSOROPS_BUILD_SLOTS:-$(nproc)}
budget=${TENSOROPS_BUILD_MEMORY_GB:-$(awk '/MemTotal/ {print int($2 / 1048576) - 3}' /proc/meminfo)}
mkdir -p "$slot_dir"
ledger="$slot_dir/ledger"
touch "$ledger"

unity=0 sanitized=0 clang=0 optimised=0 command_words=1 fewer_collections=0 dml_unit=0
for argument in "$@"; do
  case "$argument" in -*) command_words=0 ;; esac
  if [ $command_words = 1 ]; then  # the launchers and the compiler before the first option
    case "${argument##*/}" in *clang*) clang=1 ;; esac
  fi
  case "$argument" in
    */tensorops_tests.dir/Unity/unity_dml_*) unity=1 dml_unit=1 ;;
    */tensorops_tests.dir/Unity/unity_*) unity=1 ;;  # the tests' units (the demo's two are small sources)
    -fsanitize=*) sanitized=1 ;;
    -fno-sanitize=all) sanitized=0 ;;
    -O2 | -O3) optimised=1 ;;
    -O0 | -O1 | -Og | -Os) optimised=0 ;;
    ggc-min-expand=*) fewer_collections=1 ;;  # g++ collecting its garbage less often (tools/run-tests.sh): more memory
  esac
done
need=3 seconds=20
if [ $unity = 1 ]; then
  if [ $sanitized = 1 ] && [ $clang = 1 ] && [ $dml_unit = 1 ]; then need=14 seconds=190
  elif [ $sanitized = 1 ] && [ $clang = 1 ]; then need=11 seconds=120
  elif [ $sanitized = 1 ]; then need=8 seconds=150
  elif [ $optimised = 1 ]; then need=$((fewer_collections ? 10 : 6)) seconds=270
  else need=$((fewer_collections ? 7 : 5)) seconds=110
  fi
fi
if [ "$need" -gt "$budget" ]; then need=$budget; fi

# Rewrites the ledger without the lines of processes that have ended; prints the running count and memory, and the
# waiting compilation that may start next: of those that fit beside the running ones, the longest expected, the
# earliest of equals.
tidy_and_measure() {
  local kind pid gb arrival expected running=0 used=0 kept=""
  while read -r kind pid gb arrival expected; do
    [ -n "$kind" ] || continue
    kill -0 "$pid" 2>/dev/null || continue
    kept+="$kind $pid $gb ${arrival:-} ${expected:-}"$'\n'
    if [ "$kind" = run ]; then running=$((running + 1)); used=$((used + gb)); fi
  done <"$ledger"
  printf '%s' "$kept" >"$ledger"
  local best_seconds=-1 best_arrival=0 best_pid=0
  while read -r kind pid gb arrival expected; do
    [ "$kind" = wait ] || continue
    if [ $((used + gb)) -le "$budget" ] || [ "$running" -eq 0 ]; then
      if [ "$expected" -gt "$best_seconds" ] || { [ "$expected" -eq "$best_seconds" ] && [ "$arrival" -lt "$best_arrival" ]; }; then
        best_seconds=$expected best_arrival=$arrival best_pid=$pid
      fi
    fi
  done <"$ledger"
  # Nothing starts before the run's gathering time (TENSOROPS_BUILD_SLOT_DIR/gather-until, seconds since the epoch,
  # written by tools/run-tests.sh): the compilations of all its configurations queue first, so that the first to start
  # are the first in the order above rather than the first to arrive. (Two g++ unity units that had arrived first once
  # held both cores; clang's dml unit fitted beside neither and, as smaller units kept fitting, started last and took a
  # core alone to the end: bench/journal/2026-11-29-ci-budget.md.)
  if [ -f "$slot_dir/gather-until" ] && [ "$(date +%s)" -lt "$(cat "$slot_dir/gather-until")" ]; then best_pid=0; fi
  echo "$running $used $best_pid"
}

exec 9>"$slot_dir/lock"
flock 9
rank=$(( ${TENSOROPS_BUILD_PRIORITY:-0} * 100000 + seconds ))  # the order key: priority, then expected seconds
echo "wait $$ $need $(date +%s%N) $rank" >>"$ledger"
flock -u 9
while true; do
  flock 9
  read -r running used next < <(tidy_and_measure)
  if [ "$running" -lt "$slots" ] && [ "$next" = "$$" ]; then
    sed -i "s/^wait $$ .*/run $$ $need/" "$ledger"
    flock -u 9
    break
  fi
  flock -u 9
  sleep 0.5
done

"$@"
status=$?
flock 9
sed -i "/^run $$ /d" "$ledger"
flock -u 9
exit $status
