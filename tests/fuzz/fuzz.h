/* What every harness shares: the input as a file the parsers can open (a
 * memfd, so nothing touches the disk), and an invariant check that aborts,
 * which libFuzzer reports as a crash with the input that broke it. */
#ifndef BUILDWALL_FUZZ_H
#define BUILDWALL_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define INVARIANT(cond)                                                              \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "invariant broken: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
			abort();                                                     \
		}                                                                    \
	} while (0)

/* The input in a memfd, rewound; returns its fd (the caller closes it). */
static inline int fuzz_memfd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	INVARIANT(fd >= 0);
	for (size_t off = 0; off < size;) {
		ssize_t n = write(fd, data + off, size - off);
		INVARIANT(n > 0);
		off += (size_t)n;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* The memfd's name as a path, for parsers that open a file. */
static inline char *fuzz_path(int fd)
{
	char *p = malloc(32);
	INVARIANT(p);
	snprintf(p, 32, "/proc/self/fd/%d", fd);
	return p;
}

/* The input as a NUL-terminated string (embedded NULs end it early). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	INVARIANT(s);
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
