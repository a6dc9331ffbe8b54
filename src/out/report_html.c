#include "report_html.h"
#include "out_html.h"
#include "timeline.h"
#include "timereport.h"
#include "util.h"

#include <math.h>
#include <time.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Chart geometry, in SVG user units (the page scales them). */
#define LABEL_W 220
#define CHART_W 900
#define ROW_H 18

/* CSS classes of the step kinds (timeline.h), in its order. */
static const char *const kind_classes[NKINDS] = { "k-kernel", "k-host", "k-compile", "k-link", "k-other" };
static const char *const phase_titles[] = { "front end", "IR generation", "optimizer", "codegen" };

/* ---- reading the documents ---- */

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static json_t *arr(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_array(v) ? v : NULL;
}

static const char *kind_class(const char *kind)
{
	for (size_t k = 0; kind && k < NKINDS; k++)
		if (!strcmp(kind, step_kind_names[k]))
			return kind_classes[k];
	return "k-other";
}

/* A round tick spacing: 1, 2 or 5 times a power of ten, at most 10 ticks. */
static double tick_step(double max)
{
	if (!(max > 0))
		return 1;
	double raw = max / 8, power = pow(10, floor(log10(raw))), m = raw / power;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power;
}

static void axis(FILE *f, double max, double y, const char *unit)
{
	double step = tick_step(max);
	fprintf(f, "<g class=\"axis\"><line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", LABEL_W, y, LABEL_W + CHART_W, y);
	for (double t = 0; t <= max * 1.0001; t += step) {
		double x = LABEL_W + t / max * CHART_W;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\">%g%s</text>", x, y,
			x, y + 4, x, y + 15, t, unit);
	}
	fputs("</g>\n", f);
}

static void section(FILE *f, const char *id, const char *title)
{
	fprintf(f, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
}

static void missing(FILE *f, const char *what)
{
	fprintf(f, "<p class=\"missing\">%s</p>\n", what);
}

/* ---- the headline ---- */

/* What the page is of: the library the build links and its build dir by
 * name, "opus_demo.so (demo)", not "." for -C .; NULL: nothing says. */
static char *module_title(const struct report_docs *d)
{
	const char *dir = d->dir_name                 ? d->dir_name
			: d->advise && str(d->advise, "build_dir") ? str(d->advise, "build_dir")
			: d->log && str(d->log, "build_dir")     ? str(d->log, "build_dir")
			: d->log                                  ? str(d->log, "log")
								  : NULL;
	const char *lib = NULL;
	json_t *steps = d->log ? arr(d->log, "steps") : NULL;
	for (size_t i = 0; steps && i < json_array_size(steps); i++) {
		const char *out = str(json_array_get(steps, i), "output");
		if (out && (has_suffix(out, ".so") || has_suffix(out, ".pyd") || has_suffix(out, ".dylib")))
			lib = base_name(out);
	}
	return lib && dir ? xasprintf("%s (%s)", lib, dir) : lib ? xstrdup(lib) : dir ? xstrdup(dir) : NULL;
}

static void headline(FILE *f, const struct report_docs *d)
{
	char *module = module_title(d);
	fputs("<header><h1>buildwall report", f);
	if (module) {
		fputs(": ", f);
		html_text(f, module);
	}
	free(module);
	fputs("</h1>\n<dl class=\"headline\">", f);
	const json_t *base = d->advise ? json_object_get(d->advise, "baseline") : NULL;
	double recorded = base ? num(base, "recorded_wall_s") : NAN;
	if (!isnan(recorded)) {
		fprintf(f, "<dt>measured wall</dt><dd class=\"measured-wall\">%.2f s <span>(", recorded);
		html_text(f, str(base, "durations"));
		fputs(")</span></dd>", f);
	} else if (d->log) {
		fprintf(f, "<dt>measured wall</dt><dd class=\"measured-wall\">%.2f s <span>(the latest build in .ninja_log)</span></dd>",
			num(d->log, "wall_s"));
	}
	for (size_t i = 0; i < d->ntrials; i++) {
		const json_t *t = d->trials[i];
		const char *cmd = str(t, "command");
		if (cmd && !strcmp(cmd, "ab")) {
			const json_t *w = json_object_get(t, "wall");
			fprintf(f, "<dt>ab</dt><dd class=\"trial\">A %.2f s, B %.2f s: ", num(w, "median_a"), num(w, "median_b"));
			html_text(f, str(w, "verdict"));
			fputs("</dd>", f);
		} else if (cmd && !strcmp(cmd, "wall")) {
			const json_t *w = json_object_get(t, "wall");
			fprintf(f, "<dt>wall trials</dt><dd class=\"trial\">median %.2f s (%.2f-%.2f s)</dd>", num(w, "median"),
				num(w, "min"), num(w, "max"));
		}
	}
	if (base) {
		const json_t *pred = json_object_get(base, "predicted");
		json_t *plan = arr(d->advise, "plan");
		double before = num(pred, "wall_s");
		fprintf(f, "<dt>predicted now</dt><dd>%.2f s at -j %.0f</dd>", before, num(d->advise, "jobs"));
		if (plan && json_array_size(plan)) {
			double after = num(json_object_get(json_array_get(plan, json_array_size(plan) - 1), "predicted"), "wall_s");
			fprintf(f, "<dt>predicted after the plan</dt><dd class=\"predicted-wall\">%.2f s (%+.0f %%, %zu step%s)</dd>",
				after, before > 0 ? 100 * (after - before) / before : 0, json_array_size(plan),
				json_array_size(plan) == 1 ? "" : "s");
		} else {
			fputs("<dt>predicted after the plan</dt><dd class=\"predicted-wall\">no fix applies</dd>", f);
		}
	}
	fputs("</dl></header>\n", f);
}

/* ---- the timeline ---- */

static bool on_critical_path(const json_t *log, const char *output)
{
	json_t *path = arr(log, "critical_path");
	size_t i;
	json_t *s;
	json_array_foreach(path, i, s) {
		const char *o = str(s, "output");
		if (o && output && !strcmp(o, output))
			return true;
	}
	return false;
}

static int by_value_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

/* The shortest duration that still gets a bar of its own: a pixel's worth
 * of the wall, and no more than REPORT_MAX_BARS bars; *ties: how many
 * steps of just that duration still get one. */
static double bar_threshold(const json_t *steps, double wall, size_t *ties)
{
	size_t n = json_array_size(steps);
	double min = wall / CHART_W;
	*ties = SIZE_MAX;
	if (n <= REPORT_MAX_BARS)
		return min;
	double *d = xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++)
		d[i] = num(json_array_get(steps, i), "duration_s");
	qsort(d, n, sizeof(double), by_value_desc);
	double t = d[REPORT_MAX_BARS - 1];
	*ties = 0;
	for (size_t i = 0; i < REPORT_MAX_BARS; i++)
		*ties += d[i] == t;
	free(d);
	if (t < min) {
		*ties = SIZE_MAX;
		return min;
	}
	return t;
}

