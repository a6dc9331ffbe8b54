#define _GNU_SOURCE
#include "driver.h"
#include "tmpdir.h"
#include "cmdline.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *compiler_name(enum compiler c)
{
	switch (c) {
	case COMPILER_GCC: return "gcc";
	case COMPILER_CLANG: return "clang";
	case COMPILER_HIPCC: return "hipcc";
	case COMPILER_NVCC: return "nvcc";
	default: return "unknown";
	}
}

static const char *const launcher_names[] = {
	"ccache", "sccache", "distcc", "icecc", "buildcache", NULL
};

bool driver_is_launcher(const char *program)
{
	const char *b = base_name(program);
	for (int i = 0; launcher_names[i]; i++)
		if (!strcmp(b, launcher_names[i]))
			return true;
	return false;
}

/* "x86_64-linux-gnu-g++-12" -> "g++": drop a target triple and a version. */
static char *bare_tool_name(const char *program)
{
	char *name = xstrdup(base_name(program));
	char *dash = strrchr(name, '-');
	if (dash && isdigit((unsigned char)dash[1])) {
		const char *q = dash + 1;
		while (isdigit((unsigned char)*q) || *q == '.')
			q++;
		if (!*q)
			*dash = '\0';
	}
	static const char *const stems[] = { "clang++", "clang", "g++", "gcc", "c++", NULL };
	for (int i = 0; stems[i]; i++) {
		if (has_suffix(name, stems[i]) && strlen(name) > strlen(stems[i]) &&
		    name[strlen(name) - strlen(stems[i]) - 1] == '-') {
			char *s = xstrdup(stems[i]);
			free(name);
			return s;
		}
	}
	return name;
}

static enum compiler identify_name(const char *name)
{
	if (!strcmp(name, "nvcc"))
		return COMPILER_NVCC;
	if (!strcmp(name, "hipcc") || !strcmp(name, "hipcc.pl") || !strcmp(name, "hipcc.bin"))
		return COMPILER_HIPCC;
	if (!strcmp(name, "clang") || !strcmp(name, "clang++") || !strcmp(name, "amdclang") ||
	    !strcmp(name, "amdclang++"))
		return COMPILER_CLANG;
	if (!strcmp(name, "gcc") || !strcmp(name, "g++") || !strcmp(name, "c++") ||
	    !strcmp(name, "cc"))
		return COMPILER_GCC;
	return COMPILER_UNKNOWN;
}

/* Does this executable resolve (through links) to a launcher? */
static bool resolves_to_launcher(const char *path)
{
	char *real = realpath(path, NULL);
	bool launcher = real && driver_is_launcher(real);
	free(real);
	return launcher;
}

static bool not_a_launcher(const char *candidate)
{
	return !resolves_to_launcher(candidate);
}

/* Full path of `program` as execvp would find it, or NULL; with
 * skip_launchers, the first one that is not a launcher in disguise (the
 * /usr/lib/ccache/gcc -> ccache links a masquerading setup puts on PATH). */
static char *find_in_path(const char *program, bool skip_launchers)
{
	return path_search(program, getenv("PATH"), skip_launchers ? not_a_launcher : NULL);
}

char *driver_find_program(const char *program)
{
	return find_in_path(program, false);
}

enum compiler driver_identify(const char *program)
{
	char *name = bare_tool_name(program);
	enum compiler c = identify_name(name);
	free(name);
	/* cc and c++ are often alternatives for clang: ask the file system. */
	if (c == COMPILER_GCC || c == COMPILER_UNKNOWN) {
		char *found = find_in_path(program, true);
		char *real = found ? realpath(found, NULL) : NULL;
		if (real) {
			char *real_name = bare_tool_name(real);
			enum compiler rc = identify_name(real_name);
			if (rc != COMPILER_UNKNOWN)
				c = rc;
			free(real_name);
		}
		free(real);
		free(found);
	}
	return c;
}

static bool is_env_assignment(const char *w)
{
	if (!(isalpha((unsigned char)*w) || *w == '_'))
		return false;
	for (const char *p = w; *p; p++) {
		if (*p == '=')
			return true;
		if (!(isalnum((unsigned char)*p) || *p == '_'))
			return false;
	}
	return false;
}

