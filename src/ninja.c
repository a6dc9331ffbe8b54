#define _GNU_SOURCE
#include "ninja.h"
#include "proc.h"
#include "tmpdir.h"

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
		die(EXIT_BUILD_FAILED, "cannot read %s", path);
	return f;
}

static void chomp(char *line)
{
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
}

/* Run a ninja tool and collect its output lines (small outputs only: the
 * one big one, -t query, is streamed by read_query). */
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

/* Read "-t query": per target its rule and inputs, split by | and ||. */
static void read_query(const char *path, struct ninja_edge *edges, size_t n)
{
	FILE *f = open_output(path);
	char *line = NULL;
	size_t cap = 0;
	long cur = -1;
	size_t next = 0;
	enum { NONE, INPUTS, OUTPUTS } section = NONE;
	while (getline(&line, &cap, f) >= 0) {
		chomp(line);
		if (line[0] && line[0] != ' ') {
			/* "target:" in the order we asked */
			cur = next < n ? (long)next++ : -1;
			section = NONE;
			continue;
		}
		if (cur < 0)
			continue;
		struct ninja_edge *e = &edges[cur];
		const char *s = line;
		while (*s == ' ')
			s++;
		if (has_prefix(s, "input: ")) {
			if (!e->rule)
				e->rule = xstrdup(s + 7);
			section = INPUTS;
		} else if (!strcmp(s, "outputs:") || !strcmp(s, "validations:")) {
			section = OUTPUTS;
		} else if (section == INPUTS) {
			if (has_prefix(s, "|| "))
				strvec_push(&e->order_only, s + 3);
			else if (has_prefix(s, "| "))
				strvec_push(&e->implicit, s + 2);
			else
				strvec_push(&e->inputs, s);
		}
	}
	free(line);
	fclose(f);
}

/* One line per target from "-t commands -s" when every target is its own
 * edge; otherwise ask target by target so multi-output edges group.
 * Returns true when some edge has several outputs. */
static bool read_commands(const char *dir, struct ninja_edge *edges, size_t n)
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
	bool multi = lines.n != want;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (ninja_edge_is_phony(&edges[i]))
			continue;
		if (!multi) {
			edges[i].command = xstrdup(lines.v[k++]);
			continue;
		}
		const char *one[] = { "commands", "-s", edges[i].outputs.v[0] };
		struct strvec cmd = { 0 };
		ninja_tool_lines(dir, one, 3, &cmd);
		edges[i].command = xstrdup(cmd.n ? cmd.v[0] : "");
		strvec_clear(&cmd);
	}
	strvec_clear(&lines);
	strvec_clear(&args);
	return multi;
}

static bool same_strvec(const struct strvec *a, const struct strvec *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]))
			return false;
	return true;
}

static void edge_clear(struct ninja_edge *e)
{
	strvec_clear(&e->outputs);
	strvec_clear(&e->inputs);
	strvec_clear(&e->implicit);
	strvec_clear(&e->order_only);
	free(e->rule);
	free(e->command);
	free(e->deps);
	memset(e, 0, sizeof(*e));
}

/* Targets of one multi-output edge share rule, inputs and command. */
static size_t merge_multi_output(struct ninja_edge *edges, size_t n)
{
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		struct ninja_edge *e = &edges[i];
		size_t j;
		for (j = 0; j < kept; j++) {
			struct ninja_edge *k = &edges[j];
			if (e->command && k->command && !strcmp(e->command, k->command) &&
			    !strcmp(e->rule, k->rule) && same_strvec(&e->inputs, &k->inputs))
				break;
		}
		if (j < kept) {
			strvec_push(&edges[j].outputs, e->outputs.v[0]);
			edge_clear(e);
			continue;
		}
		if (kept != i)
			edges[kept] = *e;
		kept++;
	}
	return kept;
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
			e->deps = xrealloc(e->deps, (e->ndeps + 1) * sizeof(*e->deps));
			e->deps[e->ndeps++] = (size_t)d;
		}
	}
}

void ninja_load(const char *dir, struct ninja_build *b)
{
	ninja_check_dir(dir);
	memset(b, 0, sizeof(*b));
	b->dir = xstrdup(dir);

	const char *targets_args[] = { "targets", "all" };
	struct strvec targets = { 0 };
	ninja_tool_lines(dir, targets_args, 2, &targets);
	b->edges = xcalloc(targets.n, sizeof(*b->edges));
	for (size_t i = 0; i < targets.n; i++) {
		/* "path: rule"; the path may itself hold ": ", the rule does not. */
		char *line = targets.v[i], *sep = NULL;
		for (char *s = strstr(line, ": "); s; s = strstr(s + 1, ": "))
			sep = s;
		if (!sep)
			continue;
		*sep = '\0';
		struct ninja_edge *e = &b->edges[b->n++];
		strvec_push(&e->outputs, line);
		e->rule = xstrdup(sep + 2);
	}
	strvec_clear(&targets);
	if (!b->n)
		die(EXIT_BAD_INPUT, "%s: build.ninja defines no build edges", dir);

	struct strvec query = { 0 };
	strvec_push(&query, "query");
	for (size_t i = 0; i < b->n; i++)
		strvec_push(&query, b->edges[i].outputs.v[0]);
	char *path = ninja_tool(dir, (const char *const *)query.v, query.n);
	read_query(path, b->edges, b->n);
	remove(path);
	free(path);
	strvec_clear(&query);

	if (read_commands(dir, b->edges, b->n))
		b->n = merge_multi_output(b->edges, b->n);

	b->index = index_outputs(b, &b->nindex);
	for (size_t i = 0; i < b->n; i++) {
		struct ninja_edge *e = &b->edges[i];
		add_deps(b, e, &e->inputs);
		add_deps(b, e, &e->implicit);
		add_deps(b, e, &e->order_only);
	}
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
