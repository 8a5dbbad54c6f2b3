# SPDX-License-Identifier: GPL-2.0-or-later
# cmake -DFFDVBCTL=PATH -DREADME=PATH -P readme_ioctls.cmake: replaces the ioctl support matrix
# in README.md (the lines between the ioctl-matrix markers) with `ffdvbctl ioctls --markdown`,
# the table the daemon uses (src/abi/ioctl_table.c). Run through the target 'readme-ioctls';
# test_ioctl_matrix fails while README.md's copy differs.
set(begin_marker "<!-- ioctl-matrix begin")
set(end_marker "<!-- ioctl-matrix end -->")
execute_process(COMMAND ${FFDVBCTL} ioctls --markdown OUTPUT_VARIABLE matrix
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FFDVBCTL} ioctls --markdown failed (${rc})")
endif()
file(READ ${README} text)
string(FIND "${text}" "${begin_marker}" b)
string(FIND "${text}" "${end_marker}" e)
if(b LESS 0 OR e LESS b)
  message(FATAL_ERROR "${README}: no '${begin_marker} ... -->' line before '${end_marker}'")
endif()
# keep the begin marker's whole line
string(SUBSTRING "${text}" ${b} -1 rest)
string(FIND "${rest}" "\n" nl)
math(EXPR head_len "${b} + ${nl} + 1")
string(SUBSTRING "${text}" 0 ${head_len} head)
string(SUBSTRING "${text}" ${e} -1 tail)
set(new "${head}${matrix}${tail}")
if(new STREQUAL text)
  message(STATUS "${README}: the ioctl matrix is up to date")
else()
  file(WRITE ${README} "${new}")
  message(STATUS "${README}: the ioctl matrix was rewritten")
endif()