static char *expand_response_file(const char *arg, const char *cwd, struct strvec *out)
{
	char *path = path_in(cwd, arg + 1);
	char *text = read_text_file(path);
	if (!text) {
		/* Not a file: an argument that happens to start with '@'. */
		free(path);
		strvec_push(out, arg);
		return NULL;
	}
	char *err = NULL;
	const char *msg = cmdline_split(text, out);
	if (msg)
		err = xasprintf("response file %s: %s", path, msg);
	free(text);
	free(path);
	return err;
}

bool driver_parse(const char *line, const char *cwd, struct compile_command *cmd, char **err)
{
	struct strvec words = { 0 };
	const char *msg = cmdline_split(line, &words);
	if (msg) {
		strvec_clear(&words);
		return fail_with(err, xstrdup(msg));
	}
	size_t i = 0;
	if (i < words.n && !strcmp(words.v[i], "env"))
		i++;
	for (; i < words.n && is_env_assignment(words.v[i]); i++)
		strvec_push(&cmd->env, words.v[i]);
	for (; i < words.n && driver_is_launcher(words.v[i]); i++)
		strvec_push(&cmd->launchers, words.v[i]);
	if (i == words.n) {
		strvec_clear(&words);
		return fail_with(err, xstrdup("empty command"));
	}
	char *why = NULL;
	strvec_push(&cmd->argv, words.v[i++]);
	for (; i < words.n && !why; i++) {
		if (words.v[i][0] == '@' && words.v[i][1])
			why = expand_response_file(words.v[i], cwd, &cmd->argv);
		else
			strvec_push(&cmd->argv, words.v[i]);
	}
	strvec_clear(&words);
	/* A compiler name that PATH resolves to ccache & co.: run the real
	 * compiler behind it, and count the launcher as stripped. */
	char *first = find_in_path(cmd->argv.v[0], false);
	char *real = first && resolves_to_launcher(first) ? find_in_path(cmd->argv.v[0], true) : NULL;
	if (real) {
		char *launcher = realpath(first, NULL);
		strvec_push(&cmd->launchers, base_name(launcher));
		free(launcher);
		free(cmd->argv.v[0]);
		cmd->argv.v[0] = real;
	}
	free(first);
	cmd->compiler = driver_identify(cmd->argv.v[0]);
	return ok_unless(err, why);
}

/* A flag that names a file the compiler writes, per driver family. Every
 * flag takes its value as the next argument or after '='; the bits say
 * what else is true of it. */
enum {
	OUT_DIR = 1,		/* the value is a directory (or a path prefix) */
	OUT_JOINED = 2,		/* also glued on: -oFILE, -MFfile */
	OUT_PRIMARY = 4,	/* the step's main output */
	OUT_EQ_ONLY = 8,	/* only "=value"; alone it writes next to -o */
};

struct output_flag {
	const char *name;
	unsigned how;
};

static const struct output_flag gcc_outputs[] = {
	{ "-o", OUT_JOINED | OUT_PRIMARY }, { "-MF", OUT_JOINED }, { "-MJ", OUT_JOINED },
	{ "--serialize-diagnostics", 0 }, { "-ftime-trace", OUT_EQ_ONLY },
	{ "-dumpdir", OUT_DIR }, { "-fcrash-diagnostics-dir", OUT_DIR }, { NULL, 0 }
};

static const struct output_flag nvcc_outputs[] = {
	{ "-o", OUT_PRIMARY }, { "--output-file", OUT_PRIMARY },
	{ "-MF", 0 }, { "--dependency-output", 0 },
	{ "--time", 0 }, { "-time", 0 },
	{ "-fdevice-time-trace", 0 }, { "--fdevice-time-trace", 0 },
	{ "-odir", OUT_DIR | OUT_PRIMARY }, { "--output-directory", OUT_DIR | OUT_PRIMARY },
	{ NULL, 0 }
};

/* Flags whose side outputs land where we cannot redirect them. */
static const char *const gcc_refused[] = {
	"-save-temps", "--save-temps", "-save-temps=cwd", "-fmodules-cache-path", NULL
};
static const char *const nvcc_refused[] = {
	"-keep", "--keep", "-keep-dir", "--keep-dir", "-save-temps", "--save-temps",
	"-run", "--run", NULL
};

