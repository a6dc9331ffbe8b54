#define _GNU_SOURCE
#include "ninja.h"
#include "cache.h"
#include "proc.h"
#include "strmap.h"
#include "tmpdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ninja_program(void)
{
	const char *n = getenv("NINJA");
	return n && *n ? n : "ninja";
}

void ninja_check_dir(const char *dir)
{
	if (!is_directory(dir))
		die(EXIT_BAD_INPUT, "%s: no such build directory", dir);
	char *manifest = xasprintf("%s/build.ninja", dir);
	bool ok = file_exists(manifest);
	free(manifest);
	if (!ok)
		die(EXIT_BAD_INPUT, "%s: no build.ninja here; pass the build directory with -C", dir);
}

/* ninja rejected the manifest: say so in one line, as ninja put it (its
 * "ninja: error:" line, else its last line), with the manifest's path
 * ("DIR/build.ninja:3: unknown build rule 'x'"). */
static _Noreturn void die_with_ninja_error(const char *dir, const char *tool, const struct proc *p,
					   const char *err_path)
{
	char *last = xstrdup(""), *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(err_path, "r");
	while (f && getline(&line, &cap, f) > 0 && !has_prefix(last, "ninja: error: ")) {
		line[strcspn(line, "\r\n")] = '\0';
		if (*line) {
			free(last);
			last = xstrdup(line);
		}
	}
	if (f)
		fclose(f);
	free(line);
	const char *msg = last;
	if (has_prefix(msg, "ninja: error: "))
		msg += strlen("ninja: error: ");
	size_t name = strcspn(msg, ": ");
	bool located = msg[name] == ':' && msg[name + 1] >= '0' && msg[name + 1] <= '9';
	if (located)
		die(EXIT_BAD_INPUT, "%s/%s", dir, msg);
	if (*msg)
		die(EXIT_BAD_INPUT, "%s: ninja -t %s: %s", dir, tool, msg);
	die(EXIT_BAD_INPUT, "%s: ninja -t %s failed (%s)", dir, tool, proc_failure(p));
}

/* Run "ninja -C dir -t TOOL args..." and return the path of its stdout. */
static char *ninja_tool(const char *dir, const char *const *args, size_t nargs)
{
	static int calls;
	struct strvec argv = { 0 };
	strvec_push(&argv, ninja_program());
	strvec_push(&argv, "-C");
	strvec_push(&argv, dir);
	strvec_push(&argv, "-t");
	for (size_t i = 0; i < nargs; i++)
		strvec_push(&argv, args[i]);
	char *out = xasprintf("%s/ninja-tool-%d.out", tmpdir_path(), calls);
	char *err = xasprintf("%s/ninja-tool-%d.err", tmpdir_path(), calls++);
	struct proc p = { .argv = argv.v, .out_path = out, .err_path = err };
	proc_run(&p);
	proc_exit_if_interrupted();
	tmpdir_check_room();	/* ninja's answer may have been cut short */
	if (!proc_succeeded(&p))
		die_with_ninja_error(dir, args[0], &p, err);
	remove(err);
	free(err);
	strvec_clear(&argv);
	return out;
}

static FILE *open_output(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die(EXIT_INTERNAL, "cannot read %s: %s", path, strerror(errno));
	return f;
}

static void chomp(char *line)
{
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
}

/* Run a ninja tool and collect its output lines (small outputs only: the
 * big one, -t graph, is streamed by ninja_load). */
static void ninja_tool_lines(const char *dir, const char *const *args, size_t nargs, struct strvec *lines)
{
	char *path = ninja_tool(dir, args, nargs);
	FILE *f = open_output(path);
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) >= 0) {
		chomp(line);
		strvec_push(lines, line);
	}
	free(line);
	fclose(f);
	remove(path);
	free(path);
}

void ninja_commands(const char *dir, struct strvec *commands)
{
	const char *args[] = { "commands" };
	ninja_tool_lines(dir, args, 1, commands);
}

/* Output path -> edge, for the graph and for lookups. */
struct output_index {
	const char *path;
	size_t edge;
};

static int cmp_index(const void *a, const void *b)
{
	return strcmp(((const struct output_index *)a)->path, ((const struct output_index *)b)->path);
}

