/* Shared by the unit tests: cmocka, fixture paths, and a way to test code
 * that reports bad input by exiting (as buildwall's die() does). */
#ifndef BUILDWALL_UNIT_H
#define BUILDWALL_UNIT_H

#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tmpdir.h"
#include "util.h"

#define FIXTURE(name) TESTS_DIR "/fixtures/" name

/* Run fn(arg) in a child; assert it exits with `code` and that its stderr
 * contains `message`. */
static inline void expect_exit(void (*fn)(void *), void *arg, int code, const char *message)
{
	char path[] = "/tmp/buildwall-unit-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd, 2);
		fn(arg);
		_exit(99);
	}
	int status;
	waitpid(pid, &status, 0);
	char buf[4096] = { 0 };
	lseek(fd, 0, SEEK_SET);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	unlink(path);
	assert_true(n >= 0);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) != code || !strstr(buf, message))
		fail_msg("exit %d (want %d), stderr: %s", WEXITSTATUS(status), code, buf);
	/* One line: the message must not spill over several. */
	assert_non_null(strchr(buf, '\n'));
	assert_null(strchr(strchr(buf, '\n') + 1, '\n'));
}

/* A build dir "<tmp>/<name>" holding `manifest` as its build.ninja; the
 * caller frees the path. */
static inline char *manifest_dir(const char *name, const char *manifest)
{
	char *dir = tmpdir_subdir(name);
	char *path = xasprintf("%s/build.ninja", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(manifest, f);
	fclose(f);
	free(path);
	return dir;
}

/* Write `text` to a fresh temp file; the caller unlinks and frees. */
static inline char *write_temp(const char *text)
{
	char *path = strdup("/tmp/buildwall-unit-XXXXXX");
	if (!path)
		abort();
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t len = strlen(text);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* A call in the error form (util.h) that must succeed: its error, if
 * any, is the failure's message. */
static char *unit_err __attribute__((unused));
#define assert_ok(call)                                                  \
	do {                                                             \
		unit_err = NULL;                                         \
		if (!(call))                                             \
			fail_msg("%s: %s", #call, unit_err ? unit_err : "?"); \
	} while (0)

#endif
