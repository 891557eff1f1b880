/*
 * The algorithm table: generated from the one list of algorithms
 * (PAT_REDUCE_ALGORITHMS in include/reduce/pat_reduce.h), one row per
 * algorithm, each defined in the algorithm's folder.  Environment parsing,
 * help text, name lookup, the benchmark and the tests all read it.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pat_internal.h"

/* Each algorithm's folder defines its row. */
#define PAT_X_ROW_DECL(ID, name) extern const pat_alg_row pat_alg_##name;
PAT_REDUCE_ALGORITHMS(PAT_X_ROW_DECL)
#undef PAT_X_ROW_DECL

const pat_alg_row *const pat_alg_table[PAT_REDUCE_ALG_COUNT] = {
#define PAT_X_ROW(ID, name) [PAT_REDUCE_ALG_##ID] = &pat_alg_##name,
    PAT_REDUCE_ALGORITHMS(PAT_X_ROW)
#undef PAT_X_ROW
};

_Static_assert(PAT_REDUCE_ALG_COUNT <= 64,
               "sets of rows (auto's candidates) are bits of a 64-bit mask");
_Static_assert(sizeof pat_alg_table / sizeof pat_alg_table[0] ==
                   PAT_REDUCE_ALG_COUNT,
               "pat_alg_table needs one row per pat_reduce_alg");

static const pat_alg_row *row_of(pat_reduce_alg alg) {
  const pat_alg_row *row = NULL;
  if ((int)alg >= 0 && alg < PAT_REDUCE_ALG_COUNT)
    row = pat_alg_table[alg];
  return row;
}

const char *pat_reduce_algorithm_name(pat_reduce_alg alg) {
  const pat_alg_row *row = row_of(alg);
  return row ? row->name : NULL;
}

const char *pat_reduce_algorithm_description(pat_reduce_alg alg) {
  const pat_alg_row *row = row_of(alg);
  return row ? row->description : NULL;
}

int pat_reduce_algorithm_lookup(const char *name, pat_reduce_alg *alg) {
  int err = PAT_ERR_UNKNOWN_ALGORITHM;
  if (name == NULL || alg == NULL) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++) {
    if (strcasecmp(name, pat_alg_table[i]->name) == 0) {
      *alg = pat_alg_table[i]->id;
      err = PAT_SUCCESS;
      break;
    }
  }
out:
  return err;
}

void pat_alg_names(char *buf, size_t len) {
  size_t used = 0;
  if (len == 0)
    return;
  buf[0] = '\0';
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT && used < len; i++) {
    int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                     pat_alg_table[i]->name);
    if (n < 0)
      break;
    used += (size_t)n;
  }
}

unsigned pat_alg_unmet(const pat_alg_row *row, const pat_call_props *props) {
  unsigned unmet = 0;
  if ((row->needs & PAT_NEEDS_COMMUTATIVE) && !props->commutative)
    unmet |= PAT_NEEDS_COMMUTATIVE;
  if ((row->needs & PAT_NEEDS_CONTIGUOUS) && !props->contiguous)
    unmet |= PAT_NEEDS_CONTIGUOUS;
  if ((row->needs & PAT_NEEDS_OWN_CORES) && props->shared_cores)
    unmet |= PAT_NEEDS_OWN_CORES;
  if (props->count < row->min_count)
    unmet |= PAT_WHY_COUNT;
  return unmet;
}

int pat_alg_select(const pat_alg_row *const *table, int nrows,
                   pat_reduce_alg wanted, const pat_call_props *props,
                   pat_reduce_alg *chosen) {
  int err = PAT_ERR_INVALID_ARG;
  pat_reduce_alg cur = wanted;
  /* A chain longer than the table must loop. */
  for (int steps = 0; steps <= nrows; steps++) {
    if ((int)cur < 0 || (int)cur >= nrows || table[cur]->id != cur)
      break;
    if (pat_alg_unmet(table[cur], props) == 0) {
      *chosen = cur;
      err = PAT_SUCCESS;
      break;
    }
    if (table[cur]->fallback == cur)
      break;
    cur = table[cur]->fallback;
  }
  return err;
}

unsigned long long pat_base_scopes(void) {
  unsigned long long s = PAT_SCOPE_BIT(PAT_SCOPE_ALL);
#ifdef PATREDUCE_SMPI
  s |= PAT_SCOPE_BIT(PAT_SCOPE_MODEL); /* combine.c charges its gamma */
#endif
  return s;
}

unsigned long long pat_alg_scopes(pat_reduce_alg id) {
  const pat_alg_row *row = row_of(id);
  unsigned long long s = pat_base_scopes();
  if (row != NULL) {
    s |= PAT_SCOPE_BIT(PAT_SCOPE_ROWS + (int)id) | row->uses;
    if (row->build != NULL)
      s |= PAT_SCOPE_BIT(PAT_SCOPE_SCHEDULE);
    if (row->uses_arrivals)
      s |= PAT_SCOPE_BIT(PAT_SCOPE_ARRIVALS) | PAT_SCOPE_BIT(PAT_SCOPE_MODEL);
  }
  return s;
}