struct bucket {
	size_t steps;
	double busy;
};

static void timeline(FILE *f, const json_t *log)
{
	section(f, "timeline", "Timeline of the latest build");
	json_t *steps = log ? arr(log, "steps") : NULL;
	double wall = log ? num(log, "wall_s") : NAN;
	if (!steps || !json_array_size(steps) || !(wall > 0)) {
		missing(f, "No recorded build: give a log document (buildwall log --json) or a build dir with a .ninja_log.");
		fputs("</section>\n", f);
		return;
	}
	long slots = (long)num(log, "max_running");
	if (slots < 1)
		slots = 1;
	size_t n = json_array_size(steps);
	double row = slots <= 24 ? ROW_H : fmax(2, 24.0 * ROW_H / slots);
	size_t nbuckets = slots * 250 <= 20000 ? 250 : (size_t)(20000 / slots) + 1;
	struct bucket *agg = xcalloc((size_t)slots * nbuckets, sizeof(*agg));
	size_t ties;
	double threshold = bar_threshold(steps, wall, &ties), height = slots * row;
	fprintf(f, "<p>%zu steps in %.2f s on at most %ld job slots; one row per slot, the critical path outlined. "
		"Hover a bar for the step.</p>\n", n, wall, slots);
	fprintf(f, "<svg class=\"chart timeline\" viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"timeline\" "
		"data-steps=\"%zu\">\n", LABEL_W + CHART_W + 20, height + 24, n);
	for (long s = 0; s < slots && row >= 8; s++)
		fprintf(f, "<text class=\"label\" x=\"%d\" y=\"%.1f\">slot %ld</text>", LABEL_W - 6, s * row + row * 0.7, s);
	size_t bars = 0, aggregated = 0;
	size_t i;
	json_t *st;
	json_array_foreach(steps, i, st) {
		double start = num(st, "start_s"), dur = num(st, "duration_s");
		long slot = (long)num(st, "slot");
		if (isnan(start) || isnan(dur))
			continue;
		slot = slot < 0 ? 0 : slot >= slots ? slots - 1 : slot;
		bool tie_left = dur == threshold && ties != SIZE_MAX && ties > 0;
		if (tie_left)
			ties--;
		if (dur < threshold || (dur == threshold && ties != SIZE_MAX && !tie_left)) {
			size_t b = (size_t)(start / wall * nbuckets);
			b = b >= nbuckets ? nbuckets - 1 : b;
			agg[slot * nbuckets + b].steps++;
			agg[slot * nbuckets + b].busy += dur;
			aggregated++;
			continue;
		}
		const char *output = str(st, "output");
		bool crit = on_critical_path(log, output);
		fprintf(f, "<rect class=\"step %s%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"><title>",
			kind_class(str(st, "kind")), crit ? " crit" : "", LABEL_W + start / wall * CHART_W, slot * row + 1,
			fmax(dur / wall * CHART_W, 0.5), row - 2);
		html_text(f, output);
		fprintf(f, " (%s", crit ? "critical path, " : "");
		html_text(f, str(st, "kind"));
		fprintf(f, "): start %.2f s, duration %.2f s, weighted %.2f s</title></rect>\n", start, dur,
			num(st, "weighted_s"));
		bars++;
	}
	for (long s = 0; s < slots; s++)
		for (size_t b = 0; b < nbuckets; b++) {
			const struct bucket *k = &agg[s * nbuckets + b];
			if (!k->steps)
				continue;
			double span = wall / nbuckets;
			fprintf(f, "<rect class=\"agg\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill-opacity=\"%.2f\">"
				"<title>%zu short steps in slot %ld, %.2f-%.2f s: %.2f s busy</title></rect>\n",
				LABEL_W + b * (double)CHART_W / nbuckets, s * row + 1, (double)CHART_W / nbuckets, row - 2,
				fmin(1, 0.25 + k->busy / span), k->steps, s, b * span, (b + 1) * span, k->busy);
		}
	axis(f, wall, height + 2, " s");
	fprintf(f, "</svg>\n<p class=\"note\" data-bars=\"%zu\" data-aggregated=\"%zu\">%zu steps drawn as bars", bars,
		aggregated, bars);
	if (aggregated)
		fprintf(f, "; %zu shorter than %.3f s summed per slot and %.2f s of the wall", aggregated, threshold,
			wall / nbuckets);
	fputs(".</p>\n<div class=\"legend\">", f);
	for (size_t k = 0; k < NKINDS; k++)
		fprintf(f, "<span><i class=\"%s\"></i>%s</span>", kind_classes[k], step_kind_names[k]);
	fputs("<span><i class=\"crit-key\"></i>critical path</span></div>\n", f);
	free(agg);

	json_t *profile = arr(log, "parallelism_profile");
	if (profile && json_array_size(profile)) {
		size_t nb = json_array_size(profile);
		fprintf(f, "<h3>Parallelism over time</h3>\n<svg class=\"chart profile\" viewBox=\"0 0 %d 80\" role=\"img\" "
			"aria-label=\"parallelism profile\">\n", LABEL_W + CHART_W + 20);
		fprintf(f, "<text class=\"label\" x=\"%d\" y=\"14\">%ld slots</text>", LABEL_W - 6, slots);
		for (size_t b = 0; b < nb; b++) {
			double v = json_number_value(json_array_get(profile, b)), h = fmin(1, v / slots) * 56;
			fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%.0f-%.0f %% of the "
				"wall: %.2f steps running on average</title></rect>", LABEL_W + b * (double)CHART_W / nb + 1,
				60 - h, (double)CHART_W / nb - 2, h, 100.0 * b / nb, 100.0 * (b + 1) / nb, v);
		}
		fprintf(f, "<line class=\"mark\" x1=\"%d\" y1=\"4\" x2=\"%d\" y2=\"4\"/>", LABEL_W, LABEL_W + CHART_W);
		fputs("</svg>\n", f);
	}
	json_t *path = arr(log, "critical_path");
	if (path && json_array_size(path)) {
		fprintf(f, "<p>Critical path (the longest chain through ninja's graph, %.2f s): ", num(log, "critical_path_s"));
		json_array_foreach(path, i, st) {
			fputs(i ? " &rarr; " : "", f);
			fputs("<code>", f);
			html_text(f, str(st, "output"));
			fprintf(f, "</code> (%.2f s)", num(st, "duration_s"));
		}
		fputs("</p>\n", f);
	}
	fputs("</section>\n", f);
}

/* ---- host against device passes ---- */