/* Does `arg` match refused flag `flag` (exactly, or as "flag=value")? */
static bool matches_flag(const char *arg, const char *flag)
{
	size_t n = strlen(flag);
	return !strncmp(arg, flag, n) && (arg[n] == '\0' || arg[n] == '=');
}

static const char *refused_in(const char *arg, const char *const *refused)
{
	for (int i = 0; refused[i]; i++)
		if (matches_flag(arg, refused[i]))
			return refused[i];
	return NULL;
}

/* Side files a linker writes, named in the linker's own syntax (-Wl,…,
 * -Xlinker …): buildwall does not rewrite inside those. */
static const char *linker_side_file(const char *arg)
{
	static const char *const flags[] = { "-Map", "--Map", "--dependency-file", "--out-implib", NULL };
	for (int i = 0; flags[i]; i++)
		if (strstr(arg, flags[i]))
			return flags[i];
	return NULL;
}

/* Check nvcc's pass-through lists (-Xcompiler a,b,c) for flags that would
 * write host-compiler side files; returns the offending flag or NULL. */
static char *refused_in_list(const char *list)
{
	char *copy = xstrdup(list), *save = NULL, *hit = NULL;
	for (char *tok = strtok_r(copy, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save))
		if (refused_in(tok, gcc_refused) || has_prefix(tok, "-ftime-trace=") ||
		    matches_flag(tok, "-MF") || !strcmp(tok, "-o"))
			hit = xstrdup(tok);
	free(copy);
	return hit;
}

/* Point the value in *slot (after its first `keep` characters, the flag
 * itself when glued on) into dir, and record the move. */
static void redirect_slot(struct compile_command *cmd, char **slot, size_t keep, const char *dir, bool is_dir)
{
	const char *value = *slot + keep;
	char *to = is_dir || has_suffix(value, "/") ? xasprintf("%s/", dir)
						  : xasprintf("%s/%s", dir, base_name(value));
	strvec_push(&cmd->moved_from, value);
	strvec_push(&cmd->moved_to, to);
	char *arg = xasprintf("%.*s%s", (int)keep, *slot, to);
	free(to);
	free(*slot);
	*slot = arg;
}

bool driver_redirect_outputs(struct compile_command *cmd, const char *dir, char **err)
{
	bool nvcc = cmd->compiler == COMPILER_NVCC;
	const struct output_flag *outputs = nvcc ? nvcc_outputs : gcc_outputs;
	const char *const *refused = nvcc ? nvcc_refused : gcc_refused;

	if (cmd->compiler == COMPILER_UNKNOWN)
		return fail_with(err, xasprintf("'%s' is not a compiler buildwall knows, so it cannot tell which files it writes",
				 cmd->argv.v[0]));
	char **argv = cmd->argv.v;
	bool have_output = false;
	for (size_t i = 1; i < cmd->argv.n; i++) {
		const char *arg = argv[i];
		const char *bad = refused_in(arg, refused);
		if (bad)
			return fail_with(err, xasprintf("%s writes files buildwall cannot redirect; remove it to probe this command", bad));
		bool to_linker = has_prefix(arg, "-Wl,") || has_prefix(arg, "--linker-options") ||
				 (i > 1 && (!strcmp(argv[i - 1], "-Xlinker") || !strcmp(argv[i - 1], "--linker-options")));
		if (to_linker && linker_side_file(arg))
			return fail_with(err, xasprintf("%s makes the linker write a file (%s) buildwall cannot redirect", arg,
					 linker_side_file(arg)));
		if (nvcc && (!strcmp(arg, "-Xcompiler") || !strcmp(arg, "--compiler-options") ||
			     has_prefix(arg, "-Xcompiler=") || has_prefix(arg, "--compiler-options="))) {
			const char *list = strchr(arg, '=') ? strchr(arg, '=') + 1 : (i + 1 < cmd->argv.n ? argv[i + 1] : "");
			char *hit = refused_in_list(list);
			if (hit) {
				char *msg = xasprintf("%s %s passes %s to the host compiler, whose output buildwall cannot redirect",
						      arg, list, hit);
				free(hit);
				return ok_unless(err, msg);
			}
			if (!strchr(arg, '='))
				i++;
			continue;
		}
		for (const struct output_flag *f = outputs; f->name; f++) {
			size_t n = strlen(f->name);
			if (strncmp(arg, f->name, n))
				continue;
			if (arg[n] == '\0') {
				if (f->how & OUT_EQ_ONLY)
					break;	/* writes next to -o: already ours */
				if (i + 1 >= cmd->argv.n)
					return fail_with(err, xasprintf("%s is missing its file name", arg));
				redirect_slot(cmd, &argv[++i], 0, dir, f->how & OUT_DIR);
			} else if (arg[n] == '=' || (f->how & OUT_JOINED)) {
				redirect_slot(cmd, &argv[i], n + (arg[n] == '='), dir, f->how & OUT_DIR);
			} else {
				continue;	/* a longer flag that starts the same */
			}
			have_output |= (f->how & OUT_PRIMARY) != 0;
			break;
		}
	}
	if (!have_output)
		return fail_with(err, xstrdup("it has no -o, so the compiler would write its output into the build directory"));
	return true;
}

