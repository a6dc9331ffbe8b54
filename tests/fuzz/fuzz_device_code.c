/* Device objects (ELF, clang offload bundles) as device_code reads them.
 * Invariant: no read past the input (ASan), and every function of an
 * object read has a name. */
#include "fuzz.h"
#include "device_code.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	char *path = fuzz_path(fd);
	const char *archs[] = { NULL, "gfx90a" };
	for (int a = 0; a < 2; a++) {
		struct device_code c;
		char *err = NULL;
		device_code_read(path, archs[a], &c, &err);
		if (!err)
			for (size_t i = 0; i < c.nfunctions; i++)
				INVARIANT(c.functions[i].name != NULL);
		free(err);
		device_code_free(&c);
	}
	free(path);
	close(fd);
	return 0;
}
