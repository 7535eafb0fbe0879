# tests/compiled/compare_digests.cmake — dispatched against static, bit for bit: tests/output_digest.cpp built against
# tensorops::compiled (COMPILED, no -march) and run with TENSOROPS_ISA = each level the CPU runs must print the same
# digests as the header-only builds of output_digest.cpp at that level's -march (STATIC_sse2, STATIC_avx2,
# STATIC_avx512). The first line (xsimd and register width) differs between the builds; every later one is compared.
#   cmake -DCOMPILED=<exe> -DSTATIC_sse2=<exe> -DSTATIC_avx2=<exe> -DSTATIC_avx512=<exe> -DBEST=<exe printing the CPU's
#         best level> -P this file
cmake_minimum_required(VERSION 3.20)
execute_process(COMMAND ${BEST} best OUTPUT_VARIABLE best OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT best MATCHES "^(sse2|avx2|avx512)$")
  message(FATAL_ERROR "could not read the CPU's best level (${BEST} best: '${best}')")
endif()
set(levels sse2)
if(best STREQUAL "avx2")
  list(APPEND levels avx2)
elseif(best STREQUAL "avx512")
  list(APPEND levels avx2 avx512)
endif()

function(digests_of output_variable)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${status}):\n${out}")
  endif()
  string(REGEX REPLACE "^[^\n]*\n" "" out "${out}")  # the first line names the build
  set(${output_variable} "${out}" PARENT_SCOPE)
endfunction()

set(failed OFF)
foreach(level IN LISTS levels)
  digests_of(dispatched ${CMAKE_COMMAND} -E env TENSOROPS_ISA=${level} ${COMPILED})
  digests_of(static ${STATIC_${level}})
  if(dispatched STREQUAL static)
    message(STATUS "${level}: dispatched = static\n${static}")
  else()
    message(SEND_ERROR "${level}: the dispatched digests differ from the static build's\ndispatched:\n${dispatched}static:\n${static}")
    set(failed ON)
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "dispatched and static results differ")
endif()
message(STATUS "levels compared: ${levels} (the CPU's best: ${best})")
