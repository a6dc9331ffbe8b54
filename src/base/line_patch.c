#define _GNU_SOURCE
#include "line_patch.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTEXT 3

/* The text's lines: where each starts and its length with its newline. */
struct lines {
	size_t *start, *len;
	size_t n;
	bool final_newline;	/* the last line ends with one */
};

static void split_lines(const char *text, size_t len, struct lines *l)
{
	*l = (struct lines){ .final_newline = true };
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) + 1 : len;
		l->start = xrealloc(l->start, (l->n + 1) * sizeof(size_t));
		l->len = xrealloc(l->len, (l->n + 1) * sizeof(size_t));
		l->start[l->n] = at;
		l->len[l->n++] = end - at;
		l->final_newline = nl != NULL;
		at = end;
	}
}

static void lines_free(struct lines *l)
{
	free(l->start);
	free(l->len);
}

static bool has_line(const struct lines *l, unsigned long line, char **err)
{
	if (line >= 1 && line <= l->n)
		return true;
	return fail_with(err, xasprintf("no line %lu (the file has %zu)", line, l->n));
}

/* The new line with the old one's ending ("\r\n", "\n" or none). */
static char *with_ending(const char *with, const char *old, size_t n)
{
	const char *ending = n >= 2 && old[n - 2] == '\r' && old[n - 1] == '\n' ? "\r\n"
			   : n >= 1 && old[n - 1] == '\n'			      ? "\n"
										      : "";
	return xasprintf("%s%s", with, ending);
}

bool line_edit(const char *text, size_t len, unsigned long line, const char *with, char **edited, char **err)
{
	struct lines l;
	split_lines(text, len, &l);
	if (!has_line(&l, line, err)) {
		lines_free(&l);
		return false;
	}
	size_t i = line - 1, after = l.start[i] + l.len[i];
	char *line_out = with ? with_ending(with, text + l.start[i], l.len[i]) : xstrdup("");
	size_t size;
	FILE *out = open_memstream(edited, &size);
	if (!out)
		die(EXIT_INTERNAL, "cannot allocate an edited file");
	fwrite(text, 1, l.start[i], out);
	fputs(line_out, out);
	fwrite(text + after, 1, len - after, out);
	fclose(out);
	free(line_out);
	lines_free(&l);
	return true;
}

/* One line of the hunk: its mark, its text, and the marker git writes
 * after a last line that has no newline. */
static void hunk_line(FILE *out, char mark, const char *s, size_t n, bool newline)
{
	fputc(mark, out);
	fwrite(s, 1, n, out);
	if (!newline)
		fputs("\n\\ No newline at end of file\n", out);
}

/* A hunk's range as diff writes it: "start,count", the start one before
 * an empty range's place. */
static void range(FILE *out, size_t first, size_t count)
{
	if (count == 1)
		fprintf(out, "%zu", first);
	else
		fprintf(out, "%zu,%zu", count ? first : first - 1, count);
}

bool line_patch(const char *text, size_t len, unsigned long line, const char *with, const char *path, char **patch,
		char **err)
{
	struct lines l;
	split_lines(text, len, &l);
	if (!has_line(&l, line, err)) {
		lines_free(&l);
		return false;
	}
	size_t i = line - 1, from = i > CONTEXT ? i - CONTEXT : 0, to = i + CONTEXT + 1 < l.n ? i + CONTEXT + 1 : l.n;
	size_t size;
	FILE *out = open_memstream(patch, &size);
	if (!out)
		die(EXIT_INTERNAL, "cannot allocate a patch");
	fprintf(out, "--- a/%s\n+++ b/%s\n@@ -", path, path);
	range(out, from + 1, to - from);
	fputs(" +", out);
	range(out, from + 1, to - from - (with ? 0 : 1));
	fputs(" @@\n", out);
	for (size_t k = from; k < to; k++) {
		const char *s = text + l.start[k];
		size_t n = l.len[k];
		bool newline = k + 1 < l.n || l.final_newline;
		if (k != i) {
			hunk_line(out, ' ', s, n, newline);
			continue;
		}
		hunk_line(out, '-', s, n, newline);
		if (with) {
			char *line_out = with_ending(with, s, n);
			hunk_line(out, '+', line_out, strlen(line_out), newline);
			free(line_out);
		}
	}
	fclose(out);
	lines_free(&l);
	return true;
}
