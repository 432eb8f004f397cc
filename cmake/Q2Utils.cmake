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

# The layers (docs/architecture.md): every q2 library with its directory,
# the headers it owns and the libraries it links, for
# scripts/check-layering.py (the ctest test `layering`).
function(q2_record_layer name dir)
  cmake_parse_arguments(ARG "" "" "LINK;HEADERS" ${ARGN})
  file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${dir}")
  set_property(GLOBAL APPEND PROPERTY Q2_LAYER_LIBRARIES ${name})
  set_property(GLOBAL PROPERTY Q2_LAYER_${name}_DIR "${rel}")
  set_property(GLOBAL PROPERTY Q2_LAYER_${name}_LINK "${ARG_LINK}")
  set_property(GLOBAL PROPERTY Q2_LAYER_${name}_HEADERS "${ARG_HEADERS}")
endfunction()

# Writes <build>/q2-layers.json; call after every library is added.
function(q2_write_layers)
  get_property(libs GLOBAL PROPERTY Q2_LAYER_LIBRARIES)
  set(entries "")
  foreach(lib IN LISTS libs)
    get_property(dir GLOBAL PROPERTY Q2_LAYER_${lib}_DIR)
    get_property(links GLOBAL PROPERTY Q2_LAYER_${lib}_LINK)
    get_property(headers GLOBAL PROPERTY Q2_LAYER_${lib}_HEADERS)
    set(l "")
    foreach(x IN LISTS links)
      if(x IN_LIST libs)
        list(APPEND l "\"${x}\"")
      endif()
    endforeach()
    set(h "")
    foreach(x IN LISTS headers)
      list(APPEND h "\"${x}\"")
    endforeach()
    list(JOIN l ", " l)
    list(JOIN h ", " h)
    list(APPEND entries
         "    \"${lib}\": {\"dir\": \"${dir}\", \"headers\": [${h}], \"links\": [${l}]}")
  endforeach()
  list(JOIN entries ",\n" entries)
  file(WRITE "${PROJECT_BINARY_DIR}/q2-layers.json"
       "{\n  \"libraries\": {\n${entries}\n  }\n}\n")
endfunction()

# q2_add_library(name SOURCES... [MLIR] [LINK libs...] [HEADERS paths...])
# A project library. With MLIR it links the shared libMLIR.so + libLLVM.so.
# Installed (lib/) and exported as Q2::<name without "Q2"> in the CMake
# package (cmake/Q2Config.cmake.in, docs/install.md). Its headers are
# include/q2/<its directory below lib/>, plus HEADERS (for the layer check).
function(q2_add_library name)
  cmake_parse_arguments(ARG "MLIR;SHARED" "" "LINK;DEPENDS;HEADERS" ${ARGN})
  q2_record_layer(${name} "${CMAKE_CURRENT_SOURCE_DIR}" LINK ${ARG_LINK}
                  HEADERS ${ARG_HEADERS})
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
