/*
 * localredirect's parsed tunables, as the configuration cache keeps them
 * (pat_config_alg(cfg, PAT_REDUCE_ALG_LOCALREDIRECT)); for the folder's
 * code and the tests.
 */
#ifndef PAT_LOCALREDIRECT_H
#define PAT_LOCALREDIRECT_H

typedef struct pat_lr_config {
  double patience; /* PAT_REDUCE_LR_PATIENCE seconds; < 0: auto */
  long long eager; /* PAT_REDUCE_LR_EAGER bytes; < 0: auto */
  long long tree;  /* PAT_REDUCE_LR_TREE bytes; < 0: auto */
} pat_lr_config;

#endif /* PAT_LOCALREDIRECT_H */
