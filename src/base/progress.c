#define _GNU_SOURCE
#include "progress.h"
#include "proc.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char *label;
static double since, first_set;
static int shown = -1;	/* -1: not decided; 0: not a TTY; 1: TTY */
static int drawn;

void progress_set(const char *fmt, ...)
{
	va_list ap;
	free(label);
	va_start(ap, fmt);
	label = xvasprintf(fmt, ap);
	va_end(ap);
	since = monotonic_seconds();
	if (first_set == 0)
		first_set = since;
	progress_tick();
}

void progress_tick(void)
{
	if (shown < 0)
		shown = isatty(STDERR_FILENO);
	double now = monotonic_seconds();
	if (!shown || !label || now - first_set < 1.0)
		return;
	fprintf(stderr, "\r%s %.1f s\033[K", label, now - since);
	fflush(stderr);
	drawn = 1;
}

void progress_clear(void)
{
	if (drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	drawn = 0;
	free(label);
	label = NULL;
	first_set = 0;
}
