/*
 * patreduce_info: prints the algorithm table and the environment variables
 * the library reads, from the tables themselves (no MPI run needed).
 */
#include <stdio.h>

#include "core/pat_internal.h"

int main(void) {
  printf("Algorithms (PAT_REDUCE_ALGORITHM, case-insensitive):\n");
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++)
    printf("  %-12s %s\n", pat_alg_table[i].name, pat_alg_table[i].description);
  printf("\nEnvironment variables:\n");
  for (int i = 0; i < PAT_ENV_COUNT; i++)
    printf("  %-22s (default %s) %s\n", pat_env_table[i].name,
           pat_env_table[i].fallback, pat_env_table[i].description);
  return 0;
}
