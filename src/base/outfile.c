#include "outfile.h"
#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *open_tmp;	/* the temp file an exit must remove */

static void remove_open_tmp(void)
{
	if (open_tmp)
		unlink(open_tmp);
}

FILE *outfile_open(struct outfile *o, const char *path)
{
	static bool registered;
	*o = (struct outfile){ .path = path, .tmp = xasprintf("%s.tmp.XXXXXX", path) };
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		int err = errno;
		/* A path that cannot be opened is the user's to fix; the rest
		 * (a full disk) is ours to report. */
		bool users = err == ENOENT || err == ENOTDIR || err == EACCES || err == EROFS;
		die(users ? EXIT_BAD_INPUT : EXIT_INTERNAL, "%s: cannot write: %s", path, strerror(err));
	}
	if (!registered) {
		atexit(remove_open_tmp);
		registered = true;
	}
	open_tmp = o->tmp;
	o->f = fdopen(fd, "w");
	if (!o->f)
		die(EXIT_INTERNAL, "%s: cannot write: %s", path, strerror(errno));
	return o->f;
}

void outfile_commit(struct outfile *o)
{
	/* mkstemp made it 0600; the file itself gets what any new file does. */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fileno(o->f), 0666 & ~mask);
	bool ok = !ferror(o->f);
	ok = fclose(o->f) == 0 && ok;
	int err = errno ? errno : EIO;
	if (ok && rename(o->tmp, o->path) != 0) {
		ok = false;
		err = errno;
	}
	if (!ok)
		die(EXIT_INTERNAL, "%s: cannot write: %s", o->path, strerror(err));	/* the temp file goes at exit */
	open_tmp = NULL;
	free(o->tmp);
	o->tmp = NULL;
}