/* The TUs with passes: the passes document's, else advise's (a probed TU
 * split into passes; the others one bar of their baseline). */
static json_t *pass_tus(const struct report_docs *d, const char **source)
{
	if (d->passes && arr(d->passes, "tus")) {
		*source = "passes: every job timed, phases from the compilers' own reports";
		return arr(d->passes, "tus");
	}
	*source = "advise: the probed TUs split into passes (phases where its probe measured them); the other TUs "
		  "one bar of their baseline duration";
	return d->advise ? arr(d->advise, "tus") : NULL;
}

static double pass_seconds(const json_t *tu)
{
	json_t *passes = arr(tu, "passes");
	double max = 0;
	size_t i;
	json_t *p;
	json_array_foreach(passes, i, p)
		max = fmax(max, num(p, "seconds"));
	if (!passes)
		max = fmax(max, fmax(num(tu, "baseline_s"), num(tu, "wall_s")));
	return max;
}

static void pass_row(FILE *f, const json_t *p, double y, double scale, double front_mark, double codegen_mark)
{
	const char *pass = str(p, "pass"), *arch = str(p, "arch");
	double seconds = num(p, "seconds"), x = LABEL_W;
	fputs("<g class=\"pass\" data-pass=\"", f);
	html_text(f, pass);
	fputs("\" data-arch=\"", f);
	html_text(f, arch);
	fprintf(f, "\"><text class=\"label\" x=\"%d\" y=\"%.1f\">", LABEL_W - 6, y + ROW_H * 0.7);
	html_text(f, pass);
	if (arch) {
		fputc(' ', f);
		html_text(f, arch);
	}
	fputs("</text>", f);
	const json_t *phases = json_object_get(p, "phases");
	double split = 0;
	for (int k = 0; k < NPHASES; k++)
		split += isnan(num(phases, phase_keys[k])) ? 0 : num(phases, phase_keys[k]);
	for (int k = 0; k < NPHASES && split > 0; k++) {
		double s = num(phases, phase_keys[k]);
		if (isnan(s) || s <= 0)
			continue;
		fprintf(f, "<rect class=\"ph-%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\"><title>", phase_keys[k], x,
			y + 2, s * scale, ROW_H - 4);
		html_text(f, pass);
		fprintf(f, "%s", arch ? " " : "");
		html_text(f, arch);
		fprintf(f, ": %s %.2f s of %.2f s</title></rect>", phase_titles[k], s, seconds);
		x += s * scale;
	}
	double rest = seconds - split;
	if (rest > 0)
		fprintf(f, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\"><title>%s %.2f s</title></rect>",
			split > 0 ? "ph-other" : "ph-unsplit", x, y + 2, rest * scale, ROW_H - 4,
			split > 0 ? "outside the phases (process start, assembler, links):" : "the pass, not split into phases:",
			rest);
	if (pass && !strcmp(pass, "host") && front_mark * scale <= CHART_W)
		fprintf(f, "<line class=\"mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>the playbook's host "
			"front-end mark, %.0f s</title></line>", LABEL_W + front_mark * scale, y, LABEL_W + front_mark * scale,
			y + ROW_H, front_mark);
	if (pass && !strcmp(pass, "device") && split > 0)
		fprintf(f, "<line class=\"mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>the playbook's codegen "
			"mark: %.0f %% of this pass</title></line>", LABEL_W + (1 - codegen_mark) * seconds * scale, y,
			LABEL_W + (1 - codegen_mark) * seconds * scale, y + ROW_H, 100 * codegen_mark);
	fprintf(f, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">%.2f s</text></g>\n", LABEL_W + seconds * scale + 4,
		y + ROW_H * 0.7, seconds);
}

static void passes_chart(FILE *f, const struct report_docs *d)
{
	section(f, "passes", "Host against device passes");
	const char *source;
	json_t *tus = pass_tus(d, &source);
	if (!tus || !json_array_size(tus)) {
		missing(f, "No passes: give an advise or passes document.");
		fputs("</section>\n", f);
		return;
	}
	const json_t *th = d->passes ? json_object_get(d->passes, "thresholds") : NULL;
	double front_mark = th && !isnan(num(th, "front_end_s")) ? num(th, "front_end_s") : 5;
	double codegen_mark = th && !isnan(num(th, "codegen_share")) ? num(th, "codegen_share") : 0.7;
	double max = front_mark, rows = 0;
	size_t i;
	json_t *tu;
	json_array_foreach(tus, i, tu) {
		max = fmax(max, pass_seconds(tu));
		rows += 1 + (arr(tu, "passes") ? json_array_size(arr(tu, "passes")) : 1);
	}
	double scale = CHART_W / (max * 1.1), y = 0;
	fprintf(f, "<p>Per TU, each pass its compiler driver runs (the host pass, one device pass per arch), split by "
		"phase; dashed: the playbook's marks (host front end %.0f s, codegen %.0f %% of a device pass). From ", front_mark,
		100 * codegen_mark);
	html_text(f, source);
	fputs(".</p>\n", f);
	fprintf(f, "<svg class=\"chart passes\" viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"passes\">\n",
		LABEL_W + CHART_W + 20, rows * ROW_H + 26);
	json_array_foreach(tus, i, tu) {
		const char *target = str(tu, "target");
		fputs("<g class=\"tu\" data-tu=\"", f);
		html_text(f, target);
		fprintf(f, "\"><text class=\"tu-name\" x=\"4\" y=\"%.1f\">", y + ROW_H * 0.75);
		html_text(f, target);
		fputs("</text>", f);
		y += ROW_H;
		json_t *passes = arr(tu, "passes");
		if (passes) {
			size_t k;
			json_t *p;
			json_array_foreach(passes, k, p) {
				pass_row(f, p, y, scale, front_mark, codegen_mark);
				y += ROW_H;
			}
		} else {
			json_t *whole = json_pack("{s:s, s:f}", "pass", "whole TU", "seconds",
						  isnan(num(tu, "baseline_s")) ? 0 : num(tu, "baseline_s"));
			pass_row(f, whole, y, scale, front_mark, codegen_mark);
			json_decref(whole);
			y += ROW_H;
		}
		fputs("</g>\n", f);
	}
	axis(f, max * 1.1, y + 2, " s");
	fputs("</svg>\n<div class=\"legend\">", f);
	for (int k = 0; k < NPHASES; k++)
		fprintf(f, "<span><i class=\"ph-%s\"></i>%s</span>", phase_keys[k], phase_titles[k]);
	fputs("<span><i class=\"ph-other\"></i>outside the phases</span><span><i class=\"ph-unsplit\"></i>not split</span>"
	      "</div>\n</section>\n", f);
}

/* ---- preprocessed lines ---- */

