/* A file is read into its spans (the events that matter, their strings
 * interned in the file's arena), the spans are swept in start order to
 * nest them, and the file's rows are summed locally; only then is the
 * model locked and the file's rows added to it, so readers hold the lock
 * briefly. */
#define _GNU_SOURCE
#include "trace_model.h"
#include "arena.h"
#include "json_stream.h"
#include "nvcc_report.h"
#include "progress.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

const char *const trace_table_names[NTRACE_TABLES] = { "headers", "templates", "template_sets", "functions" };

/* A key composed of parts separated by \x1f (never in a path or a name). */
struct key {
	char *s;
	size_t len, cap;
};

static void key_append(struct key *k, const char *s, size_t len)
{
	if (k->len + len + 1 > k->cap) {
		k->cap = 2 * (k->len + len + 1);
		k->s = xrealloc(k->s, k->cap);
	}
	memcpy(k->s + k->len, s, len);
	k->len += len;
}

static void key_add(struct key *k, const char *s, size_t len)
{
	if (k->len)
		key_append(k, "\x1f", 1);
	key_append(k, s, len);
}

/* ---- rows by key: a file's, and the model's ---- */

struct chain_row {
	size_t header;		/* the header row it belongs to */
	const char *via;
	size_t count;
	int64_t inclusive_us;
};

struct pass_sums {
	const char *name;
	size_t tus;
	int64_t total_us, front_end_us, backend_us, source_us, templates_us;
	struct trace_phase *phases;	/* names point into an arena */
	size_t nphases;
};

struct rows {
	struct arena strings;
	struct strmap index[NTRACE_TABLES + 1];	/* the last: chains */
	struct trace_row *v[NTRACE_TABLES];
	size_t n[NTRACE_TABLES], cap[NTRACE_TABLES];
	struct chain_row *chains;
	size_t nchains, chains_cap;
	struct pass_sums *passes;
	size_t npasses;
	struct key key;
};

/* The listed event names by length: most names in a trace are not listed,
 * and their length alone says so, with no hashing. */
#define KIND_MAX_LEN 48
struct kind_index {
	uint8_t first[KIND_MAX_LEN + 1], count[KIND_MAX_LEN + 1];
	uint8_t order[64];
};

struct trace_index {
	struct rows rows;
	struct kind_index kinds;
};

static size_t pass_of(struct rows *r, const char *name)
{
	for (size_t i = 0; i < r->npasses; i++)
		if (!strcmp(r->passes[i].name, name))
			return i;
	r->passes = xrealloc(r->passes, (r->npasses + 1) * sizeof(*r->passes));
	r->passes[r->npasses] = (struct pass_sums){ .name = arena_copy(&r->strings, name, strlen(name)) };
	return r->npasses++;
}

/* The row stored under r->key (added when new). Its name is `name`, a
 * string that outlives r, or with NULL the key's last part. */
static struct trace_row *row_keyed(struct rows *r, enum trace_table t, size_t pass, const char *name)
{
	size_t i = strmap_get(&r->index[t], r->key.s, r->key.len);
	if (i != STRMAP_NONE)
		return &r->v[t][i];
	if (r->n[t] == r->cap[t]) {
		r->cap[t] = r->cap[t] ? 2 * r->cap[t] : 64;
		r->v[t] = xrealloc(r->v[t], r->cap[t] * sizeof(**r->v));
	}
	const char *key = arena_copy(&r->strings, r->key.s, r->key.len);
	strmap_put(&r->index[t], key, r->key.len, r->n[t]);
	struct trace_row *row = &r->v[t][r->n[t]++];
	*row = (struct trace_row){ .pass = pass, .name = (char *)(name ? name : key + strlen(r->passes[pass].name) + 1) };
	return row;
}

/* The model's rows are keyed by their pass's and their own names. */
static struct trace_row *row_of(struct rows *r, enum trace_table t, size_t pass, const char *name, size_t len)
{
	r->key.len = 0;
	key_add(&r->key, r->passes[pass].name, strlen(r->passes[pass].name));
	key_add(&r->key, name, len);
	return row_keyed(r, t, pass, NULL);
}

/* A file's rows by the ids of their pass and name: no string is hashed
 * twice. */
static void key_ids(struct key *k, uint32_t a, uint32_t b)
{
	uint32_t ids[2] = { a, b };
	k->len = 0;
	key_append(k, (const char *)ids, sizeof(ids));
}

static struct trace_row *file_row(struct rows *r, enum trace_table t, size_t pass, uint32_t id, const char *name)
{
	key_ids(&r->key, (uint32_t)pass, id);
	return row_keyed(r, t, pass, name);
}

/* The chain stored under r->key (added when new): `via` outliving r, or
 * with NULL the key's last `tail` bytes. */
static struct chain_row *chain_keyed(struct rows *r, size_t header, const char *via, size_t tail)
{
	size_t i = strmap_get(&r->index[NTRACE_TABLES], r->key.s, r->key.len);
	if (i != STRMAP_NONE)
		return &r->chains[i];
	if (r->nchains == r->chains_cap) {
		r->chains_cap = r->chains_cap ? 2 * r->chains_cap : 64;
		r->chains = xrealloc(r->chains, r->chains_cap * sizeof(*r->chains));
	}
	const char *key = arena_copy(&r->strings, r->key.s, r->key.len);
	strmap_put(&r->index[NTRACE_TABLES], key, r->key.len, r->nchains);
	struct chain_row *c = &r->chains[r->nchains++];
	*c = (struct chain_row){ .header = header, .via = via ? via : key + r->key.len - tail };
	return c;
}

