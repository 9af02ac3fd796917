# Where sdcbench's data lives, in the build tree and installed, and what
# `cmake --install` puts under the prefix (README "Install"):
#   bin/sdcbench                      the program (portable with -DSDCBENCH_ENABLE_NATIVE=OFF)
#   lib/libsdcbench.so, include/sdcbench/, lib/cmake/sdcbench/
#                                     the core as a library: find_package(sdcbench) gives sdcbench::core
#   lib/python3/dist-packages/sdcbench the Python module (python/, when built)
#   share/sdcbench/                   suites, the e_max calibration, the report's renderer
#                                     and chart libraries, build-info.json (the git state)
# The programs find share/sdcbench beside themselves (foundation/io/data_files.hpp).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The build tree's data directory: links into the checkout, so an edited suite
# is what the next run reads, and `source` for the git state of provenance.
set(SDCBENCH_BUILD_DATA ${PROJECT_BINARY_DIR}/share/sdcbench)
file(MAKE_DIRECTORY ${SDCBENCH_BUILD_DATA})
foreach(pair "suites;suites" "results/emax-calibration.json;emax-calibration.json" "scripts/report;report"
             "node_modules;node_modules" ".;source")
  list(GET pair 0 from)
  list(GET pair 1 to)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${from} ${SDCBENCH_BUILD_DATA}/${to} SYMBOLIC)
endforeach()

# The core as a shared library for other programs: the same objects as the
# program's (a shared library keeps every self-registering detector).
add_library(sdcbench_shared SHARED $<TARGET_OBJECTS:sdcbench_core>)
set_target_properties(sdcbench_shared PROPERTIES OUTPUT_NAME sdcbench EXPORT_NAME core VERSION ${PROJECT_VERSION}
                                                 SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
target_link_libraries(sdcbench_shared
  PUBLIC nlohmann_json::nlohmann_json fmt::fmt Boost::boost
  PRIVATE PkgConfig::MPFR PkgConfig::GMP PkgConfig::OPENBLAS PkgConfig::LIBCRYPTO CLI11::CLI11 Threads::Threads
          ZLIB::ZLIB DNNL::dnnl OpenMP::OpenMP_CXX MPI::MPI_C)
target_include_directories(sdcbench_shared PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                                  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/sdcbench>)
add_library(sdcbench::core ALIAS sdcbench_shared)

install(TARGETS sdcbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS sdcbench_shared EXPORT sdcbenchTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY foundation protocol harness injectors workloads detectors
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sdcbench FILES_MATCHING PATTERN "*.hpp")
install(EXPORT sdcbenchTargets NAMESPACE sdcbench:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sdcbench)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/sdcbenchConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/sdcbenchConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sdcbench)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/sdcbenchConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/sdcbenchConfig.cmake ${PROJECT_BINARY_DIR}/sdcbenchConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sdcbench)

set(SDCBENCH_INSTALL_DATA ${CMAKE_INSTALL_DATADIR}/sdcbench)
install(DIRECTORY suites/ DESTINATION ${SDCBENCH_INSTALL_DATA}/suites)
install(FILES results/emax-calibration.json DESTINATION ${SDCBENCH_INSTALL_DATA})
install(DIRECTORY scripts/report/ DESTINATION ${SDCBENCH_INSTALL_DATA}/report)
# The report's runtime packages (package.json "dependencies"), not the browser
# test's driver.
install(DIRECTORY node_modules/ DESTINATION ${SDCBENCH_INSTALL_DATA}/node_modules
        PATTERN "playwright-core" EXCLUDE PATTERN ".sdcbench-lock" EXCLUDE PATTERN ".package-lock.json" EXCLUDE)
# The git state of the source, recorded when installing (provenance's git_commit).
install(CODE "
  execute_process(COMMAND git -C \"${PROJECT_SOURCE_DIR}\" rev-parse HEAD OUTPUT_VARIABLE c OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND git -C \"${PROJECT_SOURCE_DIR}\" status --porcelain --untracked-files=no OUTPUT_VARIABLE d ERROR_QUIET)
  if(c STREQUAL \"\")
    set(info \"{\\\"git_commit\\\": null, \\\"git_dirty\\\": null}\")
  elseif(d STREQUAL \"\")
    set(info \"{\\\"git_commit\\\": \\\"\${c}\\\", \\\"git_dirty\\\": false}\")
  else()
    set(info \"{\\\"git_commit\\\": \\\"\${c}\\\", \\\"git_dirty\\\": true}\")
  endif()
  file(WRITE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${SDCBENCH_INSTALL_DATA}/build-info.json\" \"\${info}\\n\")
")

# `cpack -G DEB` in a build: a Debian 12 package installing under /usr (the
# program in /usr/bin finds /usr/share/sdcbench; the module lands in
# Debian's dist-packages). Shared-library dependencies come from
# dpkg-shlibdeps; the rest are what the report and the module run on. Build
# it portable (-DSDCBENCH_ENABLE_NATIVE=OFF) for other machines.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME sdcbench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "sdcbench developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Fault-injection campaigns and benchmarks for silent-data-corruption detectors in deep learning")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "nodejs, python3, python3-numpy, python3-torch, openmpi-bin, fortunes, dict-gcide")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
include(CPack)
