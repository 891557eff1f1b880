/*
 * patreduce_info: prints the algorithm table with each algorithm's
 * tunables, and every environment variable the library reads, from the
 * tables themselves (no MPI run needed).
 */
#include <stdio.h>

#include "core/pat_internal.h"

int main(void) {
  const pat_env_var *vars[128];
  int n = pat_env_all(vars, 128);
  printf("Algorithms (PAT_REDUCE_ALGORITHM, case-insensitive):\n");
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++) {
    const pat_alg_row *row = pat_alg_table[i];
    /* one line per algorithm (scripts read the names), tunables at its end */
    printf("  %-14s %s", row->name, row->description);
    for (const pat_env_var *v = row->env; v && v->name; v++)
      printf("%s%s", v == row->env ? " [tunables: " : ", ", v->name);
    printf("%s\n", row->env && row->env->name ? "]" : "");
  }
  printf("\nEnvironment variables:\n");
  for (int i = 0; i < n && i < 128; i++)
    printf("  %-26s (default %s) %s\n", vars[i]->name,
           vars[i]->fallback[0] ? vars[i]->fallback : "none",
           vars[i]->description);
  return 0;
}
