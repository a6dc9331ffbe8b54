#define _GNU_SOURCE
#include "dispatch_table.h"
#include "util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* `# N "file" flags`: is the file it names a system header? */
static bool marker_is_system(const char *line)
{
	const char *q = strrchr(line, '"');
	return q && strstr(q, " 3") != NULL;
}

static bool is_marker(const char *line)
{
	return line[0] == '#' && (line[1] == ' ' || !strncmp(line, "#line", 5));
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

void dispatch_tables_scan(FILE *f, struct dispatch_tables *out)
{
	*out = (struct dispatch_tables){ 0 };
	char *line = NULL;
	size_t cap = 0;
	bool system = false, in_table = false;
	long depth = 0;
	while (getline(&line, &cap, f) > 0) {
		if (is_marker(line)) {
			system = marker_is_system(line);
			continue;
		}
		if (system)
			continue;
		const char *from = line;
		if (!in_table) {
			const char *map = strstr(line, "map<");
			if (!map || !strstr(map, "function<") || !strchr(map, '{'))
				continue;
			in_table = true;
			out->tables++;
			depth = 0;
			from = strchr(map, '=') ? strchr(map, '=') : map;
		}
		/* Lambdas: an introducer's ']' right before its parameters. */
		out->entries += count_of(from, "](");
		depth += (long)count_of(from, "{") - (long)count_of(from, "}");
		if (depth <= 0)
			in_table = false;
	}
	free(line);
}

static void write_declarations(FILE *f, size_t entries)
{
	fputs("struct buildwall_probe_args { const float *a; int n; };\n", f);
	for (size_t i = 0; i < entries; i++)
		fprintf(f, "void buildwall_probe_launch_%zu(const buildwall_probe_args &);\n", i);
}

void dispatch_table_write_map(FILE *f, size_t entries)
{
	fputs("#include <functional>\n#include <string>\n#include <unordered_map>\n", f);
	write_declarations(f, entries);
	fputs("bool buildwall_probe_dispatch(const std::string &key, const buildwall_probe_args &args)\n{\n"
	      "\tstatic const std::unordered_map<std::string, std::function<void(const buildwall_probe_args &)>> table = {\n", f);
	for (size_t i = 0; i < entries; i++)
		fprintf(f, "\t\t{ \"key%06zu\", [](const buildwall_probe_args &a) { buildwall_probe_launch_%zu(a); } },\n", i, i);
	fputs("\t};\n\tauto it = table.find(key);\n\tif (it == table.end())\n\t\treturn false;\n"
	      "\tit->second(args);\n\treturn true;\n}\n", f);
}

void dispatch_table_write_flat(FILE *f, size_t entries)
{
	fputs("#include <algorithm>\n#include <iterator>\n#include <string>\n#include <string_view>\n", f);
	write_declarations(f, entries);
	fputs("namespace {\nstruct buildwall_probe_entry {\n\tstd::string_view key;\n"
	      "\tvoid (*launch)(const buildwall_probe_args &);\n};\nconstexpr buildwall_probe_entry table[] = {\n", f);
	for (size_t i = 0; i < entries; i++)
		fprintf(f, "\t{ \"key%06zu\", &buildwall_probe_launch_%zu },\n", i, i);
	fputs("};\n} // namespace\n"
	      "bool buildwall_probe_dispatch(const std::string &key, const buildwall_probe_args &args)\n{\n"
	      "\tauto it = std::lower_bound(std::begin(table), std::end(table), std::string_view(key),\n"
	      "\t\t\t\t   [](const buildwall_probe_entry &e, std::string_view k) { return e.key < k; });\n"
	      "\tif (it == std::end(table) || it->key != key)\n\t\treturn false;\n"
	      "\tit->launch(args);\n\treturn true;\n}\n", f);
}