static struct chain_row *chain_of(struct rows *r, size_t header, const char *via, size_t len)
{
	const struct trace_row *h = &r->v[TRACE_HEADERS][header];
	r->key.len = 0;
	key_add(&r->key, r->passes[h->pass].name, strlen(r->passes[h->pass].name));
	key_add(&r->key, h->name, strlen(h->name));
	key_add(&r->key, via, len);
	return chain_keyed(r, header, NULL, len);
}

static void add_phase(struct rows *r, struct pass_sums *p, const char *name, int64_t us)
{
	for (size_t i = 0; i < p->nphases; i++)
		if (!strcmp(p->phases[i].name, name)) {
			p->phases[i].us += us;
			return;
		}
	p->phases = xrealloc(p->phases, (p->nphases + 1) * sizeof(*p->phases));
	p->phases[p->nphases++] = (struct trace_phase){ (char *)arena_copy(&r->strings, name, strlen(name)), us };
}

static void rows_free(struct rows *r)
{
	for (int t = 0; t <= NTRACE_TABLES; t++)
		strmap_free(&r->index[t]);
	for (int t = 0; t < NTRACE_TABLES; t++)
		free(r->v[t]);
	for (size_t i = 0; i < r->npasses; i++)
		free(r->passes[i].phases);
	free(r->passes);
	free(r->chains);
	free(r->key.s);
	arena_free(&r->strings);
	*r = (struct rows){ 0 };
}

/* ---- which events matter ---- */

enum span_kind { SPAN_SOURCE, SPAN_TEMPLATE, SPAN_OPTIMIZE, SPAN_CODEGEN, SPAN_PHASE, SPAN_TOOL };
enum phase_role { ROLE_NONE, ROLE_FRONT_END, ROLE_BACKEND, ROLE_TOTAL };

static const struct {
	const char *name;
	enum span_kind kind;
	enum phase_role role;
} event_kinds[] = {
	{ "Source", SPAN_SOURCE, ROLE_NONE },	/* clang */
	{ "Processing Header File", SPAN_SOURCE, ROLE_NONE },	/* nvcc's cicc */
	{ "InstantiateClass", SPAN_TEMPLATE, ROLE_NONE },
	{ "InstantiateFunction", SPAN_TEMPLATE, ROLE_NONE },
	{ "Instantiating Template Class", SPAN_TEMPLATE, ROLE_NONE },
	{ "Instantiating Template Function", SPAN_TEMPLATE, ROLE_NONE },
	{ "OptFunction", SPAN_OPTIMIZE, ROLE_NONE },
	{ "CodeGen Function", SPAN_CODEGEN, ROLE_NONE },
	{ "Generating Function IR", SPAN_CODEGEN, ROLE_NONE },
	{ "ExecuteCompiler", SPAN_PHASE, ROLE_TOTAL },
	{ "Frontend", SPAN_PHASE, ROLE_FRONT_END },
	{ "Backend", SPAN_PHASE, ROLE_BACKEND },
	{ "PerformPendingInstantiations", SPAN_PHASE, ROLE_NONE },
	{ "Optimizer", SPAN_PHASE, ROLE_NONE },
	{ "CodeGenPasses", SPAN_PHASE, ROLE_NONE },
	{ "CUDA C++ Front-End", SPAN_PHASE, ROLE_FRONT_END },
	{ "Generating Needed Template Instantiations", SPAN_PHASE, ROLE_NONE },
	{ "Generating NVVM IR", SPAN_PHASE, ROLE_NONE },
	{ "LibNVVM", SPAN_PHASE, ROLE_BACKEND },
	{ "NVVM Module Linker", SPAN_PHASE, ROLE_NONE },
	{ "NVVM Optimizer", SPAN_PHASE, ROLE_NONE },
	{ "NVVM CodeGen", SPAN_PHASE, ROLE_NONE },
	{ "Total PTXAS Time", SPAN_PHASE, ROLE_BACKEND },
	/* nvcc's tools: each is one span named as its process */
	{ "cudafe++", SPAN_TOOL, ROLE_NONE },
	{ "fatbinary", SPAN_TOOL, ROLE_NONE },
	{ "nvlink", SPAN_TOOL, ROLE_NONE },
	{ "cicc", SPAN_TOOL, ROLE_NONE },
	{ "ptxas", SPAN_TOOL, ROLE_NONE },
};
#define NKINDS_LISTED (sizeof(event_kinds) / sizeof(event_kinds[0]))

_Static_assert(sizeof(event_kinds) / sizeof(event_kinds[0]) <= 64, "kind_index.order holds 64");

/* The listed kind named `name`, or STRMAP_NONE. */
static size_t kind_of(const struct kind_index *ki, struct trace_str name)
{
	if (name.len > KIND_MAX_LEN)
		return STRMAP_NONE;
	for (size_t i = 0; i < ki->count[name.len]; i++) {
		size_t k = ki->order[ki->first[name.len] + i];
		if (!memcmp(event_kinds[k].name, name.s, name.len))
			return k;
	}
	return STRMAP_NONE;
}

static bool is_gcc_tool(const char *s, size_t len)
{
	return len > 5 && !memcmp(s, "gcc (", 5) && s[len - 1] == ')';
}

/* ---- one file ---- */

