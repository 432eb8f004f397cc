# What `cmake --install` adds beyond the targets' own install() rules, the
# CMake package `find_package(Q2)` and the Debian packages of `cpack -G DEB`
# (docs/install.md). Components: "runtime" (tools, plugin, runtime,
# Python package, share/q2) and "dev" (headers, static libraries, the
# CMake package).

# Headers, including the tablegen output (.h.inc/.cpp.inc) they include, and
# the .td files for downstream tablegen.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/q2" DESTINATION include
        COMPONENT dev
        FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "*.td")
install(DIRECTORY "${PROJECT_BINARY_DIR}/include/q2" DESTINATION include
        COMPONENT dev
        FILES_MATCHING PATTERN "*.inc"
        PATTERN "CMakeFiles" EXCLUDE)

# Example inputs (q2-profile's default molecule: <bin>/../share/q2/examples)
# and the plot scripts.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/examples/" DESTINATION share/q2/examples)
install(PROGRAMS "${PROJECT_SOURCE_DIR}/tools/q2-opt/plot_profile.py"
                 "${PROJECT_SOURCE_DIR}/tools/q2-profile/plot_sweep.py"
        DESTINATION share/q2/scripts)

# The CMake package: Q2::QuantumDialect, Q2::Pipeline, Q2::ProfilingCore, ...
# (every q2_add_library target), Q2::runtime and the module Q2::Plugin.
include(CMakePackageConfigHelpers)
install(EXPORT Q2Targets NAMESPACE Q2:: DESTINATION ${Q2_INSTALL_CMAKEDIR}
        COMPONENT dev)
configure_package_config_file(cmake/Q2Config.cmake.in
  "${PROJECT_BINARY_DIR}/cmake/Q2Config.cmake"
  INSTALL_DESTINATION ${Q2_INSTALL_CMAKEDIR}
  PATH_VARS Q2_INSTALL_INCLUDEDIR Q2_INSTALL_BINDIR Q2_INSTALL_DATADIR)
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/cmake/Q2ConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/cmake/Q2Config.cmake"
              "${PROJECT_BINARY_DIR}/cmake/Q2ConfigVersion.cmake"
        DESTINATION ${Q2_INSTALL_CMAKEDIR} COMPONENT dev)

# cpack -G DEB (run in the build directory): q2-opt (runtime) and q2-opt-dev,
# depending on Debian's LLVM/MLIR 22 packages.
set(CPACK_PACKAGE_NAME q2-opt)
set(CPACK_PACKAGE_VENDOR "q2-opt")
set(CPACK_PACKAGE_CONTACT "q2-opt maintainers <q2-opt@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "QPE compiler on MLIR/LLVM 22 that shows where compile time and memory go")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME q2-opt)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME q2-opt-dev)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION science)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# libMLIR.so.22.1 is in libmlir-22, libLLVM.so.22.1 in libllvm22; _q2 is
# built for one Python minor version.
set(q2_llvm_deb_version "${LLVM_VERSION_MAJOR}.${LLVM_VERSION_MINOR}")
set(q2_py_dep "")
if(Python3_FOUND AND pybind11_FOUND)
  math(EXPR q2_py_next "${Python3_VERSION_MINOR} + 1")
  set(q2_py_dep ", python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}~), python3 (<< ${Python3_VERSION_MAJOR}.${q2_py_next}), python3-numpy")
endif()
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS
    "libmlir-${LLVM_VERSION_MAJOR} (>= 1:${q2_llvm_deb_version}), libllvm${LLVM_VERSION_MAJOR} (>= 1:${q2_llvm_deb_version}), libc6, libstdc++6, libgcc-s1${q2_py_dep}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "python3-matplotlib, python3-pandas")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "q2-opt (= ${PROJECT_VERSION}), libmlir-${LLVM_VERSION_MAJOR}-dev, llvm-${LLVM_VERSION_MAJOR}-dev, libeigen3-dev, nlohmann-json3-dev")
include(CPack)

# ctest "install": a temporary prefix, H2 from it with the trees hidden, an
# out-of-tree find_package(Q2) project, `import q2` (test/install/). Not in
# sanitizer builds: their debug info names the source tree by design, which
# is what the test refuses, and nobody installs an instrumented build.
if(Q2_BUILD_TESTS AND NOT Q2_SANITIZED)
  if(TARGET _q2)
    set(q2_install_test_python "${Python3_EXECUTABLE}")
  else()
    set(q2_install_test_python "") # no Python package to import
  endif()
  add_test(NAME install
    COMMAND bash "${PROJECT_SOURCE_DIR}/test/install/install_test.sh"
            "${PROJECT_SOURCE_DIR}" "${PROJECT_BINARY_DIR}"
            "${q2_install_test_python}")
  set_tests_properties(install PROPERTIES TIMEOUT 300 COST 40) # test/CMakeLists.txt
endif()
