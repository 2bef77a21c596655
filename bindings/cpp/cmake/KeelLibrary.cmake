# The keel::keel target in a build tree: an imported library pointing at cargo's output,
# behind an interface target that adds the headers and the system libraries a Rust
# static library needs. Included by the repository's CMakeLists.txt.
#
# SPDX-License-Identifier: MIT OR Apache-2.0

find_package(Threads REQUIRED)

# File names as cargo writes them: libkeel.a / libkeel.so on Unix, keel.lib / keel.dll
# (import library keel.dll.lib) with MSVC.
if(MSVC)
  set(KEEL_STATIC_FILE keel.lib)
  set(KEEL_SHARED_FILE keel.dll)
  set(KEEL_IMPORT_FILE keel.dll.lib)
else()
  set(KEEL_STATIC_FILE libkeel.a)
  set(KEEL_SHARED_FILE ${CMAKE_SHARED_LIBRARY_PREFIX}keel${CMAKE_SHARED_LIBRARY_SUFFIX})
  set(KEEL_IMPORT_FILE "")
endif()

# What a Rust static library leaves to the final link (rustc --print native-static-libs).
if(WIN32)
  set(KEEL_SYSTEM_LIBRARIES ws2_32 userenv bcrypt ntdll advapi32 kernel32)
else()
  set(KEEL_SYSTEM_LIBRARIES Threads::Threads ${CMAKE_DL_LIBS} m)
endif()

if(KEEL_LIBRARY_DIR)
  get_filename_component(_keel_dir "${KEEL_LIBRARY_DIR}" ABSOLUTE)
  set(_keel_cargo_target "")
else()
  find_program(KEEL_CARGO cargo HINTS "$ENV{HOME}/.cargo/bin" DOC "cargo, to build the library")
  if(NOT KEEL_CARGO)
    message(FATAL_ERROR "keel: cargo not found; install Rust (https://rustup.rs) or set "
                        "KEEL_LIBRARY_DIR to a directory holding a library cargo built")
  endif()
  # The repository's own target/ by default, so that a `cargo build --release` already
  # made is reused rather than repeated.
  set(KEEL_CARGO_TARGET_DIR "${CMAKE_CURRENT_SOURCE_DIR}/target" CACHE PATH
      "cargo's --target-dir for the library build")
  set(_keel_dir "${KEEL_CARGO_TARGET_DIR}/release")
  # Always run: cargo decides what is stale (a no-op build takes a fraction of a second).
  add_custom_target(keel_cargo_build
    COMMAND "${KEEL_CARGO}" build --release --lib -p keel
            --manifest-path "${CMAKE_CURRENT_SOURCE_DIR}/Cargo.toml"
            --target-dir "${KEEL_CARGO_TARGET_DIR}"
    BYPRODUCTS "${_keel_dir}/${KEEL_STATIC_FILE}" "${_keel_dir}/${KEEL_SHARED_FILE}"
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
    COMMENT "cargo build --release (keel)"
    USES_TERMINAL VERBATIM)
  set(_keel_cargo_target keel_cargo_build)
endif()

# GLOBAL: the interface target below is linked from other directories.
if(KEEL_SHARED)
  set(KEEL_LIBRARY_FILE "${_keel_dir}/${KEEL_SHARED_FILE}")
  add_library(keel_native SHARED IMPORTED GLOBAL)
  set_target_properties(keel_native PROPERTIES IMPORTED_LOCATION "${KEEL_LIBRARY_FILE}")
  if(KEEL_IMPORT_FILE)
    set_target_properties(keel_native PROPERTIES IMPORTED_IMPLIB "${_keel_dir}/${KEEL_IMPORT_FILE}")
  else()
    # cargo sets no SONAME: linked by path, the executable would record the build
    # directory's path instead of "libkeel.so" (found through its rpath).
    set_target_properties(keel_native PROPERTIES IMPORTED_NO_SONAME TRUE)
  endif()
else()
  set(KEEL_LIBRARY_FILE "${_keel_dir}/${KEEL_STATIC_FILE}")
  add_library(keel_native STATIC IMPORTED GLOBAL)
  set_target_properties(keel_native PROPERTIES
    IMPORTED_LOCATION "${KEEL_LIBRARY_FILE}"
    INTERFACE_LINK_LIBRARIES "${KEEL_SYSTEM_LIBRARIES}")
endif()

add_library(keel INTERFACE)
add_library(keel::keel ALIAS keel)
target_include_directories(keel INTERFACE
  "${CMAKE_CURRENT_SOURCE_DIR}/include" "${CMAKE_CURRENT_SOURCE_DIR}/bindings/cpp")
target_link_libraries(keel INTERFACE keel_native)
if(_keel_cargo_target)
  # Followed through the interface target, so that its users link after cargo ran.
  add_dependencies(keel ${_keel_cargo_target})
endif()