static size_t group_index(struct strvec *seen, const char *title)
{
	for (size_t i = 0; i < seen->n; i++)
		if (!strcmp(seen->v[i], title))
			return i;
	strvec_push(seen, title);
	return seen->n - 1;
}

static void lines_chart(FILE *f, const struct report_docs *d)
{
	section(f, "lines", "Preprocessed lines by header group");
	json_t *tus = d->advise ? arr(d->advise, "tus") : NULL;
	const json_t *marks = d->advise ? json_object_get(d->advise, "line_marks") : NULL;
	if (!tus || !json_array_size(tus)) {
		missing(f, "No preprocessed lines: give an advise document.");
		fputs("</section>\n", f);
		return;
	}
	double lean = num(marks, "lean"), heavy = num(marks, "heavy"), max = isnan(heavy) ? 0 : heavy, rows = 0;
	size_t i, k, g;
	json_t *tu, *pass, *group;
	json_array_foreach(tus, i, tu) {
		rows++;
		json_array_foreach(arr(tu, "lines"), k, pass) {
			max = fmax(max, num(pass, "lines"));
			rows++;
		}
	}
	double scale = CHART_W / (max * 1.1), y = 0;
	fputs("<p>Each TU's passes preprocessed as they compile, lines by header group; dashed: the playbook's marks "
	      "(a lean TU is under the first, over the second a framework leaked in).</p>\n", f);
	fprintf(f, "<svg class=\"chart lines\" viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"preprocessed lines\">\n",
		LABEL_W + CHART_W + 20, rows * ROW_H + 26);
	struct strvec seen = { 0 };
	json_array_foreach(tus, i, tu) {
		fputs("<g class=\"tu\" data-tu=\"", f);
		html_text(f, str(tu, "target"));
		fprintf(f, "\"><text class=\"tu-name\" x=\"4\" y=\"%.1f\">", y + ROW_H * 0.75);
		html_text(f, str(tu, "target"));
		fputs("</text>", f);
		y += ROW_H;
		json_array_foreach(arr(tu, "lines"), k, pass) {
			fputs("<g class=\"pass\" data-pass=\"", f);
			html_text(f, str(pass, "pass"));
			fprintf(f, "\"><text class=\"label\" x=\"%d\" y=\"%.1f\">", LABEL_W - 6, y + ROW_H * 0.7);
			html_text(f, str(pass, "pass"));
			fputs("</text>", f);
			double x = LABEL_W;
			json_array_foreach(arr(pass, "groups"), g, group) {
				double lines = num(group, "lines");
				fprintf(f, "<rect class=\"g%zu\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\"><title>",
					group_index(&seen, str(group, "group") ? str(group, "group") : "?") % 8, x, y + 2,
					lines * scale, ROW_H - 4);
				html_text(f, str(group, "group"));
				fprintf(f, ": %.0f lines</title></rect>", lines);
				x += lines * scale;
			}
			fprintf(f, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">%.0fK lines</text></g>", LABEL_W +
				num(pass, "lines") * scale + 4, y + ROW_H * 0.7, num(pass, "lines") / 1000);
			y += ROW_H;
		}
		fputs("</g>\n", f);
	}
	double marks_at[2] = { lean, heavy };
	for (int m = 0; m < 2; m++)
		if (!isnan(marks_at[m]))
			fprintf(f, "<line class=\"mark\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.0f\"><title>%s: %.0fK lines"
				"</title></line>", LABEL_W + marks_at[m] * scale, LABEL_W + marks_at[m] * scale, rows * ROW_H,
				m ? "heavy" : "lean", marks_at[m] / 1000);
	axis(f, max * 1.1, rows * ROW_H + 2, "");
	fputs("</svg>\n<div class=\"legend\">", f);
	for (size_t s = 0; s < seen.n; s++) {
		fprintf(f, "<span><i class=\"g%zu\"></i>", s % 8);
		html_text(f, seen.v[s]);
		fputs("</span>", f);
	}
	fputs("</div>\n", f);
	strvec_clear(&seen);
	bool any = false;
	json_array_foreach(tus, i, tu) {
		if (!str(tu, "leak_chain"))
			continue;
		if (!any)
			fputs("<h3>Leak chains</h3>\n<ul class=\"leaks\">", f);
		any = true;
		fputs("<li><code>", f);
		html_text(f, str(tu, "target"));
		fputs("</code>: ", f);
		html_text(f, str(tu, "leak_chain"));
		if (str(tu, "leak_fix")) {
			fputs(" &mdash; the line to fix: <code class=\"fix-line\">", f);
			html_text(f, str(tu, "leak_fix"));
			fputs("</code>", f);
		}
		fputs("</li>", f);
	}
	if (any)
		fputs("</ul>\n", f);
	fputs("</section>\n", f);
}

/* ---- the advice and the plan ---- */

static void tus_cell(FILE *f, const json_t *fix)
{
	size_t i;
	json_t *t;
	json_array_foreach(arr(fix, "tus"), i, t) {
		fputs(i ? ", " : "", f);
		html_text(f, str(t, "target"));
		fprintf(f, " (%.2f s)", num(t, "saving_s"));
	}
	if (!json_array_size(arr(fix, "tus")))
		fputs("(the build)", f);
}

