#define _GNU_SOURCE
#include "timereport.h"

#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const phase_keys[NPHASES] = { "front_end", "ir_generation", "optimizer", "codegen" };

enum block {
	BLOCK_NONE,
	BLOCK_PASSES,		/* "Pass execution timing report" */
	BLOCK_MISC,		/* "Miscellaneous Ungrouped Timers" */
	BLOCK_FRONTEND_19,	/* "Clang front-end time report" (clang <= 19) */
	BLOCK_CLANG_20,		/* "Clang time report" (clang >= 20) */
	BLOCK_GCC,		/* gcc's "Time variable" table */
	BLOCK_OTHER,
};

struct parser {
	struct time_report *r;
	struct time_group g;	/* the group being read */
	bool open;		/* g has data */
	enum block block;
	int title_state;	/* 0: in a table, 1: title next, 2: closing separator next */
	int ncols, wall_col;	/* value columns of the current table; -1: no Wall column */
	int npass_reports;
	double pass_total[2];
	double irgen, frontend_timer;
};

static void group_reset(struct parser *ps)
{
	for (size_t i = 0; i < ps->g.nheaviest; i++)
		free(ps->g.heaviest[i].name);
	ps->g = (struct time_group){ .total = NAN, .template_instantiation = NAN };
	for (int i = 0; i < NPHASES; i++)
		ps->g.phase[i] = NAN;
	ps->open = false;
	ps->npass_reports = 0;
	ps->pass_total[0] = ps->pass_total[1] = NAN;
	ps->irgen = ps->frontend_timer = NAN;
}

static void finish_group(struct parser *ps)
{
	struct time_report *r = ps->r;
	r->groups = xrealloc(r->groups, (r->n + 1) * sizeof(*r->groups));
	r->groups[r->n++] = ps->g;
	ps->g.nheaviest = 0;	/* names now belong to the report */
	group_reset(ps);
}

long heaviest_make_room(struct named_seconds *top, size_t *n, double seconds, struct named_seconds *dropped)
{
	*dropped = (struct named_seconds){ 0 };
	size_t at = *n;
	while (at > 0 && top[at - 1].seconds < seconds)
		at--;
	if (at >= TIMEREPORT_HEAVIEST)
		return -1;
	if (*n == TIMEREPORT_HEAVIEST)
		*dropped = top[--*n];
	memmove(&top[at + 1], &top[at], (*n - at) * sizeof(top[0]));
	(*n)++;
	return (long)at;
}

/* Keep the TIMEREPORT_HEAVIEST largest rows; the group owns their names. */
static void consider_heavy(struct time_group *g, const char *name, double seconds)
{
	struct named_seconds dropped;
	long at = heaviest_make_room(g->heaviest, &g->nheaviest, seconds, &dropped);
	free(dropped.name);
	if (at >= 0)
		g->heaviest[at] = (struct named_seconds){ xstrdup(name), seconds };
}

static bool is_separator(const char *line)
{
	return has_prefix(line, "===---") && strstr(line, "---===");
}

static enum block block_of(const char *title)
{
	static const struct {
		const char *title;
		enum block block;
	} blocks[] = {
		{ "Pass execution timing report", BLOCK_PASSES },
		{ "Miscellaneous Ungrouped Timers", BLOCK_MISC },
		{ "Clang front-end time report", BLOCK_FRONTEND_19 },
		{ "Clang time report", BLOCK_CLANG_20 },
	};
	for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++)
		if (strstr(title, blocks[i].title))
			return blocks[i].block;
	return BLOCK_OTHER;
}

/* A column header such as "---User Time---   --System Time--   ---Wall
 * Time---  --- Name ---": columns are separated by two or more spaces. */
static void read_clang_header(struct parser *ps, const char *line)
{
	ps->ncols = 0;
	ps->wall_col = -1;
	const char *p = line;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *start = p;
		while (*p && !(p[0] == ' ' && p[1] == ' '))
			p++;
		if (strstr(start, "Name") && strstr(start, "Name") < p)
			break;
		if (strstr(start, "Wall") && strstr(start, "Wall") < p)
			ps->wall_col = ps->ncols;
		ps->ncols++;
	}
}

/* Longer than any compile; a bound keeps every sum of phases finite. */
#define SECONDS_MAX 1e7

