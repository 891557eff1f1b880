# SimGrid SMPI: the same sources built with smpicc run as a simulated MPI job
# (thousands of ranks on one machine, deterministic simulated time).
#
# Two roles, chosen by PATREDUCE_SMPI:
#
#  * ON (CMAKE_C_COMPILER=smpicc): this is the simulated build.  smpicc brings
#    SMPI's mpi.h and links SimGrid, so MPI::MPI_C is an empty target and Open
#    MPI is never looked at.  Built: the static library (linked statically so
#    that SMPI's privatization of global variables covers the library's
#    globals) but for src/share, a shared object whose one variable all
#    simulated ranks share (the memo's list), the benchmarks of bench/ and
#    tests/smpi/test_smpi_sweep.  Not built: the shared library, the PMPI
#    override, install rules, the unit and MPI tests.  patreduce_shared is
#    an alias of the static library here, so bench/ links the same way in
#    both builds.  PATREDUCE_SMPI is defined for every target: the combine
#    then charges gamma * bytes of simulated time (src/core/combine.c).
#
#  * OFF (the normal build): if smpicc and smpirun are found (and the
#    sanitizers are off: SMPI and ASan do not mix), an ExternalProject builds
#    this source tree a second time with smpicc into <build>/smpi, so that
#    `cmake --build` builds the simulated binaries too; tests/smpi registers
#    the ctest checks that run them under smpirun.
#
# Included from the top-level CMakeLists.txt after PATREDUCE_SOURCES is set;
# with PATREDUCE_SMPI the top level stops after this file.

if(PATREDUCE_SMPI)
  get_filename_component(PATREDUCE_CC_NAME "${CMAKE_C_COMPILER}" NAME)
  if(NOT PATREDUCE_CC_NAME MATCHES "^smpicc")
    message(FATAL_ERROR "PATREDUCE_SMPI=ON needs CMAKE_C_COMPILER=smpicc "
      "(SimGrid, Debian package libsimgrid-dev); CMAKE_C_COMPILER is "
      "${CMAKE_C_COMPILER}")
  endif()
  if(PATREDUCE_SANITIZE)
    message(FATAL_ERROR "PATREDUCE_SMPI=ON and PATREDUCE_SANITIZE=ON do not "
      "go together (SimGrid's context switching confuses AddressSanitizer)")
  endif()

  # smpicc provides mpi.h and libsimgrid: nothing to add.
  add_library(MPI::MPI_C INTERFACE IMPORTED)
  target_compile_definitions(patreduce_flags INTERFACE PATREDUCE_SMPI)

  # src/share: the one variable every simulated rank sees (src/share/share.c),
  # so a shared object, which SMPI does not privatize; the rest of the
  # library is static, each rank's own.
  set(PATREDUCE_STATIC_SOURCES ${PATREDUCE_SOURCES})
  list(FILTER PATREDUCE_STATIC_SOURCES EXCLUDE REGEX "/src/share/[^/]*\\.c$")
  add_library(patreduce_share SHARED src/share/share.c)
  target_include_directories(patreduce_share PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(patreduce_share PRIVATE patreduce_flags)

  add_library(patreduce_static STATIC ${PATREDUCE_STATIC_SOURCES})
  set_target_properties(patreduce_static PROPERTIES OUTPUT_NAME patreduce)
  target_include_directories(patreduce_static PUBLIC
    ${CMAKE_CURRENT_SOURCE_DIR}/include PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src
    ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(patreduce_static PUBLIC MPI::MPI_C patreduce_share
    PRIVATE GSL::gsl m patreduce_flags)
  # Programs written for the shared library link the static one here.
  add_library(patreduce_shared ALIAS patreduce_static)

  add_subdirectory(bench)

  # Hostfiles for bench/platforms: rank r on the r-th host of the cluster
  # (smpirun alone takes the hosts in name order: x-0, x-1, x-10, ...).
  foreach(platform curie fattree)
    set(xml_file ${CMAKE_CURRENT_SOURCE_DIR}/bench/platforms/${platform}.xml)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${xml_file})
    file(READ ${xml_file} xml)
    string(REGEX MATCH "<cluster[^>]*prefix=\"([^\"]*)\"" match "${xml}")
    set(prefix ${CMAKE_MATCH_1})
    string(REGEX MATCH "<cluster[^>]*suffix=\"([^\"]*)\"" match "${xml}")
    set(suffix "${CMAKE_MATCH_1}")
    string(REGEX MATCH "<cluster[^>]*radical=\"([0-9]+)-([0-9]+)\"" match "${xml}")
    if(NOT prefix OR match STREQUAL "")
      message(FATAL_ERROR "bench/platforms/${platform}.xml: no <cluster> "
        "with prefix and radical=\"first-last\"")
    endif()
    set(hosts "")
    foreach(i RANGE ${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
      string(APPEND hosts "${prefix}${i}${suffix}\n")
    endforeach()
    file(WRITE ${PROJECT_BINARY_DIR}/${platform}.hostfile "${hosts}")
  endforeach()

  # tests/smpi: run by the normal build's ctest (tests/smpi/CMakeLists.txt)
  add_executable(test_smpi_sweep tests/smpi/test_smpi_sweep.c)
  target_link_libraries(test_smpi_sweep PRIVATE patreduce_static patreduce_flags m)
  add_executable(test_smpi_bandwidth tests/smpi/test_smpi_bandwidth.c)
  target_link_libraries(test_smpi_bandwidth PRIVATE patreduce_static
    patreduce_flags m)
  add_executable(test_smpi_memo tests/smpi/test_smpi_memo.c)
  target_include_directories(test_smpi_memo PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(test_smpi_memo PRIVATE patreduce_static
    patreduce_flags)
  add_executable(smpi_pingpong tests/smpi/smpi_pingpong.c)
  target_link_libraries(smpi_pingpong PRIVATE GSL::gsl patreduce_flags m)
  return()
endif()

# ---- the normal build: the SMPI sub-build -----------------------------------
find_program(PATREDUCE_SMPICC smpicc DOC "SimGrid's smpicc (for the SMPI sub-build)")
find_program(PATREDUCE_SMPIRUN smpirun DOC "SimGrid's smpirun (for the SMPI tests)")
set(PATREDUCE_SMPI_BINARY_DIR ${PROJECT_BINARY_DIR}/smpi)
if(PATREDUCE_SANITIZE)
  message(STATUS "patreduce: no SMPI sub-build under PATREDUCE_SANITIZE")
elseif(NOT PATREDUCE_SMPICC OR NOT PATREDUCE_SMPIRUN)
  message(STATUS "patreduce: smpicc/smpirun not found (Debian package "
    "libsimgrid-dev): no SMPI sub-build, no SMPI tests")
else()
  include(ExternalProject)
  ExternalProject_Add(patreduce_smpi
    SOURCE_DIR ${PROJECT_SOURCE_DIR}
    BINARY_DIR ${PATREDUCE_SMPI_BINARY_DIR}
    PREFIX ${PROJECT_BINARY_DIR}/smpi-ep
    CMAKE_ARGS
      -DCMAKE_C_COMPILER=${PATREDUCE_SMPICC}
      -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
      -DPATREDUCE_SMPI=ON
      -DPATREDUCE_BUILD_TESTS=OFF
      -DPATREDUCE_WERROR=${PATREDUCE_WERROR}
    INSTALL_COMMAND ""
    # The sources are this tree: let the sub-build's own dependencies decide
    # what is out of date, every time.
    BUILD_ALWAYS ON)
endif()
