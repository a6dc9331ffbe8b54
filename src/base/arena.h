/* Strings that never move: copied into chunks that are only freed
 * together, so a map's keys or a log's names can point into them, with no
 * allocation per string.
 *
 * Ownership: the arena owns every copy; arena_free frees them all. */
#ifndef BUILDWALL_ARENA_H
#define BUILDWALL_ARENA_H
#include <stddef.h>

struct arena_chunk;
struct arena {
	struct arena_chunk *head;
};

/* A NUL-terminated copy of s[0..len). */
char *arena_copy(struct arena *a, const char *s, size_t len);
void arena_free(struct arena *a);
#endif
