#!/bin/sh
# preload_run.sh LIB PROGRAM [ARGS...]
#
# Runs PROGRAM (one MPI rank: put it after mpiexec) with LIB preloaded, as a
# user adds the MPI_Reduce override to a program.  PAT_PRELOAD_FIRST: a
# library to preload first (the ASan runtime in a sanitized build).
lib=$1
shift
LD_PRELOAD="${PAT_PRELOAD_FIRST:+$PAT_PRELOAD_FIRST:}$lib" exec "$@"
