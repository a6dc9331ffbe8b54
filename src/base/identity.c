#include "identity.h"
#include "util.h"

#include <stdio.h>

/* Two FNV-1a lanes with different bases: 128 bits. */
#define FNV_PRIME 0x100000001b3ULL

void identity_init(struct identity_hash *h)
{
	*h = (struct identity_hash){ 0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL };
}

void identity_merge(struct identity_hash *sum, const struct identity_hash *part)
{
	sum->a += part->a;
	sum->b += part->b;
}

void identity_add(struct identity_hash *h, const char *field, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h->a = (h->a ^ (unsigned char)field[i]) * FNV_PRIME;
		h->b = (h->b ^ (unsigned char)field[i]) * FNV_PRIME + 1;
	}
	/* A separator no field holds, so ("ab", "c") is not ("a", "bc"). */
	h->a = (h->a ^ 0x1f) * FNV_PRIME;
	h->b = (h->b ^ 0x1f) * FNV_PRIME + 1;
}

void identity_add_number(struct identity_hash *h, double value)
{
	char text[32];
	int n = snprintf(text, sizeof(text), "%.3f", value);
	identity_add(h, text, (size_t)n);
}

char *identity_hex(const struct identity_hash *h)
{
	return xasprintf("%016llx%016llx", (unsigned long long)h->a, (unsigned long long)h->b);
}

