/*
 * Text from the user (--tag, trace file names in patterns) written into
 * patbench's CSV and JSON outputs, escaped so that any text stays one
 * field or one string.
 */
#ifndef PATBENCH_ESCAPE_H
#define PATBENCH_ESCAPE_H

#include <stdio.h>

/* s as one CSV field (RFC 4180): as it is, or in double quotes with its
 * quotes doubled when it holds a comma, a quote or a line break. */
void pb_csv_field(FILE *f, const char *s);

/* s as a JSON string, quotes included: quote, backslash and control
 * characters escaped. */
void pb_json_string(FILE *f, const char *s);

#endif /* PATBENCH_ESCAPE_H */
