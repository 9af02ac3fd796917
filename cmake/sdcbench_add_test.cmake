# The tests: a few GoogleTest programs, each holding many test files as unity
# files, and one ctest test per file (or group of files), which runs its
# program with a --gtest_filter naming exactly that file's tests. A test file
# is compiled once, with the others of its unity file: the GoogleTest,
# nlohmann::json and fmt code they all instantiate is optimized once per unity
# file, not once per file (issue 68: CI's build time).
#
# sdcbench_test_program(PROGRAM [TRAINING] [CLI_ONLY])
#   TRAINING: links the training workload (libtorch) and reuses its
#   precompiled header. CLI_ONLY: with SDCBENCH_ALL_PROGRAMS=OFF (CI's Release
#   build) it is left out of `all`: scripts/test.sh runs the cli tier in the
#   sanitizer build.
# sdcbench_add_test(NAME PROGRAM prog SOURCES... LABELS l1 [l2...] [TIMEOUT s]
#                   [EXCLUDE gtest-pattern...] [OPTIMIZED])
#   Adds SOURCES to prog and registers ctest test NAME under its labels (unit,
#   golden, slow, cli, training: `ctest -L unit` runs one tier). EXCLUDE: the
#   file's tests that NAME does not run. OPTIMIZED: the files stay at -O3 and
#   out of the unity files (a test whose own loops are its time).
function(sdcbench_test_program prog)
  cmake_parse_arguments(P "TRAINING;CLI_ONLY" "" "" ${ARGN})
  set(P_EXCLUDE)
  if(NOT SDCBENCH_ALL_PROGRAMS AND P_CLI_ONLY)
    set(P_EXCLUDE EXCLUDE_FROM_ALL)
  endif()
  add_executable(${prog} ${P_EXCLUDE})
  target_link_libraries(${prog} PRIVATE sdcbench_core GTest::gtest GTest::gtest_main)
  target_compile_definitions(${prog} PRIVATE
    SDCBENCH_BINARY="$<TARGET_FILE:sdcbench>"
    SDCBENCH_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    SDCBENCH_TEST_DATA="${PROJECT_SOURCE_DIR}/tests")
  add_dependencies(${prog} sdcbench)
  # A test's own code at -O1 in Release (after CMake's -O3, so it wins): it
  # calls the core, which stays at -O3, and builds 28 % faster.
  target_compile_options(${prog} PRIVATE $<$<CONFIG:Release>:-O1>)
  if(SDCBENCH_ENABLE_UNITY)
    set_target_properties(${prog} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
  if(P_TRAINING)
    sdcbench_link_training(${prog})
  else()
    sdcbench_reuse_pch(${prog})
  endif()
endfunction()

# The --gtest_filter of SOURCES' tests: every TEST, TEST_F and TEST_P they
# define, by full name (Suite.Name; TEST_P as */Suite.Name/*), so two files
# sharing a suite name stay apart. CMake reads the files again when they change.
function(sdcbench_test_filter out)
  set(names)
  foreach(src ${ARGN})
    set(path ${CMAKE_CURRENT_SOURCE_DIR}/${src})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${path})
    file(READ ${path} text)
    string(REGEX MATCHALL "\n[ \t]*TEST(_F|_P)?\\([ \t\r\n]*[A-Za-z0-9_]+[ \t\r\n]*,[ \t\r\n]*[A-Za-z0-9_]+"
           found "\n${text}")
    if(NOT found)
      message(FATAL_ERROR "${path}: no TEST, TEST_F or TEST_P found (tests/CMakeLists.txt registers it as a test file)")
    endif()
    foreach(m ${found})
      string(REGEX REPLACE "[ \t\r\n]" "" m "${m}")
      string(REGEX MATCH "^TEST(_F|_P)?\\(([A-Za-z0-9_]+),([A-Za-z0-9_]+)$" _ "${m}")
      if(CMAKE_MATCH_1 STREQUAL "_P")
        list(APPEND names "*/${CMAKE_MATCH_2}.${CMAKE_MATCH_3}/*")
      else()
        list(APPEND names "${CMAKE_MATCH_2}.${CMAKE_MATCH_3}")
      endif()
    endforeach()
  endforeach()
  list(JOIN names ":" joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

function(sdcbench_add_test name)
  cmake_parse_arguments(T "OPTIMIZED" "TIMEOUT;PROGRAM" "SOURCES;LABELS;EXCLUDE" ${ARGN})
  if(NOT T_PROGRAM)
    message(FATAL_ERROR "sdcbench_add_test(${name}): PROGRAM is required")
  endif()
  target_sources(${T_PROGRAM} PRIVATE ${T_SOURCES})
  if(T_OPTIMIZED)
    # A source with its own COMPILE_OPTIONS is compiled alone (CMake leaves it
    # out of the unity files).
    set_source_files_properties(${T_SOURCES} TARGET_DIRECTORY ${T_PROGRAM} PROPERTIES COMPILE_OPTIONS -O3)
  endif()
  sdcbench_test_filter(filter ${T_SOURCES})
  if(T_EXCLUDE)
    list(JOIN T_EXCLUDE ":" excluded)
    string(APPEND filter "-${excluded}")
  endif()
  add_test(NAME ${name} COMMAND ${T_PROGRAM} --gtest_filter=${filter})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT})
endfunction()