struct span {
	int64_t ts, dur;
	uint32_t str;		/* the detail (headers, templates, functions) or the name (phases, tools) */
	uint32_t proc;
	uint8_t kind;
};

struct open_span {
	int64_t ts;
	long long pid, tid;
	uint32_t str, name;
	uint8_t kind;
};

struct proc_names {
	long long pid;
	uint32_t process, thread;	/* UINT32_MAX: not named */
};

struct file_scan {
	const struct kind_index *kinds;
	struct arena arena;
	struct strmap ids;
	struct trace_str *strs;
	size_t nstrs, strs_cap;
	struct span *spans;
	size_t nspans, spans_cap;
	struct open_span *open;
	size_t nopen, open_cap;
	struct proc_names *procs;
	size_t nprocs;
	/* Include chains as a tree: chain c is chain parent[c] with header
	 * last[c] (a string id) inside it; chain 0 is the TU itself. Its text
	 * is made once, when a row needs it. */
	uint32_t *chain_parent, *chain_last, *chain_text;
	size_t nchains, chains_cap;
	struct strmap chain_index;
	struct arena chain_keys;
};

static uint32_t intern(struct file_scan *f, const char *s, size_t len)
{
	size_t id = strmap_get(&f->ids, s, len);
	if (id != STRMAP_NONE)
		return (uint32_t)id;
	if (f->nstrs == f->strs_cap) {
		f->strs_cap = f->strs_cap ? 2 * f->strs_cap : 256;
		f->strs = xrealloc(f->strs, f->strs_cap * sizeof(*f->strs));
	}
	const char *copy = arena_copy(&f->arena, s, len);
	strmap_put(&f->ids, copy, len, f->nstrs);
	f->strs[f->nstrs] = (struct trace_str){ copy, len };
	return (uint32_t)f->nstrs++;
}

static uint32_t add_chain(struct file_scan *f, uint32_t parent, uint32_t last)
{
	if (f->nchains == f->chains_cap) {
		f->chains_cap = f->chains_cap ? 2 * f->chains_cap : 256;
		f->chain_parent = xrealloc(f->chain_parent, f->chains_cap * sizeof(uint32_t));
		f->chain_last = xrealloc(f->chain_last, f->chains_cap * sizeof(uint32_t));
		f->chain_text = xrealloc(f->chain_text, f->chains_cap * sizeof(uint32_t));
	}
	f->chain_parent[f->nchains] = parent;
	f->chain_last[f->nchains] = last;
	f->chain_text[f->nchains] = UINT32_MAX;
	return (uint32_t)f->nchains++;
}

/* The chain of the headers open around a header: `parent`'s chain with
 * `header` (a string id) inside it. */
static uint32_t chain_child(struct file_scan *f, uint32_t parent, uint32_t header)
{
	if (!f->nchains)
		add_chain(f, 0, UINT32_MAX);
	uint32_t ids[2] = { parent, header };
	size_t c = strmap_get(&f->chain_index, (const char *)ids, sizeof(ids));
	if (c != STRMAP_NONE)
		return (uint32_t)c;
	uint32_t id = add_chain(f, parent, header);
	strmap_put(&f->chain_index, arena_copy(&f->chain_keys, (const char *)ids, sizeof(ids)), sizeof(ids), id);
	return id;
}

static uint32_t intern(struct file_scan *f, const char *s, size_t len);

/* "a.h > b.h", outermost first, as a string id. */
static uint32_t chain_text(struct file_scan *f, uint32_t c)
{
	if (!f->nchains || c == 0)
		return intern(f, "", 0);
	if (f->chain_text[c] != UINT32_MAX)
		return f->chain_text[c];
	struct trace_str outer = f->strs[chain_text(f, f->chain_parent[c])], last = f->strs[f->chain_last[c]];
	struct key text = { 0 };
	key_append(&text, outer.s, outer.len);
	if (outer.len)
		key_append(&text, " > ", 3);
	key_append(&text, last.s, last.len);
	uint32_t id = intern(f, text.s, text.len);
	free(text.s);
	f->chain_text[c] = id;
	return id;
}

static uint32_t proc_of(struct file_scan *f, long long pid)
{
	for (size_t i = 0; i < f->nprocs; i++)
		if (f->procs[i].pid == pid)
			return (uint32_t)i;
	f->procs = xrealloc(f->procs, (f->nprocs + 1) * sizeof(*f->procs));
	f->procs[f->nprocs] = (struct proc_names){ pid, UINT32_MAX, UINT32_MAX };
	return (uint32_t)f->nprocs++;
}

static void add_span(struct file_scan *f, int64_t ts, int64_t dur, uint32_t str, long long pid, enum span_kind kind)
{
	if (f->nspans == f->spans_cap) {
		f->spans_cap = f->spans_cap ? 2 * f->spans_cap : 1024;
		f->spans = xrealloc(f->spans, f->spans_cap * sizeof(*f->spans));
	}
	f->spans[f->nspans++] = (struct span){ ts, dur < 0 ? 0 : dur, str, proc_of(f, pid), (uint8_t)kind };
}

/* What matches a 'b' event to its 'e': the listed kind, or for another
 * name (an nvcc tool's) its string id past the list. */
static uint32_t span_name(struct file_scan *f, size_t kind, struct trace_str name)
{
	return kind != STRMAP_NONE ? (uint32_t)kind : (uint32_t)NKINDS_LISTED + intern(f, name.s, name.len);
}

