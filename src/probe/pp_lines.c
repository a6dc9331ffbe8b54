#include "pp_lines.h"
#include "headers.h"
#include "preprocess.h"
#include "proc.h"

void build_record_pp_lines(const char *cmd_name, const char *dir, const struct ninja_build *b, struct build_record *r)
{
	struct strvec targets = { 0 };
	for (size_t i = 0; i < b->n; i++)
		if (ninja_edge_is_compile(&b->edges[i]))
			strvec_push(&targets, b->edges[i].outputs.v[0]);
	if (!targets.n)
		return;
	struct header_groups groups;
	header_groups_init(&groups);
	struct pp_request req = { .cmd = cmd_name, .dir = dir, .build = b, .args = targets.v, .nargs = targets.n,
				  .device = true, .jobs = cpu_count() };
	struct pp_sources ss;
	pp_collect(&req, &ss);
	for (size_t s = 0; s < ss.n; s++) {
		for (size_t k = 0; ss.v[s].scanned && k < ss.v[s].scan.nsections; k++) {
			bool device;
			char *pass = pp_section_name(&ss.v[s], k, &device);
			struct header_context ctx;
			struct header_summary sum;
			pp_section_context(&ss.v[s], k, NULL, &ctx);
			header_summarize(&ss.v[s].scan.sections[k], &groups, &ctx, &sum);
			for (size_t g = 0; g < groups.n; g++)
				if (sum.groups[g].lines)
					build_record_add_lines(r, ss.v[s].tu, pass, groups.v[g].title, sum.groups[g].lines);
			header_summary_free(&sum);
			header_context_free(&ctx);
			free(pass);
		}
	}
	if (ss.failures)
		warn("%zu TU%s failed to preprocess: recorded without their lines", ss.failures, ss.failures == 1 ? "" : "s");
	pp_sources_free(&ss);
	header_groups_free(&groups);
	strvec_clear(&targets);
}
