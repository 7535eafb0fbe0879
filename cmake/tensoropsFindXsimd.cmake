# Finds xsimd for tensorops, in its own build and in a consumer's (tensoropsConfig.cmake includes this file): any
# release in TENSOROPS_XSIMD_VERSION_RANGE, 8.1 up to and excluding 15 (tested: 8.1, 9, 10, 11, 12, 13 and 14).
#
# Sets TENSOROPS_XSIMD_INCLUDE_DIR (cached: the directory holding xsimd/xsimd.hpp; NOTFOUND when no xsimd in the range
# is found — the headers then take their scalar paths, same results) and TENSOROPS_XSIMD_VERSION (the version its
# headers declare), and prints which xsimd it took.
#
# Where it looks, in order: TENSOROPS_XSIMD_INCLUDE_DIR if set; xsimd's CMake package (find_package(xsimd), with
# xsimd_DIR or CMAKE_PREFIX_PATH as usual); the include path (find_path: headers installed without the package).
# - The package is asked for no version: xsimd's version files accept only their own major version (CMake's
#   SameMajorVersion, which also refuses any range spanning two majors), so find_package(xsimd 8.1...<15) would find
#   none but 8.x. The range is checked here, on the version the headers declare.
# - Only the package's include directory is taken, never its target: Debian bookworm's xsimd 8.1 target links `xtl`,
#   a target its config never creates (a -lxtl on the consumer's link line), and an include directory is all that
#   header-only code needs. Later releases link nothing.
set(TENSOROPS_XSIMD_VERSION_RANGE "8.1...<15")
string(REGEX MATCH "^([0-9.]+)\\.\\.\\.<([0-9.]+)$" _tensorops_range "${TENSOROPS_XSIMD_VERSION_RANGE}")
set(_tensorops_xsimd_min ${CMAKE_MATCH_1})
set(_tensorops_xsimd_below ${CMAKE_MATCH_2})

if(NOT TENSOROPS_XSIMD_INCLUDE_DIR)
  find_package(xsimd CONFIG QUIET)
  if(xsimd_FOUND AND TARGET xsimd)
    get_target_property(_tensorops_xsimd_dirs xsimd INTERFACE_INCLUDE_DIRECTORIES)
    foreach(_tensorops_dir IN LISTS _tensorops_xsimd_dirs)
      if(EXISTS "${_tensorops_dir}/xsimd/xsimd.hpp")
        set(TENSOROPS_XSIMD_INCLUDE_DIR "${_tensorops_dir}" CACHE PATH
            "Directory holding xsimd/xsimd.hpp (optional: tensorops falls back to scalar code)" FORCE)
        set(TENSOROPS_XSIMD_FOUND_BY " (CMake package ${xsimd_DIR})" CACHE INTERNAL "how xsimd was found")
        break()
      endif()
    endforeach()
  endif()
endif()
if(NOT TENSOROPS_XSIMD_INCLUDE_DIR)
  find_path(TENSOROPS_XSIMD_INCLUDE_DIR NAMES xsimd/xsimd.hpp
    DOC "Directory holding xsimd/xsimd.hpp (optional: tensorops falls back to scalar code)")
  set(TENSOROPS_XSIMD_FOUND_BY "" CACHE INTERNAL "how xsimd was found")
endif()

set(TENSOROPS_XSIMD_VERSION "")
if(TENSOROPS_XSIMD_INCLUDE_DIR)
  set(_tensorops_xsimd_config "${TENSOROPS_XSIMD_INCLUDE_DIR}/xsimd/config/xsimd_config.hpp")
  if(EXISTS "${_tensorops_xsimd_config}")
    file(STRINGS "${_tensorops_xsimd_config}" _tensorops_lines REGEX "#define XSIMD_VERSION_(MAJOR|MINOR|PATCH) ")
    set(_tensorops_parts "")
    foreach(_tensorops_part MAJOR MINOR PATCH)
      string(REGEX MATCH "XSIMD_VERSION_${_tensorops_part} ([0-9]+)" _tensorops_match "${_tensorops_lines}")
      list(APPEND _tensorops_parts "${CMAKE_MATCH_1}")
    endforeach()
    list(JOIN _tensorops_parts "." TENSOROPS_XSIMD_VERSION)
  endif()
  if(NOT TENSOROPS_XSIMD_VERSION MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$"
     OR TENSOROPS_XSIMD_VERSION VERSION_LESS _tensorops_xsimd_min
     OR NOT TENSOROPS_XSIMD_VERSION VERSION_LESS _tensorops_xsimd_below)
    message(WARNING "tensorops: xsimd '${TENSOROPS_XSIMD_VERSION}' in ${TENSOROPS_XSIMD_INCLUDE_DIR} is outside the "
                    "supported range ${TENSOROPS_XSIMD_VERSION_RANGE}: not used (scalar paths). Point "
                    "TENSOROPS_XSIMD_INCLUDE_DIR or xsimd_DIR at a release in the range.")
    set(TENSOROPS_XSIMD_INCLUDE_DIR "TENSOROPS_XSIMD_INCLUDE_DIR-NOTFOUND")
    set(TENSOROPS_XSIMD_VERSION "")
  endif()
endif()
if(TENSOROPS_XSIMD_INCLUDE_DIR)
  message(STATUS "tensorops: xsimd ${TENSOROPS_XSIMD_VERSION} in ${TENSOROPS_XSIMD_INCLUDE_DIR}${TENSOROPS_XSIMD_FOUND_BY}")
else()
  message(STATUS "tensorops: no xsimd in ${TENSOROPS_XSIMD_VERSION_RANGE} found: scalar paths")
endif()