static void on_event(const struct trace_event *e, void *ctx)
{
	struct file_scan *f = ctx;
	if (!e->name.s)
		return;
	if (e->ph == 'M') {
		bool process = trace_str_is(e->name, "process_name"), thread = trace_str_is(e->name, "thread_name");
		if ((process || thread) && e->arg_name.s) {
			uint32_t proc = proc_of(f, e->pid);	/* it may move f->procs */
			struct proc_names *p = &f->procs[proc];
			uint32_t id = intern(f, e->arg_name.s, e->arg_name.len);
			if (process)
				p->process = id;
			else if (e->tid == 0 || p->thread == UINT32_MAX)
				p->thread = id;
		}
		return;
	}
	size_t k = kind_of(f->kinds, e->name);
	enum span_kind kind;
	if (k != STRMAP_NONE)
		kind = event_kinds[k].kind;
	else if (is_gcc_tool(e->name.s, e->name.len))
		kind = SPAN_TOOL;
	else
		return;
	bool by_detail = kind <= SPAN_CODEGEN;
	int64_t ts = trace_integer(e->ts, TRACE_TIME_LIMIT_US);
	if (e->ph == 'X') {
		if (by_detail && !e->detail.s)
			return;
		struct trace_str s = by_detail ? e->detail : e->name;
		add_span(f, ts, trace_integer(e->dur, TRACE_TIME_LIMIT_US), intern(f, s.s, s.len), e->pid, kind);
	} else if (e->ph == 'b' || e->ph == 'B') {
		if (by_detail && !e->detail.s)
			return;
		struct trace_str s = by_detail ? e->detail : e->name;
		if (f->nopen == f->open_cap) {
			f->open_cap = f->open_cap ? 2 * f->open_cap : 64;
			f->open = xrealloc(f->open, f->open_cap * sizeof(*f->open));
		}
		f->open[f->nopen++] = (struct open_span){ ts, e->pid, e->tid, intern(f, s.s, s.len),
							  span_name(f, k, e->name), (uint8_t)kind };
	} else if (e->ph == 'e' || e->ph == 'E') {
		uint32_t name = span_name(f, k, e->name);
		for (size_t i = f->nopen; i-- > 0;) {
			struct open_span *o = &f->open[i];
			if (o->pid == e->pid && o->tid == e->tid && o->name == name) {
				add_span(f, o->ts, ts - o->ts, o->str, o->pid, o->kind);
				memmove(o, o + 1, (f->nopen - i - 1) * sizeof(*o));
				f->nopen--;
				break;
			}
		}
	}
}

static int by_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->dur < y->dur) - (x->dur > y->dur);	/* the enclosing span first */
}

static bool is_nvcc_tool_name(struct trace_str s)
{
	if (is_gcc_tool(s.s, s.len))
		return true;
	static const char *const tools[] = { "cicc", "ptxas", "cudafe++", "fatbinary", "nvlink" };
	for (size_t i = 0; i < sizeof(tools) / sizeof(*tools); i++)
		if (trace_str_is(s, tools[i]))
			return true;
	return false;
}

/* nvcc's process for a tool and its thread "kern.cu [compute_80]": the
 * device arch for cicc, ptxas and a device preprocessing (compute_NN and
 * sm_NN are one pass, sm_NN), else the host. */
static char *nvcc_pass(const struct file_scan *f, const struct proc_names *p)
{
	struct trace_str process = p->process == UINT32_MAX ? (struct trace_str){ "", 0 } : f->strs[p->process];
	struct trace_str thread = p->thread == UINT32_MAX ? (struct trace_str){ "", 0 } : f->strs[p->thread];
	struct trace_str arch = nvcc_thread_arch(thread);
	bool device_tool = trace_str_is(process, "cicc") || trace_str_is(process, "ptxas") ||
			   (process.len > 18 && !memcmp(process.s, "gcc (preprocessing", 18));
	if (!device_tool || !arch.s)
		return xstrdup("host");
	if (arch.len > 8 && !memcmp(arch.s, "compute_", 8))
		return xasprintf("device sm_%.*s", (int)(arch.len - 8), arch.s + 8);
	return xasprintf("device %.*s", (int)arch.len, arch.s);
}

char *trace_pass_from_name(const char *path)
{
	const char *base = base_name(path);
	for (const char *p = base; *p; p++) {
		if (p != base && !strchr("-_.", p[-1]))
			continue;
		size_t n = 0;
		if (!strncmp(p, "gfx", 3))
			for (n = 3; (p[n] >= '0' && p[n] <= '9') || (p[n] >= 'a' && p[n] <= 'z'); n++)
				;
		else if (!strncmp(p, "sm_", 3))
			for (n = 3; (p[n] >= '0' && p[n] <= '9') || (n > 3 && p[n] >= 'a' && p[n] <= 'z'); n++)
				;
		if (n > 3 && (!p[n] || strchr("-_.", p[n])))
			return xasprintf("device %.*s", (int)n, p);
	}
	return xstrdup("host");
}

char *trace_template_set(const char *name, size_t len)
{
	char *out = xmalloc(2 * len + 1), *o = out;	/* "<>" becomes "<$>" */
	int depth = 0;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		/* operator<, operator<<, operator<=> are names, not argument lists */
		if (c == '<' && i >= 8 && !memcmp(name + i - 8, "operator", 8)) {
			while (i < len && (name[i] == '<' || name[i] == '=' || name[i] == '>'))
				*o++ = name[i++];
			i--;
			continue;
		}
		if (c == '<') {
			if (depth++ == 0) {
				*o++ = '<';
				*o++ = '$';
			}
		} else if (c == '>' && depth > 0) {
			if (--depth == 0)
				*o++ = '>';
		} else if (!depth) {
			*o++ = c;
		}
	}
	*o = 0;
	return out;
}

