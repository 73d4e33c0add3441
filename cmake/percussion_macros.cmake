# Helpers shared by every layer's CMakeLists.txt.

# percussion_add_dealii_library(NAME SOURCES src... [DEPENDS lib...])
# A static library that uses deal.II (compiled with deal.II's flags and definitions).
function(percussion_add_dealii_library NAME)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(${NAME} STATIC ${ARG_SOURCES})
  target_include_directories(${NAME} PUBLIC ${PERCUSSION_SOURCE_DIR}/include)
  deal_ii_setup_target(${NAME})
  if(ARG_DEPENDS)
    target_link_libraries(${NAME} ${ARG_DEPENDS})
  endif()
endfunction()

# percussion_add_test(NAME SOURCES src... [LIBRARIES lib...] [RANKS n...] [LABELS l...]
#                     [TIMEOUT seconds] [DEALII] [ARGS arg...])
# A Boost.Test executable registered with CTest once per MPI rank count in RANKS (default 1).
# Tests with more than one rank run under mpirun with the Open MPI root variables set, and
# with one BLAS/OpenMP thread per rank (the machine has 2 cores).
function(percussion_add_test NAME)
  cmake_parse_arguments(ARG "DEALII" "TIMEOUT" "SOURCES;LIBRARIES;RANKS;LABELS;ARGS" ${ARGN})
  if(NOT ARG_RANKS)
    set(ARG_RANKS 1)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  add_executable(${NAME} ${ARG_SOURCES})
  target_include_directories(${NAME} PRIVATE ${PERCUSSION_SOURCE_DIR}/include ${PERCUSSION_SOURCE_DIR}/tests)
  target_compile_definitions(${NAME} PRIVATE BOOST_TEST_DYN_LINK
    PERCUSSION_SOURCE_DIR="${PERCUSSION_SOURCE_DIR}"
    PERCUSSION_TEST_DATA_DIR="${PERCUSSION_TEST_DATA_DIR}")
  target_link_libraries(${NAME} ${ARG_LIBRARIES} Boost::unit_test_framework)
  if(ARG_DEALII)
    deal_ii_setup_target(${NAME})
  endif()
  set(_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OPENBLAS_NUM_THREADS=1;OMP_NUM_THREADS=1;DEAL_II_NUM_THREADS=1")
  foreach(_ranks ${ARG_RANKS})
    if(_ranks EQUAL 1)
      set(_test_name ${NAME})
      set(_command $<TARGET_FILE:${NAME}> ${ARG_ARGS})
    else()
      set(_test_name ${NAME}.mpi${_ranks})
      set(_command ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${_ranks} --oversubscribe
                   $<TARGET_FILE:${NAME}> ${ARG_ARGS})
    endif()
    # A directory per rank count: the 1- and 2-rank runs of one test may run at the same time
    # (ctest -j) and write output directories of the same names.
    set(_directory ${CMAKE_CURRENT_BINARY_DIR}/ranks${_ranks})
    file(MAKE_DIRECTORY ${_directory})
    add_test(NAME ${_test_name} COMMAND ${_command} WORKING_DIRECTORY ${_directory})
    set_tests_properties(${_test_name} PROPERTIES
      ENVIRONMENT "${_env}" TIMEOUT ${ARG_TIMEOUT} LABELS "${ARG_LABELS}" PROCESSORS ${_ranks})
  endforeach()
endfunction()
