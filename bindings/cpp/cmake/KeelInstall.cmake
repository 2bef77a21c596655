# Install rules: the headers (in include/keel/), the library KEEL_SHARED chose (the
# static one stripped, KEEL_STRIP), a relocatable keelConfig.cmake with its version file
# (find_package(keel)), and keel.pc for pkg-config, written at install time so that
# `cmake --install --prefix` is honoured. Included by the repository's CMakeLists.txt
# after KeelLibrary.cmake.
#
# SPDX-License-Identifier: MIT OR Apache-2.0

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_keel_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/keel")

# In a folder of their own, as libraries' headers go; keel::keel and keel.pc put that
# folder on the include path, so `#include "keel.h"` works as in the build tree (and
# keel::keel adds include/ too, for `#include <keel/keel.h>`).
set(KEEL_INSTALL_HEADER_DIR "${CMAKE_INSTALL_INCLUDEDIR}/keel")
install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/include/keel.h"
              "${CMAKE_CURRENT_SOURCE_DIR}/bindings/cpp/keel.hpp"
        DESTINATION "${KEEL_INSTALL_HEADER_DIR}")

# Imported targets cannot be exported, so the library is installed as a file and the
# config file declares its own imported target around it.
get_filename_component(KEEL_INSTALLED_FILE "${KEEL_LIBRARY_FILE}" NAME)
if(KEEL_SHARED AND WIN32)
  install(PROGRAMS "${KEEL_LIBRARY_FILE}" DESTINATION "${CMAKE_INSTALL_BINDIR}")
  install(FILES "${_keel_dir}/${KEEL_IMPORT_FILE}" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  set(KEEL_INSTALLED_LOCATION "${CMAKE_INSTALL_BINDIR}/${KEEL_INSTALLED_FILE}")
elseif(KEEL_SHARED)
  install(PROGRAMS "${KEEL_LIBRARY_FILE}" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  set(KEEL_INSTALLED_LOCATION "${CMAKE_INSTALL_LIBDIR}/${KEEL_INSTALLED_FILE}")
else()
  install(FILES "${KEEL_LIBRARY_FILE}" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  set(KEEL_INSTALLED_LOCATION "${CMAKE_INSTALL_LIBDIR}/${KEEL_INSTALLED_FILE}")
  # cargo's release libkeel.a is 30 MB, 2.7 MB of it code: a Rust static library holds
  # every object of the standard library and the dependencies as shipped, with their
  # DWARF debug information (.debug_*, 8.9 MB) and the LLVM bitcode that cross-crate LTO
  # reads (.llvmbc, 13.9 MB). A C linker never reads the bitcode, and the standard
  # library's debug information would follow its code into the user's program (the
  # README's app.c: 7.5 MB, 3.6 MB stripped). The installed copy drops both (7.5 MB);
  # the build tree's file is untouched, for debuggers. See bindings/cpp/README.md.
  if(KEEL_STRIP AND CMAKE_OBJCOPY AND NOT APPLE AND NOT MSVC)
    install(CODE "
      set(_keel_installed \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${KEEL_INSTALLED_LOCATION}\")
      execute_process(
        COMMAND \"${CMAKE_OBJCOPY}\" --strip-debug --remove-section=.llvmbc --remove-section=.llvmcmd
                \"\${_keel_installed}\"
        RESULT_VARIABLE _keel_strip_result)
      if(NOT _keel_strip_result EQUAL 0)
        message(FATAL_ERROR \"keel: objcopy could not strip \${_keel_installed}\")
      endif()
    ")
  endif()
endif()

configure_package_config_file(
  "${CMAKE_CURRENT_SOURCE_DIR}/bindings/cpp/cmake/keelConfig.cmake.in"
  "${CMAKE_CURRENT_BINARY_DIR}/keelConfig.cmake"
  INSTALL_DESTINATION "${_keel_cmake_dir}"
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR KEEL_INSTALL_HEADER_DIR KEEL_INSTALLED_LOCATION)
# 0.x releases break at each minor version (Cargo's rule), 1.x at each major one.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_keel_compatibility SameMinorVersion)
else()
  set(_keel_compatibility SameMajorVersion)
endif()
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/keelConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY ${_keel_compatibility})
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/keelConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/keelConfigVersion.cmake"
        DESTINATION "${_keel_cmake_dir}")

# keel.pc: the system libraries go in Libs for the static library (a plain
# `pkg-config --libs keel` must link) and in Libs.private for the shared one.
if(KEEL_SHARED)
  set(KEEL_PC_SYSTEM_LIBS "")
else()
  set(KEEL_PC_SYSTEM_LIBS " -lpthread -ldl -lm")
endif()
set(_keel_pc_template "${CMAKE_CURRENT_SOURCE_DIR}/bindings/cpp/cmake/keel.pc.in")
set(_keel_pc_staged "${CMAKE_CURRENT_BINARY_DIR}/keel.pc")
install(CODE "
  set(KEEL_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(KEEL_PC_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(KEEL_PC_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(KEEL_PC_VERSION \"${PROJECT_VERSION}\")
  set(KEEL_PC_DESCRIPTION \"${PROJECT_DESCRIPTION}\")
  set(KEEL_PC_SYSTEM_LIBS \"${KEEL_PC_SYSTEM_LIBS}\")
  configure_file(\"${_keel_pc_template}\" \"${_keel_pc_staged}\" @ONLY)
")
install(FILES "${_keel_pc_staged}" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
