/* Library-level error strings (MPI error codes come from MPI). */
#include "reduce/pat_reduce.h"

static const char *const pat_error_text[PAT_ERR_COUNT] = {
    [PAT_SUCCESS] = "success",
    [PAT_ERR_INVALID_ARG] = "invalid argument",
    [PAT_ERR_NO_MEMORY] = "out of memory",
    [PAT_ERR_UNKNOWN_ALGORITHM] = "no algorithm has that name",
    [PAT_ERR_BAD_ENV] = "an environment variable has a bad value",
    [PAT_ERR_INVALID_SCHEDULE] = "the schedule is invalid",
    [PAT_ERR_NO_CALL_YET] = "no reduction has run on that communicator yet",
    [PAT_ERR_NOT_A_SCHEDULE] = "the algorithm builds no schedule",
};

const char *pat_strerror(int err) {
  const char *text = "unknown error code";
  if (err >= 0 && err < PAT_ERR_COUNT && pat_error_text[err] != NULL)
    text = pat_error_text[err];
  return text;
}