/* nvcc writes "set [name]": "std::__hypot3 [std::__hypot3<float>(float, float, float)]". */
static void template_names(struct trace_str detail, struct trace_str *name, struct trace_str *set)
{
	*name = *set = detail;
	if (detail.len > 3 && detail.s[detail.len - 1] == ']') {
		const char *open = memmem(detail.s, detail.len, " [", 2);
		if (open) {
			*set = (struct trace_str){ detail.s, (size_t)(open - detail.s) };
			*name = (struct trace_str){ open + 2, detail.len - (size_t)(open - detail.s) - 3 };
		}
	}
}

/* The spans nested: per span its parent of the same family (headers,
 * templates), whether a phase is inside one of the same name, and each
 * header's chain. */
struct nesting {
	size_t *parent;		/* SIZE_MAX: outermost */
	int64_t *children_us;
	uint32_t *chain;	/* headers: the chain of headers open around it */
	bool *repeated;		/* a phase inside a phase of its name */
};

static void nest(struct file_scan *f, struct nesting *n)
{
	size_t count = f->nspans;
	n->parent = xmalloc(count * sizeof(size_t));
	n->children_us = xcalloc(count, sizeof(int64_t));
	n->chain = xcalloc(count, sizeof(uint32_t));
	n->repeated = xcalloc(count, sizeof(bool));
	size_t *stack[3] = { xmalloc(count * sizeof(size_t)), xmalloc(count * sizeof(size_t)), xmalloc(count * sizeof(size_t)) };
	size_t depth[3] = { 0 };
	for (size_t i = 0; i < count; i++) {
		const struct span *s = &f->spans[i];
		if (i && s->proc != f->spans[i - 1].proc)
			depth[0] = depth[1] = depth[2] = 0;
		int family = s->kind == SPAN_SOURCE ? 0 : s->kind == SPAN_TEMPLATE ? 1 : s->kind >= SPAN_PHASE ? 2 : -1;
		n->parent[i] = SIZE_MAX;
		if (family < 0)
			continue;
		size_t *st = stack[family];
		while (depth[family] && f->spans[st[depth[family] - 1]].ts + f->spans[st[depth[family] - 1]].dur <= s->ts)
			depth[family]--;
		if (family == 2) {
			for (size_t d = 0; d < depth[2]; d++)
				n->repeated[i] |= f->spans[st[d]].str == s->str;
		} else if (depth[family]) {
			n->parent[i] = st[depth[family] - 1];
			n->children_us[n->parent[i]] += s->dur;
		}
		if (family == 0 && n->parent[i] != SIZE_MAX)
			n->chain[i] = chain_child(f, n->chain[n->parent[i]], f->spans[n->parent[i]].str);
		st[depth[family]++] = i;
	}
	for (int k = 0; k < 3; k++)
		free(stack[k]);
}

static void nesting_free(struct nesting *n)
{
	free(n->parent);
	free(n->children_us);
	free(n->chain);
	free(n->repeated);
}

struct tu_sums {
	int64_t execute, front_end, backend, tools;
	bool has_execute, has_front_end, has_backend;
};

