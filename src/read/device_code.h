/* How much machine code a device pass made: the sizes of its code
 * object's executable sections and of each function in it, read from the
 * ELF itself (an AMDGPU code object, inside clang's offload bundle when
 * there is one, or an nvcc cubin). The playbook's fact for a kernel whose
 * unrolling blew up: 388 KB of ISA before the fix, 27 KB after.
 *
 * Ownership: a device_code owns its functions' names. */
#ifndef BUILDWALL_DEVICE_CODE_H
#define BUILDWALL_DEVICE_CODE_H
#include <stdbool.h>
#include <stddef.h>

struct device_function {
	char *name;
	unsigned long long bytes;
};

struct device_code {
	unsigned long long text_bytes;	/* every executable section */
	struct device_function *functions;	/* sized function symbols, in symbol order */
	size_t nfunctions;
};

/* Read the device code in path: an ELF file, or a clang offload bundle
 * whose entries for the triple ending in `arch` (e.g. "gfx90a"; NULL:
 * every device entry) are ELF code objects. False, with *err set to what is
 * wrong (owned by the caller). */
bool device_code_read(const char *path, const char *arch, struct device_code *out, char **err);
/* The size of the function named `name`, or 0 when there is none. */
unsigned long long device_code_function(const struct device_code *c, const char *name);
void device_code_free(struct device_code *c);
#endif
