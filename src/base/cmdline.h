/* Shell words: split a command line the way /bin/sh would for the simple
 * commands build tools emit, and join argv back into a line sh reads the
 * same way. Anything sh would treat as an operator is refused, not guessed. */
#ifndef BUILDWALL_CMDLINE_H
#define BUILDWALL_CMDLINE_H

#include "util.h"

/* Split `line` into words (quotes and backslashes removed). Returns NULL on
 * success, else a static message (unbalanced quote, shell operator, …). */
const char *cmdline_split(const char *line, struct strvec *words);
/* Join words, quoting each only when sh would otherwise change it. */
char *cmdline_join(char *const *words, size_t n);

#endif
