/* Narrowing a framework's umbrella header: from what a TU's own text
 * uses (source_facts: the TU and the project headers it includes, macro
 * bodies too), the narrowest entry headers that supply it, and the code
 * change it takes besides the #include. Known layout: torch's. Its
 * umbrellas (<torch/extension.h>, <torch/torch.h>, <torch/all.h>,
 * <ATen/ATen.h>) parse every operator, autograd and, for extension.h,
 * pybind11 and Python; <ATen/core/Tensor.h> declares the Tensor class with
 * its methods and TORCH_CHECK; <torch/library.h> the op registration
 * (TORCH_LIBRARY). What each costs is measured (advise's header probes),
 * never assumed here.
 *
 * Ownership: a narrowing owns its strings until narrowing_free. */
#ifndef BUILDWALL_NARROW_H
#define BUILDWALL_NARROW_H

#include "source_facts.h"
#include "util.h"

struct narrowing {
	struct strvec headers;	/* the narrow entry headers, as an #include spells them */
	char *change;		/* the code change besides the #include, or NULL */
	char *why_not;		/* no headers: what the TU uses beyond them */
};

/* Known entry headers narrower than an umbrella, as an #include spells
 * them; NULL-terminated. */
extern const char *const narrow_entries[];
/* An umbrella header as an #include spells it ("<torch/extension.h>"). */
bool narrow_is_umbrella(const char *header);
/* For a TU whose framework entry headers are `headers`, using `uses`:
 * false when none of them is an umbrella (n untouched); else true, with
 * n's headers, or its why_not when its text needs more than they give. */
bool narrow_plan(const struct strvec *headers, const struct source_facts *uses, struct narrowing *n);
void narrowing_free(struct narrowing *n);

#endif
