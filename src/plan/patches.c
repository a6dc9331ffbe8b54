/* advise --patch: the proven edits of the plan's steps handed back as
 * patches the user applies with git apply or patch -p1. */
#include "walk.h"
#include "rule.h"
#include "outfile.h"
#include "snapshot.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void advise_write_patches(struct advise *ad, const char *dir)
{
	/* the user named where: inside the build dir is theirs to choose */
	snapshot_guard_release();
	char *probe = xasprintf("%s/x", dir);
	make_parent_dirs(probe, 0777);
	free(probe);
	if (!is_directory(dir))
		die(EXIT_BAD_INPUT, "--patch %s: not a directory, and one cannot be made there", dir);
	const struct advice *a = &ad->advice;
	for (int id = 0; id < NFIXES; id++) {
		const struct rule_walk *w = fix_rules[id]->walk;
		if (!a->fixes[id].applies || !w || !w->patches || !ad->evidence[id])
			continue;
		size_t step = 0;	/* not in the plan: it lowers no wall at this -j */
		for (size_t s = 0; s < a->nplan; s++)
			if (a->plan[s].id == (enum fix_id)id)
				step = s + 1;
		struct strvec names = { 0 }, diffs = { 0 };
		w->patches(ad->evidence[id], &names, &diffs);
		for (size_t k = 0; k < names.n; k++) {
			char *path = step ? xasprintf("%s/%zu-%s-%s.patch", dir, step, fix_rules[id]->name, names.v[k])
					  : xasprintf("%s/%s-%s.patch", dir, fix_rules[id]->name, names.v[k]);
			struct outfile out;
			fputs(diffs.v[k], outfile_open(&out, path));
			outfile_commit(&out);
			ad->patches = xrealloc(ad->patches, (ad->npatches + 1) * sizeof(*ad->patches));
			ad->patches[ad->npatches++] = (struct advise_patch){ .step = step, .id = (enum fix_id)id, .path = path };
		}
		strvec_clear(&names);
		strvec_clear(&diffs);
	}
}
