/* The scanned preprocessed output and its sections (pp_source.h). */
#define _GNU_SOURCE
#include "pp_source.h"

#include <stdlib.h>
#include <string.h>

char *pp_section_name(const struct pp_source *src, size_t section, bool *is_device)
{
	if (src->pass) {
		*is_device = has_prefix(src->pass, "device");
		return xstrdup(src->pass);
	}
	const char *target = src->scan.sections[section].target;
	if (!target) {
		*is_device = false;
		return xstrdup("input");
	}
	const char *arch = bundle_arch(target);
	*is_device = !strcmp(bundle_pass(target), "device");
	return arch ? xasprintf("%s %s", bundle_pass(target), arch) : xstrdup(bundle_pass(target));
}

bool pp_pass_named(const struct pp_source *src, size_t section)
{
	return src->pass || src->scan.sections[section].target;
}

void pp_section_context(const struct pp_source *src, size_t section, const char *project_dir,
			struct header_context *ctx)
{
	const struct pp_section *sec = &src->scan.sections[section];
	const char *tu = sec->main_file != STRMAP_NONE ? sec->files[sec->main_file].name : NULL;
	header_context_init(ctx, src->cwd, tu, project_dir, &src->user_dirs, &src->system_dirs);
}

char *pp_section_tu(const struct pp_source *src, size_t section, const struct header_context *ctx)
{
	const struct pp_section *sec = &src->scan.sections[section];
	return sec->main_file == STRMAP_NONE ? NULL : header_display(ctx, sec->files[sec->main_file].name, false, true);
}

bool pp_is_file_arg(const char *arg)
{
	return !strcmp(arg, "-") || has_suffix(arg, ".i") || has_suffix(arg, ".ii");
}

size_t pp_sources_passes(const struct pp_sources *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += s->v[i].scanned ? s->v[i].scan.nsections : 0;
	return n;
}

void pp_sources_free(struct pp_sources *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct pp_source *src = &s->v[i];
		free(src->tu);
		free(src->pass);
		free(src->cwd);
		strvec_clear(&src->user_dirs);
		strvec_clear(&src->system_dirs);
		if (src->scanned)
			markers_free(&src->scan);
	}
	free(s->v);
	*s = (struct pp_sources){ 0 };
}
