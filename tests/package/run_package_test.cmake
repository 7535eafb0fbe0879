# cmake -DMODE=<add_subdirectory|find_package|copy_include|pkg_config> -DTENSOROPS_SOURCE_DIR=... \
#       -DCONSUMER_DIR=... -DCXX_COMPILER=... -DWORK_DIR=... -P run_package_test.cmake
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
function(install_tensorops)
  file(REMOVE_RECURSE ${prefix} ${relocated} ${WORK_DIR}/install-build)
  run(${CMAKE_COMMAND} -S ${TENSOROPS_SOURCE_DIR} -B ${WORK_DIR}/install-build -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
      -DTENSOROPS_BUILD_TESTS=OFF -DTENSOROPS_BUILD_EXAMPLES=OFF)
  run(${CMAKE_COMMAND} --install ${WORK_DIR}/install-build --prefix ${prefix})
  file(COPY ${prefix}/ DESTINATION ${relocated})
endfunction()

# A demanding consumer's warnings, as errors, where this script compiles the consumer itself (consumer/CMakeLists.txt
# gives the CMake modes the same).
set(strict -Wall -Wextra -Wpedantic -Wshadow -Werror)
if(MODE STREQUAL "add_subdirectory" OR MODE STREQUAL "find_package")
  if(MODE STREQUAL "find_package")
    install_tensorops()
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
    set(ENV{PKG_CONFIG_PATH} ${root}/share/pkgconfig)
    execute_process(COMMAND ${PKG_CONFIG} --cflags tensorops RESULT_VARIABLE result OUTPUT_VARIABLE cflags
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "pkg-config does not know tensorops in ${root}")
    endif()
    execute_process(COMMAND ${PKG_CONFIG} --variable=includedir tensorops OUTPUT_VARIABLE includedir OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT EXISTS ${includedir}/tensorops/tensorops.hpp)
      message(FATAL_ERROR "pkg-config's includedir for ${root} is '${includedir}', which has no tensorops/tensorops.hpp")
    endif()
    if(cflags MATCHES "-std=")
      message(FATAL_ERROR "pkg-config --cflags tensorops gives '${cflags}': a -std flag there would override the consumer's own")
    endif()
    execute_process(COMMAND ${PKG_CONFIG} --libs tensorops RESULT_VARIABLE result OUTPUT_VARIABLE libs
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT result EQUAL 0 OR NOT libs MATCHES "-pthread")
      message(FATAL_ERROR "pkg-config --libs tensorops gives '${libs}': the thread pool needs -pthread")
    endif()
    separate_arguments(cflags UNIX_COMMAND "${cflags}")
    separate_arguments(libs UNIX_COMMAND "${libs}")
    # The consumer chooses its language level (C++20 or later); its flags come first, pkg-config's after them.
    run(${CXX_COMPILER} -std=c++20 ${strict} ${cflags} ${CONSUMER_DIR}/main.cpp ${libs} -o ${work}/consumer)
    run(${work}/consumer)
  endforeach()
  # A C++23 consumer stays C++23 (main.cpp checks __cplusplus when EXPECT_NEWER_THAN_CXX20 is defined) ...
  run(${CXX_COMPILER} -std=c++2b -DEXPECT_NEWER_THAN_CXX20 ${cflags} ${CONSUMER_DIR}/main.cpp ${libs} -o ${work}/consumer-cxx23)
  run(${work}/consumer-cxx23)
  # ... and a C++17 one is told plainly what the headers need.
  execute_process(COMMAND ${CXX_COMPILER} -std=c++17 -fsyntax-only ${cflags} ${CONSUMER_DIR}/main.cpp
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(result EQUAL 0 OR NOT output MATCHES "tensorops needs C\\+\\+20")
    message(FATAL_ERROR "a C++17 compilation of the consumer did not stop at tensorops' C++20 requirement:\n${output}")
  endif()
else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()
