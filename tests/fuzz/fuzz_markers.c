/* Line markers and leak's chains. Invariant: in every section the files'
 * own lines plus the marker lines are the section's lines, and every chain
 * names files of its own section. */
#include "chains.h"
#include "fuzz.h"
#include "markers.h"

static bool every_third(void *ctx, const struct markers *m, size_t file)
{
	(void)ctx;
	(void)m;
	return file % 3 == 2;	/* any rule will do: the bookkeeping is under test */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	struct chain_finder finder = { .matches = every_third };
	struct pp_hooks hooks = chain_hooks(&finder);
	struct markers m;
	size_t bad_line = 0;
	char *err = NULL;
	markers_scan(fd, &hooks, &m, &bad_line, &err);
	close(fd);
	if (!err) {
		size_t total = 0;
		for (size_t s = 0; s < m.nsections; s++) {
			const struct pp_section *sec = &m.sections[s];
			size_t own = 0;
			for (size_t i = 0; i < sec->nfiles; i++)
				own += sec->files[i].lines;
			INVARIANT(own + sec->markers == sec->lines);
			INVARIANT(sec->code_lines == sec->lines - sec->markers);
			total += sec->lines;
		}
		INVARIANT(total <= m.lines);
		for (size_t c = 0; c < finder.n; c++) {
			const struct chain *ch = &finder.chains[c];
			INVARIANT(ch->section < m.nsections && ch->n >= 1);
			for (size_t i = 0; i < ch->n; i++)
				INVARIANT(ch->files[i] < m.sections[ch->section].nfiles);
		}
	}
	free(err);
	chain_finder_free(&finder);
	markers_free(&m);
	return 0;
}