void driver_substitute(struct compile_command *cmd, const struct strvec *from, const struct strvec *to)
{
	for (size_t i = 1; i < cmd->argv.n; i++) {
		for (size_t k = 0; k < from->n; k++) {
			if (!strcmp(cmd->argv.v[i], from->v[k])) {
				free(cmd->argv.v[i]);
				cmd->argv.v[i] = xstrdup(to->v[k]);
				break;
			}
		}
	}
}

void driver_include_dirs(char *const *argv, size_t argc, const char *cwd, struct strvec *user, struct strvec *system)
{
	static const struct {
		const char *flag;
		bool system;
	} flags[] = {
		{ "-I", false }, { "-iquote", false }, { "--include-path", false },
		{ "-isystem", true }, { "-idirafter", true }, { "--system-include", true },
	};
	for (size_t i = 1; i < argc; i++) {
		for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
			size_t n = strlen(flags[f].flag);
			if (strncmp(argv[i], flags[f].flag, n))
				continue;
			const char *dir = argv[i] + n;
			bool long_flag = flags[f].flag[1] == '-';
			if (long_flag && *dir == '=')
				dir++;	/* --include-path=DIR */
			else if (!*dir && i + 1 < argc)
				dir = argv[++i];
			else if ((long_flag && *dir) || *dir == '-')
				continue;	/* another flag that starts the same (-isystem-after) */
			if (*dir)
				strvec_push_nodup(flags[f].system ? system : user, path_normalize(cwd, dir));
			break;
		}
	}
}

void compile_command_clear(struct compile_command *cmd)
{
	strvec_clear(&cmd->env);
	strvec_clear(&cmd->launchers);
	strvec_clear(&cmd->argv);
	strvec_clear(&cmd->moved_from);
	strvec_clear(&cmd->moved_to);
	cmd->compiler = COMPILER_UNKNOWN;
}

/* Point the command's -o at path: separate, or glued on (then already
 * redirected into the temp dir, which tells it from -objc… flags). */
void driver_set_output(struct strvec *argv, const char *path)
{
	for (size_t i = 1; i < argv->n; i++) {
		if (!strcmp(argv->v[i], "-o") && i + 1 < argv->n) {
			free(argv->v[i + 1]);
			argv->v[i + 1] = xstrdup(path);
			return;
		}
		if (has_prefix(argv->v[i], "-o") && has_prefix(argv->v[i] + 2, tmpdir_path())) {
			free(argv->v[i]);
			argv->v[i] = xasprintf("-o%s", path);
			return;
		}
	}
	strvec_push(argv, "-o");
	strvec_push(argv, path);
}

bool driver_side_by_side(enum compiler c, size_t n, struct strvec *argv)
{
	if (c == COMPILER_NVCC) {
		strvec_push(argv, "--threads");
		strvec_pushf(argv, "%zu", n);
		return true;
	}
	if (c == COMPILER_HIPCC || c == COMPILER_CLANG) {
		strvec_pushf(argv, "-parallel-jobs=%zu", n);
		return true;
	}
	return false;
}