static void plan_chart(FILE *f, const struct report_docs *d, double base)
{
	json_t *plan = arr(d->advise, "plan");
	size_t n = json_array_size(plan) + 1;
	const json_t *ab = NULL;
	for (size_t i = 0; i < d->ntrials; i++) {
		const char *cmd = str(d->trials[i], "command"), *mode = str(d->trials[i], "mode");
		if (cmd && !strcmp(cmd, "ab") && mode && strcmp(mode, "one TU"))
			ab = json_object_get(d->trials[i], "wall");
	}
	double max = base;
	if (ab)
		max = fmax(max, fmax(num(ab, "median_a"), num(ab, "median_b")));
	/* Room for the baseline's range, the widest. */
	const json_t *base_range = json_object_get(json_object_get(json_object_get(d->advise, "baseline"), "predicted"),
						   "range_s");
	if (json_array_size(base_range) == 2)
		max = fmax(max, json_number_value(json_array_get(base_range, 1)));
	double bw = (double)CHART_W / n, scale = 200 / (max * 1.1);
	fprintf(f, "<h3>The plan, predicted%s</h3>\n<svg class=\"chart plan\" viewBox=\"0 0 %d 250\" role=\"img\" "
		"aria-label=\"plan\">\n", ab ? " (and measured by ab)" : "", LABEL_W + CHART_W + 20);
	for (size_t s = 0; s < n; s++) {
		const json_t *step = s ? json_array_get(plan, s - 1) : NULL;
		double wall = s ? num(json_object_get(step, "predicted"), "wall_s") : base, x = LABEL_W + s * bw;
		fprintf(f, "<g class=\"plan-step\"><rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
			"<title>%s%s: %.2f s predicted</title></rect>", x + bw * 0.15, 210 - wall * scale, bw * 0.5, wall * scale,
			s ? "after " : "baseline", s ? str(step, "fix") : "", wall);
		fprintf(f, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">%.1f s</text><text class=\"label-x\" x=\"%.1f\" "
			"y=\"228\">%s</text>", x + bw * 0.15, 206 - wall * scale, wall, x + bw * 0.15, s ? "" : "baseline");
		/* The predicted range, as a whisker over the bar (older documents have none). */
		const json_t *predicted = s ? json_object_get(step, "predicted")
					    : json_object_get(json_object_get(d->advise, "baseline"), "predicted");
		const json_t *range = json_object_get(predicted, "range_s");
		if (json_array_size(range) == 2) {
			double lo = json_number_value(json_array_get(range, 0)), hi = json_number_value(json_array_get(range, 1));
			fprintf(f, "<line class=\"range\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>range "
				"%.2f-%.2f s</title></line>", x + bw * 0.4, x + bw * 0.4, 210 - lo * scale, 210 - hi * scale, lo, hi);
		}
		if (s) {
			fprintf(f, "<text class=\"label-x\" x=\"%.1f\" y=\"242\">%zu. ", x + bw * 0.15, s);
			html_text(f, str(step, "fix"));
			fputs("</text>", f);
		}
		double measured = !ab ? NAN : s == 0 ? num(ab, "median_a") : s + 1 == n ? num(ab, "median_b") : NAN;
		if (!isnan(measured))
			fprintf(f, "<rect class=\"measured\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>measured "
				"by ab: %.2f s (median)</title></rect>", x + bw * 0.67, 210 - measured * scale, bw * 0.15,
				measured * scale, measured);
		fputs("</g>\n", f);
	}
	fputs("</svg>\n", f);
}

/* <ul class=cls>: an item per object of items from `first` on, "<tag>label</tag>: text". */
static void labeled_list(FILE *f, const char *cls, const json_t *items, size_t first, const char *tag, const char *label,
			 const char *text)
{
	fprintf(f, "<ul class=\"%s\">", cls);
	for (size_t i = first; i < json_array_size(items); i++) {
		const json_t *item = json_array_get(items, i);
		fprintf(f, "<li><%s>", tag);
		html_text(f, str(item, label));
		fprintf(f, "</%s>: ", tag);
		html_text(f, str(item, text));
		fputs("</li>", f);
	}
	fputs("</ul>\n", f);
}

static void advice(FILE *f, const struct report_docs *d)
{
	section(f, "advice", "What to fix first");
	if (!d->advise) {
		missing(f, "No advice: give an advise document.");
		fputs("</section>\n", f);
		return;
	}
	double base = num(json_object_get(json_object_get(d->advise, "baseline"), "predicted"), "wall_s");
	json_t *fixes = arr(d->advise, "fixes");
	size_t i;
	json_t *fix;
	if (!json_array_size(fixes))
		fputs("<p>No fix of the playbook applies (what was checked is below).</p>\n", f);
	else
		fputs("<table class=\"advice sortable\"><thead><tr><th>fix</th><th>what</th><th>TUs (saving each)</th>"
		      "<th>wall with it alone</th><th>evidence</th><th>how it was measured</th></tr></thead><tbody>\n", f);
	json_array_foreach(fixes, i, fix) {
		double wall = num(json_object_get(fix, "predicted"), "wall_s");
		fputs("<tr class=\"fix\" data-fix=\"", f);
		html_text(f, str(fix, "fix"));
		fputs("\"><td>", f);
		html_text(f, str(fix, "fix"));
		fputs("</td><td>", f);
		html_text(f, str(fix, "title"));
		fputs("</td><td>", f);
		tus_cell(f, fix);
		fprintf(f, "</td><td data-v=\"%.3f\">%.2f s (%+.0f %%)</td><td>", wall, wall,
			base > 0 ? 100 * (wall - base) / base : 0);
		html_text(f, str(fix, "evidence"));
		fputs("</td><td>", f);
		html_text(f, str(fix, "measured_by"));
		fputs("</td></tr>\n", f);
	}
	if (json_array_size(fixes))
		fputs("</tbody></table>\n", f);
	plan_chart(f, d, base);
	json_t *final = json_object_get(d->advise, "final");
	if (final && json_array_size(arr(final, "critical_path"))) {
		fprintf(f, "<p>At the end, the critical path (%.2f s): ", num(final, "critical_path_s"));
		json_t *t;
		json_array_foreach(arr(final, "critical_path"), i, t) {
			fputs(i ? " &rarr; <code>" : "<code>", f);
			html_text(f, json_string_value(t));
			fputs("</code>", f);
		}
		fputs("</p>\n", f);
	}
	json_t *k;
	json_array_foreach(arr(d->advise, "kernel_work"), i, k) {
		fputs("<p class=\"kernel-work\">Kernel work: <code>", f);
		html_text(f, str(k, "target"));
		fprintf(f, "</code>: machine code generation is %.0f %% of its ", 100 * num(k, "codegen_share"));
		html_text(f, str(k, "pass"));
		fputs(" pass; no build-side fix (unrolling, register pressure).</p>\n", f);
	}
	json_t *checked = arr(d->advise, "not_applicable");
	if (json_array_size(checked)) {
		fputs("<h3>Checked, does not apply</h3>\n", f);
		labeled_list(f, "checked", checked, 0, "b", "fix", "checked");
	}
	fputs("</section>\n", f);
}

/* ---- the jobs curve ---- */

