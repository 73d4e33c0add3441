# Runs `percussion PRM` in a scratch directory that already holds output/statistics.csv from an
# earlier run, and checks that the program
#   - exits with status 1 (bad input),
#   - names the offending parameter/file in its message (regular expression EXPECT),
#   - left the earlier output untouched (nothing already written is lost).
# Variables: EXE, PRM, EXPECT, WORKDIR, and ARGS (optional, a ;-list after PRM, e.g. --set overrides).
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR}/output)
file(WRITE ${WORKDIR}/output/statistics.csv "results of an earlier run\n")
file(WRITE ${WORKDIR}/not_a_directory "a regular file\n")
execute_process(COMMAND ${EXE} ${PRM} ${ARGS} WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 1)
  message(FATAL_ERROR "expected exit status 1, got '${status}'.\nstdout: ${out}\nstderr: ${err}")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "the message does not match '${EXPECT}':\n${err}")
endif()
file(READ ${WORKDIR}/output/statistics.csv kept)
if(NOT kept STREQUAL "results of an earlier run\n")
  message(FATAL_ERROR "the earlier output/statistics.csv was overwritten")
endif()
message(STATUS "ok: ${err}")
