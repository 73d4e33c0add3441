# Runs the 10-step base file with --set "Output/Write step timings=true" and checks that
# step_timings.csv has its header and one row per step (steps 1 to 10, non-negative seconds).
# The times themselves are not checked (tests check correctness, not speed).
# Variables: EXE, PRM, WORKDIR.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${EXE} ${PRM} --set "Output/Write step timings=true" --set "Output/Directory=out"
                WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the run failed (${status}):\n${out}\n${err}")
endif()
file(STRINGS ${WORKDIR}/out/step_timings.csv lines)
list(LENGTH lines n)
if(NOT n EQUAL 11)
  message(FATAL_ERROR "expected a header and 10 rows, got ${n} lines")
endif()
list(GET lines 0 header)
if(NOT header STREQUAL "step,step_seconds,contact_geometry,free_velocity,contact_step,contact_solver,projection")
  message(FATAL_ERROR "unexpected header: ${header}")
endif()
foreach(k RANGE 1 10)
  list(GET lines ${k} row)
  if(NOT row MATCHES "^${k},[0-9.e+-]+,")
    message(FATAL_ERROR "row ${k} is not step ${k} with a time: ${row}")
  endif()
endforeach()
message(STATUS "ok")
