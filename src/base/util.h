/* Small helpers every module uses: allocation that cannot fail, error exits
 * with buildwall's exit codes, and a growable vector of strings. */
#ifndef BUILDWALL_UTIL_H
#define BUILDWALL_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum exit_code {
	EXIT_OK = 0,
	EXIT_BAD_INPUT = 2,	/* usage error or input we cannot read */
	EXIT_BUILD_FAILED = 3,	/* a build or compile we ran failed */
	EXIT_INTERNAL = 4,	/* buildwall's own fault: no memory, no room in TMPDIR, a failed write, a bug */
	EXIT_INTERRUPTED = 130,
};

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* Array p of n elements of `size` bytes, with room for one more. An array
 * grown only this way has a power-of-two capacity, so appending n elements
 * copies O(n) bytes; a realloc per element copies O(n^2) where the
 * allocator cannot grow in place (ASan's: a 100k-step record took minutes). */
void *grow_array(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* "buildwall: <what>" on stderr, then exit with the given code. */
_Noreturn void die(enum exit_code code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "buildwall: <file>:<line>: <what>", exit 2: bad input with a location. */
_Noreturn void die_at(const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* fflush(stdout), remembering why the first failed write failed: what
 * main reports at exit (errno is long gone by then). Returns that errno,
 * or 0 while every write went through. */
int flush_stdout(void);
/* A write to stdout failed with err: what flush_stdout reports. */
void stdout_write_failed(int err);
/* "buildwall: warning: <what>" on stderr; also kept, for the JSON
 * envelope's warnings[] (warnings_seen). */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const struct strvec *warnings_seen(void);
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A NULL-terminated, growable array of owned strings (argv-shaped). */
struct strvec {
	char **v;
	size_t n, alloc;
};
void strvec_push(struct strvec *sv, const char *s);
void strvec_push_nodup(struct strvec *sv, char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strvec_clear(struct strvec *sv);
bool strvec_contains(const struct strvec *sv, const char *s);
/* Sort the strings bytewise (strcmp order). */
void strvec_sort(struct strvec *sv);
/* s is one of sv's, sorted by strvec_sort. */
bool strvec_sorted_has(const struct strvec *sv, const char *s);
/* The strings with sep between them (a new string). */
char *strvec_join(const struct strvec *sv, const char *sep);

bool has_suffix(const char *s, const char *suffix);
bool has_prefix(const char *s, const char *prefix);
const char *base_name(const char *path);
/* `path` as seen from `dir`: itself when absolute (or dir is NULL), else
 * "dir/path". Always a new string. */
char *path_in(const char *dir, const char *path);
/* `path` made absolute against `dir` (itself absolute) with ".", ".." and
 * repeated slashes resolved by name alone (no symlinks followed). */
char *path_normalize(const char *dir, const char *path);
/* The part of `path` below directory `dir` (both normalized), or NULL. */
const char *path_below(const char *path, const char *dir);
bool is_directory(const char *path);
/* Create the directories above path that are missing, with mode (errors
 * show when the file itself is opened). */
void make_parent_dirs(const char *path, mode_t mode);
/* A small file's whole text (NUL-terminated), or NULL with errno set. */
char *read_text_file(const char *path);
bool file_exists(const char *path);
/* program as execvp finds it: itself when it names a path (and can be
 * run), else the first executable regular file of that name in the
 * ':'-separated dirs of path (an empty one: the current dir) that accept
 * (when not NULL) takes; NULL when there is none. Owned. */
char *path_search(const char *program, const char *path, bool (*accept)(const char *candidate));
/* Parse a whole-string number; false on junk, empty input or overflow. */
bool parse_double(const char *s, double *out);
bool parse_int(const char *s, long min, long max, long *out);
/* A line of a compiler's -H output (". path", a dot a level): the path
 * (cut at its line's end, in place), its depth in *depth when not NULL;
 * NULL for any other line. */
char *include_tree_line(char *line, size_t *depth);
/* The CPUs buildwall plans for: $BUILDWALL_CPUS when it is a positive
 * count, else those this process may run on (a cpuset allows fewer than
 * the machine has), else the online ones. */
int cpu_count(void);

/* Errors as ninja returns them (`bool f(..., string *err)`): a function
 * that can fail returns false with *err set to what is wrong, owned by the
 * caller, and true with *err untouched. fail_with is the failing return;
 * ok_unless returns `why` (an error, or NULL for none) in that form. */
static inline bool fail_with(char **err, char *why)
{
	*err = why;
	return false;
}

static inline bool ok_unless(char **err, char *why)
{
	if (why)
		*err = why;
	return !why;
}

#endif
