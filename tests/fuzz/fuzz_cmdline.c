/* Shell words. Invariant: a line that splits, joined back and split again,
 * gives the same words. */
#include "cmdline.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_text(data, size);
	struct strvec words = { 0 };
	if (!cmdline_split(line, &words)) {
		char *joined = cmdline_join(words.v, words.n);
		struct strvec again = { 0 };
		INVARIANT(cmdline_split(joined, &again) == NULL);
		INVARIANT(again.n == words.n);
		for (size_t i = 0; i < words.n; i++)
			INVARIANT(!strcmp(again.v[i], words.v[i]));
		strvec_clear(&again);
		free(joined);
	}
	strvec_clear(&words);
	free(line);
	return 0;
}