/* The file's rows, summed in `local`, and its TUs. */
static void sum_file(struct file_scan *f, const struct trace_input *in, bool nvcc, struct rows *local,
		     struct trace_tu **tus, size_t *ntus)
{
	if (f->nspans)
		qsort(f->spans, f->nspans, sizeof(*f->spans), by_start);
	struct nesting n;
	nest(f, &n);
	size_t *proc_pass = xmalloc((f->nprocs ? f->nprocs : 1) * sizeof(size_t));
	char *file_pass = in->pass ? xstrdup(in->pass) : trace_pass_from_name(in->path);
	for (size_t p = 0; p < f->nprocs; p++) {
		char *name = nvcc ? nvcc_pass(f, &f->procs[p]) : xstrdup(file_pass);
		proc_pass[p] = pass_of(local, name);
		free(name);
	}
	free(file_pass);
	struct tu_sums *sums = xcalloc(local->npasses + 1, sizeof(*sums));
	uint32_t *template_ids = xmalloc((2 * f->nstrs + 1) * sizeof(uint32_t));
	memset(template_ids, 0xff, (2 * f->nstrs + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < f->nspans; i++) {
		const struct span *s = &f->spans[i];
		size_t pass = proc_pass[s->proc];
		struct pass_sums *ps = &local->passes[pass];
		struct trace_str str = f->strs[s->str];
		switch ((enum span_kind)s->kind) {
		case SPAN_SOURCE: {
			struct trace_row *r = file_row(local, TRACE_HEADERS, pass, s->str, str.s);
			r->count++;
			r->inclusive_us += s->dur;
			r->self_us += s->dur - n.children_us[i];
			if (n.parent[i] == SIZE_MAX)
				ps->source_us += s->dur;
			size_t header = (size_t)(r - local->v[TRACE_HEADERS]);
			uint32_t via = chain_text(f, n.chain[i]);
			key_ids(&local->key, (uint32_t)header, via);
			struct chain_row *c = chain_keyed(local, header, f->strs[via].s, 0);
			c->count++;
			c->inclusive_us += s->dur;
			break;
		}
		case SPAN_TEMPLATE: {
			uint32_t *names = &template_ids[2 * s->str];	/* a template's name and set, made once */
			if (names[0] == UINT32_MAX) {
				struct trace_str name, set;
				template_names(str, &name, &set);
				names[0] = name.len == str.len ? s->str : intern(f, name.s, name.len);
				char *folded = trace_template_set(set.s, set.len);
				names[1] = intern(f, folded, strlen(folded));
				free(folded);
			}
			uint32_t name_id = names[0], set_id = names[1];
			struct trace_row *rows[2] = { file_row(local, TRACE_TEMPLATES, pass, name_id, f->strs[name_id].s),
						      file_row(local, TRACE_TEMPLATE_SETS, pass, set_id, f->strs[set_id].s) };
			for (int k = 0; k < 2; k++) {
				rows[k]->count++;
				rows[k]->inclusive_us += s->dur;
				rows[k]->self_us += s->dur - n.children_us[i];
			}
			if (n.parent[i] == SIZE_MAX)
				ps->templates_us += s->dur;
			break;
		}
		case SPAN_OPTIMIZE:
		case SPAN_CODEGEN: {
			struct trace_row *r = file_row(local, TRACE_FUNCTIONS, pass, s->str, str.s);
			r->count++;
			r->inclusive_us += s->dur;
			if (s->kind == SPAN_OPTIMIZE)
				r->optimize_us += s->dur;
			else
				r->self_us += s->dur;
			break;
		}
		case SPAN_PHASE:
		case SPAN_TOOL: {
			if (n.repeated[i])
				break;
			add_phase(local, ps, f->strs[s->str].s, s->dur);
			size_t k = kind_of(f->kinds, str);
			enum phase_role role = k == STRMAP_NONE ? ROLE_NONE : event_kinds[k].role;
			struct tu_sums *t = &sums[pass];
			if (s->kind == SPAN_TOOL && nvcc)
				t->tools += s->dur;
			else if (role == ROLE_TOTAL)
				t->execute += s->dur, t->has_execute = true;
			else if (role == ROLE_FRONT_END)
				t->front_end += s->dur, t->has_front_end = true;
			else if (role == ROLE_BACKEND)
				t->backend += s->dur, t->has_backend = true;
			break;
		}
		}
	}
	for (size_t p = 0; p < local->npasses; p++) {
		struct tu_sums *t = &sums[p];
		struct pass_sums *ps = &local->passes[p];
		bool device = has_prefix(ps->name, "device");
		if (nvcc && device) {
			t->front_end += t->tools;	/* a device pass's tool: its preprocessing */
			t->has_front_end = true;
			t->has_execute = true;
			t->execute = t->front_end + t->backend;
		} else if (nvcc) {
			t->execute = t->tools;
			t->has_execute = true;
			t->has_front_end = t->has_backend = false;	/* gcc: no trace of its own */
		} else if (!t->has_execute && (t->has_front_end || t->has_backend)) {
			t->execute = t->front_end + t->backend;
			t->has_execute = true;
		}
		ps->tus = 1;
		ps->total_us = t->has_execute ? t->execute : TRACE_UNKNOWN;
		ps->front_end_us = t->has_front_end ? t->front_end : TRACE_UNKNOWN;
		ps->backend_us = t->has_backend ? t->backend : TRACE_UNKNOWN;
		*tus = xrealloc(*tus, (*ntus + 1) * sizeof(**tus));
		(*tus)[(*ntus)++] = (struct trace_tu){ xstrdup(in->tu ? in->tu : in->path), xstrdup(ps->name),
						       xstrdup(in->path), ps->total_us, ps->front_end_us, ps->backend_us };
	}
	free(sums);
	free(template_ids);
	free(proc_pass);
	nesting_free(&n);
}

static int64_t add_known(int64_t a, int64_t b)
{
	return a == TRACE_UNKNOWN || b == TRACE_UNKNOWN ? TRACE_UNKNOWN : a + b;
}

/* Add a file's rows to the model's; the model is locked. */
static void merge(struct rows *into, const struct rows *from)
{
	size_t *pass_map = xmalloc((from->npasses ? from->npasses : 1) * sizeof(size_t));
	for (size_t p = 0; p < from->npasses; p++) {
		const struct pass_sums *src = &from->passes[p];
		bool added = false;
		size_t before = into->npasses;
		pass_map[p] = pass_of(into, src->name);
		added = into->npasses > before;
		struct pass_sums *dst = &into->passes[pass_map[p]];
		if (added) {
			dst->total_us = src->total_us;
			dst->front_end_us = src->front_end_us;
			dst->backend_us = src->backend_us;
		} else {
			dst->total_us = add_known(dst->total_us, src->total_us);
			dst->front_end_us = add_known(dst->front_end_us, src->front_end_us);
			dst->backend_us = add_known(dst->backend_us, src->backend_us);
		}
		dst->tus += src->tus;
		dst->source_us += src->source_us;
		dst->templates_us += src->templates_us;
		for (size_t k = 0; k < src->nphases; k++)
			add_phase(into, dst, src->phases[k].name, src->phases[k].us);
	}
	size_t *header_map = xmalloc((from->n[TRACE_HEADERS] ? from->n[TRACE_HEADERS] : 1) * sizeof(size_t));
	for (int t = 0; t < NTRACE_TABLES; t++)
		for (size_t i = 0; i < from->n[t]; i++) {
			const struct trace_row *src = &from->v[t][i];
			struct trace_row *dst = row_of(into, (enum trace_table)t, pass_map[src->pass], src->name, strlen(src->name));
			dst->count += src->count;
			dst->tus++;
			dst->inclusive_us += src->inclusive_us;
			dst->self_us += src->self_us;
			dst->optimize_us += src->optimize_us;
			if (t == TRACE_HEADERS)
				header_map[i] = (size_t)(dst - into->v[TRACE_HEADERS]);
		}
	for (size_t i = 0; i < from->nchains; i++) {
		const struct chain_row *src = &from->chains[i];
		struct chain_row *dst = chain_of(into, header_map[src->header], src->via, strlen(src->via));
		dst->count += src->count;
		dst->inclusive_us += src->inclusive_us;
	}
	free(header_map);
	free(pass_map);
}

static bool is_nvcc_file(const struct file_scan *f)
{
	for (size_t p = 0; p < f->nprocs; p++)
		if (f->procs[p].process != UINT32_MAX && is_nvcc_tool_name(f->strs[f->procs[p].process]))
			return true;
	return false;
}

static void read_one(struct trace_model *m, struct trace_input *in)
{
	struct file_scan f = { .kinds = &m->index->kinds };
	in->result = trace_scan_file(in->path, on_event, &f, &in->info);
	if (in->result == TRACE_SCAN_OK) {
		struct rows local = { 0 };
		struct trace_tu *tus = NULL;
		size_t ntus = 0;
		sum_file(&f, in, is_nvcc_file(&f), &local, &tus, &ntus);
		pthread_mutex_lock(&m->lock);
		merge(&m->index->rows, &local);
		if (ntus) {
			m->tus = xrealloc(m->tus, (m->ntus + ntus) * sizeof(*m->tus));
			memcpy(m->tus + m->ntus, tus, ntus * sizeof(*tus));
			m->ntus += ntus;
		}
		m->files++;
		m->bytes += in->info.bytes;
		m->events += in->info.events;
		pthread_mutex_unlock(&m->lock);
		free(tus);
		rows_free(&local);
	}
	strmap_free(&f.ids);
	arena_free(&f.arena);
	free(f.strs);
	free(f.spans);
	free(f.open);
	free(f.procs);
	free(f.chain_parent);
	free(f.chain_last);
	free(f.chain_text);
	strmap_free(&f.chain_index);
	arena_free(&f.chain_keys);
}

void trace_model_init(struct trace_model *m)
{
	*m = (struct trace_model){ .index = xcalloc(1, sizeof(struct trace_index)) };
	pthread_mutex_init(&m->lock, NULL);
	struct kind_index *ki = &m->index->kinds;
	size_t n = 0;
	for (size_t len = 0; len <= KIND_MAX_LEN; len++) {
		ki->first[len] = (uint8_t)n;
		for (size_t k = 0; k < NKINDS_LISTED; k++)
			if (strlen(event_kinds[k].name) == len)
				ki->order[n++] = (uint8_t)k;
		ki->count[len] = (uint8_t)(n - ki->first[len]);
	}
}

struct readers {
	struct trace_model *m;
	struct trace_input *in;
	size_t n, next, done;
	pthread_mutex_t lock;
};

static void *reader(void *arg)
{
	struct readers *r = arg;
	for (;;) {
		pthread_mutex_lock(&r->lock);
		size_t i = r->next < r->n ? r->next++ : SIZE_MAX;
		pthread_mutex_unlock(&r->lock);
		if (i == SIZE_MAX)
			return NULL;
		read_one(r->m, &r->in[i]);
		pthread_mutex_lock(&r->lock);
		r->done++;
		pthread_mutex_unlock(&r->lock);
	}
}

void trace_model_read(struct trace_model *m, struct trace_input *in, size_t n, long jobs)
{
	struct readers r = { .m = m, .in = in, .n = n };
	pthread_mutex_init(&r.lock, NULL);
	size_t extra = jobs > 1 ? (size_t)jobs - 1 : 0;
	if (extra > n)
		extra = n ? n - 1 : 0;
	pthread_t *threads = xcalloc(extra ? extra : 1, sizeof(pthread_t));
	size_t started = 0;
	for (; started < extra; started++)
		if (pthread_create(&threads[started], NULL, reader, &r))
			break;	/* fewer threads: the files are still read */
	/* This thread reads too, and says how far the reading is between files. */
	for (;;) {
		pthread_mutex_lock(&r.lock);
		size_t i = r.next < r.n ? r.next++ : SIZE_MAX, done = r.done;
		pthread_mutex_unlock(&r.lock);
		if (i == SIZE_MAX)
			break;
		if (n > 1)
			progress_set("reading traces: %zu of %zu files", done, n);
		read_one(m, &in[i]);
		pthread_mutex_lock(&r.lock);
		r.done++;
		pthread_mutex_unlock(&r.lock);
	}
	for (size_t t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	progress_clear();
	free(threads);
	pthread_mutex_destroy(&r.lock);
}

static int heavier_row(const void *a, const void *b)
{
	const struct trace_row *x = a, *y = b;
	if (x->inclusive_us != y->inclusive_us)
		return x->inclusive_us < y->inclusive_us ? 1 : -1;
	if (x->pass != y->pass)
		return x->pass < y->pass ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int more_frequent_chain(const void *a, const void *b)
{
	const struct trace_chain *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->inclusive_us != y->inclusive_us)
		return x->inclusive_us < y->inclusive_us ? 1 : -1;
	return strcmp(x->via, y->via);
}

static int heavier_tu(const void *a, const void *b)
{
	const struct trace_tu *x = a, *y = b;
	if (x->total_us != y->total_us)
		return x->total_us < y->total_us ? 1 : -1;
	int c = strcmp(x->tu, y->tu);
	return c ? c : strcmp(x->pass, y->pass);
}

static int heavier_phase(const void *a, const void *b)
{
	const struct trace_phase *x = a, *y = b;
	if (x->us != y->us)
		return x->us < y->us ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int pass_order(const void *a, const void *b)
{
	const struct trace_pass *x = a, *y = b;
	bool hx = !strcmp(x->name, "host"), hy = !strcmp(y->name, "host");
	if (hx != hy)
		return hx ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The rows become the model's own (names copied out of the arena), passes
 * sorted host first, chains attached to their headers. */
void trace_model_finish(struct trace_model *m)
{
	struct rows *r = &m->index->rows;
	m->npasses = r->npasses;
	m->passes = xcalloc(r->npasses ? r->npasses : 1, sizeof(*m->passes));
	for (size_t p = 0; p < r->npasses; p++) {
		const struct pass_sums *s = &r->passes[p];
		struct trace_pass *d = &m->passes[p];
		*d = (struct trace_pass){ xstrdup(s->name), s->tus, s->total_us, s->front_end_us, s->backend_us, s->source_us,
					  s->templates_us, xcalloc(s->nphases ? s->nphases : 1, sizeof(*d->phases)),
					  s->nphases };
		for (size_t k = 0; k < s->nphases; k++)
			d->phases[k] = (struct trace_phase){ utf8_repaired(s->phases[k].name), s->phases[k].us };
		qsort(d->phases, d->nphases, sizeof(*d->phases), heavier_phase);
	}
	/* rows name their pass by index: renumber after sorting the passes */
	char **names = xcalloc(m->npasses ? m->npasses : 1, sizeof(char *));
	for (size_t p = 0; p < m->npasses; p++)
		names[p] = m->passes[p].name;
	qsort(m->passes, m->npasses, sizeof(*m->passes), pass_order);
	size_t *renumber = xcalloc(m->npasses ? m->npasses : 1, sizeof(size_t));
	for (size_t p = 0; p < m->npasses; p++)
		for (size_t q = 0; q < m->npasses; q++)
			if (m->passes[q].name == names[p])
				renumber[p] = q;
	free(names);
	for (int t = 0; t < NTRACE_TABLES; t++) {
		m->nrows[t] = r->n[t];
		m->rows[t] = xcalloc(r->n[t] ? r->n[t] : 1, sizeof(struct trace_row));
		for (size_t i = 0; i < r->n[t]; i++) {
			m->rows[t][i] = r->v[t][i];
			m->rows[t][i].pass = renumber[r->v[t][i].pass];
			m->rows[t][i].name = utf8_repaired(r->v[t][i].name);	/* JSON holds UTF-8 only */
		}
	}
	for (size_t c = 0; c < r->nchains; c++) {
		const struct chain_row *src = &r->chains[c];
		struct trace_row *h = &m->rows[TRACE_HEADERS][src->header];
		h->chains = xrealloc(h->chains, (h->nchains + 1) * sizeof(*h->chains));
		h->chains[h->nchains++] = (struct trace_chain){ utf8_repaired(src->via), src->count, src->inclusive_us };
	}
	for (size_t i = 0; i < m->nrows[TRACE_HEADERS]; i++) {
		struct trace_row *h = &m->rows[TRACE_HEADERS][i];
		if (h->nchains)
			qsort(h->chains, h->nchains, sizeof(*h->chains), more_frequent_chain);
	}
	for (int t = 0; t < NTRACE_TABLES; t++)
		qsort(m->rows[t], m->nrows[t], sizeof(struct trace_row), heavier_row);
	if (m->ntus)
		qsort(m->tus, m->ntus, sizeof(*m->tus), heavier_tu);
	free(renumber);
	rows_free(r);
}

void trace_input_clear(struct trace_input *in)
{
	free(in->info.error);
	in->info.error = NULL;
}

void trace_model_free(struct trace_model *m)
{
	for (size_t p = 0; p < m->npasses; p++) {
		free(m->passes[p].name);
		for (size_t k = 0; k < m->passes[p].nphases; k++)
			free(m->passes[p].phases[k].name);
		free(m->passes[p].phases);
	}
	free(m->passes);
	for (size_t i = 0; i < m->ntus; i++) {
		free(m->tus[i].tu);
		free(m->tus[i].pass);
		free(m->tus[i].file);
	}
	free(m->tus);
	for (int t = 0; t < NTRACE_TABLES; t++) {
		for (size_t i = 0; i < m->nrows[t]; i++) {
			free(m->rows[t][i].name);
			for (size_t c = 0; c < m->rows[t][i].nchains; c++)
				free(m->rows[t][i].chains[c].via);
			free(m->rows[t][i].chains);
		}
		free(m->rows[t]);
	}
	if (m->index) {
		rows_free(&m->index->rows);
		free(m->index);
	}
	pthread_mutex_destroy(&m->lock);
	*m = (struct trace_model){ 0 };
}
