# Precompiled MLIR headers (docs/building.md): one PCH, built once by
# Q2MLIRPch and reused (same flags: static, -fPIC) by the libraries whose
# files include most of it; for the others loading the ~700 MB PCH costs
# more than it saves (measured per file).
set(Q2_PCH_TARGETS Q2QuantumTransforms Q2QuantumToLLVM Q2Registration)
# Off under ccache, which does not cache compiles that use a PCH unless
# configured for it (sloppiness=pch_defines,time_macros).
if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
  set(q2_pch_default OFF)
else()
  set(q2_pch_default ON)
endif()
option(Q2_PCH "Precompile the common MLIR headers of the MLIR libraries"
       ${q2_pch_default})
if(Q2_PCH)
  add_library(Q2MLIRPch OBJECT "${CMAKE_CURRENT_LIST_DIR}/Q2MLIRPch.cpp")
  target_precompile_headers(Q2MLIRPch PRIVATE
    "${CMAKE_CURRENT_LIST_DIR}/Q2MLIRPch.h")
endif()

# q2_add_library(name SOURCES... [MLIR] [LINK libs...])
# A project library. With MLIR it links the shared libMLIR.so + libLLVM.so.
# Installed (lib/) and exported as Q2::<name without "Q2"> in the CMake
# package (cmake/Q2Config.cmake.in, docs/install.md).
function(q2_add_library name)
  cmake_parse_arguments(ARG "MLIR;SHARED" "" "LINK;DEPENDS" ${ARGN})
  if(ARG_SHARED)
    add_library(${name} SHARED ${ARG_UNPARSED_ARGUMENTS})
  else()
    add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  endif()
  # Usage requirements for consumers of the installed package; in the tree
  # the directory-wide include_directories() apply as well.
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  target_link_libraries(${name} PUBLIC Q2LLVMHeaders)
  if(ARG_MLIR)
    target_link_libraries(${name} PUBLIC MLIR LLVM)
    if(Q2_PCH AND name IN_LIST Q2_PCH_TARGETS)
      target_precompile_headers(${name} REUSE_FROM Q2MLIRPch)
    endif()
  endif()
  if(ARG_LINK)
    target_link_libraries(${name} PUBLIC ${ARG_LINK})
  endif()
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  string(REGEX REPLACE "^Q2" "" export_name "${name}")
  set_target_properties(${name} PROPERTIES EXPORT_NAME "${export_name}")
  install(TARGETS ${name} EXPORT Q2Targets
          ARCHIVE DESTINATION ${Q2_INSTALL_LIBDIR} COMPONENT dev
          LIBRARY DESTINATION ${Q2_INSTALL_LIBDIR})
endfunction()
