// Stand-in for <torch/library.h>: registering a module's functions as
// operators (TORCH_LIBRARY) without pybind11 or Python, the binding's
// narrow entry header (configure --fixes narrow).
#pragma once
#include <ATen/core/Tensor.h>

namespace torch {

class Library {
public:
	explicit Library(const char *ns) : ns_(ns) {}
	template <typename F> Library &def(const char *name, F *fn)
	{
		fns_.emplace_back(std::string(ns_) + "::" + name, reinterpret_cast<void (*)()>(fn));
		return *this;
	}

private:
	const char *ns_;
	std::vector<std::pair<std::string, void (*)()>> fns_;
};

} // namespace torch

// Registers at load time, as torch's static initializer does.
#define TORCH_LIBRARY(ns, m)                                                                        \
	static void torch_library_init_##ns(torch::Library &);                                       \
	[[maybe_unused]] static const int torch_library_##ns =                                      \
		(torch_library_init_##ns(*new torch::Library(#ns)), 0);                              \
	static void torch_library_init_##ns(torch::Library &m)
