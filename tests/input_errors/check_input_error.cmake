# Runs `EXE PRM ARGS` in a scratch directory that already holds output/statistics.csv from an
# earlier run, and checks that the program
#   - exits with status 1 (bad input; not a crash, not an internal error),
#   - names the offending parameter/file/option in its message on stderr (regular expression EXPECT),
#   - left the earlier output untouched (nothing already written is lost),
#   - created nothing in the scratch directory (a refused run leaves nothing on disk; e.g. an
#     Output/Directory set to a new name by ARGS is not created).
# Variables: EXE, EXPECT, WORKDIR, and PRM and ARGS (optional; ARGS a ;-list after PRM, e.g. --set
# overrides), RANKS and MPIEXEC (optional: with RANKS > 1 the program runs under
# `MPIEXEC -np RANKS --oversubscribe`, whose exit status is the ranks' 1).
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR}/output)
file(WRITE ${WORKDIR}/output/statistics.csv "results of an earlier run\n")
file(WRITE ${WORKDIR}/not_a_directory "a regular file\n")
file(GLOB_RECURSE before LIST_DIRECTORIES true RELATIVE ${WORKDIR} ${WORKDIR}/*)
set(launcher)
if(RANKS AND NOT RANKS EQUAL 1)
  set(launcher ${MPIEXEC} -np ${RANKS} --oversubscribe)
endif()
execute_process(COMMAND ${launcher} ${EXE} ${PRM} ${ARGS} WORKING_DIRECTORY ${WORKDIR}
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
file(GLOB_RECURSE after LIST_DIRECTORIES true RELATIVE ${WORKDIR} ${WORKDIR}/*)
if(NOT "${after}" STREQUAL "${before}")
  message(FATAL_ERROR "the refused run left files or directories behind: before ${before}, after ${after}")
endif()
message(STATUS "ok: ${err}")
