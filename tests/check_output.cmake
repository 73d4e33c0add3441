# Runs `COMMAND` (a ;-list) and checks that it exits with status 0 and that its standard output
# matches the regular expression EXPECT: both, where CTest's PASS_REGULAR_EXPRESSION would look at
# the output alone and pass a run that failed after printing the line. REJECT (optional): a
# regular expression the output must not match.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "expected exit status 0, got '${status}'.\nstdout: ${out}\nstderr: ${err}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "the output does not match '${EXPECT}':\n${out}")
endif()
if(DEFINED REJECT AND out MATCHES "${REJECT}")
  message(FATAL_ERROR "the output matches '${REJECT}', which it must not:\n${out}")
endif()
message(STATUS "ok: ${out}")