/* Read `ncols` value columns, each a number and an optional "(12.3%)";
 * the one at wall_col goes to *wall. Advances *pp past them. A column is
 * plain decimal seconds: strtod would also take "inf", "nan", hex and
 * signs, which no compiler prints, so those lines are not rows. */
static bool read_columns(char **pp, int ncols, int wall_col, double *wall)
{
	char *p = *pp;
	*wall = NAN;
	for (int col = 0; col < ncols; col++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!(*p >= '0' && *p <= '9') && !(*p == '.' && p[1] >= '0' && p[1] <= '9'))
			return false;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			return false;
		char *end;
		errno = 0;
		double v = strtod(p, &end);
		if (errno || !(v <= SECONDS_MAX))
			return false;
		if (col == wall_col)
			*wall = v;
		p = end;
		while (*p == ' ')
			p++;
		if (*p == '(') {
			char *close = strchr(p, ')');
			if (!close)
				return false;
			p = close + 1;
		}
	}
	*pp = p;
	return true;
}

/* "0.0161 (100.0%)   0.0001 (100.0%) ...  Name": values, then the name.
 * Returns false for lines that are not a row. */
static bool parse_clang_row(const struct parser *ps, char *line, double *wall, char **name)
{
	char *p = line;
	if (!read_columns(&p, ps->ncols, ps->wall_col, wall))
		return false;
	while (*p == ' ')
		p++;
	size_t len = strlen(p);
	while (len && (p[len - 1] == ' ' || p[len - 1] == '\n' || p[len - 1] == '\r'))
		p[--len] = '\0';
	if (!len)
		return false;
	*name = p;
	return true;
}

static enum isa isa_of_row(const char *name)
{
	static const struct {
		const char *prefix;
		enum isa isa;
	} isas[] = { { "AMDGPU", ISA_AMDGPU }, { "NVPTX", ISA_NVPTX }, { "X86", ISA_X86 } };
	if (!strstr(name, "DAG->DAG"))
		return ISA_UNKNOWN;
	for (size_t i = 0; i < sizeof(isas) / sizeof(isas[0]); i++)
		if (has_prefix(name, isas[i].prefix))
			return isas[i].isa;
	return ISA_OTHER;
}

static void clang_row(struct parser *ps, const char *name, double wall)
{
	struct time_group *g = &ps->g;
	bool total = !strcmp(name, "Total");
	ps->open = true;
	switch (ps->block) {
	case BLOCK_PASSES:
		if (total) {
			if (ps->npass_reports < 2)
				ps->pass_total[ps->npass_reports] = wall;
			ps->npass_reports++;
		} else {
			consider_heavy(g, name, wall);
			if (g->isa == ISA_UNKNOWN)
				g->isa = isa_of_row(name);
		}
		break;
	case BLOCK_MISC:
		if (!strcmp(name, "LLVM IR Generation Time"))
			ps->irgen = wall;
		break;
	case BLOCK_FRONTEND_19:
		if (!strcmp(name, "Clang front-end timer")) {
			ps->frontend_timer = wall;
		} else if (total) {
			double total_s = isnan(ps->frontend_timer) ? wall : ps->frontend_timer;
			double opt = ps->pass_total[0], cg = ps->pass_total[1];
			/* One pipeline report only (-O0, or codegen alone): it is
			 * the codegen pipeline when instruction selection ran. */
			if (ps->npass_reports == 1 && g->isa != ISA_UNKNOWN) {
				cg = opt;
				opt = 0;
			}
			g->format = "clang<=19";
			g->total = total_s;
			g->phase[PHASE_IR_GEN] = isnan(ps->irgen) ? 0 : ps->irgen;
			g->phase[PHASE_OPTIMIZER] = isnan(opt) ? 0 : opt;
			g->phase[PHASE_CODEGEN] = isnan(cg) ? 0 : cg;
			double fe = total_s - g->phase[PHASE_IR_GEN] - g->phase[PHASE_OPTIMIZER] - g->phase[PHASE_CODEGEN];
			g->phase[PHASE_FRONT_END] = fe > 0 ? fe : 0;
			finish_group(ps);
		}
		break;
	case BLOCK_CLANG_20: {
		static const char *const rows[NPHASES] = { "Front end", "LLVM IR generation", "Optimizer",
							   "Machine code generation" };
		for (int i = 0; i < NPHASES; i++)
			if (!strcmp(name, rows[i]))
				g->phase[i] = wall;
		if (total) {
			g->format = "clang>=20";
			g->total = wall;
			for (int i = 0; i < NPHASES; i++)
				if (isnan(g->phase[i]))
					g->phase[i] = 0;
			finish_group(ps);
		}
		break;
	}
	default:
		break;
	}
}

