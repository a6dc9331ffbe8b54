#define _GNU_SOURCE
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

/* Framework macros that <ATen/core/Tensor.h> brings (c10/util/Exception.h). */
static bool tensor_check(const char *text, size_t start, size_t end)
{
	static const char *const checks[] = { "TORCH_CHECK", "TORCH_INTERNAL_ASSERT", "TORCH_WARN" };
	for (size_t k = 0; k < sizeof(checks) / sizeof(*checks); k++) {
		size_t n = strlen(checks[k]);
		if (end - start >= n && !memcmp(text + start, checks[k], n))
			return true;
	}
	return false;
}

static void note_beyond(struct source_facts *f, const char *text, size_t start, size_t end)
{
	if (!f->beyond_tensor++) {
		size_t n = end - start < sizeof(f->first_beyond) - 1 ? end - start : sizeof(f->first_beyond) - 1;
		memcpy(f->first_beyond, text + start, n);
		f->first_beyond[n] = '\0';
	}
}

static void scan(const char *text, size_t len, struct source_facts *f, bool macro);

/* A #define's body is code wherever the macro expands (the demo's tensor
 * wrapper is one): what it names counts for narrowing, not for a TU's
 * role (a prologue's "#define __global__ …" defines no kernel). */
static void scan_define(const char *text, size_t start, size_t end, struct source_facts *f)
{
	size_t i = start + 1;
	while (i < end && (text[i] == ' ' || text[i] == '\t'))
		i++;
	size_t word = ident_end(text, end, i);
	if (!word_is(text, i, word, "define"))
		return;
	for (i = word; i < end && (text[i] == ' ' || text[i] == '\t'); i++)
		;
	i = ident_end(text, end, i);
	if (i < end && text[i] == '(')
		while (i < end && text[i++] != ')')
			;
	struct source_facts body = { 0 };
	scan(text + i, end - i, &body, true);
	/* Only what narrowing reads: a role comes from code, not a macro. */
	source_facts_add(f, &(struct source_facts){ .registers_ops = body.registers_ops, .tensor_api = body.tensor_api,
						   .torch_aliases = body.torch_aliases, .beyond_tensor = body.beyond_tensor });
	if (body.beyond_tensor && f->beyond_tensor == body.beyond_tensor)
		memcpy(f->first_beyond, body.first_beyond, sizeof(f->first_beyond));
}

void source_facts_scan(const char *text, size_t len, struct source_facts *f)
{
	f->names_function |= memmem(text, len, "function<", strlen("function<")) != NULL;
	scan(text, len, f, false);
}

static void scan(const char *text, size_t len, struct source_facts *f, bool macro)
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
			size_t start = i;
			while (i < len && text[i] != '\n')
				i += text[i] == '\\' && i + 1 < len ? 2 : 1;
			if (!macro)
				scan_define(text, start, i < len ? i : len, f);
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
		else if (word_is(text, i, end, "PYBIND11_MODULE") || word_is(text, i, end, "PYBIND11_PLUGIN"))
			f->binds_module = f->pybind_module = true;
		else if (word_is(text, i, end, "TORCH_LIBRARY") || word_is(text, i, end, "TORCH_LIBRARY_IMPL"))
			f->binds_module = f->registers_ops = true;
		else if (word_is(text, i, end, "TORCH_EXTENSION_NAME"))
			f->framework_names++;	/* the build's -D for the module's name */
		else if ((end - i > 6 && !memcmp(text + i, "TORCH_", 6)) || (end - i > 3 && !memcmp(text + i, "AT_", 3)) ||
			 (end - i > 4 && !memcmp(text + i, "C10_", 4))) {
			f->framework_names++;	/* TORCH_CHECK, AT_DISPATCH_…: the framework's macros */
			if (tensor_check(text, i, end))
				f->tensor_api++;
			else
				note_beyond(f, text, i, end);
		} else if ((word_is(text, i, end, "torch") || word_is(text, i, end, "at") || word_is(text, i, end, "c10")) &&
			   (i < 2 || text[i - 1] != ':' || text[i - 2] != ':') && scoped_name(text, len, end, &name, &name_end)) {
			f->framework_names++;
			bool tensor = word_is(text, name, name_end, "Tensor");
			f->tensor_names += tensor;
			if (tensor) {
				f->tensor_api++;
				f->torch_aliases += word_is(text, i, end, "torch");
			}
			else if (word_is(text, i, end, "torch") && word_is(text, name, name_end, "Library"))
				f->registers_ops = true;
			else
				note_beyond(f, text, i, name_end);
			end = name_end;
		} else if ((word_is(text, i, end, "py") || word_is(text, i, end, "pybind11")) &&
			   (i < 2 || text[i - 1] != ':' || text[i - 2] != ':') && scoped_name(text, len, end, &name, &name_end)) {
			note_beyond(f, text, i, name_end);	/* pybind11's own types: the binding needs them */
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

void source_facts_add(struct source_facts *to, const struct source_facts *from)
{
	if (from->beyond_tensor && !to->beyond_tensor)
		memcpy(to->first_beyond, from->first_beyond, sizeof(to->first_beyond));
	to->defines_kernel |= from->defines_kernel;
	to->launches_kernel |= from->launches_kernel;
	to->binds_module |= from->binds_module;
	to->names_function |= from->names_function;
	to->pybind_module |= from->pybind_module;
	to->registers_ops |= from->registers_ops;
	to->framework_names += from->framework_names;
	to->tensor_names += from->tensor_names;
	to->tensor_api += from->tensor_api;
	to->torch_aliases += from->torch_aliases;
	to->beyond_tensor += from->beyond_tensor;
}

bool source_facts_tensor_only(const struct source_facts *f)
{
	return f->framework_names && f->tensor_names == f->framework_names;
}
