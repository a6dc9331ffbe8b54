#include "strmap.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Eight bytes at a time, each word multiplied in and folded (keys are
 * paths and template names of up to hundreds of bytes: a byte-wise hash
 * was most of the time of reading traces). */
static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ull ^ len;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = mix(h, w);
	}
	uint64_t tail = 0;
	memcpy(&tail, s + i, len - i);
	return mix(h, tail);
}

/* The slot holding key, or the empty slot where it would go. */
static struct strmap_slot *find_slot(const struct strmap *m, const char *key, size_t len, uint64_t hash)
{
	size_t mask = m->cap - 1;
	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];
		if (!s->key || (s->hash == hash && s->len == len && !memcmp(s->key, key, len)))
			return s;
	}
}

size_t strmap_get(const struct strmap *m, const char *key, size_t len)
{
	if (!m->cap)
		return STRMAP_NONE;
	struct strmap_slot *s = find_slot(m, key, len, hash_bytes(key, len));
	return s->key ? s->value : STRMAP_NONE;
}

static void grow(struct strmap *m)
{
	struct strmap old = *m;
	m->cap = old.cap ? 2 * old.cap : 64;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*find_slot(m, old.slots[i].key, old.slots[i].len, old.slots[i].hash) = old.slots[i];
	free(old.slots);
}

void strmap_put(struct strmap *m, const char *key, size_t len, size_t value)
{
	if (2 * (m->n + 1) > m->cap)	/* keep at most half full: probes stay short */
		grow(m);
	uint64_t hash = hash_bytes(key, len);
	*find_slot(m, key, len, hash) = (struct strmap_slot){ key, len, hash, value };
	m->n++;
}

void strmap_free(struct strmap *m)
{
	free(m->slots);
	*m = (struct strmap){ 0 };
}
