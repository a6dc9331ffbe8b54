#define _GNU_SOURCE
#include "source_copy.h"
#include "line_patch.h"
#include "tmpdir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A whole file's bytes; false with errno set. */
static bool read_bytes(const char *path, char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t cap = 0;
	FILE *out = open_memstream(data, &cap);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, out);
	bool failed = ferror(f);
	int saved = errno;
	fclose(f);
	fclose(out);
	*len = cap;
	if (failed) {
		free(*data);
		errno = saved;
	}
	return !failed;
}

static bool write_bytes(const char *path, const char *data, size_t len, char **err)
{
	make_parent_dirs(path, 0700);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		int saved = errno;
		if (f)
			fclose(f);
		return fail_with(err, xasprintf("cannot write %s: %s", path, strerror(saved)));
	}
	return true;
}

/* path as seen from cwd, links resolved; NULL when it does not exist. */
static char *real_path_in(const char *cwd, const char *path)
{
	char *joined = path_in(cwd, path), *real = realpath(joined, NULL);
	free(joined);
	return real;
}

char *source_copy_common_root(const struct strvec *paths, const char *cwd)
{
	char *root = NULL;
	for (size_t i = 0; i < paths->n; i++) {
		char *real = real_path_in(cwd, paths->v[i]);
		if (!real)
			continue;
		char *slash = strrchr(real, '/');
		*slash = '\0';	/* its directory */
		if (!root) {
			root = real;
			continue;
		}
		size_t k = 0;
		while (root[k] && root[k] == real[k])
			k++;
		/* back to the last whole directory both share */
		if (!(root[k] == '\0' && (real[k] == '/' || real[k] == '\0')))
			while (k > 0 && root[k] != '/')
				k--;
		root[k] = '\0';
		free(real);
	}
	if (root && !root[0]) {
		free(root);
		return NULL;
	}
	return root;
}

static char *copy_of(const struct source_copy *sc, const char *rel)
{
	return xasprintf("%s/%s", sc->dir, rel);
}

/* The part of a real path under root, or NULL. */
static const char *under_root(const struct source_copy *sc, const char *real)
{
	const char *rel = path_below(real, sc->root);
	return rel && *rel ? rel : NULL;
}

bool source_copy_make(const char *root, const struct strvec *paths, const char *cwd, const char *name,
		      struct source_copy *sc, char **err)
{
	*sc = (struct source_copy){ 0 };
	sc->root = realpath(root, NULL);
	if (!sc->root || !is_directory(sc->root)) {
		free(sc->root);
		sc->root = NULL;
		return fail_with(err, xasprintf("%s: not a directory", root));
	}
	sc->dir = tmpdir_subdir(name);
	for (size_t i = 0; i < paths->n; i++) {
		char *real = real_path_in(cwd, paths->v[i]);
		const char *rel = real ? under_root(sc, real) : NULL;
		if (!rel || strvec_contains(&sc->files, rel)) {
			free(real);
			continue;
		}
		char *data, *to = copy_of(sc, rel);
		size_t len;
		struct stat st;
		bool file = !stat(real, &st) && S_ISREG(st.st_mode);
		if (!file || !read_bytes(real, &data, &len)) {
			char *why = xasprintf("cannot read %s: %s", real, file ? strerror(errno) : "not a file");
			free(to);
			free(real);
			return fail_with(err, why);
		}
		bool ok = write_bytes(to, data, len, err);
		free(data);
		free(to);
		if (!ok) {
			free(real);
			return false;
		}
		sc->mtimes = xrealloc(sc->mtimes, (sc->files.n + 1) * sizeof(*sc->mtimes));
		sc->mtimes[sc->files.n] = st.st_mtim;
		strvec_push(&sc->files, rel);
		free(real);
	}
	return true;
}

bool source_copy_clone(const struct source_copy *sc, const char *name, struct source_copy *out, char **err)
{
	struct strvec paths = { 0 };
	for (size_t i = 0; i < sc->files.n; i++)
		strvec_pushf(&paths, "%s/%s", sc->dir, sc->files.v[i]);
	/* the pristine copy is the source: the user's files are read once */
	bool ok = source_copy_make(sc->dir, &paths, "/", name, out, err);
	strvec_clear(&paths);
	if (ok) {
		free(out->root);
		out->root = xstrdup(sc->root);
	}
	return ok;
}