static struct output_index *index_outputs(const struct ninja_build *b, size_t *count)
{
	size_t total = 0;
	for (size_t i = 0; i < b->n; i++)
		total += b->edges[i].outputs.n;
	struct output_index *idx = xcalloc(total, sizeof(*idx));
	size_t k = 0;
	for (size_t i = 0; i < b->n; i++)
		for (size_t j = 0; j < b->edges[i].outputs.n; j++)
			idx[k++] = (struct output_index){ b->edges[i].outputs.v[j], i };
	qsort(idx, total, sizeof(*idx), cmp_index);
	*count = total;
	return idx;
}

long ninja_edge_of(const struct ninja_build *b, const char *output)
{
	struct output_index key = { output, 0 };
	const struct output_index *hit = bsearch(&key, b->index, b->nindex, sizeof(key), cmp_index);
	return hit ? (long)hit->edge : -1;
}

/* One node or arrow of ninja's "-t graph" output, by the ids it prints. */
struct dot_arrow {
	char *from, *to;
	char *rule;		/* a direct in -> out arrow: its rule */
	bool order_only;	/* an input drawn dotted */
};

struct dot_graph {
	struct strvec node_ids, node_labels;	/* path nodes */
	struct strvec edge_ids, edge_rules;	/* edge nodes (ellipses) */
	struct dot_arrow *arrows;
	size_t narrows, alloc;
	struct strmap nodes, edges;		/* id -> index */
};

/* The quoted id at *s ("0x55f…"), advancing past it; NULL if none. */
static char *dot_id(const char **s)
{
	if (**s != '"')
		return NULL;
	const char *end = strchr(*s + 1, '"');
	if (!end)
		return NULL;
	char *id = xstrndup(*s + 1, (size_t)(end - *s - 1));
	*s = end + 1;
	return id;
}

/* ninja prints labels unescaped, so a label runs to the line's closing
 * '"]' (or '", shape=ellipse]' for an edge). */
static void dot_line(struct dot_graph *g, const char *line)
{
	const char *s = line;
	char *id = dot_id(&s);
	if (!id)
		return;
	if (has_prefix(s, " [label=\"")) {
		const char *label = s + 9;
		size_t n = strlen(label);
		static const char ellipse[] = "\", shape=ellipse]";
		if (n >= sizeof(ellipse) - 1 && !strcmp(label + n - (sizeof(ellipse) - 1), ellipse)) {
			strvec_push_nodup(&g->edge_ids, id);
			strvec_push_nodup(&g->edge_rules, xstrndup(label, n - (sizeof(ellipse) - 1)));
		} else if (n >= 2 && !strcmp(label + n - 2, "\"]")) {
			strvec_push_nodup(&g->node_ids, id);
			strvec_push_nodup(&g->node_labels, xstrndup(label, n - 2));
		} else {
			free(id);
		}
		return;
	}
	char *to = NULL;
	if (!has_prefix(s, " -> ") || !(s += 4, to = dot_id(&s))) {
		free(id);
		return;
	}
	if (g->narrows == g->alloc) {
		g->alloc = g->alloc ? 2 * g->alloc : 256;
		g->arrows = xrealloc(g->arrows, g->alloc * sizeof(*g->arrows));
	}
	struct dot_arrow *a = &g->arrows[g->narrows++];
	*a = (struct dot_arrow){ .from = id, .to = to };
	if (has_prefix(s, " [label=\" ")) {
		size_t n = strlen(s + 10);
		a->rule = xstrndup(s + 10, n >= 2 ? n - 2 : 0);
	}
	a->order_only = strstr(s, "style=dotted") != NULL;
}

static void dot_index(struct strmap *m, const struct strvec *ids)
{
	for (size_t i = 0; i < ids->n; i++)
		if (strmap_get(m, ids->v[i], strlen(ids->v[i])) == STRMAP_NONE)
			strmap_put(m, ids->v[i], strlen(ids->v[i]), i);
}

static void dot_free(struct dot_graph *g)
{
	strvec_clear(&g->node_ids);
	strvec_clear(&g->node_labels);
	strvec_clear(&g->edge_ids);
	strvec_clear(&g->edge_rules);
	for (size_t i = 0; i < g->narrows; i++) {
		free(g->arrows[i].from);
		free(g->arrows[i].to);
		free(g->arrows[i].rule);
	}
	free(g->arrows);
	strmap_free(&g->nodes);
	strmap_free(&g->edges);
}

