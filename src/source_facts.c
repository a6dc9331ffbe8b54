#include "source_facts.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The identifier starting at text[i] (i at its first character). */
static size_t ident_end(const char *text, size_t len, size_t i)
{
	while (i < len && ident_char(text[i]))
		i++;
	return i;
}

static bool word_is(const char *text, size_t start, size_t end, const char *word)
{
	return end - start == strlen(word) && !memcmp(text + start, word, end - start);
}

/* After an identifier ending at `end`: "::" and the next identifier's span. */
static bool scoped_name(const char *text, size_t len, size_t end, size_t *name, size_t *name_end)
{
	size_t i = end;
	while (i < len && (text[i] == ' ' || text[i] == '\t'))
		i++;
	if (i + 1 >= len || text[i] != ':' || text[i + 1] != ':')
		return false;
	i += 2;
	while (i < len && (text[i] == ' ' || text[i] == '\t'))
		i++;
	*name = i;
	*name_end = ident_end(text, len, i);
	return *name_end > i;
}

void source_facts_scan(const char *text, size_t len, struct source_facts *f)
{
	bool line_start = true;
	for (size_t i = 0; i < len;) {
		char c = text[i];
		if (c == '\n') {
			line_start = true;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r') {
			i++;
			continue;
		}
		if (line_start && c == '#') {
			/* A directive, with its continuation lines. */
			while (i < len && text[i] != '\n')
				i += text[i] == '\\' && i + 1 < len ? 2 : 1;
			continue;
		}
		line_start = false;
		if (c == '/' && i + 1 < len && text[i + 1] == '/') {
			while (i < len && text[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < len && text[i + 1] == '*') {
			const char *close = NULL;
			for (size_t k = i + 2; k + 1 < len && !close; k++)
				if (text[k] == '*' && text[k + 1] == '/')
					close = text + k;
			i = close ? (size_t)(close - text) + 2 : len;
			continue;
		}
		if (c == '"' || c == '\'') {
			for (i++; i < len && text[i] != c && text[i] != '\n'; i++)
				if (text[i] == '\\')
					i++;
			i++;
			continue;
		}
		if (c == '<' && i + 2 < len && text[i + 1] == '<' && text[i + 2] == '<') {
			f->launches_kernel = true;
			i += 3;
			continue;
		}
		if (!ident_char(c) || (i > 0 && ident_char(text[i - 1]))) {
			i++;
			continue;
		}
		size_t end = ident_end(text, len, i), name, name_end;
		if (word_is(text, i, end, "__global__"))
			f->defines_kernel = true;
		else if (word_is(text, i, end, "PYBIND11_MODULE") || word_is(text, i, end, "TORCH_LIBRARY") ||
			 word_is(text, i, end, "TORCH_LIBRARY_IMPL") || word_is(text, i, end, "PYBIND11_PLUGIN"))
			f->binds_module = true;
		else if ((end - i > 6 && !memcmp(text + i, "TORCH_", 6)) || (end - i > 3 && !memcmp(text + i, "AT_", 3)) ||
			 (end - i > 4 && !memcmp(text + i, "C10_", 4)))
			f->framework_names++;	/* TORCH_CHECK, AT_DISPATCH_…: the framework's macros */
		else if ((word_is(text, i, end, "torch") || word_is(text, i, end, "at") || word_is(text, i, end, "c10")) &&
			 (i < 2 || text[i - 1] != ':' || text[i - 2] != ':') && scoped_name(text, len, end, &name, &name_end)) {
			f->framework_names++;
			f->tensor_names += word_is(text, name, name_end, "Tensor");
			end = name_end;
		}
		i = end;
	}
}

bool source_facts_file(const char *path, struct source_facts *f)
{
	FILE *in = fopen(path, "rb");
	if (!in)
		return false;
	char *text = NULL;
	size_t len = 0, cap = 0, got;
	do {
		if (cap - len < 65536) {
			cap = cap ? 2 * cap : 65536;
			text = xrealloc(text, cap);
		}
		got = fread(text + len, 1, cap - len, in);
		len += got;
	} while (got);
	bool ok = !ferror(in);
	fclose(in);
	if (ok)
		source_facts_scan(text, len, f);
	free(text);
	return ok;
}

bool source_facts_tensor_only(const struct source_facts *f)
{
	return f->framework_names && f->tensor_names == f->framework_names;
}
