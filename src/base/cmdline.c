#include "cmdline.h"

#include <stdlib.h>
#include <string.h>

struct buf {
	char *s;
	size_t n, alloc;
};

static void buf_add(struct buf *b, char c)
{
	if (b->n + 2 > b->alloc) {
		b->alloc = b->alloc ? 2 * b->alloc : 64;
		b->s = xrealloc(b->s, b->alloc);
	}
	b->s[b->n++] = c;
	b->s[b->n] = '\0';
}

/* Characters that end a word or start something other than a word in sh. */
static bool is_operator_char(char c)
{
	return strchr("|&;<>()`", c) != NULL;
}

const char *cmdline_split(const char *line, struct strvec *words)
{
	struct buf word = { 0 };
	bool in_word = false;
	buf_add(&word, '\0');	/* allocate, so an empty word ('') is "" */
	word.n = 0;
	const char *err = NULL;
	const char *p = line;

	for (;;) {
		char c = *p;
		if (c == '\0' || c == ' ' || c == '\t' || c == '\n') {
			if (in_word) {
				strvec_push(words, word.s);
				word.n = 0;
				word.s[0] = '\0';
				in_word = false;
			}
			if (c == '\0')
				break;
			p++;
			continue;
		}
		if (c == '#' && !in_word)
			break;	/* a comment runs to the end of the line */
		if (is_operator_char(c)) {
			err = "shell operators (|, &&, ;, redirections, subshells) are not a single command";
			break;
		}
		if (c == '$' && (p[1] == '(' || p[1] == '{' || p[1] == '_' ||
				 (p[1] >= 'A' && p[1] <= 'Z') || (p[1] >= 'a' && p[1] <= 'z'))) {
			err = "shell expansions ($VAR, $(...)) are not supported";
			break;
		}
		in_word = true;
		if (c == '\'') {
			const char *end = strchr(p + 1, '\'');
			if (!end) {
				err = "unbalanced single quote";
				break;
			}
			for (const char *q = p + 1; q < end; q++)
				buf_add(&word, *q);
			p = end + 1;
		} else if (c == '"') {
			p++;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1] && strchr("\\\"$`\n", p[1])) {
					if (p[1] != '\n')
						buf_add(&word, p[1]);
					p += 2;
					continue;
				}
				if (*p == '$' || *p == '`') {
					err = "shell expansions inside double quotes are not supported";
					goto out;
				}
				buf_add(&word, *p++);
			}
			if (*p != '"') {
				err = "unbalanced double quote";
				break;
			}
			p++;
		} else if (c == '\\') {
			if (p[1] == '\0') {
				err = "trailing backslash";
				break;
			}
			if (p[1] != '\n')
				buf_add(&word, p[1]);
			p += 2;
		} else {
			buf_add(&word, c);
			p++;
		}
	}
out:
	free(word.s);
	return err;
}

static bool needs_quotes(const char *w)
{
	if (!*w)
		return true;
	for (const char *p = w; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_-+=./,:@%^", *p))
			return true;
	return false;
}

char *cmdline_join(char *const *words, size_t n)
{
	struct buf b = { 0 };
	buf_add(&b, '\0');
	b.n = 0;
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_add(&b, ' ');
		const char *w = words[i];
		if (!needs_quotes(w)) {
			for (; *w; w++)
				buf_add(&b, *w);
			continue;
		}
		/* Single quotes protect everything but themselves: ' becomes '\'' */
		buf_add(&b, '\'');
		for (; *w; w++) {
			if (*w == '\'') {
				buf_add(&b, '\'');
				buf_add(&b, '\\');
				buf_add(&b, '\'');
			}
			buf_add(&b, *w);
		}
		buf_add(&b, '\'');
	}
	return b.s;
}