/* The path of node `id`, or NULL. */
static const char *dot_label(const struct dot_graph *g, const char *id)
{
	size_t i = strmap_get(&g->nodes, id, strlen(id));
	return i == STRMAP_NONE ? NULL : g->node_labels.v[i];
}

/* ninja draws '\\' as '/' in labels: match its spelling of a target. */
static char *dot_spelling(const char *path)
{
	char *s = xstrdup(path);
	for (char *c = s; *c; c++)
		if (*c == '\\')
			*c = '/';
	return s;
}

/* Turn the graph into edges in manifest order: the order of `targets`
 * (-t targets all), each edge at its first output. */
static void edges_from_dot(struct ninja_build *b, const struct dot_graph *g, const struct strvec *targets)
{
	struct strmap target_at = { 0 };	/* ninja's spelling -> index into targets */
	struct strvec spelled = { 0 };
	for (size_t i = 0; i < targets->n; i++)
		strvec_push_nodup(&spelled, dot_spelling(targets->v[i]));
	for (size_t i = 0; i < spelled.n; i++)
		if (strmap_get(&target_at, spelled.v[i], strlen(spelled.v[i])) == STRMAP_NONE)
			strmap_put(&target_at, spelled.v[i], strlen(spelled.v[i]), i);

	/* Per target: the edge writing it (an ellipse, or a direct arrow). */
	size_t *ellipse_of = xcalloc(targets->n, sizeof(size_t));
	const struct dot_arrow **direct_of = xcalloc(targets->n, sizeof(*direct_of));
	for (size_t i = 0; i < targets->n; i++)
		ellipse_of[i] = STRMAP_NONE;
	for (size_t i = 0; i < g->narrows; i++) {
		const struct dot_arrow *a = &g->arrows[i];
		size_t from_edge = strmap_get(&g->edges, a->from, strlen(a->from));
		if (from_edge == STRMAP_NONE && !a->rule)
			continue;	/* an input of an edge */
		const char *out = dot_label(g, a->to);
		size_t t = out ? strmap_get(&target_at, out, strlen(out)) : STRMAP_NONE;
		if (t == STRMAP_NONE)
			continue;
		if (a->rule)
			direct_of[t] = a;
		else
			ellipse_of[t] = from_edge;
	}

	/* Each ellipse's arrows, in the order ninja printed them (outputs,
	 * then inputs): one pass, so a big graph is not scanned per edge. */
	size_t ne = g->edge_ids.n, *first = xcalloc(ne + 1, sizeof(size_t));
	size_t *ellipse_of_arrow = xcalloc(g->narrows, sizeof(size_t));
	for (size_t i = 0; i < g->narrows; i++) {
		const struct dot_arrow *a = &g->arrows[i];
		size_t k = strmap_get(&g->edges, a->from, strlen(a->from));
		if (k == STRMAP_NONE)
			k = strmap_get(&g->edges, a->to, strlen(a->to));
		ellipse_of_arrow[i] = k;
		if (k != STRMAP_NONE)
			first[k + 1]++;
	}
	for (size_t k = 0; k < ne; k++)
		first[k + 1] += first[k];
	size_t *arrows_of = xcalloc(first[ne] + 1, sizeof(size_t)), *fill = xcalloc(ne + 1, sizeof(size_t));
	for (size_t i = 0; i < g->narrows; i++) {
		size_t k = ellipse_of_arrow[i];
		if (k != STRMAP_NONE)
			arrows_of[first[k] + fill[k]++] = i;
	}
	free(fill);
	free(ellipse_of_arrow);

	size_t *edge_at = xcalloc(ne, sizeof(size_t));	/* ellipse -> our edge */
	for (size_t i = 0; i < ne; i++)
		edge_at[i] = STRMAP_NONE;
	b->edges = xcalloc(targets->n, sizeof(*b->edges));
	for (size_t t = 0; t < targets->n; t++) {
		if (direct_of[t]) {
			struct ninja_edge *e = &b->edges[b->n++];
			strvec_push(&e->outputs, targets->v[t]);
			e->rule = xstrdup(direct_of[t]->rule);
			const char *in = dot_label(g, direct_of[t]->from);
			if (in)
				strvec_push(&e->inputs, in);
			continue;
		}
		size_t k = ellipse_of[t];
		if (k == STRMAP_NONE || edge_at[k] != STRMAP_NONE)
			continue;	/* a source, or an output of an edge already placed */
		edge_at[k] = b->n;
		struct ninja_edge *e = &b->edges[b->n++];
		e->rule = xstrdup(g->edge_rules.v[k]);
		for (size_t x = first[k]; x < first[k + 1]; x++) {
			const struct dot_arrow *a = &g->arrows[arrows_of[x]];
			bool out = !strcmp(a->from, g->edge_ids.v[k]);
			const char *path = dot_label(g, out ? a->to : a->from);
			if (!path)
				continue;
			if (out) {
				size_t at = strmap_get(&target_at, path, strlen(path));
				strvec_push(&e->outputs, at == STRMAP_NONE ? path : targets->v[at]);
			} else {
				strvec_push(a->order_only ? &e->order_only : &e->inputs, path);
			}
		}
	}
	free(edge_at);
	free(arrows_of);
	free(first);
	free(ellipse_of);
	free(direct_of);
	strvec_clear(&spelled);
	strmap_free(&target_at);
}

