#include "cluster_trials.h"
#include "outfile.h"
#include "tmpdir.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static char *trial_log(const struct cluster_trials *ct, size_t k)
{
	return xasprintf("%s/trial-%zu.log", ct->dir, k + 1);
}

void cluster_trials_start(struct cluster_trials *ct, size_t n, const char *launcher)
{
	*ct = (struct cluster_trials){ .n = n, .launcher = launcher };
	if (!launcher)
		return;
	ct->dir = tmpdir_subdir("distcc");
	ct->sum = xcalloc(ct->n, sizeof(*ct->sum));
	ct->have = xcalloc(ct->n, sizeof(bool));
}

/* distcc writes where each compile ran only with DISTCC_VERBOSE. */
void cluster_trial_before(const struct cluster_trials *ct, size_t k)
{
	if (!ct->launcher)
		return;
	char *path = trial_log(ct, k);
	setenv("DISTCC_VERBOSE", "1", 1);
	setenv("DISTCC_LOG", path, 1);
	free(path);
}

void cluster_trial_after(struct cluster_trials *ct, size_t k)
{
	if (!ct->launcher)
		return;
	char *path = trial_log(ct, k);
	struct distcc_log log;
	char *err = NULL;
	if (!distcc_log_read(path, &log, &err)) {
		warn("trial %zu: %s", k + 1, err);
		free(err);
	} else {
		distcc_summarize(&log, &ct->sum[k]);
		ct->have[k] = true;
		distcc_log_free(&log);
	}
	free(path);
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "r");
	if (!in)
		die(EXIT_INTERNAL, "%s: cannot read: %s", from, strerror(errno));
	struct outfile o;
	FILE *out = outfile_open(&o, to);
	char buf[65536];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, got, out) != got)
			break;
	if (ferror(in))	/* a part of it is no copy: the temp file goes at exit */
		die(EXIT_INTERNAL, "%s: cannot read: %s", from, strerror(errno));
	fclose(in);
	outfile_commit(&o);	/* dies on a failed write */
}

void cluster_trials_finish(struct cluster_trials *ct, const char *dir, const char *keep)
{
	size_t last = ct->n - 1;
	if (!ct->launcher || !ct->have[last])
		return;
	char *path = trial_log(ct, last);
	if (keep)
		copy_file(path, keep);
	char *err = NULL;
	distcc_log_read(path, &ct->last_log, &err);
	char *log = dir ? xasprintf("%s/.ninja_log", dir) : NULL;
	if (!err && dir && log_view_load(&ct->view, NULL, log, 0, &err)) {
		cluster_report_build(&ct->view.tl, &ct->last_log, &ct->last);
		ct->have_last = true;
	}
	if (err)
		warn("the last trial against its distcc log: %s", err);
	free(err);
	free(log);
	free(path);
}

void cluster_trials_free(struct cluster_trials *ct)
{
	if (ct->have_last) {
		cluster_report_free(&ct->last);
		log_view_free(&ct->view);
	}
	distcc_log_free(&ct->last_log);
	free(ct->sum);
	free(ct->have);
	free(ct->dir);
}