/* An include directory's copy, where the copy has one (NULL: none). */
static char *dir_in_copy(const struct source_copy *sc, const char *cwd, const char *dir)
{
	char *real = real_path_in(cwd, dir);
	const char *rel = !real ? NULL : !strcmp(real, sc->root) ? "" : path_below(real, sc->root);
	char *copy = NULL;
	if (rel) {
		copy = *rel ? copy_of(sc, rel) : xstrdup(sc->dir);
		if (!is_directory(copy)) {
			free(copy);
			copy = NULL;
		}
	}
	free(real);
	return copy;
}

/* A file the copy holds, as the copy's path (NULL: not copied). */
static char *file_in_copy(const struct source_copy *sc, const char *cwd, const char *file)
{
	char *real = real_path_in(cwd, file);
	const char *rel = real ? under_root(sc, real) : NULL;
	char *copy = rel && strvec_contains(&sc->files, rel) ? copy_of(sc, rel) : NULL;
	free(real);
	return copy;
}

static const char *const include_dir_options[] = { "-I", "-iquote", "-isystem", "-idirafter", NULL };

void source_copy_command(const struct source_copy *sc, const char *cwd, struct strvec *argv)
{
	struct strvec out = { 0 };
	for (size_t k = 0; k < argv->n; k++) {
		const char *a = argv->v[k];
		const char *option = NULL, *dir = NULL;
		for (size_t o = 0; include_dir_options[o] && !option; o++)
			if (has_prefix(a, include_dir_options[o])) {
				option = include_dir_options[o];
				dir = a[strlen(option)] ? a + strlen(option) : k + 1 < argv->n ? argv->v[k + 1] : NULL;
			}
		char *copy = dir ? dir_in_copy(sc, cwd, dir) : NULL;
		if (copy) {	/* the copy's twin first, the original after it */
			strvec_pushf(&out, "%s%s", option, copy);
			free(copy);
		}
		if (!strcmp(a, "-include") && k + 1 < argv->n) {
			char *file = file_in_copy(sc, cwd, argv->v[k + 1]);
			strvec_push(&out, a);
			strvec_push(&out, file ? file : argv->v[++k]);
			k += file != NULL;
			free(file);
			continue;
		}
		char *file = a[0] != '-' && !option ? file_in_copy(sc, cwd, a) : NULL;
		strvec_push(&out, file ? file : a);
		free(file);
	}
	strvec_clear(argv);
	*argv = out;
}

bool source_copy_edit(const struct source_copy *sc, const char *file, unsigned long line, const char *with,
		      char **err)
{
	if (!strvec_contains(&sc->files, file))
		return fail_with(err, xasprintf("%s: not among the copied sources", file));
	char *path = copy_of(sc, file), *data, *edited;
	size_t len;
	if (!read_bytes(path, &data, &len)) {
		char *why = xasprintf("cannot read %s: %s", path, strerror(errno));
		free(path);
		return fail_with(err, why);
	}
	char *why = NULL;
	bool ok = line_edit(data, len, line, with, &edited, &why);
	if (ok) {
		ok = write_bytes(path, edited, strlen(edited), err);
		free(edited);
	} else {
		*err = xasprintf("%s: %s", file, why);
		free(why);
	}
	free(data);
	free(path);
	return ok;
}

bool source_copy_unchanged(const struct source_copy *sc, char **err)
{
	for (size_t i = 0; i < sc->files.n; i++) {
		char *orig = xasprintf("%s/%s", sc->root, sc->files.v[i]), *copy = copy_of(sc, sc->files.v[i]);
		char *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		struct stat st;
		bool same = !stat(orig, &st) && st.st_mtim.tv_sec == sc->mtimes[i].tv_sec &&
			    st.st_mtim.tv_nsec == sc->mtimes[i].tv_nsec && read_bytes(orig, &a, &na) &&
			    read_bytes(copy, &b, &nb) && na == nb && !memcmp(a, b, na);
		free(a);
		free(b);
		free(copy);
		if (!same) {
			char *why = xasprintf("%s changed while buildwall ran", orig);
			free(orig);
			return fail_with(err, why);
		}
		free(orig);
	}
	return true;
}

void source_copy_free(struct source_copy *sc)
{
	if (sc->dir)
		remove_tree(sc->dir);
	free(sc->root);
	free(sc->dir);
	strvec_clear(&sc->files);
	free(sc->mtimes);
	*sc = (struct source_copy){ 0 };
}
