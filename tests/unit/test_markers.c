/* The line-marker scanner: hand-written edge cases, and preprocessed output
 * the test makes with the installed compilers (g++ -E of a pybind11 TU,
 * clang-19 HIP host and device passes, nvcc -E when present), counted
 * independently by tests/unit/pp_ref.awk. The shared fixtures under
 * ../shared/fixtures/pp are checked the same way when they exist. */
#include "unit.h"

#include "chains.h"
#include "markers.h"
#include "strmap.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

static char *scan_text_err(const char *text, size_t len, const struct pp_hooks *hooks, struct markers *m,
			   size_t *line)
{
	char *path = write_temp("");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	char *err = NULL;
	markers_scan(fd, hooks, m, line, &err);
	close(fd);
	unlink(path);
	free(path);
	return err;
}

static void scan_text(const char *text, struct markers *m)
{
	size_t line;
	char *err = scan_text_err(text, strlen(text), NULL, m, &line);
	if (err)
		fail_msg("line %zu: %s", line, err);
}

static const struct pp_file *file_named(const struct pp_section *s, const char *name)
{
	size_t i = strmap_get(&s->index, name, strlen(name));
	if (i == STRMAP_NONE)
		fail_msg("no file %s", name);
	return &s->files[i];
}

static const char gcc_style[] =
	"# 0 \"t.cpp\"\n"
	"# 0 \"<built-in>\"\n"
	"# 0 \"<command-line>\"\n"
	"# 1 \"/usr/include/stdc-predef.h\" 1 3 4\n"
	"# 0 \"<command-line>\" 2\n"
	"# 1 \"t.cpp\"\n"
	"int a;\n"
	"# 1 \"inc/a.h\" 1\n"
	"int b;\n"
	"\n"
	"# 3 \"t.cpp\" 2\n"
	"int d;\n";

static void check_gcc_style(const struct markers *m)
{
	assert_int_equal(m->lines, 12);
	assert_int_equal(m->nsections, 1);
	const struct pp_section *s = &m->sections[0];
	assert_null(s->target);
	assert_int_equal(s->lines, 12);
	assert_int_equal(s->markers, 8);
	assert_int_equal(s->code_lines, 4);
	assert_int_equal(s->nfiles, 5);
	assert_string_equal(s->files[s->main_file].name, "t.cpp");
	assert_int_equal(file_named(s, "t.cpp")->lines, 2);
	assert_int_equal(file_named(s, "inc/a.h")->lines, 2);
	assert_int_equal(file_named(s, "inc/a.h")->entries, 1);
	assert_false(file_named(s, "inc/a.h")->system);
	assert_true(file_named(s, "/usr/include/stdc-predef.h")->system);
	assert_int_equal(file_named(s, "<command-line>")->lines, 0);
	assert_int_equal(s->max_depth, 2);
	assert_int_equal(s->renamed_returns, 0);
	assert_int_equal(s->open_at_end, 0);
}

static void test_gcc_style(void **state)
{
	(void)state;
	struct markers m;
	scan_text(gcc_style, &m);
	check_gcc_style(&m);
	markers_free(&m);
}

/* The same output with CRLF line ends counts the same, names without '\r'. */
static void test_crlf(void **state)
{
	(void)state;
	struct strvec parts = { 0 };
	char *copy = xstrdup(gcc_style), *save = NULL;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		strvec_pushf(&parts, "%s\r\n", l);
	free(copy);
	/* strtok drops the empty line: put it back. */
	char *text = strvec_join(&parts, "");
	char *blank = strstr(text, "int b;\r\n");
	char *fixed = xasprintf("%.*s\r\n%s", (int)(blank + 8 - text), text, blank + 8);
	struct markers m;
	scan_text(fixed, &m);
	check_gcc_style(&m);
	markers_free(&m);
	free(text);
	free(fixed);
	strvec_clear(&parts);
}

