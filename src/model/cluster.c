#include "cluster.h"
#include "driver.h"
#include "stats.h"
#include "strmap.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const senders[] = { "distcc", "icecc", NULL };

static const char *parse_launcher(const char *command, const char *dir)
{
	struct compile_command cmd = { 0 };
	const char *found = NULL;
	char *err = NULL;
	driver_parse(command, dir, &cmd, &err);
	for (size_t i = 0; !err && i < cmd.launchers.n && !found; i++)
		for (int k = 0; senders[k] && !found; k++)
			if (!strcmp(base_name(cmd.launchers.v[i]), senders[k]))
				found = senders[k];
	free(err);
	compile_command_clear(&cmd);
	return found;
}

const char *cluster_launcher(const char *command, const char *dir)
{
	/* Most commands name neither: skip parsing them. */
	if (!command || (!strstr(command, "distcc") && !strstr(command, "icecc")))
		return NULL;
	/* The words before the first flag (environment, launchers, the
	 * compiler) decide it, and driver_parse looks the program up in
	 * PATH: one answer per such prefix and dir, kept for the process (a
	 * build's thousands of compiles share a few). Keys are owned here. */
	static struct strmap answers;
	const char *flag = strstr(command, " -");
	char *key = xasprintf("%s\n%.*s", dir ? dir : "", (int)(flag ? (size_t)(flag - command) : strlen(command)), command);
	size_t v = strmap_get(&answers, key, strlen(key));
	if (v != STRMAP_NONE) {
		free(key);
		return v ? senders[v - 1] : NULL;
	}
	const char *found = parse_launcher(command, dir);
	size_t index = 0;
	for (int k = 0; found && senders[k]; k++)
		if (senders[k] == found)
			index = (size_t)k + 1;
	strmap_put(&answers, key, strlen(key), index);	/* the key stays with the map */
	return found;
}

bool cluster_sends(const struct ninja_edge *e)
{
	static const char *const sources[] = { ".c", ".cc", ".cpp", ".cxx", ".cp", ".c++", ".C", ".m", ".mm", ".M",
					       ".i", ".ii", ".mi", ".mii", NULL };
	if (!e->inputs.n)
		return true;
	for (size_t i = 0; i < e->inputs.n; i++)
		for (int k = 0; sources[k]; k++)
			if (has_suffix(e->inputs.v[i], sources[k]))
				return true;
	return false;
}

/* Behind a launcher, sets *launcher to the first one seen. */
static bool *behind_launcher(const struct ninja_build *b, const char **launcher)
{
	bool *sent = xcalloc(b->n ? b->n : 1, sizeof(bool));
	*launcher = NULL;
	for (size_t i = 0; i < b->n; i++) {
		const char *l = ninja_edge_is_compile(&b->edges[i]) ? cluster_launcher(b->edges[i].command, b->dir) : NULL;
		sent[i] = l != NULL;
		if (l && !*launcher)
			*launcher = l;
	}
	return sent;
}

bool *cluster_sent(const struct ninja_build *b)
{
	const char *launcher;
	bool *sent = behind_launcher(b, &launcher);
	for (size_t i = 0; i < b->n; i++)
		sent[i] = ninja_edge_is_compile(&b->edges[i]) && (!launcher || sent[i]) && cluster_sends(&b->edges[i]);
	return sent;
}

void cluster_split(const struct ninja_build *b, const double *seconds, const struct distcc_log *log,
		   const double *local, const double *network, double speed, struct cluster_split *cs)
{
	*cs = (struct cluster_split){ .here = xcalloc(b->n, sizeof(double)), .there = xcalloc(b->n, sizeof(double)) };
	bool *sent = behind_launcher(b, &cs->launcher);
	for (size_t i = 0; i < b->n; i++) {
		double d = isnan(seconds[i]) ? 0 : seconds[i];
		cs->here[i] = d;
		if (!ninja_edge_is_compile(&b->edges[i]) || (cs->launcher && !sent[i]))
			continue;
		const struct distcc_job *j = log ? distcc_log_find(log, b->edges[i].outputs.v[0]) : NULL;
		if (j && j->remote && !isnan(j->remote_s)) {
			/* The ninja step ran from distcc's start to its end: what
			 * is not the hold nor a wait was spent here. */
			double here = d - j->remote_s - j->wait_s;
			cs->here[i] = here > 0 ? here : 0;
			cs->there[i] = j->remote_s / speed;
			cs->waited_s += j->wait_s;
			cs->measured++;
			cs->remote++;
		} else if (j) {
			cs->here[i] = d - j->wait_s > 0 ? d - j->wait_s : 0;
			cs->waited_s += j->wait_s;
			cs->kept_here++;
		} else if (!log && !cluster_sends(&b->edges[i])) {
			cs->kept_here++;
		} else if (!log) {
			double here = local && !isnan(local[i]) ? fmin(local[i], d) : 0;
			cs->here[i] = here;
			cs->there[i] = (d - here) / speed;
			cs->probed += local && !isnan(local[i]);
			cs->remote++;
			if (network && !cs->launcher && !isnan(network[i])) {
				cs->there[i] += network[i];
				cs->network_s += network[i];
				cs->networked++;
			}
		}
	}
	free(sent);
}

