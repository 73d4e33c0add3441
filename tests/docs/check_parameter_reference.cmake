# Fails when doc/parameters.md is not the output of `percussion --print-parameters`.
#
#   cmake -DPERCUSSION=<path to percussion> -DREFERENCE=<path to doc/parameters.md>
#         -DSOURCE_DIR=<source tree> -P check_parameter_reference.cmake
#
# Compared: the first ```text ... ``` block of the reference with the program's output, both with
# trailing blanks removed from every line and leading/trailing blank lines removed.
foreach(_var PERCUSSION REFERENCE)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "check_parameter_reference.cmake: -D${_var}=... is required")
  endif()
endforeach()

execute_process(COMMAND "${PERCUSSION}" --print-parameters
  OUTPUT_VARIABLE _actual ERROR_VARIABLE _errors RESULT_VARIABLE _status)
if(NOT _status EQUAL 0)
  message(FATAL_ERROR "'${PERCUSSION} --print-parameters' exited with status ${_status}:\n${_errors}")
endif()

if(NOT EXISTS "${REFERENCE}")
  message(FATAL_ERROR "${REFERENCE} does not exist; generate it with\n"
                      "  bash doc/generate_parameter_reference.sh BUILD_DIR")
endif()
file(READ "${REFERENCE}" _document)
string(FIND "${_document}" "```text\n" _begin)
if(_begin EQUAL -1)
  message(FATAL_ERROR "${REFERENCE} has no ```text block; regenerate it with\n"
                      "  bash doc/generate_parameter_reference.sh BUILD_DIR")
endif()
math(EXPR _begin "${_begin} + 8")
string(SUBSTRING "${_document}" ${_begin} -1 _expected)
string(FIND "${_expected}" "\n```" _end)
if(_end EQUAL -1)
  message(FATAL_ERROR "${REFERENCE}: the ```text block is not closed")
endif()
string(SUBSTRING "${_expected}" 0 ${_end} _expected)

foreach(_var _actual _expected)
  string(REGEX REPLACE "[ \t\r]+\n" "\n" ${_var} "${${_var}}")
  string(REGEX REPLACE "[ \t\r]+$" "" ${_var} "${${_var}}")
  string(STRIP "${${_var}}" ${_var})
endforeach()

if(NOT _actual STREQUAL _expected)
  # Show the difference (the listing contains ';', so no CMake list processing here).
  set(_actual_file "${CMAKE_CURRENT_BINARY_DIR}/parameters.actual.txt")
  set(_expected_file "${CMAKE_CURRENT_BINARY_DIR}/parameters.documented.txt")
  file(WRITE "${_actual_file}" "${_actual}\n")
  file(WRITE "${_expected_file}" "${_expected}\n")
  set(_difference "")
  find_program(_diff diff)
  if(_diff)
    execute_process(COMMAND "${_diff}" -u "${_expected_file}" "${_actual_file}" OUTPUT_VARIABLE _difference)
  endif()
  message(FATAL_ERROR "doc/parameters.md is out of date with `percussion --print-parameters` "
                      "(documented: ${_expected_file}, program: ${_actual_file}):\n${_difference}\n"
                      "Regenerate it with\n"
                      "  bash doc/generate_parameter_reference.sh <build directory>\n"
                      "and commit the result.")
endif()
message(STATUS "doc/parameters.md matches `percussion --print-parameters`")
