/* A TU's role read from its text. Invariants: the tensors are among the
 * framework names, and the scan reads its `len` bytes and no more: the
 * same bytes followed by more text give the same facts. */
#include "fuzz.h"
#include "source_facts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct source_facts once = { 0 }, again = { 0 };
	source_facts_scan((const char *)data, size, &once);
	INVARIANT(once.tensor_names <= once.framework_names);
	INVARIANT(source_facts_tensor_only(&once) == (once.framework_names && once.tensor_names == once.framework_names));
	/* The same bytes, followed by a newline and themselves again. */
	char *doubled = malloc(2 * size + 1);
	INVARIANT(doubled);
	memcpy(doubled, data, size);
	doubled[size] = '\n';
	memcpy(doubled + size + 1, data, size);
	source_facts_scan(doubled, size, &again);
	INVARIANT(again.framework_names == once.framework_names && again.tensor_names == once.tensor_names &&
		  again.defines_kernel == once.defines_kernel && again.launches_kernel == once.launches_kernel &&
		  again.binds_module == once.binds_module);
	free(doubled);
	return 0;
}
