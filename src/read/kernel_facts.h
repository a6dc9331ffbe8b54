/* What the device compilers say about each kernel they generate: for
 * nvcc, ptxas -v (registers, spill stores and loads, stack frame, shared
 * memory); for AMDGPU, clang's -Rpass-analysis=kernel-resource-usage
 * remarks (VGPRs, AGPRs, SGPRs, their spills, scratch, LDS, occupancy).
 * The playbook's decisive facts for a codegen-bound kernel: spills and
 * register pressure, before and after an unroll fix.
 *
 * Ownership: a kernel_facts owns its kernels and their names. */
#ifndef BUILDWALL_KERNEL_FACTS_H
#define BUILDWALL_KERNEL_FACTS_H

#include <stddef.h>

/* -1 where the compiler does not report the figure. */
struct kernel_fact {
	char *name;		/* the kernel's (mangled) symbol */
	char *arch;		/* "sm_80", "gfx90a" */
	long registers;		/* nvcc: per thread */
	long vgprs, agprs, sgprs;	/* AMDGPU */
	long spill_stores, spill_loads;	/* nvcc: bytes */
	long vgpr_spills, sgpr_spills;	/* AMDGPU: registers spilled */
	long stack_bytes;	/* nvcc: stack frame; AMDGPU: scratch per lane */
	long shared_bytes;	/* nvcc: smem; AMDGPU: LDS per block */
	long occupancy;		/* AMDGPU: waves per SIMD */
	long code_bytes;	/* its machine code, from the device object */
};

/* A device arch's machine code: every executable section of its object. */
struct arch_code {
	char *arch;
	unsigned long long text_bytes;
};

struct kernel_facts {
	struct kernel_fact *v;
	size_t n, cap;
	struct arch_code *code;	/* per arch, when the device object was read */
	size_t ncode;
};

/* ptxas -v output (nvcc -Xptxas -v, on stderr): one fact per entry
 * function ("Compiling entry function 'K' for 'sm_80'"), its arch from
 * that line. Lines of other tools are ignored. */
void kernel_facts_parse_ptxas(const char *text, struct kernel_facts *out);
/* clang's kernel-resource-usage remarks for one device arch. */
void kernel_facts_parse_amdgpu(const char *text, const char *arch, struct kernel_facts *out);
struct device_code;
/* Add what a device object of `arch` holds: its code size, and each
 * kernel's (matched by symbol name). */
void kernel_facts_add_code(struct kernel_facts *f, const char *arch, const struct device_code *code);
/* The same from a device object file (an AMDGPU code object or offload
 * bundle of `arch`, a cubin); one that cannot be read is said, naming tu,
 * and leaves the sizes unknown. */
void kernel_facts_add_object(struct kernel_facts *f, const char *tu, const char *path, const char *arch);
/* nvcc's kept files in dir (--keep --keep-dir): one "NAME.sm_80.cubin" per
 * real arch, or with one arch "NAME.cubin" (the arch ptxas named). */
void kernel_facts_add_cubins(struct kernel_facts *f, const char *tu, const char *dir);
/* Spills of a kernel, comparable across backends: bytes stored for nvcc,
 * registers spilled (VGPR + SGPR) for AMDGPU. */
long kernel_fact_spills(const struct kernel_fact *k);
/* "128 VGPRs, 0 AGPRs, 16 SGPRs, 12254 registers spilled, code 341.0 KiB"
 * (nvcc: "255 registers, 42408 bytes spilled, …"): a new string. */
char *kernel_fact_summary(const struct kernel_fact *k);
/* The kernel with the most spills (then the most registers), or NULL. */
const struct kernel_fact *kernel_facts_worst(const struct kernel_facts *f);
void kernel_facts_free(struct kernel_facts *f);

#endif