static void test_names_and_renames(void **state)
{
	(void)state;
	struct markers m;
	scan_text("# 1 \"main.c\"\n"
		  "# 1 \"dir with space/\\\"q\\\".h\" 1\n"
		  "q;\n"
		  "# 2 \"main.c\" 2\n"
		  "# 1 \"a\\134b.h\" 1 3 4\n"
		  "extern \"C\" {}\n"
		  "# 2 \"main.c\" 2\n"
		  "#line 40 \"gen.y\"\n"
		  "y1;\n"
		  "y2;\n"
		  "#pragma once\n", &m);
	const struct pp_section *s = &m.sections[0];
	assert_int_equal(file_named(s, "dir with space/\"q\".h")->lines, 1);
	assert_int_equal(file_named(s, "a\\b.h")->lines, 1);
	assert_true(file_named(s, "a\\b.h")->system);
	/* #line renames the main file; #pragma is a line of it. */
	assert_int_equal(file_named(s, "gen.y")->lines, 3);
	assert_int_equal(file_named(s, "main.c")->lines, 0);
	assert_int_equal(s->markers, 6);
	assert_int_equal(m.lines, 11);
	markers_free(&m);
}

/* A marker with flag 3 on a file already open marks a macro expansion from
 * a system header, not the file. */
static void test_system_flag_on_expansion(void **state)
{
	(void)state;
	struct markers m;
	scan_text("# 1 \"x.cpp\"\n# 1 \"/usr/include/h.h\" 1 3 4\nh;\n# 2 \"x.cpp\" 2\n# 6 \"x.cpp\" 3 4\nmacro;\n"
		  "# 6 \"x.cpp\"\n", &m);
	assert_false(file_named(&m.sections[0], "x.cpp")->system);
	assert_true(file_named(&m.sections[0], "/usr/include/h.h")->system);
	markers_free(&m);
}

static void test_edges(void **state)
{
	(void)state;
	struct markers m;
	scan_text("", &m);
	assert_int_equal(m.lines, 0);
	assert_int_equal(m.nsections, 0);
	markers_free(&m);

	scan_text("# 1 \"x.c\"\nint a;\nint b;", &m);	/* no '\n' at the end: still a line, as awk counts */
	assert_int_equal(m.lines, 3);
	assert_int_equal(file_named(&m.sections[0], "x.c")->lines, 2);
	markers_free(&m);

	scan_text("int a;\n# 1 \"x.c\"\nint b;\n", &m);	/* lines before any marker */
	assert_int_equal(file_named(&m.sections[0], "(no line marker)")->lines, 1);
	assert_string_equal(m.sections[0].files[m.sections[0].main_file].name, "x.c");
	markers_free(&m);

	scan_text("a;\nb;\n", &m);	/* no marker at all (-E -P) */
	assert_int_equal(m.nsections, 1);
	assert_int_equal(file_named(&m.sections[0], "(no line marker)")->lines, 2);
	markers_free(&m);

	scan_text("# 1 \"x.c\"\n# 1 \"a.h\" 1\n# 2 \"y.c\" 2\n", &m);	/* returns to another name */
	assert_int_equal(m.sections[0].renamed_returns, 1);
	markers_free(&m);

	scan_text("# 1 \"x.c\"\n# 1 \"a.h\" 1\nint a;\n", &m);	/* cut off inside a.h */
	assert_int_equal(m.sections[0].open_at_end, 1);
	markers_free(&m);

	scan_text("# 1 \"x.c\"\n# 7\nint a;\n//x\n/ y\n", &m);	/* a line number only; '/' lines are code */
	assert_int_equal(m.sections[0].markers, 2);
	assert_int_equal(file_named(&m.sections[0], "x.c")->lines, 3);
	markers_free(&m);
}

