#define _GNU_SOURCE
#include "guardian.h"
#include "memcg.h"
#include "tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { MSG_WATCH = 'W', MSG_UNWATCH = 'U', MSG_RELEASE = 'R' };

struct message {
	char op;
	pid_t pgid;
};

#define MAX_GROUPS 1024

static int sock = -1;
static pid_t owner;

/* In the guardian: never returns. */
static _Noreturn void guard(int fd, const char *tmp, pid_t run)
{
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	setpgid(0, 0);	/* out of buildwall's group: a kill of that group leaves it */
	/* Hold no terminal or pipe of buildwall's open: a reader of its
	 * output sees the end when buildwall ends, not when we do. */
	int null = open("/dev/null", O_RDWR);
	for (int i = 0; i < 3 && null >= 0; i++)
		dup2(null, i);
	static pid_t groups[MAX_GROUPS];
	size_t n = 0;
	struct message m;
	for (;;) {
		ssize_t got = recv(fd, &m, sizeof(m), MSG_WAITALL);
		if (got < 0 && errno == EINTR)
			continue;
		if (got != sizeof(m))
			break;	/* buildwall is gone */
		if (m.op == MSG_RELEASE) {
			memcg_sweep(run, 2.0);	/* a group left busy when its compile ended */
			_exit(0);
		}
		if (m.op == MSG_WATCH && n < MAX_GROUPS) {
			groups[n++] = m.pgid;
		} else if (m.op == MSG_UNWATCH) {
			for (size_t i = 0; i < n; i++)
				if (groups[i] == m.pgid) {
					groups[i] = groups[--n];
					break;
				}
		}
	}
	for (size_t i = 0; i < n; i++)
		kill(-groups[i], SIGKILL);
	remove_tree(tmp);
	memcg_sweep(run, 2.0);	/* once the killed compiles have left their cgroups */
	_exit(0);
}

void guardian_start(const char *tmp)
{
	if (sock >= 0)
		return;
	int pair[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair))
		return;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(pair[0]);
		close(pair[1]);
		return;
	}
	if (pid == 0) {
		close(pair[0]);
		guard(pair[1], tmp, getppid());
	}
	close(pair[1]);
	sock = pair[0];
	owner = getpid();
}

static void say(char op, pid_t pgid)
{
	if (sock < 0 || getpid() != owner)
		return;
	struct message m = { op, pgid };
	/* MSG_NOSIGNAL: a dead guardian must not take buildwall with it. */
	ssize_t sent = send(sock, &m, sizeof(m), MSG_NOSIGNAL);
	(void)sent;	/* without a guardian, the next run cleans up */
}

void guardian_watch(pid_t pgid)
{
	say(MSG_WATCH, pgid);
}

void guardian_unwatch(pid_t pgid)
{
	say(MSG_UNWATCH, pgid);
}

void guardian_release(void)
{
	say(MSG_RELEASE, 0);
	if (sock >= 0 && getpid() == owner) {
		close(sock);
		sock = -1;
	}
}
