#define _GNU_SOURCE
#include "distcc_log.h"
#include "strmap.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reading state: jobs still running, by pid (few: at most the jobs at once). */
struct reader {
	struct distcc_log *log;
	size_t *open;
	size_t nopen, alloc;
};

static struct distcc_job *job_of(struct reader *r, long pid, bool start)
{
	for (size_t i = r->nopen; i-- > 0;)
		if (r->log->jobs[r->open[i]].pid == pid)
			return &r->log->jobs[r->open[i]];
	if (!start)
		return NULL;
	struct distcc_log *log = r->log;
	log->jobs = xrealloc(log->jobs, (log->n + 1) * sizeof(*log->jobs));
	log->jobs[log->n] = (struct distcc_job){ .pid = pid, .remote_s = NAN, .elapsed_s = NAN };
	if (r->nopen == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 16;
		r->open = xrealloc(r->open, r->alloc * sizeof(size_t));
	}
	r->open[r->nopen++] = log->n;
	return &log->jobs[log->n++];
}

static void close_job(struct reader *r, const struct distcc_job *j)
{
	for (size_t i = 0; i < r->nopen; i++)
		if (&r->log->jobs[r->open[i]] == j) {
			r->open[i] = r->open[--r->nopen];
			return;
		}
}

static void set_string(char **field, const char *s, size_t n)
{
	free(*field);
	*field = xstrndup(s, n);
}

/* "HOST[:PORT][/LIMIT][,OPTIONS]" as DISTCC_HOSTS and the log write it. */
static void note_host(struct distcc_log *log, const char *token, bool local)
{
	size_t len = strcspn(token, "/,\"");
	int slots = local ? 2 : 4;
	if (token[len] == '/')
		slots = atoi(token + len + 1) > 0 ? atoi(token + len + 1) : slots;
	for (size_t i = 0; i < log->nhosts; i++)
		if (strlen(log->hosts[i].name) == len && !strncmp(log->hosts[i].name, token, len))
			return;
	log->hosts = xrealloc(log->hosts, (log->nhosts + 1) * sizeof(*log->hosts));
	log->hosts[log->nhosts++] = (struct distcc_host){ xstrndup(token, len), slots, local, 0 };
}

static struct distcc_host *host_named(struct distcc_log *log, const char *host)
{
	size_t len = strcspn(host, "/,");
	for (size_t i = 0; i < log->nhosts; i++)
		if (strlen(log->hosts[i].name) == len && !strncmp(log->hosts[i].name, host, len))
			return &log->hosts[i];
	return NULL;
}

/* A quoted name after `key`: found input file "a.cpp". */
static bool quoted_after(const char *text, const char *key, const char **s, size_t *n)
{
	const char *p = strstr(text, key);
	if (!p)
		return false;
	p += strlen(key);
	const char *q = strchr(p, '"');
	if (!q)
		return false;
	*s = p;
	*n = (size_t)(q - p);
	return true;
}

/* A time distcc could have written: a broken line is not one. */
static bool seconds_ok(double t)
{
	return t >= 0 && t < 1e7;
}

/* Where "compile ... completed ok" or "... failed" says how it ended. */
static bool finished_at(const char *text, const char **end)
{
	*end = strstr(text, " completed ok");
	if (!*end)
		*end = has_suffix(text, " failed") ? text + strlen(text) - 7 : NULL;
	return *end != NULL;
}

static void read_line(struct reader *r, long pid, const char *text)
{
	struct distcc_job *j;
	const char *s;
	size_t n;
	double t;
	if (has_prefix(text, "(dcc_parse_hosts) found tcp token \"")) {
		note_host(r->log, text + strlen("(dcc_parse_hosts) found tcp token \""), false);
	} else if (has_prefix(text, "(dcc_scan_args) scanning arguments:")) {
		/* A new invocation; a pid distcc reused closes its old job. */
		if ((j = job_of(r, pid, false)))
			close_job(r, j);
		job_of(r, pid, true);
	} else if (!(j = job_of(r, pid, false))) {
		return;	/* a line of no job we saw start (the log's first lines cut) */
	} else if (quoted_after(text, "(dcc_scan_args) found input file \"", &s, &n)) {
		set_string(&j->input, s, n);
		j->compile = true;
	} else if (quoted_after(text, "(dcc_scan_args) found object/output file \"", &s, &n)) {
		set_string(&j->output, s, n);	/* the last one named is the output */
	} else if (has_prefix(text, "(dcc_scan_args) ")) {
		/* Why it gives up on the cluster: a link is no compile; an
		 * object from a source it does not know is. */
		set_string(&j->why_local, text + 16, strlen(text + 16));
		j->compile = !strstr(j->why_local, "link") && j->output && has_suffix(j->output, ".o");
	} else if (has_prefix(text, "compile from ")) {
		const char *to = strstr(text, " to ");
		/* It names base names here: the paths scan_args found win. */
		if (to && !j->input)
			set_string(&j->input, text + 13, (size_t)(to - text - 13));
		if (to && !j->output)
			set_string(&j->output, to + 4, strlen(to + 4));
		j->compile = true;
	} else if (sscanf(text, "(dcc_lock_pause) nothing available, sleeping %lfms", &t) == 1 && seconds_ok(t / 1000)) {
		j->waits++;
		j->wait_s += t / 1000;
	} else if (has_prefix(text, "exec on ") && !has_prefix(text + 8, "localhost:")) {
		/* "exec on HOST: ARGV": sent to HOST */
		const char *end = strstr(text + 8, ": ");
		if (!j->tries++)
			set_string(&j->first_host, text + 8, end ? (size_t)(end - text - 8) : strlen(text + 8));
	} else if (strstr(text, "failed to distribute") && strstr(text, "running locally instead")) {
		j->fell_back = true;
	} else if ((s = strstr(text, " compiled on ")) && (s = strstr(s, " in ")) && sscanf(s, " in %lfs", &t) == 1 && seconds_ok(t)) {
		j->remote_s = t;	/* "N bytes from IN compiled on HOST in Ts, rate ..." */
	} else if (has_prefix(text, "compile ") && finished_at(text, &s)) {
		/* "compile IN on HOST completed ok", "[ERROR: ]compile IN on HOST failed" */
		const char *on = NULL;
		for (const char *p = text; (p = strstr(p, " on ")) && p < s; p++)
			on = p;
		if (on)
			set_string(&j->host, on + 4, (size_t)(s - on - 4));
		j->ok = has_prefix(s, " completed ok");
		j->remote = j->host && strcmp(j->host, "localhost");
		struct distcc_host *h = j->remote && j->ok ? host_named(r->log, j->host) : NULL;
		if (h)
			h->compiles++;
	} else if (has_prefix(text, "ERROR: compile ")) {
		read_line(r, pid, text + strlen("ERROR: "));
	} else if (sscanf(text, "elapsed compilation time %lfs", &t) == 1 && seconds_ok(t)) {
		j->elapsed_s = t;
		j->done = true;
		close_job(r, j);
	}
}

