# Runs `percussion PRM --set "Time integration/End time=0.05" --set "Output/Directory=overridden"` in
# a scratch directory and checks that the run succeeded, took 5 steps (the override, not the
# file's 10), wrote its results to the overridden directory, and recorded the effective
# parameters there. Variables: EXE, PRM, WORKDIR.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${EXE} ${PRM} --set "Time integration/End time=0.05" --set "Output/Directory=overridden"
                WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the run failed (${status}):\n${out}\n${err}")
endif()
if(NOT out MATCHES "done: 5 steps")
  message(FATAL_ERROR "expected 5 steps (End time = 0.05, h = 0.01):\n${out}")
endif()
if(NOT EXISTS ${WORKDIR}/overridden/statistics.csv)
  message(FATAL_ERROR "no statistics.csv in the overridden output directory")
endif()
file(READ ${WORKDIR}/overridden/parameters.prm recorded)
if(NOT recorded MATCHES "set End time *= 0.05" OR NOT recorded MATCHES "set Directory *= overridden")
  message(FATAL_ERROR "parameters.prm does not record the overrides:\n${recorded}")
endif()
message(STATUS "ok")
