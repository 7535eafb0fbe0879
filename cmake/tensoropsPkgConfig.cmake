# tensorops_install_pc_file(<template> <file name> <destination>): configures the pkg-config file <file name> from
# <template> and installs it into <destination> (relative to the prefix). Relocatable: in the template,
# @TENSOROPS_PC_PREFIX@ is the path from the installed file's directory back to the prefix (written after
# ${pcfiledir}/, which pkg-config and pkgconf set), and @TENSOROPS_PC_INCLUDEDIR@ the headers' directory.
function(tensorops_install_pc_file template file_name destination)
  if(IS_ABSOLUTE ${destination})
    message(FATAL_ERROR "tensorops: ${destination} must be relative to the prefix for a relocatable pkg-config file")
  endif()
  file(RELATIVE_PATH TENSOROPS_PC_PREFIX /prefix/${destination} /prefix)
  string(REGEX REPLACE "/$" "" TENSOROPS_PC_PREFIX "${TENSOROPS_PC_PREFIX}")
  if(IS_ABSOLUTE ${CMAKE_INSTALL_INCLUDEDIR})
    set(TENSOROPS_PC_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
  else()
    set(TENSOROPS_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
  endif()
  configure_file(${template} ${CMAKE_CURRENT_BINARY_DIR}/${file_name} @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${file_name} DESTINATION ${destination})
endfunction()
