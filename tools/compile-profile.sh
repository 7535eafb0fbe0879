#!/usr/bin/env bash
# A compiler launcher (CMAKE_CXX_COMPILER_LAUNCHER) that records what each translation unit cost: it runs the compiler
# command it is given and appends "user-seconds system-seconds peak-KiB output-file" to compile-profile.txt in the
# directory it runs in (Ninja runs it in the build's top directory). tools/run-tests.sh uses it when
# TENSOROPS_COMPILE_PROFILE=1: the figures by which its configurations were planned to fit CI's 15 minutes on two cores
# and its memory.
output=unknown previous=
for argument in "$@"; do
  if [ "$previous" = -o ]; then output=$argument; fi
  previous=$argument
done
exec /usr/bin/time -a -o compile-profile.txt -f "%U %S %M ${output##*/}" "$@"
