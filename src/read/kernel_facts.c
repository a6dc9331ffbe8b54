#include "kernel_facts.h"
#include "device_code.h"
#include "util.h"

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static struct kernel_fact *add(struct kernel_facts *f, const char *name, size_t len, const char *arch)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 8;
		f->v = xrealloc(f->v, f->cap * sizeof(*f->v));
	}
	struct kernel_fact *k = &f->v[f->n++];
	*k = (struct kernel_fact){ .name = xstrndup(name, len), .arch = xstrdup(arch), .registers = -1, .vgprs = -1,
				   .agprs = -1, .sgprs = -1, .spill_stores = -1, .spill_loads = -1, .vgpr_spills = -1,
				   .sgpr_spills = -1, .stack_bytes = -1, .shared_bytes = -1, .occupancy = -1,
				   .code_bytes = -1 };
	return k;
}

/* The number just before `unit` in line (up to its end), or -1. */
static long number_before(const char *line, const char *end, const char *unit)
{
	size_t ulen = strlen(unit);
	for (const char *p = line; p + ulen <= end; p++) {
		if (strncmp(p, unit, ulen))
			continue;
		const char *q = p;
		while (q > line && q[-1] == ' ')
			q--;
		const char *digits = q;
		while (digits > line && digits[-1] >= '0' && digits[-1] <= '9')
			digits--;
		if (digits < q)
			return strtol(digits, NULL, 10);
	}
	return -1;
}

/* The number just after `label` in line, or -1. */
static long number_after(const char *line, const char *end, const char *label)
{
	size_t llen = strlen(label);
	for (const char *p = line; p + llen <= end; p++)
		if (!strncmp(p, label, llen)) {
			const char *q = p + llen;
			while (q < end && *q == ' ')
				q++;
			return q < end && *q >= '0' && *q <= '9' ? strtol(q, NULL, 10) : -1;
		}
	return -1;
}

static bool quoted(const char *s, const char *end, const char *after, const char **v, size_t *len)
{
	const char *p = strstr(s, after);
	if (!p || p >= end)
		return false;
	p += strlen(after);
	const char *close = memchr(p, '\'', (size_t)(end - p));
	if (!close)
		return false;
	*v = p;
	*len = (size_t)(close - p);
	return true;
}

void kernel_facts_parse_ptxas(const char *text, struct kernel_facts *out)
{
	struct kernel_fact *cur = NULL;
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		end = end ? end : line + strlen(line);
		const char *name, *arch;
		size_t nlen, alen;
		if (strstr(line, "ptxas") == line || strncmp(line, "    ", 4) == 0) {
			if (quoted(line, end, "Compiling entry function '", &name, &nlen) &&
			    quoted(line, end, "' for '", &arch, &alen)) {
				char *a = xstrndup(arch, alen);
				cur = add(out, name, nlen, a);
				free(a);
			} else if ((name = strstr(line, "Function properties for ")) && name < end) {
				/* Another function's properties (a device function's, not a
				 * kernel's) are not the current kernel's. */
				name += strlen("Function properties for ");
				nlen = (size_t)(end - name);
				if (cur && (strlen(cur->name) != nlen || strncmp(cur->name, name, nlen)))
					cur = NULL;
			} else if (cur && strstr(line, "stack frame") && strstr(line, "stack frame") < end) {
				cur->stack_bytes = number_before(line, end, " bytes stack frame");
				cur->spill_stores = number_before(line, end, " bytes spill stores");
				cur->spill_loads = number_before(line, end, " bytes spill loads");
			} else if (cur && strstr(line, "Used ") && strstr(line, "Used ") < end) {
				cur->registers = number_before(line, end, " registers");
				long smem = number_before(line, end, " bytes smem");
				cur->shared_bytes = smem >= 0 ? smem : 0;
			}
		}
		line = *end ? end + 1 : end;
	}
}

/* The remark rows, spills first: "SGPRs Spill:" also contains "SGPRs". */
static const struct {
	const char *label;
	size_t field;
} amdgpu_rows[] = {
	{ "SGPRs Spill:", offsetof(struct kernel_fact, sgpr_spills) },
	{ "VGPRs Spill:", offsetof(struct kernel_fact, vgpr_spills) },
	{ "SGPRs:", offsetof(struct kernel_fact, sgprs) },
	{ "VGPRs:", offsetof(struct kernel_fact, vgprs) },
	{ "AGPRs:", offsetof(struct kernel_fact, agprs) },
	{ "ScratchSize [bytes/lane]:", offsetof(struct kernel_fact, stack_bytes) },
	{ "Occupancy [waves/SIMD]:", offsetof(struct kernel_fact, occupancy) },
	{ "LDS Size [bytes/block]:", offsetof(struct kernel_fact, shared_bytes) },
};

