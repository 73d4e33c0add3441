# Runs `percussion PRM` in a fresh directory and checks the exit status (STATUS), that stderr/stdout
# match EXPECT, and that every file in FILES (relative to the run directory) exists afterwards.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
# ARGS: further command-line arguments (a ;-list, e.g. "--set;Section/Entry=value").
execute_process(COMMAND ${EXE} ${PRM} ${ARGS} WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL ${STATUS})
  message(FATAL_ERROR "expected exit status ${STATUS}, got '${status}'.\nstdout: ${out}\nstderr: ${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "the output does not match '${EXPECT}':\nstdout: ${out}\nstderr: ${err}")
endif()
foreach(f ${FILES})
  if(NOT EXISTS ${WORKDIR}/${f})
    message(FATAL_ERROR "expected file ${f} was not written.\nstdout: ${out}")
  endif()
endforeach()
# Optionally, FIELDS_FILE must contain every name in FIELDS (e.g. the arrays of a .vtu file).
if(FIELDS_FILE)
  file(READ ${WORKDIR}/${FIELDS_FILE} content)
  foreach(field ${FIELDS})
    if(NOT content MATCHES "Name=\"${field}\"")
      message(FATAL_ERROR "${FIELDS_FILE} has no array named ${field}")
    endif()
  endforeach()
endif()
message(STATUS "ok (${status}): ${err}")