static void test_bundles(void **state)
{
	(void)state;
	struct markers m;
	scan_text("\n// __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx90a\n"
		  "# 1 \"k.hip\"\nd;\n"
		  "// __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx90a\n\n"
		  "// __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-pc-linux-gnu-\n"
		  "# 1 \"k.hip\"\nh1;\nh2;\n"
		  "// __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-pc-linux-gnu-\n", &m);
	assert_int_equal(m.nsections, 2);
	assert_int_equal(m.lines, 11);
	assert_string_equal(m.sections[0].target, "hip-amdgcn-amd-amdhsa--gfx90a");
	assert_string_equal(bundle_pass(m.sections[0].target), "device");
	assert_string_equal(bundle_arch(m.sections[0].target), "gfx90a");
	assert_string_equal(bundle_pass(m.sections[1].target), "host");
	assert_null(bundle_arch(m.sections[1].target));
	assert_int_equal(m.sections[0].lines, 2);
	assert_int_equal(m.sections[1].lines, 3);
	assert_int_equal(file_named(&m.sections[1], "k.hip")->lines, 2);
	markers_free(&m);
}

struct bad_case {
	const char *text;
	size_t line;
	const char *message;
};

static void test_malformed(void **state)
{
	(void)state;
	static const struct bad_case cases[] = {
		{ "# 1 \"x.c\"\n# 2 \"unterminated\n", 2, "no closing" },
		{ "# 1 \"x.c\" 7\n", 1, "flags are 1 to 4" },
		{ "# 1x \"x.c\"\n", 1, "unexpected 'x' after the line number" },
		{ "# 99999999999999999999999 \"x.c\"\n", 1, "out of range" },
		{ "# 1 x.c\n", 1, "does not start with" },
		{ "#line abc\n", 1, "without a line number" },
		{ "# 1 \"x.c\" 1 2\n", 1, "both enters" },
		{ "# 1 \"x.c\" junk\n", 1, "flags are 1 to 4" },
		{ "# 1 \"x.c\"\nint a;\n# 5 \"x.c\" 2\n", 3, "no #include is open" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct markers m;
		size_t line;
		char *err = scan_text_err(cases[i].text, strlen(cases[i].text), NULL, &m, &line);
		if (!err || line != cases[i].line || !strstr(err, cases[i].message))
			fail_msg("case %zu: line %zu, %s", i, line, err ? err : "(no error)");
		free(err);
		markers_free(&m);
	}
}

/* Multi-megabyte lines: a code line and a #pragma are fine (only their
 * first byte matters), a marker that long is an error, not a crash. */
static void test_long_lines(void **state)
{
	(void)state;
	size_t big = 5u << 20, len = 0;
	char *text = xmalloc(2 * big + 64);
	len += (size_t)sprintf(text, "# 1 \"x.c\"\n");
	memset(text + len, 'a', big);
	len += big;
	text[len++] = '\n';
	memcpy(text + len, "#pragma ", 8);
	memset(text + len + 8, 'b', big - 8);
	len += big;
	len += (size_t)sprintf(text + len, "\nend;\n");
	struct markers m;
	size_t line;
	char *err = scan_text_err(text, len, NULL, &m, &line);
	assert_null(err);
	assert_int_equal(m.lines, 4);
	assert_int_equal(file_named(&m.sections[0], "x.c")->lines, 3);
	markers_free(&m);

	memcpy(text, "# 1 \"", 5);
	memset(text + 5, 'n', 100000);
	strcpy(text + 100005, "\"\n");
	err = scan_text_err(text, strlen(text), NULL, &m, &line);
	assert_non_null(err);
	assert_non_null(strstr(err, "longer than 64 KiB"));
	assert_int_equal(line, 1);
	free(err);
	markers_free(&m);
	free(text);
}

/* Markers that straddle the 1 MiB read buffer land where they should. */
static void test_buffer_boundaries(void **state)
{
	(void)state;
	for (size_t shift = 0; shift < 24; shift++) {
		size_t filler = (1u << 20) - 12 + shift, len = 0;
		char *text = xmalloc(filler + 256);
		len += (size_t)sprintf(text, "# 1 \"x.c\"\n");
		size_t lines = 0;
		while (len + 8 < filler) {
			memcpy(text + len, "int a;\n", 7);
			len += 7;
			lines++;
		}
		len += (size_t)sprintf(text + len, "# 1 \"y.h\" 1\ny;\n# 2 \"x.c\" 2\nz;\n");
		struct markers m;
		size_t line;
		char *err = scan_text_err(text, len, NULL, &m, &line);
		assert_null(err);
		assert_int_equal(file_named(&m.sections[0], "x.c")->lines, lines + 1);
		assert_int_equal(file_named(&m.sections[0], "y.h")->lines, 1);
		assert_int_equal(m.sections[0].markers, 3);
		markers_free(&m);
		free(text);
	}
}

static bool starts_heavy(void *ctx, const struct markers *m, size_t file)
{
	(void)ctx;
	return has_prefix(m->cur->files[file].name, "heavy/");
}

static void test_chains(void **state)
{
	(void)state;
	const char *once =
		"# 1 \"p/a.h\" 1\n"
		"# 1 \"heavy/h.h\" 1\n"
		"h1\n"
		"# 1 \"heavy/inner.h\" 1\n"
		"h2\n"
		"# 2 \"heavy/h.h\" 2\n"
		"h3\n"
		"# 2 \"p/a.h\" 2\n";
	char *text = xasprintf("# 1 \"x.c\"\n%s# 2 \"x.c\" 2\nx\n\n# 1 \"p/b.h\" 1\n\n# 1 \"heavy/h2.h\" 1\nh4\n"
			       "# 2 \"p/b.h\" 2\n# 4 \"x.c\" 2\n%s# 5 \"x.c\" 2\n", once, once);
	struct chain_finder f = { .matches = starts_heavy };
	struct pp_hooks hooks = chain_hooks(&f);
	struct markers m;
	size_t line;
	char *err = scan_text_err(text, strlen(text), &hooks, &m, &line);
	assert_null(err);
	assert_int_equal(f.n, 2);
	const struct pp_section *s = &m.sections[0];
	const struct chain *a = &f.chains[0], *b = &f.chains[1];
	assert_int_equal(a->n, 3);
	assert_string_equal(s->files[a->files[0]].name, "x.c");
	assert_string_equal(s->files[a->files[1]].name, "p/a.h");
	assert_string_equal(s->files[a->files[2]].name, "heavy/h.h");
	assert_int_equal(a->entries, 2);	/* the same chain twice: one chain */
	assert_int_equal(a->lines, 6);	/* h1 h2 h3, twice; heavy/inner.h is part of it */
	assert_int_equal(a->include_lines[1], 1);	/* p/a.h from x.c:1 */
	assert_int_equal(a->include_lines[2], 1);
	assert_int_equal(b->n, 3);
	assert_string_equal(s->files[b->files[2]].name, "heavy/h2.h");
	assert_int_equal(b->lines, 1);
	assert_int_equal(b->include_lines[1], 4);	/* after "x" and a blank line */
	assert_int_equal(b->include_lines[2], 2);
	chain_finder_free(&f);
	markers_free(&m);
	free(text);

	/* Bundled output: a chain per bundle, each naming its own section. */
	const char *bundled = "\n// __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx90a\n"
			      "# 1 \"k.hip\"\n# 1 \"heavy/h.h\" 1\nd\n# 2 \"k.hip\" 2\n"
			      "// __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx90a\n\n"
			      "// __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-pc-linux-gnu-\n"
			      "# 1 \"k.hip\"\n# 1 \"heavy/h.h\" 1\nh\nh\n# 2 \"k.hip\" 2\n"
			      "// __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-pc-linux-gnu-\n";
	f = (struct chain_finder){ .matches = starts_heavy };
	hooks = chain_hooks(&f);
	assert_null(scan_text_err(bundled, strlen(bundled), &hooks, &m, &line));
	assert_int_equal(m.nsections, 2);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.chains[0].section, 0);
	assert_int_equal(f.chains[0].lines, 1);
	assert_int_equal(f.chains[1].section, 1);
	assert_int_equal(f.chains[1].lines, 2);
	chain_finder_free(&f);
	markers_free(&m);
}

