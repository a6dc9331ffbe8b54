/* The HTML writer's escaping: every name from a build (targets, headers,
 * commands) goes through it, so a header named <script> is text. */
#ifndef BUILDWALL_OUT_HTML_H
#define BUILDWALL_OUT_HTML_H

#include <stdio.h>

/* s as HTML text or a quoted attribute value: & < > " ' escaped. NULL
 * writes nothing. */
void html_text(FILE *f, const char *s);
/* printf, then html_text of what it made: for numbers with words. */
void html_textf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
