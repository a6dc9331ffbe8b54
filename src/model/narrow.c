#include "narrow.h"

#include <stdlib.h>
#include <string.h>

static const char *const umbrellas[] = { "torch/extension.h", "torch/torch.h", "torch/all.h", "ATen/ATen.h" };

/* torch's entry headers narrower than extension.h, each a whole API a TU
 * may need part of: the tensor types and factories, the operators, the
 * Tensor class, op registration, TorchScript. */
const char *const narrow_entries[] = { "<torch/types.h>", "<ATen/ATen.h>", "<ATen/core/Tensor.h>",
				       "<torch/library.h>", "<torch/script.h>", NULL };

bool narrow_is_umbrella(const char *header)
{
	size_t len = strlen(header);
	if (len < 3 || !strchr("<\"", header[0]) || header[len - 1] != (header[0] == '<' ? '>' : '"'))
		return false;
	for (size_t k = 0; k < sizeof(umbrellas) / sizeof(*umbrellas); k++)
		if (strlen(umbrellas[k]) == len - 2 && !memcmp(header + 1, umbrellas[k], len - 2))
			return true;
	return false;
}

bool narrow_plan(const struct strvec *headers, const struct source_facts *uses, struct narrowing *n)
{
	bool umbrella = false;
	for (size_t i = 0; i < headers->n; i++)
		umbrella |= narrow_is_umbrella(headers->v[i]);
	if (!umbrella)
		return false;
	*n = (struct narrowing){ 0 };
	if (uses->beyond_tensor) {
		n->why_not = uses->beyond_tensor > 1
			? xasprintf("its code uses %s and %zu more names beyond tensors and their registration",
				    uses->first_beyond, uses->beyond_tensor - 1)
			: xasprintf("its code uses %s beyond tensors and their registration", uses->first_beyond);
		return true;
	}
	if (!uses->tensor_api && !uses->pybind_module && !uses->registers_ops) {
		n->why_not = xstrdup("its code names none of the framework (the include can go: leak and raw say so)");
		return true;
	}
	if (uses->pybind_module || uses->registers_ops)
		strvec_push(&n->headers, "<torch/library.h>");
	strvec_push(&n->headers, "<ATen/core/Tensor.h>");
	const char *alias = uses->torch_aliases ? "torch::Tensor becomes at::Tensor (the umbrella's alias)" : NULL;
	if (uses->pybind_module)
		n->change = xasprintf("register its functions with TORCH_LIBRARY(<namespace>, m) from <torch/library.h> "
				      "instead of PYBIND11_MODULE: Python calls them as torch.ops.<namespace>.<name>, and "
				      "their int arguments become int64_t%s%s", alias ? "; " : "", alias ? alias : "");
	else if (alias)
		n->change = xstrdup(alias);
	return true;
}

void narrowing_free(struct narrowing *n)
{
	strvec_clear(&n->headers);
	free(n->change);
	free(n->why_not);
	*n = (struct narrowing){ 0 };
}