/* ---- against the awk reference, on real compiler output ---- */

static char *run_capture(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char *out = NULL;
	size_t cap = 0;
	ssize_t n = getdelim(&out, &cap, '\0', p);
	int status = pclose(p);
	if (n < 0 || status)
		fail_msg("'%s' failed (%d)", cmd, status);
	return out;
}

/* Scan path and compare the total, the marker count and every file's own
 * lines with pp_ref.awk; returns the total. */
static size_t check_against_awk(const char *path)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct markers m;
	size_t line;
	char *err = NULL;
	markers_scan(fd, NULL, &m, &line, &err);
	close(fd);
	if (err)
		fail_msg("%s:%zu: %s", path, line, err);
	assert_int_equal(m.nsections, 1);
	const struct pp_section *s = &m.sections[0];
	char *cmd = xasprintf("awk -f %s/unit/pp_ref.awk '%s'", TESTS_DIR, path);
	char *out = run_capture(cmd);
	size_t nr = 0, markers = 0, checked = 0, own = 0;
	char *save = NULL;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(l, '\t');
		assert_non_null(tab);
		*tab = '\0';
		if (!nr && !markers) {
			nr = strtoul(l, NULL, 10);
			markers = strtoul(tab + 1, NULL, 10);
			continue;
		}
		size_t lines = strtoul(l, NULL, 10);
		const struct pp_file *f = file_named(s, tab + 1);
		if (f->lines != lines)
			fail_msg("%s: %s has %zu own lines, awk says %zu", path, tab + 1, f->lines, lines);
		checked++;
	}
	assert_int_equal(m.lines, nr);
	assert_int_equal(s->markers, markers);
	for (size_t i = 0; i < s->nfiles; i++)
		own += s->files[i].lines;
	assert_int_equal(own + s->markers, s->lines);	/* the counting rule adds up */
	for (size_t i = 0; i < s->nfiles; i++)
		checked -= s->files[i].lines > 0;
	assert_int_equal(checked, 0);	/* and no file awk does not know */
	free(cmd);
	free(out);
	markers_free(&m);
	return nr;
}

