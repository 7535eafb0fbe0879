# cmake -DMODE=<add_subdirectory|find_package|copy_include|pkg_config|compiled> -DTENSOROPS_SOURCE_DIR=... \
#       -DCONSUMER_DIR=... -DCXX_COMPILER=... -DWORK_DIR=... [-DBUILD_DIR=...] -P run_package_test.cmake
# MODE compiled installs BUILD_DIR (a build with TENSOROPS_BUILD_COMPILED=ON, already built) and consumes
# tensorops::compiled through find_package and through pkg-config.
cmake_minimum_required(VERSION 3.20)

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " command "${ARGV}")
    message(FATAL_ERROR "command failed (${result}): ${command}\n${output}")
  endif()
endfunction()

set(work ${WORK_DIR}/${MODE})
set(prefix ${WORK_DIR}/install-prefix)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})

# Configured with the default prefix and installed elsewhere with --install --prefix, as packagers and users of a
# private prefix do: nothing installed may remember the configured prefix. A copy of the installation moved to
# another directory (relocated) must work as well.
set(relocated ${WORK_DIR}/relocated-prefix)
# install_tensorops(<destination> [<moved copy>]): the header-only package configured (in <destination>-build) and
# installed into <destination>, and copied to <moved copy> when given.
function(install_tensorops destination)
  file(REMOVE_RECURSE ${destination} ${destination}-build ${ARGN})
  run(${CMAKE_COMMAND} -S ${TENSOROPS_SOURCE_DIR} -B ${destination}-build -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
      -DTENSOROPS_BUILD_TESTS=OFF -DTENSOROPS_BUILD_EXAMPLES=OFF)
  run(${CMAKE_COMMAND} --install ${destination}-build --prefix ${destination})
  if(ARGN)
    file(COPY ${destination}/ DESTINATION ${ARGN})
  endif()
endfunction()

# query_pkg_config(<package> <directory of its .pc file>): sets `cflags` and `libs` (lists of arguments) and
# `cflags_text`, `libs_text` (as printed) to what pkg-config gives; fails, naming the directory, if it does not know it.
function(query_pkg_config package pc_dir)
  set(ENV{PKG_CONFIG_PATH} ${pc_dir})
  foreach(kind cflags libs)
    execute_process(COMMAND ${PKG_CONFIG} --${kind} ${package} RESULT_VARIABLE result OUTPUT_VARIABLE text
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "pkg-config does not know ${package} in ${pc_dir}")
    endif()
    set(${kind}_text "${text}" PARENT_SCOPE)
    separate_arguments(text UNIX_COMMAND "${text}")
    set(${kind} ${text} PARENT_SCOPE)
  endforeach()
endfunction()

# A demanding consumer's warnings, as errors, where this script compiles the consumer itself (consumer/CMakeLists.txt
# gives the CMake modes the same).
set(strict -Wall -Wextra -Wpedantic -Wshadow -Werror)
if(MODE STREQUAL "add_subdirectory" OR MODE STREQUAL "find_package")
  if(MODE STREQUAL "find_package")
    install_tensorops(${prefix} ${relocated})
    foreach(file include/tensorops/tensorops.hpp share/cmake/tensorops/tensoropsConfig.cmake
                 share/cmake/tensorops/tensoropsConfigVersion.cmake share/pkgconfig/tensorops.pc)
      if(NOT EXISTS ${prefix}/${file})
        message(FATAL_ERROR "the installation lacks ${file}")
      endif()
    endforeach()
  endif()
  run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${work} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_CXX_FLAGS=
      -DMODE=${MODE} -DTENSOROPS_SOURCE_DIR=${TENSOROPS_SOURCE_DIR} -DCMAKE_PREFIX_PATH=${prefix})
  run(${CMAKE_COMMAND} --build ${work})
  run(${work}/consumer)
  if(MODE STREQUAL "find_package")  # the moved copy of the installation serves as well
    run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${work}-relocated -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_CXX_FLAGS=
        -DMODE=${MODE} -DCMAKE_PREFIX_PATH=${relocated})
    run(${CMAKE_COMMAND} --build ${work}-relocated)
    run(${work}-relocated/consumer)
  endif()
  if(MODE STREQUAL "find_package")  # a version the package does not satisfy must be refused
    execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${work}-version -DMODE=find_package
                    -DREQUIRED_VERSION=99.0 -DCMAKE_PREFIX_PATH=${prefix} RESULT_VARIABLE refused OUTPUT_QUIET ERROR_QUIET)
    if(refused EQUAL 0)
      message(FATAL_ERROR "find_package(tensorops 99.0) succeeded against version 0.x")
    endif()
  endif()
elseif(MODE STREQUAL "copy_include")
  file(COPY ${TENSOROPS_SOURCE_DIR}/include/ DESTINATION ${work}/third_party/include)
  run(${CXX_COMPILER} -std=c++20 -O1 ${strict} -pthread -I${work}/third_party/include ${CONSUMER_DIR}/main.cpp -o ${work}/consumer)
  run(${work}/consumer)
  # The same copy without xsimd on the include path: the scalar path.
  run(${CXX_COMPILER} -std=c++20 -O1 ${strict} -pthread -DTENSOROPS_NO_XSIMD -I${work}/third_party/include ${CONSUMER_DIR}/main.cpp
      -o ${work}/consumer-scalar)
  run(${work}/consumer-scalar)
