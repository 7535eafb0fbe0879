# cmake/tensoropsCheckIsolated.cmake — checks one isolated kernel object of tensorops::compiled (src/CMakeLists.txt):
#   cmake -DNM=nm -DREADELF=readelf -DOBJECT=<object> -DENTRY=<entry symbol> "-DSHARED=<symbols>" -P this file
# Fails unless the object
#   - defines ENTRY globally and no other global symbol but those listed in SHARED (the whitelisted shared state),
#   - has no section group left (every COMDAT copy is its own, never merged with another object's),
#   - has no static initialiser (.init_array, .ctors, .preinit_array with content): no code of the level may run at
#     start-up, before the dispatch has checked that the CPU runs it,
#   - defines no namespace-scope variable of the library locally (_ZN9tensorops… in a data section): such a variable
#     would exist once per level, and its state would differ between them; it belongs in SHARED.
cmake_minimum_required(VERSION 3.20)
foreach(variable NM READELF OBJECT ENTRY)
  if(NOT ${variable})
    message(FATAL_ERROR "tensoropsCheckIsolated: ${variable} is not set")
  endif()
endforeach()

execute_process(COMMAND ${NM} --defined-only ${OBJECT} OUTPUT_VARIABLE symbols RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${OBJECT}")
endif()
string(REPLACE "\n" ";" symbols "${symbols}")
set(failures "")
set(entry_found OFF)
foreach(line IN LISTS symbols)
  if(NOT line MATCHES "^[0-9a-fA-F]* *([A-Za-z]) (.+)$")
    continue()
  endif()
  set(type ${CMAKE_MATCH_1})
  set(name ${CMAKE_MATCH_2})
  if(type MATCHES "^[A-Zuvw]$" AND NOT type STREQUAL "U")  # global, weak or unique
    if(name STREQUAL ENTRY)
      set(entry_found ON)
    elseif(NOT name IN_LIST SHARED)
      list(APPEND failures "global symbol '${name}' (${type}) is neither the entry nor whitelisted")
    endif()
  elseif(type MATCHES "^[dbg]$" AND name MATCHES "^_ZN9tensorops")
    list(APPEND failures "library variable '${name}' is local to the object: one copy per level (whitelist it)")
  endif()
endforeach()
if(NOT entry_found)
  list(APPEND failures "the entry symbol '${ENTRY}' is not defined globally")
endif()

execute_process(COMMAND ${READELF} -SW ${OBJECT} OUTPUT_VARIABLE sections RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${READELF} failed on ${OBJECT}")
endif()
string(REPLACE "\n" ";" sections "${sections}")
foreach(line IN LISTS sections)
  if(line MATCHES "\\] +(\\.[A-Za-z_.]*(init_array|ctors|preinit_array)[^ ]*) +[A-Z_]+ +[0-9a-f]+ +[0-9a-f]+ +([0-9a-f]+)")
    if(NOT CMAKE_MATCH_3 MATCHES "^0+$")
      list(APPEND failures "section ${CMAKE_MATCH_1} has content: a static initialiser would run level code at start-up")
    endif()
  elseif(line MATCHES "\\] +([^ ]+) +GROUP ")
    list(APPEND failures "section group ${CMAKE_MATCH_1} left: its functions could be merged with other objects' copies")
  endif()
endforeach()

if(failures)
  list(JOIN failures "\n  " failures)
  message(FATAL_ERROR "${OBJECT}:\n  ${failures}")
endif()
message(STATUS "${OBJECT}: isolated (entry ${ENTRY})")
