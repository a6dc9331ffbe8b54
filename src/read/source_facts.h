/* What a TU's own text says of its role, read from the source and the
 * project headers it includes (never from its extension: aiter compiles
 * its dispatcher as a .cu with hipcc): whether it defines or launches a kernel,
 * whether it is the module's binding (PYBIND11_MODULE, TORCH_LIBRARY), and
 * whether it names the framework only for tensors in its signatures. */
#ifndef BUILDWALL_SOURCE_FACTS_H
#define BUILDWALL_SOURCE_FACTS_H

#include <stdbool.h>
#include <stddef.h>

struct source_facts {
	bool defines_kernel;	/* a __global__ function (not a #define of the word) */
	bool launches_kernel;	/* a <<<grid, block>>> launch */
	bool binds_module;	/* PYBIND11_MODULE, TORCH_LIBRARY(_IMPL), PYBIND11_PLUGIN */
	size_t framework_names;	/* torch::X, at::X, c10::X and TORCH_, AT_, C10_ macros named in code */
	size_t tensor_names;	/* of those, X = Tensor */
	/* What narrowing the framework's headers must keep (narrow.h). */
	bool pybind_module;	/* PYBIND11_MODULE, PYBIND11_PLUGIN */
	bool registers_ops;	/* TORCH_LIBRARY(_IMPL), torch::Library */
	size_t tensor_api;	/* Tensor and the checks that come with it (TORCH_CHECK, …) */
	size_t torch_aliases;	/* of those, torch::Tensor: the umbrella's alias of at::Tensor */
	size_t beyond_tensor;	/* any other framework name: an op, a stream, AT_DISPATCH_…, py:: */
	char first_beyond[64];	/* the first of those, as written ("torch::empty") */
	/* "function<" anywhere in the text, #defines and comments included:
	 * without it no dispatch table of std::function is written here. */
	bool names_function;
};

/* Scan text (len bytes) and add what it shows to f. Comments, string
 * literals and preprocessor lines do not count. */
void source_facts_scan(const char *text, size_t len, struct source_facts *f);
/* The same for a file; false when it cannot be read. */
bool source_facts_file(const char *path, struct source_facts *f);
/* Add what `from` shows to `to` (a TU and the headers it includes). */
void source_facts_add(struct source_facts *to, const struct source_facts *from);
/* The framework appears only as Tensor: raw pointers would do. */
bool source_facts_tensor_only(const struct source_facts *f);

#endif
