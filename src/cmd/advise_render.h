/* advise's two renderers, over a walk (plan/advise.h): advise prints
 * them, report draws the document.
 *
 * Ownership: advise_render_json returns a new JSON reference. */
#ifndef BUILDWALL_ADVISE_RENDER_H
#define BUILDWALL_ADVISE_RENDER_H

#include "advise.h"

#include <jansson.h>

/* The human tables on stdout. */
void advise_render_table(const struct advise *ad);
/* advise's --json document (docs/json.md). */
json_t *advise_render_json(const struct advise *ad);

#endif
