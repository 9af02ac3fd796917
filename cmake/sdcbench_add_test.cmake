# sdcbench_add_test(NAME SOURCES... LABELS l1 [l2...] [TIMEOUT s] [ARGS gtest-args...] [OPTIMIZED])
# One GoogleTest executable per test file, registered with ctest under its
# labels (unit, golden, slow, cli). `ctest -L unit` runs one tier.
function(sdcbench_add_test name)
  cmake_parse_arguments(T "OPTIMIZED" "TIMEOUT" "SOURCES;LABELS;ARGS" ${ARGN})
  # SDCBENCH_ALL_PROGRAMS=OFF (CI's Release build): a test that only the cli
  # tier runs is not built; scripts/test.sh runs that tier in build-san.
  set(T_EXCLUDE)
  if(NOT SDCBENCH_ALL_PROGRAMS AND T_LABELS STREQUAL "cli")
    set(T_EXCLUDE EXCLUDE_FROM_ALL)
  endif()
  add_executable(${name} ${T_EXCLUDE} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE sdcbench_core GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    SDCBENCH_BINARY="$<TARGET_FILE:sdcbench>"
    SDCBENCH_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    SDCBENCH_TEST_DATA="${PROJECT_SOURCE_DIR}/tests")
  add_dependencies(${name} sdcbench)
  # A test's own code at -O1 in Release (after CMake's -O3, so it wins): it
  # calls the core, which stays at -O3, and builds 28 % faster (CI's time,
  # HACKING.md). OPTIMIZED: a test whose own loops are its time stays at -O3.
  if(NOT T_OPTIMIZED)
    target_compile_options(${name} PRIVATE $<$<CONFIG:Release>:-O1>)
  endif()
  sdcbench_reuse_pch(${name})
  add_test(NAME ${name} COMMAND ${name} ${T_ARGS})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT})
endfunction()