static void jobs_curve(FILE *f, const struct report_docs *d)
{
	section(f, "jobs", "Predicted wall against -j");
	json_t *rows = d->sim ? arr(d->sim, "predictions") : d->advise ? arr(d->advise, "jobs_curve") : NULL;
	if (!rows || json_array_size(rows) < 2) {
		missing(f, "No jobs curve: give a sim or advise document.");
		fputs("</section>\n", f);
		return;
	}
	double maxj = 0, maxw = 0;
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		maxj = fmax(maxj, num(r, "jobs"));
		maxw = fmax(maxw, fmax(num(r, "wall_s"), fmax(num(r, "critical_path_s"), num(r, "work_bound_s"))));
	}
	fprintf(f, "<p>The model's wall at each job count (from %s), and its two lower bounds: the critical path and the "
		"total work over the jobs.</p>\n", d->sim ? "sim" : "advise's baseline");
	fprintf(f, "<svg class=\"chart jobs\" viewBox=\"0 0 %d 260\" role=\"img\" aria-label=\"jobs curve\">\n",
		LABEL_W + CHART_W + 20);
	static const char *const series[] = { "wall_s", "critical_path_s", "work_bound_s" };
	static const char *const names[] = { "predicted wall", "critical path", "work / jobs" };
	double sy = 220 / (maxw * 1.1);
	for (int s = 0; s < 3; s++) {
		fprintf(f, "<polyline class=\"series s%d\" points=\"", s);
		json_array_foreach(rows, i, r)
			fprintf(f, "%.1f,%.1f ", LABEL_W + (num(r, "jobs") - 1) / fmax(1, maxj - 1) * CHART_W,
				230 - num(r, series[s]) * sy);
		fprintf(f, "\"><title>%s</title></polyline>\n", names[s]);
	}
	json_array_foreach(rows, i, r)
		fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>-j %.0f: %.2f s (critical path %.2f s, "
			"work / jobs %.2f s)</title></circle>", LABEL_W + (num(r, "jobs") - 1) / fmax(1, maxj - 1) * CHART_W,
			230 - num(r, "wall_s") * sy, num(r, "jobs"), num(r, "wall_s"), num(r, "critical_path_s"),
			num(r, "work_bound_s"));
	fprintf(f, "<text class=\"label\" x=\"%d\" y=\"20\">%.0f s</text><text class=\"label\" x=\"%d\" y=\"234\">0 s</text>",
		LABEL_W - 6, maxw * 1.1 - fmod(maxw * 1.1, 1), LABEL_W - 6);
	fprintf(f, "<text class=\"label-x\" x=\"%d\" y=\"252\">-j 1</text><text class=\"label-x\" x=\"%d\" y=\"252\">-j %.0f"
		"</text></svg>\n", LABEL_W, LABEL_W + CHART_W - 30, maxj);
	fputs("<div class=\"legend\">", f);
	for (int s = 0; s < 3; s++)
		fprintf(f, "<span><i class=\"s%d\"></i>%s</span>", s, names[s]);
	fputs("</div>\n</section>\n", f);
}

/* ---- the walls over time ---- */

#define TREND_SERIES 4	/* machines drawn at most */

/* Each machine's recorded clean walls, oldest first: only with a history. */
static void trend(FILE *f, const struct report_docs *d)
{
	json_t *series = arr(d->history, "series");
	if (!json_array_size(series))
		return;
	section(f, "trend", "The wall over time");
	double maxw = 0;
	size_t maxn = 0, i, k;
	json_t *s, *b;
	json_array_foreach(series, i, s) {
		if (i == TREND_SERIES)
			break;
		maxn = json_array_size(arr(s, "builds")) > maxn ? json_array_size(arr(s, "builds")) : maxn;
		json_array_foreach(arr(s, "builds"), k, b)
			maxw = fmax(maxw, num(b, "wall_s"));
	}
	fputs("<p>The clean builds <code>buildwall record</code> kept of this module, oldest first, one line per machine; "
	      "hover a point for its commit and labels.</p>\n", f);
	fprintf(f, "<svg class=\"chart trend\" viewBox=\"0 0 %d 260\" role=\"img\" aria-label=\"wall over time\">\n",
		LABEL_W + CHART_W + 20);
	double sy = 220 / fmax(1e-9, maxw * 1.1), sx = CHART_W / fmax(1, (double)maxn - 1);
	json_array_foreach(series, i, s) {
		if (i == TREND_SERIES)
			break;
		fprintf(f, "<polyline class=\"series s%zu\" points=\"", i);
		json_array_foreach(arr(s, "builds"), k, b)
			fprintf(f, "%.1f,%.1f ", LABEL_W + (double)k * sx, 230 - num(b, "wall_s") * sy);
		fputs("\"></polyline>\n", f);
		json_array_foreach(arr(s, "builds"), k, b) {
			char when[32] = "";
			time_t t = (time_t)num(b, "recorded_at");
			struct tm tm;
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime_r(&t, &tm));
			fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>%s, %.2f s",
				LABEL_W + (double)k * sx, 230 - num(b, "wall_s") * sy, when, num(b, "wall_s"));
			if (str(b, "commit")) {
				fputs(", commit ", f);
				html_text(f, str(b, "commit"));
			}
			if (str(b, "labels")) {
				fputs(", ", f);
				html_text(f, str(b, "labels"));
			}
			fputs("</title></circle>", f);
		}
	}
	fprintf(f, "<text class=\"label\" x=\"%d\" y=\"20\">%.0f s</text><text class=\"label\" x=\"%d\" y=\"234\">0 s"
		"</text></svg>\n<div class=\"legend\">", LABEL_W - 6, maxw * 1.1 - fmod(maxw * 1.1, 1), LABEL_W - 6);
	json_array_foreach(series, i, s) {
		if (i == TREND_SERIES)
			break;
		json_t *m = json_object_get(s, "machine");
		fprintf(f, "<span><i class=\"s%zu\"></i>", i);
		html_text(f, str(s, "module"));
		fprintf(f, " on %.0f CPUs (", num(m, "cpus"));
		html_text(f, str(m, "model"));
		fprintf(f, "): %zu builds</span>", json_array_size(arr(s, "builds")));
	}
	fputs("</div>\n</section>\n", f);
}

/* ---- how it was measured ---- */

static void method_item(FILE *f, const char *what, const json_t *doc, const char *key)
{
	const json_t *m = json_object_get(doc, key);
	if (!m)
		return;
	fprintf(f, "<li><b>%s</b>: ", what);
	if (json_is_string(m)) {
		html_text(f, json_string_value(m));
	} else {
		char *s = json_dumps(m, JSON_COMPACT);
		html_text(f, s);
		free(s);
	}
	fputs("</li>\n", f);
}

static void method(FILE *f, const struct report_docs *d)
{
	section(f, "method", "How it was measured");
	fputs("<ul class=\"method\">\n", f);
	if (d->advise) {
		method_item(f, "advise baseline", json_object_get(d->advise, "baseline"), "durations");
		size_t i;
		json_t *fix;
		json_array_foreach(arr(d->advise, "fixes"), i, fix) {
			fputs("<li><b>", f);
			html_text(f, str(fix, "fix"));
			fputs("</b> measured: ", f);
			html_text(f, str(fix, "measured_by"));
			fputs("</li>\n", f);
		}
		fprintf(f, "<li><b>probes</b>: %zu, compiled in a private temp dir with the TUs' own commands</li>\n",
			json_array_size(arr(d->advise, "probes")));
	}
	if (d->log) {
		const json_t *b = json_object_get(d->log, "build");
		fputs("<li><b>timeline</b>: ", f);
		html_text(f, str(d->log, "log"));
		fprintf(f, ", build %.0f of %.0f, %.0f lines from line %.0f</li>\n", num(b, "builds_in_file") - num(b, "back"),
			num(b, "builds_in_file"), num(b, "lines"), num(b, "first_line"));
	}
	if (d->passes)
		method_item(f, "passes", d->passes, "method");
	if (d->sim)
		method_item(f, "sim", d->sim, "from");
	for (size_t i = 0; i < d->ntrials; i++)
		method_item(f, str(d->trials[i], "command") ? str(d->trials[i], "command") : "trial", d->trials[i], "method");
	if (d->machine)
		method_item(f, "machine", d->machine, "system");
	const json_t *any = d->advise ? d->advise : d->log ? d->log : d->passes ? d->passes : d->sim;
	if (any) {
		fputs("<li><b>versions</b>: buildwall ", f);
		html_text(f, str(any, "buildwall_version"));
		if (d->machine && str(d->machine, "ninja")) {
			fputs(", ninja ", f);
			html_text(f, str(d->machine, "ninja"));
		}
		fputs("</li>\n", f);
	}
	fputs("</ul>\n</section>\n", f);
}