void kernel_facts_parse_amdgpu(const char *text, const char *arch, struct kernel_facts *out)
{
	static const char tag[] = "[-Rpass-analysis=kernel-resource-usage]";
	struct kernel_fact *cur = NULL;
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		end = end ? end : line + strlen(line);
		const char *remark = strstr(line, "remark: ");
		if (remark && remark < end && strstr(line, tag) && strstr(line, tag) < end) {
			const char *body = remark + strlen("remark: "), *stop = strstr(line, tag);
			while (stop > body && stop[-1] == ' ')
				stop--;
			const char *name = strstr(body, "Function Name: ");
			if (name && name < stop) {
				name += strlen("Function Name: ");
				cur = add(out, name, (size_t)(stop - name), arch);
			} else if (cur) {
				for (size_t i = 0; i < sizeof(amdgpu_rows) / sizeof(*amdgpu_rows); i++) {
					long v = number_after(body, stop, amdgpu_rows[i].label);
					if (v >= 0) {
						*(long *)((char *)cur + amdgpu_rows[i].field) = v;
						break;
					}
				}
			}
		}
		line = *end ? end + 1 : end;
	}
}

long kernel_fact_spills(const struct kernel_fact *k)
{
	if (k->spill_stores >= 0)
		return k->spill_stores;
	long s = 0;
	s += k->vgpr_spills > 0 ? k->vgpr_spills : 0;
	s += k->sgpr_spills > 0 ? k->sgpr_spills : 0;
	return s;
}

static long pressure(const struct kernel_fact *k)
{
	return k->registers >= 0 ? k->registers : (k->vgprs > 0 ? k->vgprs : 0) + (k->agprs > 0 ? k->agprs : 0);
}

const struct kernel_fact *kernel_facts_worst(const struct kernel_facts *f)
{
	const struct kernel_fact *w = NULL;
	for (size_t i = 0; i < f->n; i++) {
		const struct kernel_fact *k = &f->v[i];
		if (!w || kernel_fact_spills(k) > kernel_fact_spills(w) ||
		    (kernel_fact_spills(k) == kernel_fact_spills(w) && pressure(k) > pressure(w)))
			w = k;
	}
	return w;
}

char *kernel_fact_summary(const struct kernel_fact *k)
{
	char *regs = k->registers >= 0 ? xasprintf("%ld registers", k->registers)
				       : xasprintf("%ld VGPRs, %ld AGPRs, %ld SGPRs", k->vgprs, k->agprs, k->sgprs);
	char *code = k->code_bytes >= 0 ? xasprintf(", code %.1f KiB", k->code_bytes / 1024.0) : xstrdup("");
	char *text = xasprintf("%s, %ld %s spilled%s", regs, kernel_fact_spills(k), k->spill_stores >= 0 ? "bytes" : "registers",
			       code);
	free(regs);
	free(code);
	return text;
}

void kernel_facts_add_code(struct kernel_facts *f, const char *arch, const struct device_code *code)
{
	f->code = xrealloc(f->code, (f->ncode + 1) * sizeof(*f->code));
	f->code[f->ncode++] = (struct arch_code){ xstrdup(arch), code->text_bytes };
	for (size_t i = 0; i < f->n; i++) {
		unsigned long long bytes = strcmp(f->v[i].arch, arch) ? 0 : device_code_function(code, f->v[i].name);
		if (bytes)
			f->v[i].code_bytes = (long)bytes;
	}
}

void kernel_facts_free(struct kernel_facts *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].name);
		free(f->v[i].arch);
	}
	free(f->v);
	for (size_t i = 0; i < f->ncode; i++)
		free(f->code[i].arch);
	free(f->code);
	*f = (struct kernel_facts){ 0 };
}

void kernel_facts_add_object(struct kernel_facts *f, const char *tu, const char *path, const char *arch)
{
	struct device_code code;
	char *err = NULL;
	if (!device_code_read(path, arch, &code, &err)) {
		warn("%s: no code size for %s: %s: %s", tu, arch, path, err);
		free(err);
		return;
	}
	kernel_facts_add_code(f, arch, &code);
	device_code_free(&code);
}

void kernel_facts_add_cubins(struct kernel_facts *f, const char *tu, const char *dir)
{
	const char *only = f->n ? f->v[0].arch : NULL;
	for (size_t i = 1; only && i < f->n; i++)
		if (strcmp(f->v[i].arch, only))
			only = NULL;
	DIR *d = opendir(dir);
	struct dirent *de;
	struct strvec cubins = { 0 };
	while (d && (de = readdir(d)))
		if (has_suffix(de->d_name, ".cubin"))
			strvec_push(&cubins, de->d_name);
	if (d)
		closedir(d);
	strvec_sort(&cubins);
	for (size_t i = 0; i < cubins.n; i++) {
		char *name = cubins.v[i], *end = name + strlen(name) - strlen(".cubin"), *dot = end;
		while (dot > name && dot[-1] != '.')
			dot--;
		char *arch = dot > name ? xstrndup(dot, (size_t)(end - dot)) : xstrdup(only ? only : ""),
		     *path = xasprintf("%s/%s", dir, name);
		if (has_prefix(arch, "sm_"))
			kernel_facts_add_object(f, tu, path, arch);
		free(arch);
		free(path);
	}
	strvec_clear(&cubins);
}
