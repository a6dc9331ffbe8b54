#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static _Noreturn void out_of_memory(void)
{
	fputs("buildwall: out of memory\n", stderr);
	exit(EXIT_INTERNAL);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *grow_array(void *p, size_t n, size_t size)
{
	if (n & (n - 1))	/* not a power of two (nor 0): its room is there */
		return p;
	size_t room = n ? 2 * n : 1;
	if (room > SIZE_MAX / size)
		out_of_memory();
	return xrealloc(p, room * size);
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		out_of_memory();
	return d;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);
	if (!d)
		out_of_memory();
	return d;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		out_of_memory();
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

static int stdout_failed_with;

void stdout_write_failed(int err)
{
	if (!stdout_failed_with)
		stdout_failed_with = err ? err : EIO;
}

int flush_stdout(void)
{
	errno = 0;
	if (fflush(stdout) || ferror(stdout))
		stdout_write_failed(errno);
	return stdout_failed_with;
}

__attribute__((format(printf, 2, 0))) static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	flush_stdout();
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);	/* start clear of any progress line */
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

_Noreturn void die(enum exit_code code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("buildwall: ", fmt, ap);
	va_end(ap);
	exit(code);
}

_Noreturn void die_at(const char *file, long line, const char *fmt, ...)
{
	va_list ap;
	flush_stdout();
	fprintf(stderr, "buildwall: %s:%ld: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_BAD_INPUT);
}

static struct strvec warnings;

static void forget_warnings(void)
{
	strvec_clear(&warnings);
}

void warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("buildwall: warning: ", fmt, ap);
	va_end(ap);
	if (!warnings.n)
		atexit(forget_warnings);
	va_start(ap, fmt);
	strvec_push_nodup(&warnings, xvasprintf(fmt, ap));
	va_end(ap);
}

const struct strvec *warnings_seen(void)
{
	return &warnings;
}

void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("buildwall: note: ", fmt, ap);
	va_end(ap);
}

void strvec_push_nodup(struct strvec *sv, char *s)
{
	if (sv->n + 2 > sv->alloc) {
		sv->alloc = sv->alloc ? sv->alloc * 2 : 8;
		sv->v = xrealloc(sv->v, sv->alloc * sizeof(*sv->v));
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_nodup(sv, xstrdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strvec_push_nodup(sv, xvasprintf(fmt, ap));
	va_end(ap);
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

char *strvec_join(const struct strvec *sv, const char *sep)
{
	size_t len = 1;
	for (size_t i = 0; i < sv->n; i++)
		len += strlen(sv->v[i]) + strlen(sep);
	char *out = xcalloc(len, 1), *o = out;
	for (size_t i = 0; i < sv->n; i++)
		o = stpcpy(stpcpy(o, i ? sep : ""), sv->v[i]);
	return out;
}

static int by_bytes(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strvec_sort(struct strvec *sv)
{
	if (sv->n)
		qsort(sv->v, sv->n, sizeof(char *), by_bytes);
}

bool strvec_sorted_has(const struct strvec *sv, const char *s)
{
	return sv->n && bsearch(&s, sv->v, sv->n, sizeof(char *), by_bytes);
}

bool strvec_contains(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

bool has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && !memcmp(s + ls - lx, suffix, lx);
}

bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

char *path_in(const char *dir, const char *path)
{
	return path[0] == '/' || !dir ? xstrdup(path) : xasprintf("%s/%s", dir, path);
}

char *path_normalize(const char *dir, const char *path)
{
	char *joined = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", dir, path);
	char *out = xmalloc(strlen(joined) + 2), *o = out;
	for (char *seg = joined; *seg;) {
		char *slash = strchr(seg, '/');
		size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			while (o > out && *--o != '/')
				;	/* drop the last component ("/.." stays "/") */
		} else if (len && !(len == 1 && seg[0] == '.')) {
			*o++ = '/';
			memcpy(o, seg, len);
			o += len;
		}
		seg += len + (slash != NULL);
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	free(joined);
	return out;
}

const char *path_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/' ? path + 1 : NULL;
	return !strncmp(path, dir, n) && path[n] == '/' ? path + n + 1 : NULL;
}

char *read_text_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *text = NULL;
	size_t cap = 0;
	ssize_t len = getdelim(&text, &cap, '\0', f);
	bool failed = ferror(f);
	fclose(f);
	if (failed) {
		free(text);
		return NULL;
	}
	if (len < 0) {	/* an empty file */
		free(text);
		text = xstrdup("");
	}
	return text;
}

bool is_directory(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

void make_parent_dirs(const char *path, mode_t mode)
{
	char *dir = xstrdup(path);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(dir, mode);
		*p = '/';
	}
	free(dir);
}

bool file_exists(const char *path)
{
	struct stat st;
	return !stat(path, &st);
}

static bool runnable(const char *candidate)
{
	struct stat st;
	return !stat(candidate, &st) && S_ISREG(st.st_mode) && !access(candidate, X_OK);
}

char *path_search(const char *program, const char *path, bool (*accept)(const char *candidate))
{
	if (!*program || strchr(program, '/'))
		return *program && runnable(program) ? xstrdup(program) : NULL;
	for (const char *dir = path; dir;) {
		const char *end = strchr(dir, ':');
		size_t len = end ? (size_t)(end - dir) : strlen(dir);
		char *candidate = len ? xasprintf("%.*s/%s", (int)len, dir, program) : xstrdup(program);
		if (runnable(candidate) && (!accept || accept(candidate)))
			return candidate;
		free(candidate);
		dir = end ? end + 1 : NULL;
	}
	return NULL;
}

bool parse_double(const char *s, double *out)
{
	char *end;
	if (!s || !*s)
		return false;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || errno || !isfinite(v))
		return false;
	*out = v;
	return true;
}

bool parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	if (!s || !*s)
		return false;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*end || errno || v < min || v > max)
		return false;
	*out = v;
	return true;
}

char *include_tree_line(char *line, size_t *depth)
{
	size_t dots = strspn(line, ".");
	if (!dots || line[dots] != ' ')
		return NULL;
	if (depth)
		*depth = dots;
	char *path = line + dots + 1;
	path[strcspn(path, "\r\n")] = '\0';
	return path;
}

int cpu_count(void)
{
	const char *given = getenv("BUILDWALL_CPUS");
	long n;
	if (given && parse_int(given, 1, 65536, &n))
		return (int)n;
	cpu_set_t set;	/* a cpuset (taskset, a container's --cpuset-cpus) allows fewer */
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}