/* gcc: " phase parsing    :  12.87 ( 50%)   4.28 ( 60%)  18.36 ( 50%)  1138M ( 62%)". */
static void gcc_header(struct parser *ps, const char *line)
{
	ps->ncols = 0;
	ps->wall_col = -1;
	char *copy = xstrdup(line + strlen("Time variable")), *save, *tok;
	for (tok = strtok_r(copy, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (!strcmp(tok, "wall"))
			ps->wall_col = ps->ncols;
		ps->ncols++;
	}
	free(copy);
}

static void gcc_row(struct parser *ps, char *line)
{
	char *colon = strchr(line, ':');
	if (!colon || ps->wall_col < 0)
		return;
	*colon = '\0';
	char *name = line;
	while (*name == ' ')
		name++;
	size_t len = strlen(name);
	while (len && name[len - 1] == ' ')
		name[--len] = '\0';
	char *p = colon + 1;
	double wall;
	if (!read_columns(&p, ps->wall_col + 1, ps->wall_col, &wall))
		return;
	struct time_group *g = &ps->g;
	ps->open = true;
	if (!strcmp(name, "TOTAL")) {
		g->format = "gcc";
		g->total = wall;
		g->backend_combined = true;
		if (isnan(g->phase[PHASE_FRONT_END]))
			g->phase[PHASE_FRONT_END] = 0;
		if (isnan(g->phase[PHASE_CODEGEN]))
			g->phase[PHASE_CODEGEN] = 0;
		ps->block = BLOCK_NONE;
		finish_group(ps);
		return;
	}
	if (!strcmp(name, "phase setup") || !strcmp(name, "phase parsing") || !strcmp(name, "phase lang. deferred")) {
		double fe = g->phase[PHASE_FRONT_END];
		g->phase[PHASE_FRONT_END] = (isnan(fe) ? 0 : fe) + wall;
	} else if (!strcmp(name, "phase opt and generate")) {
		g->phase[PHASE_CODEGEN] = wall;
	} else if (!strcmp(name, "template instantiation")) {
		g->template_instantiation = wall;
	}
	if (!has_prefix(name, "phase ") && name[0] != '|')
		consider_heavy(g, name, wall);
}

bool timereport_read(const char *path, struct time_report *r, char **err)
{
	*r = (struct time_report){ 0 };
	FILE *f = fopen(path, "r");
	if (!f)
		return fail_with(err, xasprintf("cannot read %s: %s", path, strerror(errno)));
	struct parser ps = { .r = r };
	group_reset(&ps);
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) != -1) {
		if (is_separator(line)) {
			/* A title sits between two separators. */
			ps.title_state = ps.title_state == 2 ? 0 : 1;
			continue;
		}
		if (ps.title_state == 1) {
			ps.block = block_of(line);
			ps.ncols = 0;
			ps.wall_col = -1;
			ps.title_state = 2;
			continue;
		}
		if (has_prefix(line, "Time variable")) {
			if (ps.open)
				group_reset(&ps);	/* a gcc table cut off by another */
			ps.block = BLOCK_GCC;
			gcc_header(&ps, line);
			continue;
		}
		if (ps.block == BLOCK_GCC) {
			gcc_row(&ps, line);
			continue;
		}
		if (ps.block == BLOCK_NONE)
			continue;
		if (strstr(line, "--- Name ---")) {
			read_clang_header(&ps, line);
			continue;
		}
		double wall;
		char *name;
		if (ps.ncols && parse_clang_row(&ps, line, &wall, &name) && !isnan(wall))
			clang_row(&ps, name, wall);
	}
	free(line);
	fclose(f);
	group_reset(&ps);	/* a group without its closing table: not a whole report */
	return true;
}

void time_report_free(struct time_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < r->groups[i].nheaviest; k++)
			free(r->groups[i].heaviest[k].name);
	free(r->groups);
	*r = (struct time_report){ 0 };
}

void phases_unknown(double *phase)
{
	for (int k = 0; k < NPHASES; k++)
		phase[k] = NAN;
}
