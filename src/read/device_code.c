#define _GNU_SOURCE
#include "device_code.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define MAX_FILE (1ull << 31)	/* a device object past 2 GiB is not one we read */

static bool in_bounds(size_t size, uint64_t offset, uint64_t len)
{
	return offset <= size && len <= size - offset;
}

static uint64_t read_u64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* One ELF64 object: its executable sections' sizes and its sized
 * function symbols, added to out. */
static char *read_elf(const unsigned char *data, size_t size, struct device_code *out)
{
	Elf64_Ehdr eh;
	if (size < sizeof(eh) || memcmp(data, ELFMAG, SELFMAG))
		return xstrdup("not an ELF file");
	memcpy(&eh, data, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return xstrdup("not a little-endian 64-bit ELF file");
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || !in_bounds(size, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)))
		return xstrdup("its section headers lie outside the file");
	Elf64_Shdr *sh = xcalloc(eh.e_shnum ? eh.e_shnum : 1, sizeof(*sh));
	memcpy(sh, data + eh.e_shoff, (size_t)eh.e_shnum * sizeof(*sh));
	char *err = NULL;
	for (size_t i = 0; i < eh.e_shnum; i++)
		if ((sh[i].sh_flags & SHF_EXECINSTR) && sh[i].sh_type == SHT_PROGBITS)
			out->text_bytes += sh[i].sh_size;
	for (size_t i = 0; i < eh.e_shnum && !err; i++) {
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		size_t strtab = sh[i].sh_link;
		if (strtab >= eh.e_shnum || !in_bounds(size, sh[i].sh_offset, sh[i].sh_size) ||
		    !in_bounds(size, sh[strtab].sh_offset, sh[strtab].sh_size)) {
			err = xstrdup("its symbol table lies outside the file");
			break;
		}
		const char *names = (const char *)data + sh[strtab].sh_offset;
		size_t nsyms = sh[i].sh_size / sizeof(Elf64_Sym);
		for (size_t k = 0; k < nsyms; k++) {
			Elf64_Sym sym;
			memcpy(&sym, data + sh[i].sh_offset + k * sizeof(sym), sizeof(sym));
			if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size || sym.st_name >= sh[strtab].sh_size)
				continue;
			size_t max = sh[strtab].sh_size - sym.st_name;
			out->functions = xrealloc(out->functions, (out->nfunctions + 1) * sizeof(*out->functions));
			out->functions[out->nfunctions++] = (struct device_function){ xstrndup(names + sym.st_name, max),
										      sym.st_size };
		}
	}
	free(sh);
	return err;
}

/* clang's offload bundle: a magic, an entry count, then per entry its
 * offset, size and target triple ("hipv4-amdgcn-amd-amdhsa--gfx90a"). */
static char *read_bundle(const unsigned char *data, size_t size, const char *arch, struct device_code *out)
{
	size_t at = strlen(BUNDLE_MAGIC);
	if (!in_bounds(size, at, 8))
		return xstrdup("a truncated offload bundle");
	uint64_t n = read_u64(data + at);
	at += 8;
	size_t found = 0;
	for (uint64_t e = 0; e < n; e++) {
		if (!in_bounds(size, at, 24))
			return xstrdup("a truncated offload bundle");
		uint64_t offset = read_u64(data + at), len = read_u64(data + at + 8), tlen = read_u64(data + at + 16);
		at += 24;
		if (!in_bounds(size, at, tlen) || !in_bounds(size, offset, len))
			return xstrdup("an offload bundle entry lies outside the file");
		const char *triple = (const char *)data + at;
		at += tlen;
		bool device = tlen > 6 && memmem(triple, tlen, "amdgcn", 6);
		size_t alen = arch ? strlen(arch) : 0;
		if (!device || (arch && (tlen < alen || memcmp(triple + tlen - alen, arch, alen))) || !len)
			continue;
		char *err = read_elf(data + offset, len, out);
		if (err)
			return err;
		found++;
	}
	return found ? NULL : xasprintf("the offload bundle has no device code%s%s", arch ? " for " : "", arch ? arch : "");
}

bool device_code_read(const char *path, const char *arch, struct device_code *out, char **err)
{
	*out = (struct device_code){ 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail_with(err, xstrdup(strerror(errno)));
	unsigned char *data = NULL;
	size_t size = 0, cap = 0;
	for (;;) {
		if (size == cap) {
			cap = cap ? 2 * cap : 65536;
			if (cap > MAX_FILE) {
				fclose(f);
				free(data);
				return fail_with(err, xstrdup("larger than 2 GiB"));
			}
			data = xrealloc(data, cap);
		}
		size_t got = fread(data + size, 1, cap - size, f);
		size += got;
		if (!got)
			break;
	}
	bool failed = ferror(f);
	fclose(f);
	char *why = failed ? xstrdup(strerror(errno))
		    : size >= strlen(BUNDLE_MAGIC) && !memcmp(data, BUNDLE_MAGIC, strlen(BUNDLE_MAGIC))
			? read_bundle(data, size, arch, out)
			: read_elf(data, size, out);
	free(data);
	if (why)
		device_code_free(out);
	return ok_unless(err, why);
}

unsigned long long device_code_function(const struct device_code *c, const char *name)
{
	for (size_t i = 0; i < c->nfunctions; i++)
		if (!strcmp(c->functions[i].name, name))
			return c->functions[i].bytes;
	return 0;
}

void device_code_free(struct device_code *c)
{
	for (size_t i = 0; i < c->nfunctions; i++)
		free(c->functions[i].name);
	free(c->functions);
	*c = (struct device_code){ 0 };
}