/* Every edge's command, one "-t commands -s" line per edge asked for. */
static void read_commands(const char *dir, struct ninja_edge *edges, size_t n)
{
	struct strvec args = { 0 };
	size_t want = 0;
	strvec_push(&args, "commands");
	strvec_push(&args, "-s");
	for (size_t i = 0; i < n; i++) {
		if (ninja_edge_is_phony(&edges[i]))
			continue;
		strvec_push(&args, edges[i].outputs.v[0]);
		want++;
	}
	struct strvec lines = { 0 };
	ninja_tool_lines(dir, (const char *const *)args.v, args.n, &lines);
	if (lines.n != want)
		die(EXIT_INTERNAL, "%s: ninja -t commands -s printed %zu commands for %zu edges", dir, lines.n, want);
	for (size_t i = 0, k = 0; i < n; i++)
		if (!ninja_edge_is_phony(&edges[i]))
			edges[i].command = xstrdup(lines.v[k++]);
	strvec_clear(&lines);
	strvec_clear(&args);
}

static void edge_clear(struct ninja_edge *e)
{
	strvec_clear(&e->outputs);
	strvec_clear(&e->inputs);
	strvec_clear(&e->order_only);
	free(e->rule);
	free(e->command);
	free(e->deps);
	memset(e, 0, sizeof(*e));
}

static void add_deps(const struct ninja_build *b, struct ninja_edge *e, const struct strvec *inputs)
{
	for (size_t i = 0; i < inputs->n; i++) {
		long d = ninja_edge_of(b, inputs->v[i]);
		if (d < 0)
			continue;
		bool dup = false;
		for (size_t k = 0; k < e->ndeps; k++)
			dup |= e->deps[k] == (size_t)d;
		if (!dup) {
			e->deps = grow_array(e->deps, e->ndeps, sizeof(*e->deps));
			e->deps[e->ndeps++] = (size_t)d;
		}
	}
}

void ninja_outputs(const char *dir, struct strvec *outputs, struct strvec *rules)
{
	const char *args[] = { "targets", "all" };
	ninja_tool_lines(dir, args, 2, outputs);
	for (size_t i = 0; i < outputs->n; i++) {
		/* "path: rule"; the path may itself hold ": ", the rule does not. */
		char *line = outputs->v[i], *sep = NULL;
		for (char *s = strstr(line, ": "); s; s = strstr(s + 1, ": "))
			sep = s;
		if (sep)
			*sep = '\0';
		if (rules)
			strvec_push(rules, sep ? sep + 2 : "");
	}
}

static void read_dot_file(const char *path, struct dot_graph *g)
{
	FILE *f = open_output(path);
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) >= 0) {
		chomp(line);
		dot_line(g, line);
	}
	free(line);
	fclose(f);
	dot_index(&g->nodes, &g->node_ids);
	dot_index(&g->edges, &g->edge_ids);
}

/* ninja's -t graph of `targets` (none: the default targets), read; with
 * `cached`, read from there when it is, else kept there (cache.h). */
