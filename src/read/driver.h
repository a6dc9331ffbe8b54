/* Compile commands: which compiler driver a command runs (gcc, clang,
 * hipcc, nvcc), behind which launchers (ccache, sccache, distcc), and how to
 * re-run it so that every file it writes lands in a directory of ours. */
#ifndef BUILDWALL_DRIVER_H
#define BUILDWALL_DRIVER_H

#include "util.h"

enum compiler {
	COMPILER_UNKNOWN,
	COMPILER_GCC,
	COMPILER_CLANG,
	COMPILER_HIPCC,
	COMPILER_NVCC,
};

struct compile_command {
	struct strvec env;	/* leading NAME=value words */
	struct strvec launchers;/* stripped launchers, in order */
	struct strvec argv;	/* the compiler and its arguments */
	enum compiler compiler;
	/* Original output paths and where the rewrite sent them. */
	struct strvec moved_from, moved_to;
};

const char *compiler_name(enum compiler c);
/* Recognise a compiler from its program name or path (resolving links
 * such as /usr/bin/c++ -> g++ through PATH). */
enum compiler driver_identify(const char *program);
bool driver_is_launcher(const char *program);
/* The program's path as PATH finds it (owned), or NULL. */
char *driver_find_program(const char *program);

/* Parse a command line from ninja. False, with *err set to an error message
 * (owned by the caller). Launchers are stripped into cmd->launchers;
 * "@file" response files are expanded relative to cwd. */
bool driver_parse(const char *line, const char *cwd, struct compile_command *cmd, char **err);
/* Point every output-writing flag into dir. False, with *err set to a message
 * naming a flag whose output cannot be redirected (-save-temps, --keep…). */
bool driver_redirect_outputs(struct compile_command *cmd, const char *dir, char **err);
/* Point an argv's -o at path (added when there is none): separate, or
 * glued on once redirected into the temp dir. */
void driver_set_output(struct strvec *argv, const char *path);
/* Replace whole arguments equal to from[i] by to[i] (link inputs). */
void driver_substitute(struct compile_command *cmd, const struct strvec *from, const struct strvec *to);
/* The include directories an argv names, made absolute against cwd, in
 * order: `user` for -I, -iquote and nvcc's --include-path; `system` for
 * -isystem, -idirafter and nvcc's --system-include. */
void driver_include_dirs(char *const *argv, size_t argc, const char *cwd, struct strvec *user, struct strvec *system);
/* The arguments that compile a TU's n device archs side by side (nvcc
 * --threads N, hipcc and clang -parallel-jobs=N), onto argv; false for a
 * compiler that has none. */
bool driver_side_by_side(enum compiler c, size_t n, struct strvec *argv);
void compile_command_clear(struct compile_command *cmd);

#endif
