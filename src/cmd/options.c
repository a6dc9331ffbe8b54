#define _GNU_SOURCE
#include "options.h"
#include "meminfo.h"
#include "cli.h"
#include "driver.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's value for entry i: its short name, else past any char. */
#define LONG_ONLY 256

static size_t count(const struct opt *opts)
{
	size_t n = 0;
	while (opts[n].type != OPTION_END)
		n++;
	return n;
}

/* "-C DIR", "-r, --repeats R", "--json". */
static char *spelling(const struct opt *o)
{
	char *names;
	if (o->short_name && o->long_name)
		names = xasprintf("-%c, --%s", o->short_name, o->long_name);
	else if (o->short_name)
		names = xasprintf("-%c", o->short_name);
	else
		names = xasprintf("--%s", o->long_name);
	char *s = o->arg ? xasprintf("%s %s", names, o->arg) : xstrdup(names);
	free(names);
	return s;
}

void options_help(FILE *f, const struct opt *opts)
{
	enum { COLUMN = 22 };
	fputs("options:\n", f);
	for (const struct opt *o = opts; o->type != OPTION_END; o++) {
		char *s = spelling(o);
		fprintf(f, "  %-*s", COLUMN - 2, s);
		if (strlen(s) > COLUMN - 3)
			fprintf(f, "\n%*s", COLUMN, "");
		free(s);
		for (const char *h = o->help; *h;) {
			size_t n = strcspn(h, "\n");
			fprintf(f, "%.*s\n", (int)n, h);
			h += n;
			if (*h == '\n' && *++h)
				fprintf(f, "%*s", COLUMN, "");
		}
	}
	fprintf(f, "  %-*s%s\n", COLUMN - 2, "-h, --help", "this help");
}

/* The option as the user spelled it: -r, or --repeats. */
static char *name_of(const struct opt *o, bool as_long)
{
	return as_long || !o->short_name ? xasprintf("--%s", o->long_name) : xasprintf("-%c", o->short_name);
}

static void take_value(const char *cmd, const struct opt *o, bool as_long, const char *arg)
{
	char *name = name_of(o, as_long), *err = NULL;
	switch (o->type) {
	case OPTION_FLAG: *(bool *)o->value = true; break;
	case OPTION_INT: *(long *)o->value = option_int(cmd, name, arg, o->min, o->max); break;
	case OPTION_SECONDS: *(double *)o->value = option_seconds(cmd, name, arg); break;
	case OPTION_STRING: *(const char **)o->value = arg; break;
	case OPTION_COUNT: *(size_t *)o->value = (size_t)option_count(cmd, name, arg); break;
	case OPTION_CALL:
		if (!o->call(o->value, arg, &err))
			usage_error(cmd, "%s", err);
		break;
	case OPTION_END: break;
	}
	free(name);
}

bool parse_share(const char *option, const char *arg, double *out, char **err)
{
	char *end;
	double v = strtod(arg, &end);
	if (end != arg && *end == '%' && !end[1])
		v /= 100;
	else if (end == arg || *end)
		return fail_with(err, xasprintf("%s is a share (0.05) or a percentage (5%%), not '%s'", option, arg));
	*out = v;
	return true;
}

bool parse_memory_option(void *kb, const char *arg, char **err)
{
	if (!parse_memory_size(arg, kb))
		return fail_with(err, xasprintf("--memory wants a size (16G, 800M, 1.5GiB), not '%s'", arg));
	return true;
}

bool parse_remote(void *remote_option, const char *arg, char **err)
{
	struct remote_option *r = remote_option;
	char *copy = xstrdup(arg), *colon = strchr(copy, ':');
	if (colon)
		*colon = '\0';
	r->speed = 1;
	bool ok = parse_int(copy, 1, 100000, &r->slots) &&
		  (!colon || (parse_double(colon + 1, &r->speed) && r->speed > 0 && r->speed <= 1000));
	free(copy);
	return ok_unless(err, ok ? NULL : xasprintf("--remote wants N[:SPEED]: slots from 1, a speed above 0 (2: twice as fast), not '%s'",
				     arg));
}

bool parse_launcher(void *launcher, const char *arg, char **err)
{
	if (strcmp(arg, "distcc"))
		return fail_with(err, xasprintf("--launcher: only distcc is supported (its log says where each compile ran), not '%s'",
				 arg));
	char *path = driver_find_program(arg);
	if (!path)
		return fail_with(err, xasprintf("--launcher %s: not found in PATH (apt-get install distcc)", arg));
	free(path);
	*(const char **)launcher = "distcc";
	return true;
}

bool parse_policy(void *policy_option, const char *arg, char **err)
{
	struct policy_option *p = policy_option;
	if (strcmp(arg, "manifest") && strcmp(arg, "critical"))
		return fail_with(err, xasprintf("--policy is manifest or critical, not '%s'", arg));
	p->given = true;
	p->policy = strcmp(arg, "critical") ? POLICY_MANIFEST : POLICY_CRITICAL;
	return true;
}

bool parse_project(void *path, const char *arg, char **err)
{
	char *abs = realpath(arg, NULL);
	if (!abs || !is_directory(abs)) {
		char *why = xasprintf("--project %s: %s", arg, abs ? "not a directory" : strerror(errno));
		free(abs);
		return ok_unless(err, why);
	}
	free(*(char **)path);	/* given twice: the last one holds */
	*(char **)path = abs;
	return true;
}

int parse_options(const char *cmd, int argc, char **argv, const struct opt *opts, const char *about)
{
	size_t n = count(opts);
	struct option *longopts = xcalloc(n + 2, sizeof(*longopts));
	char *shortopts = xmalloc(3 * n + 4), *s = shortopts;
	size_t nlong = 0;
	*s++ = ':';	/* a missing value is reported as ':' */
	for (size_t i = 0; i < n; i++) {
		const struct opt *o = &opts[i];
		int val = o->short_name ? o->short_name : LONG_ONLY + (int)i;
		if (o->short_name) {
			*s++ = o->short_name;
			if (o->type != OPTION_FLAG)
				*s++ = ':';
		}
		if (o->long_name)
			longopts[nlong++] = (struct option){ o->long_name, o->type == OPTION_FLAG ? no_argument : required_argument,
							     NULL, val };
	}
	*s++ = 'h';
	*s = '\0';
	longopts[nlong] = (struct option){ "help", no_argument, NULL, 'h' };
	opterr = 0;
	optind = 1;
	int c, longindex = -1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, &longindex)) != -1) {
		if (c == 'h') {
			/* The synopsis and the options first, as a man page
			 * has them; the prose after. */
			const char *prose = strstr(about, "\n\n");
			size_t head = prose ? (size_t)(prose - about) + 1 : strlen(about);
			fwrite(about, 1, head, stdout);
			fputc('\n', stdout);
			options_help(stdout, opts);
			if (prose && prose[2])
				printf("\n%s", prose + 2);
			free(longopts);
			free(shortopts);
			exit(EXIT_OK);
		}
		const struct opt *hit = NULL;
		for (size_t i = 0; i < n && !hit; i++)
			if (c == (opts[i].short_name ? opts[i].short_name : LONG_ONLY + (int)i))
				hit = &opts[i];
		if (!hit)
			bad_option(cmd, c, argv);
		take_value(cmd, hit, longindex >= 0, optarg);
		longindex = -1;
	}
	free(longopts);
	free(shortopts);
	return optind;
}

bool parse_label(void *labels, const char *arg, char **err)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return fail_with(err, xasprintf("--label takes KEY=VALUE, not '%s'", arg));
	strvec_push(labels, arg);
	return true;
}
