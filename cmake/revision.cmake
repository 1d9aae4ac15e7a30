# Writes the engine's version and revision (src/util/version.cpp.in) into OUT,
# at configure time and before every build (target mudjack_revision), so the
# revision baked into every run's provenance is the tree's when the engine
# was built, not when CMake last configured. configure_file leaves OUT alone
# when its content is unchanged: a build of the same revision compiles nothing.
#   cmake -DSOURCE_DIR=... -DOUT=... -DPROJECT_VERSION=... -P cmake/revision.cmake
execute_process(
  COMMAND git describe --always --dirty --tags
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE MUDJACK_REVISION
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT MUDJACK_REVISION)
  set(MUDJACK_REVISION "unknown")
endif()
configure_file(${SOURCE_DIR}/src/util/version.cpp.in ${OUT} @ONLY)