/* ---- the page ---- */

static const char style[] =
	":root{--fg:#1b1f24;--bg:#fff;--muted:#59636e;--line:#d1d9e0;--k0:#c2410c;--k1:#2563eb;--k2:#7c3aed;--k3:#059669;"
	"--k4:#6b7280;--p0:#2563eb;--p1:#0891b2;--p2:#a16207;--p3:#dc2626;--p4:#9ca3af;--crit:#111}\n"
	"@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--line:#3d444d;--crit:#fff}}\n"
	"body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:1.5em auto;max-width:1200px;"
	"padding:0 1em}h1{font-size:1.4em}h2{font-size:1.15em;border-bottom:1px solid var(--line);padding-bottom:.2em;"
	"margin-top:1.6em}h3{font-size:1em}code{font-size:.92em}.missing,.note,dd span{color:var(--muted)}"
	"dl.headline{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dt{color:var(--muted)}dd{margin:0;"
	"font-weight:600}svg.chart{width:100%;height:auto;display:block}svg text{font-size:11px;fill:var(--fg)}"
	"svg .label{text-anchor:end}svg .tu-name{font-weight:600}svg .axis line{stroke:var(--muted)}"
	"svg .axis text{text-anchor:middle;fill:var(--muted)}.mark{stroke:var(--fg);stroke-dasharray:3 3}"
	".k-kernel{fill:var(--k0)}.k-host{fill:var(--k1)}.k-compile{fill:var(--k2)}.k-link{fill:var(--k3)}"
	".k-other{fill:var(--k4)}rect.crit{stroke:var(--crit);stroke-width:1.5}.agg{fill:var(--k4)}"
	".crit-key{outline:2px solid var(--crit)}.ph-front_end{fill:var(--p0)}.ph-ir_generation{fill:var(--p1)}"
	".ph-optimizer{fill:var(--p2)}.ph-codegen{fill:var(--p3)}.ph-other{fill:var(--p4)}.ph-unsplit{fill:var(--k4);"
	"fill-opacity:.6}.g0{fill:#dc2626}.g1{fill:#ea580c}.g2{fill:#ca8a04}.g3{fill:#2563eb}.g4{fill:#059669}"
	".g5{fill:#7c3aed}.g6{fill:#6b7280}.g7{fill:#0891b2}.bar{fill:var(--p0)}.measured{fill:var(--k3)}"
	".range{stroke:var(--fg);stroke-width:2}"
	".series{fill:none;stroke-width:2}.s0{stroke:var(--p0);background:var(--p0)}.s1{stroke:var(--p3);"
	"stroke-dasharray:5 3;background:var(--p3)}.s2{stroke:var(--p2);stroke-dasharray:2 3;background:var(--p2)}"
	".point{fill:var(--p0)}.legend span{margin-right:1.2em;white-space:nowrap}.legend i{display:inline-block;"
	"width:.9em;height:.9em;margin-right:.3em;vertical-align:-.1em;background:currentColor}"
	".legend i[class^=k-],.legend i[class^=ph-],.legend i[class^=g]{background:none}"
	".legend i.k-kernel{background:var(--k0)}.legend i.k-host{background:var(--k1)}.legend i.k-compile{background:"
	"var(--k2)}.legend i.k-link{background:var(--k3)}.legend i.k-other{background:var(--k4)}.legend i.ph-front_end{"
	"background:var(--p0)}.legend i.ph-ir_generation{background:var(--p1)}.legend i.ph-optimizer{background:var(--p2)}"
	".legend i.ph-codegen{background:var(--p3)}.legend i.ph-other{background:var(--p4)}.legend i.ph-unsplit{"
	"background:var(--k4)}.legend i.g0{background:#dc2626}.legend i.g1{background:#ea580c}.legend i.g2{background:"
	"#ca8a04}.legend i.g3{background:#2563eb}.legend i.g4{background:#059669}.legend i.g5{background:#7c3aed}"
	".legend i.g6{background:#6b7280}.legend i.g7{background:#0891b2}.legend i.crit-key{background:none}"
	"table{border-collapse:collapse;width:100%}th,td{border:1px solid var(--line);padding:.3em .5em;text-align:left;"
	"vertical-align:top}th{cursor:pointer;background:color-mix(in srgb,var(--line) 35%,transparent)}"
	"@media print{:root{--fg:#000;--bg:#fff}body{max-width:none}section{break-inside:avoid}th{cursor:auto}}\n";

/* Sorting by a column header; everything else works without it. */
static const char script[] =
	"document.querySelectorAll('table.sortable th').forEach(function(th,i){th.addEventListener('click',function(){"
	"var tb=th.closest('table').tBodies[0],rows=Array.prototype.slice.call(tb.rows),up=th.dataset.up!=='1';"
	"th.dataset.up=up?'1':'0';rows.sort(function(a,b){var x=a.cells[i].dataset.v||a.cells[i].textContent,"
	"y=b.cells[i].dataset.v||b.cells[i].textContent,nx=parseFloat(x),ny=parseFloat(y),"
	"c=isNaN(nx)||isNaN(ny)?x.localeCompare(y):nx-ny;return up?c:-c;});rows.forEach(function(r){tb.appendChild(r);});"
	"});});\n";

/* The page up to its body, titled "buildwall <what>: <name>". */
static void page_start(FILE *f, const char *what, const char *name)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
	      "script-src 'unsafe-inline'\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"buildwall report\">\n<title>buildwall ", f);
	html_text(f, what);
	if (name) {
		fputs(": ", f);
		html_text(f, name);
	}
	fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n", style);
}

static void page_end(FILE *f)
{
	fprintf(f, "<script>%s</script>\n</body></html>\n", script);
}