static void read_dot(const char *dir, const struct strvec *targets, struct dot_graph *g, const char *cached)
{
	if (cached && file_exists(cached)) {
		read_dot_file(cached, g);
		return;
	}
	struct strvec graph_args = { 0 };
	strvec_push(&graph_args, "graph");
	for (size_t i = 0; i < targets->n; i++)
		strvec_push(&graph_args, targets->v[i]);
	char *path = ninja_tool(dir, (const char *const *)graph_args.v, graph_args.n);
	read_dot_file(path, g);
	if (cached)
		cache_store(path, cached);
	remove(path);
	free(path);
	strvec_clear(&graph_args);
}

/* The index and each edge's dependencies, once the edges are in. */
static void link_edges(struct ninja_build *b)
{
	b->index = index_outputs(b, &b->nindex);
	for (size_t i = 0; i < b->n; i++) {
		struct ninja_edge *e = &b->edges[i];
		add_deps(b, e, &e->inputs);
		add_deps(b, e, &e->order_only);
	}
}

void ninja_load(const char *dir, struct ninja_build *b)
{
	ninja_check_dir(dir);
	memset(b, 0, sizeof(*b));
	b->dir = xstrdup(dir);

	struct strvec targets = { 0 };
	ninja_outputs(dir, &targets, NULL);
	if (!targets.n)
		die(EXIT_BAD_INPUT, "%s: build.ninja defines no build edges", dir);
	struct dot_graph g = { 0 };
	read_dot(dir, &targets, &g, NULL);
	edges_from_dot(b, &g, &targets);
	dot_free(&g);
	strvec_clear(&targets);
	if (!b->n)
		die(EXIT_INTERNAL, "%s: ninja -t graph showed none of the build's edges", dir);
	read_commands(dir, b->edges, b->n);
	link_edges(b);
}

void ninja_load_graph(const char *dir, bool cache, struct ninja_build *b)
{
	ninja_check_dir(dir);
	memset(b, 0, sizeof(*b));
	b->dir = xstrdup(dir);
	struct strvec none = { 0 }, targets = { 0 };
	struct dot_graph g = { 0 };
	char *cached = cache ? cache_path("graphs", dir, (const char *const[]){ "build.ninja", NULL }) : NULL;
	read_dot(dir, &none, &g, cached);
	free(cached);
	/* Every output drawn: an edge's arrow into it, in the order drawn. */
	for (size_t i = 0; i < g.narrows; i++) {
		const struct dot_arrow *a = &g.arrows[i];
		if (!a->rule && strmap_get(&g.edges, a->from, strlen(a->from)) == STRMAP_NONE)
			continue;
		const char *out = dot_label(&g, a->to);
		if (out)
			strvec_push_nodup(&targets, xstrdup(out));
	}
	edges_from_dot(b, &g, &targets);
	dot_free(&g);
	strvec_clear(&targets);
	if (!b->n)
		die(EXIT_BAD_INPUT, "%s: build.ninja defines no build edges", dir);
	link_edges(b);
}

void ninja_build_free(struct ninja_build *b)
{
	for (size_t i = 0; i < b->n; i++)
		edge_clear(&b->edges[i]);
	free(b->edges);
	free(b->index);
	free(b->dir);
	memset(b, 0, sizeof(*b));
}

char *ninja_version(void)
{
	char *argv[] = { (char *)ninja_program(), "--version", NULL };
	char *text = proc_capture(argv, NULL, NULL, 0);
	if (text)
		text[strcspn(text, "\n")] = '\0';
	return text;
}

enum sched_policy ninja_policy(char **why)
{
	char *text = ninja_version();
	int major = 0, minor = 0;
	enum sched_policy policy = POLICY_MANIFEST;
	if (text && sscanf(text, "%d.%d", &major, &minor) == 2) {
		policy = major > 1 || minor >= 12 ? POLICY_CRITICAL : POLICY_MANIFEST;
		*why = xasprintf("installed ninja %d.%d", major, minor);
	} else {
		*why = xstrdup("ninja's version unknown: manifest order");
	}
	free(text);
	return policy;
}

bool ninja_edge_is_phony(const struct ninja_edge *e)
{
	return e->rule && !strcmp(e->rule, "phony");
}

bool ninja_edge_is_compile(const struct ninja_edge *e)
{
	if (ninja_edge_is_phony(e))
		return false;
	const char *o = e->outputs.v[0];
	return has_suffix(o, ".o") || has_suffix(o, ".obj");
}