elseif(MODE STREQUAL "pkg_config")
  find_program(PKG_CONFIG pkg-config REQUIRED)
  # The installation and a moved copy of it: the .pc file locates the headers from its own directory.
  foreach(root ${prefix} ${relocated})
    query_pkg_config(tensorops ${root}/share/pkgconfig)
    execute_process(COMMAND ${PKG_CONFIG} --variable=includedir tensorops OUTPUT_VARIABLE includedir OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT EXISTS ${includedir}/tensorops/tensorops.hpp)
      message(FATAL_ERROR "pkg-config's includedir for ${root} is '${includedir}', which has no tensorops/tensorops.hpp")
    endif()
    if(cflags_text MATCHES "-std=")
      message(FATAL_ERROR "pkg-config --cflags tensorops gives '${cflags_text}': a -std flag there would override the consumer's own")
    endif()
    if(NOT libs_text MATCHES "-pthread")
      message(FATAL_ERROR "pkg-config --libs tensorops gives '${libs_text}': the thread pool needs -pthread")
    endif()
    # The consumer chooses its language level (C++20 or later); its flags come first, pkg-config's after them.
    run(${CXX_COMPILER} -std=c++20 ${strict} ${cflags} ${CONSUMER_DIR}/main.cpp ${libs} -o ${work}/consumer)
    run(${work}/consumer)
  endforeach()
  # A C++23 consumer stays C++23 (main.cpp checks __cplusplus when EXPECT_NEWER_THAN_CXX20 is defined: a check the
  # compiler makes, so the file is only checked, not built) ...
  run(${CXX_COMPILER} -std=c++2b -fsyntax-only -DEXPECT_NEWER_THAN_CXX20 ${cflags} ${CONSUMER_DIR}/main.cpp)
  # ... and a C++17 one is told plainly what the headers need.
  execute_process(COMMAND ${CXX_COMPILER} -std=c++17 -fsyntax-only ${cflags} ${CONSUMER_DIR}/main.cpp
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(result EQUAL 0 OR NOT output MATCHES "tensorops needs C\\+\\+20")
    message(FATAL_ERROR "a C++17 compilation of the consumer did not stop at tensorops' C++20 requirement:\n${output}")
  endif()
elseif(MODE STREQUAL "compiled")
  find_program(PKG_CONFIG pkg-config REQUIRED)
  # The build under test installed as it is (its library already built: installing copies, never compiles), then moved.
  set(compiled_prefix ${WORK_DIR}/compiled-prefix)
  set(compiled_relocated ${WORK_DIR}/compiled-relocated)
  file(REMOVE_RECURSE ${compiled_prefix} ${compiled_relocated})
  run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${compiled_prefix})
  file(GLOB_RECURSE archives ${compiled_prefix}/*/libtensorops_compiled.a)
  file(GLOB_RECURSE pc_files ${compiled_prefix}/*/pkgconfig/tensorops-compiled.pc)
  if(NOT archives OR NOT pc_files)
    message(FATAL_ERROR "the installation of ${BUILD_DIR} lacks libtensorops_compiled.a or tensorops-compiled.pc")
  endif()
  file(COPY ${compiled_prefix}/ DESTINATION ${compiled_relocated})
  foreach(root ${compiled_prefix} ${compiled_relocated})
    get_filename_component(name ${root} NAME)
    # find_package(tensorops COMPONENTS compiled), the consumer linking tensorops::compiled (consumer/CMakeLists.txt)
    run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${work}/${name}-cmake -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_CXX_FLAGS=
        -DMODE=compiled -DCMAKE_PREFIX_PATH=${root})
    run(${CMAKE_COMMAND} --build ${work}/${name}-cmake)
    run(${work}/${name}-cmake/consumer)
    # pkg-config --cflags --libs tensorops-compiled
    file(GLOB_RECURSE pc_file ${root}/*/pkgconfig/tensorops-compiled.pc)
    get_filename_component(pc_dir ${pc_file} DIRECTORY)
    query_pkg_config(tensorops-compiled ${pc_dir})
    run(${CXX_COMPILER} -std=c++20 ${strict} -DEXPECT_COMPILED ${cflags} ${CONSUMER_DIR}/main.cpp ${libs} -o ${work}/${name}-pkg-config)
    run(${work}/${name}-pkg-config)
  endforeach()
  # An installation without the library refuses the component, naming it.
  set(header_only ${WORK_DIR}/header-only-prefix)
  install_tensorops(${header_only})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${work}/refused -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DMODE=compiled
                  -DCMAKE_PREFIX_PATH=${header_only} RESULT_VARIABLE refused OUTPUT_VARIABLE output ERROR_VARIABLE output)
  string(REGEX REPLACE "[ \t\r\n]+" " " flat "${output}")  # CMake wraps its messages
  if(refused EQUAL 0 OR NOT flat MATCHES "has no component 'compiled'")
    message(FATAL_ERROR "find_package(tensorops COMPONENTS compiled) did not fail, naming the component, on a header-only installation:\n${output}")
  endif()
else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()