/* Latest job first, so each key keeps the latest job that has it. */
static void build_index(struct distcc_log *log)
{
	log->base_ambiguous = xcalloc(log->n ? log->n : 1, sizeof(bool));
	for (size_t i = log->n; i-- > 0;) {
		const struct distcc_job *j = &log->jobs[i];
		if (!j->output || !j->compile)
			continue;
		if (strmap_get(&log->by_output, j->output, strlen(j->output)) != STRMAP_NONE)
			continue;	/* an earlier job of the same output */
		strmap_put(&log->by_output, j->output, strlen(j->output), i);
		const char *base = base_name(j->output);
		size_t k = strmap_get(&log->by_base, base, strlen(base));
		if (k == STRMAP_NONE)
			strmap_put(&log->by_base, base, strlen(base), i);
		else
			log->base_ambiguous[k] = true;	/* another path, same name */
	}
}

bool distcc_log_read(const char *path, struct distcc_log *log, char **err)
{
	memset(log, 0, sizeof(*log));
	FILE *f = fopen(path, "r");
	if (!f)
		return fail_with(err, xasprintf("%s: cannot read: %s", path, strerror(errno)));
	struct reader r = { .log = log };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		long pid;
		int text;
		/* "distcc[PID] text": the client's lines; distccd's are not its. */
		if (sscanf(line, "distcc[%ld] %n", &pid, &text) == 1 && text > 0)
			read_line(&r, pid, line + text);
	}
	bool read_error = ferror(f);
	fclose(f);
	free(line);
	free(r.open);
	size_t compiles = 0;
	for (size_t i = 0; i < log->n; i++)
		compiles += log->jobs[i].compile;
	if (read_error || !compiles) {
		distcc_log_free(log);
		return ok_unless(err, read_error ? xasprintf("%s: cannot read: %s", path, strerror(EIO))
				  : xasprintf("%s: no distcc compile in it (write it with DISTCC_VERBOSE=1 DISTCC_LOG=FILE)", path));
	}
	build_index(log);
	return true;
}

void distcc_log_free(struct distcc_log *log)
{
	for (size_t i = 0; i < log->n; i++) {
		free(log->jobs[i].input);
		free(log->jobs[i].output);
		free(log->jobs[i].host);
		free(log->jobs[i].why_local);
		free(log->jobs[i].first_host);
	}
	for (size_t i = 0; i < log->nhosts; i++)
		free(log->hosts[i].name);
	strmap_free(&log->by_output);
	strmap_free(&log->by_base);
	free(log->base_ambiguous);
	free(log->jobs);
	free(log->hosts);
	memset(log, 0, sizeof(*log));
}

const struct distcc_job *distcc_log_find(const struct distcc_log *log, const char *output)
{
	size_t k = strmap_get(&log->by_output, output, strlen(output));
	if (k != STRMAP_NONE)
		return &log->jobs[k];
	const char *base = base_name(output);
	k = strmap_get(&log->by_base, base, strlen(base));
	return k != STRMAP_NONE && !log->base_ambiguous[k] ? &log->jobs[k] : NULL;
}

void distcc_summarize(const struct distcc_log *log, struct distcc_summary *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < log->n; i++) {
		const struct distcc_job *j = &log->jobs[i];
		if (!j->compile)
			continue;	/* a link through distcc */
		if (j->remote)
			s->remote++;
		else if (j->fell_back)
			s->fell_back++;
		else
			s->local++;
		s->failed += j->done && !j->ok;
		s->retried += j->remote && j->tries > 1;
		if (j->remote && !isnan(j->remote_s))
			s->remote_s += j->remote_s;
		s->wait_s += j->wait_s;
		s->waited += j->waits > 0;
	}
	for (size_t i = 0; i < log->nhosts; i++)
		if (!log->hosts[i].local) {
			s->remote_slots += log->hosts[i].slots;
			s->remote_hosts++;
		}
}
