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

/* Decimal digits first (strtod would take spaces, signs, hex, inf). */
static int plain_number(const char *text) {
  return text != NULL && (isdigit((unsigned char)text[0]) || text[0] == '.') &&
         strpbrk(text, "xXpP") == NULL;
}

int pat_parse_bytes(const char *text, long long max, long long *bytes) {
  static const struct {
    const char *suffix;
    double scale;
  } units[] = {{"", 1},
               {"K", 1024.0},
               {"M", 1024.0 * 1024},
               {"G", 1024.0 * 1024 * 1024},
               {NULL, 0}};
  char *end;
  double v;
  int k = 0;
  if (!plain_number(text))
    return 0;
  errno = 0;
  v = strtod(text, &end);
  if (end == text || errno != 0 || !isfinite(v))
    return 0;
  while (units[k].suffix != NULL && strcasecmp(end, units[k].suffix) != 0)
    k++;
  if (units[k].suffix == NULL)
    return 0;
  v *= units[k].scale;
  if (v < 0 || v != floor(v))
    return 0;
  if (v > (double)max)
    return -1;
  *bytes = (long long)v;
  return 1;
}

int pat_parse_seconds(const char *text, double *seconds) {
  /* divided, not multiplied by 1e-6: 250us is then exactly 250e-6 */
  static const struct {
    const char *unit;
    double per_second;
  } units[] = {{"", 1},     {"s", 1},     {"ms", 1e3},
               {"us", 1e6}, {"ns", 1e9}, {NULL, 0}};
  char *end;
  double v;
  int k = 0;
  if (!plain_number(text))
    return 0;
  errno = 0;
  v = strtod(text, &end);
  if (end == text || errno != 0 || !isfinite(v) || v < 0)
    return 0;
  while (units[k].unit != NULL && strcmp(end, units[k].unit) != 0)
    k++;
  if (units[k].unit == NULL)
    return 0;
  *seconds = v / units[k].per_second;
  return 1;
}