void report_html_write(FILE *f, const struct report_docs *d)
{
	char *module = module_title(d);
	page_start(f, "report", module);
	free(module);
	headline(f, d);
	timeline(f, d->log);
	passes_chart(f, d);
	lines_chart(f, d);
	advice(f, d);
	jobs_curve(f, d);
	trend(f, d);
	method(f, d);
	page_end(f);
}

/* ---- the survey page ---- */

static double role_seconds(const json_t *m, const char *role)
{
	return num(json_object_get(json_object_get(m, "roles"), role), "seconds");
}

/* A bar per module read: its wall, the critical path inside it. */
static void survey_walls(FILE *f, const json_t *modules, size_t nread)
{
	double max = 0;
	for (size_t i = 0; i < nread; i++)
		max = fmax(max, num(json_array_get(modules, i), "wall_s"));
	if (!(max > 0))
		return;
	double h = (double)nread * ROW_H + 30;
	fprintf(f, "<svg class=\"chart walls\" viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"each module's wall\">\n",
		LABEL_W + CHART_W + 10, h);
	for (size_t i = 0; i < nread; i++) {
		const json_t *m = json_array_get(modules, i);
		double y = (double)i * ROW_H, wall = num(m, "wall_s"), crit = num(m, "critical_path_s");
		fprintf(f, "<g class=\"module\"><text class=\"label\" x=\"%d\" y=\"%.1f\">", LABEL_W - 6, y + 13);
		html_text(f, str(m, "module"));
		fprintf(f, "</text><rect class=\"bar\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"><title>", LABEL_W, y + 2,
			wall / max * CHART_W, ROW_H - 4);
		html_textf(f, "%s: wall %.2f s", str(m, "module"), wall);
		fputs("</title></rect>", f);
		if (crit > 0)
			fprintf(f, "<rect class=\"k-kernel crit\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"><title>critical "
				"path %.2f s</title></rect>", LABEL_W, y + 6, crit / max * CHART_W, ROW_H - 12, crit);
		fputs("</g>\n", f);
	}
	axis(f, max, (double)nread * ROW_H + 4, " s");
	fputs("</svg>\n<p class=\"legend\"><span><i class=\"s0\"></i>wall</span><span><i class=\"k-kernel\"></i>critical "
	      "path</span></p>\n", f);
}

static void survey_table(FILE *f, const json_t *modules, size_t nread)
{
	fputs("<table class=\"modules sortable\"><thead><tr><th>module</th><th>wall</th><th>clean</th><th>builds</th>"
	      "<th>kernel</th><th>dispatcher</th><th>binding</th><th>sets the wall</th><th>dir</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < nread; i++) {
		const json_t *m = json_array_get(modules, i), *setter = json_object_get(m, "setter");
		fputs("<tr class=\"module\"><td>", f);
		html_text(f, str(m, "module"));
		fprintf(f, "</td><td data-v=\"%.3f\">%.2f s</td><td>%s</td><td>%lld</td>", num(m, "wall_s"), num(m, "wall_s"),
			json_is_true(json_object_get(m, "clean")) ? "yes" : "no",
			(long long)json_integer_value(json_object_get(m, "builds")));
		const char *roles[] = { "kernel", "dispatcher", "binding" };
		for (size_t r = 0; r < 3; r++)
			fprintf(f, "<td data-v=\"%.3f\">%.1f s</td>", role_seconds(m, roles[r]), role_seconds(m, roles[r]));
		fputs("<td>", f);
		if (json_is_object(setter)) {
			fputs("<code>", f);
			html_text(f, str(setter, "target"));
			fprintf(f, "</code> %.2f s", num(setter, "seconds"));
		}
		fputs("</td><td>", f);
		html_text(f, str(m, "dir"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void survey_shared(FILE *f, const json_t *doc)
{
	json_t *shared = arr(doc, "shared_sources");
	section(f, "shared", "Sources compiled in several modules");
	if (!json_array_size(shared)) {
		missing(f, "No source is compiled in more than one module.");
		fputs("</section>\n", f);
		return;
	}
	html_textf(f, "%.1f s", num(doc, "shared_repeated_s"));
	fputs(" compiled again in all; compiled once (a dedicated TU or library the modules share), each costs its "
	      "'once'.\n<table class=\"shared sortable\"><thead><tr><th>source</th><th>modules</th><th>in all</th>"
	      "<th>once</th><th>again</th></tr></thead><tbody>\n", f);
	size_t i;
	json_t *sh;
	json_array_foreach(shared, i, sh) {
		fputs("<tr class=\"source\"><td><code>", f);
		html_text(f, str(sh, "path"));
		fprintf(f, "</code></td><td>%lld</td><td data-v=\"%.3f\">%.2f s</td><td data-v=\"%.3f\">%.2f s</td>"
			"<td data-v=\"%.3f\">%.2f s</td></tr>\n", (long long)json_integer_value(json_object_get(sh, "modules")),
			num(sh, "total_s"), num(sh, "total_s"), num(sh, "once_s"), num(sh, "once_s"), num(sh, "repeated_s"),
			num(sh, "repeated_s"));
	}
	fputs("</tbody></table>\n</section>\n", f);
}

void report_html_write_survey(FILE *f, const json_t *doc)
{
	json_t *modules = arr(doc, "modules");
	size_t n = json_array_size(modules), nread = 0;
	while (nread < n && json_is_null(json_object_get(json_array_get(modules, nread), "skipped")))
		nread++;
	page_start(f, "survey", NULL);
	fprintf(f, "<header><h1>buildwall survey</h1>\n<p class=\"note\">%zu build dirs found, %zu read, %zu skipped; from "
		"each .ninja_log and ninja's graph, no compile ran.</p></header>\n", n, nread, n - nread);
	section(f, "modules", "Where the first-call wait goes, module by module");
	if (nread) {
		survey_walls(f, modules, nread);
		survey_table(f, modules, nread);
	} else {
		missing(f, "No module could be read.");
	}
	fputs("</section>\n", f);
	survey_shared(f, doc);
	json_t *fw = json_object_get(doc, "framework_lines");
	if (json_is_object(fw)) {
		section(f, "framework", "Framework headers parsed again in every module");
		html_textf(f, "%lld host and %lld device lines of torch, pybind11 and Python in %lld TU passes of %lld modules.",
			   (long long)json_integer_value(json_object_get(fw, "host")),
			   (long long)json_integer_value(json_object_get(fw, "device")),
			   (long long)json_integer_value(json_object_get(fw, "passes")),
			   (long long)json_integer_value(json_object_get(fw, "modules")));
		fputs("</section>\n", f);
	}
	if (nread < n) {
		section(f, "skipped", "Skipped");
		labeled_list(f, "skipped", modules, nread, "code", "dir", "skipped");
		fputs("</section>\n", f);
	}
	page_end(f);
}