static char *workdir;

static int make_workdir(void **state)
{
	(void)state;
	workdir = strdup("/tmp/buildwall-pp-XXXXXX");
	assert_non_null(mkdtemp(workdir));
	char *cmd = xasprintf("cd %s && mkdir inc && printf '#pragma once\\nint a1;\\n' > inc/a.h && "
			      "printf '// k\\n#include <vector>\\n#include \"inc/a.h\"\\n"
			      "__attribute__((global)) void k(int *p) { *p = a1; }\\n' > k.hip && "
			      "printf '#include <pybind11/pybind11.h>\\nint f() { return 1; }\\n' > bind.cpp", workdir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return 0;
}

static int remove_workdir(void **state)
{
	(void)state;
	char *cmd = xasprintf("rm -rf '%s'", workdir);
	int rc = system(cmd);
	free(cmd);
	free(workdir);
	return rc;
}

static void compile_to(const char *what, const char *out)
{
	char *cmd = xasprintf("cd %s && %s -o %s", workdir, what, out);
	if (system(cmd))
		fail_msg("'%s' failed", cmd);
	free(cmd);
}

static void test_gxx_pybind11(void **state)
{
	(void)state;
	compile_to("g++ -E $(python3-config --includes) bind.cpp", "bind.ii");
	char *path = xasprintf("%s/bind.ii", workdir);
	assert_true(check_against_awk(path) > 10000);
	free(path);
}

static bool have(const char *program)
{
	char *cmd = xasprintf("command -v %s >/dev/null 2>&1", program);
	bool ok = !system(cmd);
	free(cmd);
	return ok;
}

static void test_clang_hip_passes(void **state)
{
	(void)state;
	if (!have("clang++-19"))
		skip();
	const char *hip = "clang++-19 -x hip -nogpulib -nogpuinc --offload-arch=gfx90a --offload-arch=gfx942 -E k.hip";
	char *host = xasprintf("%s --cuda-host-only", hip), *device = xasprintf("%s --cuda-device-only --offload-arch=gfx90a "
									       "--no-offload-arch=gfx942", hip);
	compile_to(host, "host.ii");
	compile_to(device, "device.ii");
	compile_to(hip, "bundle.ii");
	char *hp = xasprintf("%s/host.ii", workdir), *dp = xasprintf("%s/device.ii", workdir);
	char *bp = xasprintf("%s/bundle.ii", workdir);
	size_t host_lines = check_against_awk(hp), device_lines = check_against_awk(dp);
	/* Without --cuda-*-only: one section per bundle, each the pass alone. */
	int fd = open(bp, O_RDONLY);
	struct markers m;
	size_t line;
	assert_ok(markers_scan(fd, NULL, &m, &line, &unit_err));
	close(fd);
	assert_int_equal(m.nsections, 3);
	assert_string_equal(bundle_arch(m.sections[0].target), "gfx90a");
	assert_string_equal(bundle_arch(m.sections[1].target), "gfx942");
	assert_string_equal(bundle_pass(m.sections[2].target), "host");
	assert_int_equal(m.sections[0].lines, device_lines);
	assert_int_equal(m.sections[2].lines, host_lines);
	assert_int_equal(file_named(&m.sections[2], "./inc/a.h")->lines, 2);
	markers_free(&m);
	free(host);
	free(device);
	free(hp);
	free(dp);
	free(bp);
}

static void test_nvcc(void **state)
{
	(void)state;
	if (!have("nvcc"))
		skip();
	char *cu = xasprintf("cd %s && sed 's/__attribute__((global))/__global__/' k.hip > k.cu", workdir);
	assert_int_equal(system(cu), 0);
	compile_to("nvcc -E k.cu", "k.cu.ii");
	char *path = xasprintf("%s/k.cu.ii", workdir);
	assert_true(check_against_awk(path) > 1000);
	free(cu);
	free(path);
}

/* The shared fixtures, when this checkout sits beside them (never
 * committed: preprocessed output holds third-party header text). */
static void test_shared_fixtures(void **state)
{
	(void)state;
	const char *dir = TESTS_DIR "/../../shared/fixtures/pp";
	DIR *d = opendir(dir);
	if (!d)
		skip();
	size_t seen = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (!has_suffix(e->d_name, ".ii"))
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		check_against_awk(path);
		free(path);
		seen++;
	}
	closedir(d);
	char *gz = xasprintf("%s/torch_ext_gcc12_E.ii.gz", dir);
	if (file_exists(gz)) {
		char *out = xasprintf("%s/torch.ii", workdir), *cmd = xasprintf("gzip -dc '%s' > '%s'", gz, out);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(check_against_awk(out), 376239);	/* the fixture's own count */
		free(out);
		free(cmd);
	}
	free(gz);
	assert_true(seen > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gcc_style),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_names_and_renames),
		cmocka_unit_test(test_system_flag_on_expansion),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_bundles),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_buffer_boundaries),
		cmocka_unit_test(test_chains),
		cmocka_unit_test(test_gxx_pybind11),
		cmocka_unit_test(test_clang_hip_passes),
		cmocka_unit_test(test_nvcc),
		cmocka_unit_test(test_shared_fixtures),
	};
	return cmocka_run_group_tests(tests, make_workdir, remove_workdir);
}
