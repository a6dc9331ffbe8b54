/* Human output: aligned tables, colour only on a TTY without NO_COLOR. */
#ifndef BUILDWALL_OUT_TABLE_H
#define BUILDWALL_OUT_TABLE_H

#include <stdbool.h>
#include <stdio.h>

struct table;

struct table *table_new(void);
void table_column(struct table *t, const char *header, bool align_right);
/* Past this a cell is elided in the middle ("abc...xyz"), so one huge name
 * cannot pad every row of a table; JSON keeps names whole. */
#define TABLE_MAX_CELL 100
/* `text` cut to at most `max` bytes by eliding its middle (a new string). */
char *table_elide(const char *text, size_t max);
/* Append a cell to the current row; the row ends after the last column. */
void table_cell(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void table_print(const struct table *t, FILE *f);
void table_free(struct table *t);

/* Colour escapes, or "" when f is not a TTY or NO_COLOR is set. */
bool color_enabled(FILE *f);
const char *c_bold(FILE *f);
const char *c_red(FILE *f);
const char *c_reset(FILE *f);

/* "1.2 GiB", "812 MiB", "64 KiB" from kibibytes. */
char *format_kib(long kib);
/* "376,239": a count with thousands separated. */
char *format_count(size_t n);

#endif