void cluster_split_free(struct cluster_split *cs)
{
	free(cs->here);
	free(cs->there);
	*cs = (struct cluster_split){ 0 };
}

/* The most intervals open at once, of n (start, end) pairs. */
static int most_at_once(double *start, double *end, size_t n)
{
	int most = 0, now = 0;
	sort_doubles(start, n);
	sort_doubles(end, n);
	for (size_t i = 0, k = 0; i < n;) {
		if (start[i] < end[k]) {
			if (++now > most)
				most = now;
			i++;
		} else {
			now--;
			k++;
		}
	}
	return most;
}

void cluster_report_build(const struct timeline *tl, const struct distcc_log *log, struct cluster_report *r)
{
	*r = (struct cluster_report){ .job = xcalloc(tl->n ? tl->n : 1, sizeof(*r->job)),
				      .here = xcalloc(tl->n ? tl->n : 1, sizeof(double)) };
	distcc_summarize(log, &r->sum);
	r->remote_slots = r->sum.remote_slots;
	double *start = xcalloc(tl->n ? tl->n : 1, sizeof(double)), *end = xcalloc(tl->n ? tl->n : 1, sizeof(double));
	size_t waited = 0;
	for (size_t i = 0; i < tl->n; i++) {
		const struct step *st = &tl->steps[i];
		const double d = step_duration(tl, st);
		const struct distcc_job *j = distcc_log_find(log, step_line(tl, st, 0).output);
		r->job[i] = j;
		r->here[i] = d;
		if (!j) {
			r->local_s += d;
			continue;
		}
		double hold = j->remote && !isnan(j->remote_s) ? j->remote_s : 0;
		r->here[i] = d - hold - j->wait_s > 0 ? d - hold - j->wait_s : 0;
		r->here_s += r->here[i];
		r->there_s += hold;
		r->wait_s += j->wait_s;
		waited += j->waits > 0;
		if (j->remote) {
			start[r->sent] = step_start(tl, st);
			end[r->sent] = step_end(tl, st);
			r->sent++;
		} else {
			r->kept_here++;
		}
	}
	r->most_sent = most_at_once(start, end, r->sent);
	free(start);
	free(end);
	if (waited) {
		r->bound = "remote slots";
		r->bound_why = xasprintf("%zu compile%s waited %.1f s in all for one of the %d remote slots", waited,
					 waited == 1 ? "" : "s", r->wait_s, r->remote_slots);
	} else if (r->sent && r->most_sent >= r->remote_slots) {
		r->bound = "remote slots";
		r->bound_why = xasprintf("all %d remote slots were in use at once (ninja ran at most %d jobs) though none "
					 "waited: more slots want more jobs too", r->remote_slots, tl->slots);
	} else if (r->sent && r->most_sent >= tl->slots) {
		r->bound = "ninja jobs";
		r->bound_why = xasprintf("at most %d compiles were sent at once, as many as ninja ran, with %d remote slots "
					 "offered: more jobs (-j) would use them", r->most_sent, r->remote_slots);
	} else {
		r->bound = "dependencies";
		r->bound_why = xasprintf("no compile waited for a slot and at most %d of ninja's %d at once were sent: "
					 "the graph and what runs here set the wall", r->most_sent, tl->slots);
	}
}

void cluster_report_free(struct cluster_report *r)
{
	free(r->job);
	free(r->here);
	free(r->bound_why);
	*r = (struct cluster_report){ 0 };
}
