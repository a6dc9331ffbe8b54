/* The network probe: see net_probe.h. */
#include "net_probe.h"
#include "distcc_log.h"
#include "driver.h"
#include "ninja.h"
#include "proc.h"
#include "progress.h"
#include "stats.h"
#include "tmpdir.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The large probe: big enough that loopback's per-byte cost shows above
 * the fixed one, small enough to send in a blink on a real network. */
#define NET_PROBE_BYTES (8u << 20)

/* A preprocessed TU of about `bytes` bytes: one declaration, the rest
 * comment lines of pseudo-random hex, which no transfer compression
 * shrinks. */
static char *write_probe(const char *name, size_t bytes)
{
	char *path = xasprintf("%s/%s.ii", tmpdir_path(), name);
	FILE *f = fopen(path, "w");
	if (!f)
		die(EXIT_INTERNAL, "cannot write %s: %s", path, strerror(errno));
	fprintf(f, "# 1 \"%s.cpp\"\nint buildwall_net_probe;\n", name);
	unsigned long x = 88172645463325252ul;
	for (size_t written = 0; written + 80 <= bytes; written += 80) {
		char line[81] = "//";
		for (int i = 2; i < 79; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			line[i] = "0123456789abcdef"[x & 15];
		}
		line[79] = '\n';
		fwrite(line, 1, 80, f);
	}
	if (fclose(f))
		die(EXIT_INTERNAL, "cannot write %s: %s", path, strerror(errno));
	return path;
}

/* One run of the probe: through distcc (its hold into *seconds), or here
 * (its wall). NULL or what went wrong. */
static char *run_probe(const char *compiler, const char *source, bool remote, double timeout_s, double *seconds)
{
	char *out = xasprintf("%s.o", source), *log = xasprintf("%s.distcc.log", source);
	char *output = xasprintf("%s.out", source), *err = NULL;
	char *env_log = xasprintf("DISTCC_LOG=%s", log);
	char *const env[] = { "DISTCC_VERBOSE=1", env_log, "DISTCC_FALLBACK=0", NULL };
	const char *argv[] = { "distcc", compiler, "-c", source, "-o", out, NULL };
	remove(log);
	struct proc p = { .argv = (char *const *)(remote ? argv : argv + 1), .env_extra = remote ? env : NULL,
			  .cwd = tmpdir_path(), .out_path = output, .timeout_s = timeout_s };
	proc_run(&p);
	proc_exit_if_interrupted();
	if (!proc_succeeded(&p)) {
		char *why = proc_report_failure(&p, output, "the network probe (%s %s)", remote ? "distcc" : compiler, source);
		err = xasprintf("the network probe failed %s: %s", remote ? "through distcc" : "here", why);
		free(why);
	} else if (!remote) {
		*seconds = p.wall_s;
	} else {
		struct distcc_log dl;
		char *bad = NULL;
		distcc_log_read(log, &dl, &bad);
		const struct distcc_job *j = bad ? NULL : distcc_log_find(&dl, out);
		if (!j || !j->remote || isnan(j->remote_s))
			err = xasprintf("distcc did not send the network probe to a host (%s): set DISTCC_HOSTS to the cluster",
					bad ? bad : j && j->why_local ? j->why_local : "it compiled it here");
		else
			*seconds = j->remote_s;
		free(bad);
		if (!bad)
			distcc_log_free(&dl);
	}
	remove(out);
	remove(log);
	remove(output);
	free(env_log);
	free(out);
	free(log);
	free(output);
	return err;
}

bool net_probe_measure(const char *compiler, long repeats, double timeout_s, struct net_cost *nc, char **err)
{
	*nc = (struct net_cost){ .repeats = repeats, .probe_bytes = NET_PROBE_BYTES };
	char *distcc = driver_find_program("distcc");
	if (!distcc)
		return fail_with(err, xstrdup("distcc is not in PATH (apt-get install distcc)"));
	free(distcc);
	char *sources[2] = { write_probe("net-empty", 0), write_probe("net-large", NET_PROBE_BYTES) };
	double *costs[2] = { xcalloc((size_t)repeats, sizeof(double)), xcalloc((size_t)repeats, sizeof(double)) };
	char *why = NULL;
	for (long r = 0; r < repeats && !why; r++)
		for (int k = 0; k < 2 && !why; k++) {
			double there = 0, here = 0;
			progress_set("network probe: %s through distcc and here (run %ld/%ld)", base_name(sources[k]), r + 1,
				     repeats);
			if (!(why = run_probe(compiler, sources[k], true, timeout_s, &there)) &&
			    !(why = run_probe(compiler, sources[k], false, timeout_s, &here)))
				costs[k][r] = there - here;
		}
	progress_clear();
	if (!why) {
		nc->fixed_s = median_of(costs[0], (size_t)repeats);
		if (nc->fixed_s < 0)
			nc->fixed_s = 0;
		double large = median_of(costs[1], (size_t)repeats) - nc->fixed_s;
		nc->per_byte_s = large > 0 ? large / (double)NET_PROBE_BYTES : 0;
	}
	for (int k = 0; k < 2; k++) {
		remove(sources[k]);
		free(sources[k]);
		free(costs[k]);
	}
	return ok_unless(err, why);
}

double net_cost_of(const struct net_cost *nc, double bytes)
{
	return nc->fixed_s + nc->per_byte_s * bytes;
}

bool net_probe_build(const struct ninja_build *b, const char *dir, const bool *sent, const double *bytes,
		      struct net_cost *nc, double **network, char **err)
{
	*network = NULL;
	struct compile_command cmd = { 0 };
	bool found = false;
	for (size_t e = 0; !found && e < b->n; e++) {
		if (!sent[e])
			continue;
		char *why = NULL;
		driver_parse(b->edges[e].command, dir, &cmd, &why);
		found = !why && cmd.argv.n;
		if (!found)
			compile_command_clear(&cmd);
		free(why);
	}
	if (!found)
		return fail_with(err, xstrdup("no compile distcc would send to take its compiler from"));
	char *why = NULL;
	net_probe_measure(cmd.argv.v[0], 3, 0, nc, &why);
	compile_command_clear(&cmd);
	if (why)
		return ok_unless(err, why);
	*network = xcalloc(b->n ? b->n : 1, sizeof(double));
	for (size_t e = 0; e < b->n; e++)
		(*network)[e] = isnan(bytes[e]) ? NAN : net_cost_of(nc, bytes[e]);
	return true;
}
