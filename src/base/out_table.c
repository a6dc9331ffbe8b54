#define _GNU_SOURCE
#include "out_table.h"
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct table {
	struct strvec header;	/* copies: callers may pass temporary titles */
	bool *right;
	int ncols;
	struct strvec cells;	/* row-major */
};

struct table *table_new(void)
{
	return xcalloc(1, sizeof(struct table));
}

void table_column(struct table *t, const char *header, bool align_right)
{
	strvec_push(&t->header, header);
	t->right = xrealloc(t->right, (size_t)(t->ncols + 1) * sizeof(bool));
	t->right[t->ncols++] = align_right;
}

/* Back up to the start of a UTF-8 character. */
static size_t char_start(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
		i--;
	return i;
}

char *table_elide(const char *text, size_t max)
{
	size_t len = strlen(text);
	if (len <= max || max < 8)
		return xstrdup(text);
	size_t keep = max - 3, head = char_start(text, keep / 2), tail = char_start(text, len - (keep - keep / 2));
	return xasprintf("%.*s...%s", (int)head, text, text + tail);
}

void table_cell(struct table *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *cell = xvasprintf(fmt, ap);
	va_end(ap);
	strvec_push_nodup(&t->cells, strlen(cell) > TABLE_MAX_CELL ? table_elide(cell, TABLE_MAX_CELL) : cell);
	if (t->cells.v[t->cells.n - 1] != cell)
		free(cell);
}

void table_print(const struct table *t, FILE *f)
{
	size_t *width = xcalloc((size_t)t->ncols + 1, sizeof(size_t));
	for (int c = 0; c < t->ncols; c++)
		width[c] = strlen(t->header.v[c]);
	for (size_t i = 0; i < t->cells.n; i++) {
		size_t len = strlen(t->cells.v[i]);
		int c = (int)(i % (size_t)t->ncols);
		if (len > width[c])
			width[c] = len;
	}
	fputs(c_bold(f), f);
	for (int c = 0; c < t->ncols; c++) {
		int w = c == t->ncols - 1 && !t->right[c] ? 0 : (int)width[c];
		fprintf(f, "%s%*s", c ? "  " : "", t->right[c] ? w : -w, t->header.v[c]);
	}
	fprintf(f, "%s\n", c_reset(f));
	for (size_t i = 0; i < t->cells.n; i++) {
		int c = (int)(i % (size_t)t->ncols);
		bool last = c == t->ncols - 1 || i + 1 == t->cells.n;
		/* No trailing padding on the last column. */
		int w = last && !t->right[c] ? 0 : (int)width[c];
		fprintf(f, "%s%*s", c ? "  " : "", t->right[c] ? w : -w, t->cells.v[i]);
		if (last)
			fputc('\n', f);
	}
	free(width);
}

void table_free(struct table *t)
{
	if (!t)
		return;
	strvec_clear(&t->cells);
	strvec_clear(&t->header);
	free(t->right);
	free(t);
}

bool color_enabled(FILE *f)
{
	const char *no = getenv("NO_COLOR");
	const char *term = getenv("TERM");
	if (no && *no)
		return false;
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(fileno(f));
}

const char *c_bold(FILE *f) { return color_enabled(f) ? "\033[1m" : ""; }
const char *c_red(FILE *f) { return color_enabled(f) ? "\033[1;31m" : ""; }
const char *c_reset(FILE *f) { return color_enabled(f) ? "\033[0m" : ""; }

char *format_kib(long kib)
{
	if (kib >= 1024L * 1024)
		return xasprintf("%.1f GiB", kib / (1024.0 * 1024));
	if (kib >= 1024)
		return xasprintf("%.0f MiB", kib / 1024.0);
	return xasprintf("%ld KiB", kib);
}

char *format_count(size_t n)
{
	char digits[32];
	int len = snprintf(digits, sizeof(digits), "%zu", n);
	char *out = xmalloc((size_t)len + (size_t)len / 3 + 1), *o = out;
	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			*o++ = ',';
		*o++ = digits[i];
	}
	*o = '\0';
	return out;
}
