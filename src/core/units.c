/*
 * Sizes and times as text, one set of rules for the environment variables
 * and the tools (patbench's --sizes, delays and --shared-above, patcalibrate):
 *
 *   bytes    a whole number >= 0 with an optional suffix K, M or G (powers
 *            of 1024, either case): 512, 64K, 4M
 *   seconds  a number >= 0 with an optional unit s, ms, us or ns (none:
 *            seconds): 0.002, 1.5ms, 250us
 *
 * Nothing else is accepted: no sign, no space, no hexadecimal, no other
 * suffix, nothing after the unit, nothing infinite or not a number.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pat_internal.h"

/* A unit and how many of the base unit it is (bytes, or parts of a
 * second); a NULL name ends a table. */
typedef struct unit {
  const char *name;
  double factor;
} unit;

/* text as a plain decimal number (digits first: strtod would take spaces,
 * signs, hex and inf) followed by one of units, compared by cmp: writes the
 * number and the unit's index. */
static int number_unit(const char *text, const unit *units,
                       int (*cmp)(const char *, const char *), double *v,
                       int *k) {
  char *end;
  if (text == NULL || !(isdigit((unsigned char)text[0]) || text[0] == '.') ||
      strpbrk(text, "xXpP") != NULL)
    return 0;
  errno = 0;
  *v = strtod(text, &end);
  if (end == text || errno != 0 || !isfinite(*v) || *v < 0)
    return 0;
  for (*k = 0; units[*k].name != NULL; (*k)++)
    if (cmp(end, units[*k].name) == 0)
      return 1;
  return 0;
}

int pat_parse_bytes(const char *text, long long max, long long *bytes) {
  static const unit units[] = {{"", 1},
                               {"K", 1024.0},
                               {"M", 1024.0 * 1024},
                               {"G", 1024.0 * 1024 * 1024},
                               {NULL, 0}};
  double v;
  int k;
  if (!number_unit(text, units, strcasecmp, &v, &k))
    return 0;
  v *= units[k].factor;
  if (v != floor(v))
    return 0;
  if (v > (double)max)
    return -1;
  *bytes = (long long)v;
  return 1;
}

int pat_parse_seconds(const char *text, double *seconds) {
  /* divided, not multiplied by 1e-6: 250us is then exactly 250e-6 */
  static const unit per_second[] = {{"", 1},     {"s", 1},    {"ms", 1e3},
                                    {"us", 1e6}, {"ns", 1e9}, {NULL, 0}};
  double v;
  int k;
  if (!number_unit(text, per_second, strcmp, &v, &k))
    return 0;
  *seconds = v / per_second[k].factor;
  return 1;
}
