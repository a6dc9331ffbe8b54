// The pybind/torch TU: the module's Python face. It needs the framework,
// in both variants; with OPUS_FIX_NARROW (beyond the playbook) only its op
// registration (<torch/library.h>, TORCH_LIBRARY) instead of pybind11.
#ifdef OPUS_FIX_NARROW
#include <torch/library.h>
#else
#include <Python.h> // first, as pybind11 asks of a module's TUs
#include <torch/extension.h>
#endif
#include "opus/dispatch.h"

// The device-heavy kernel TU stays framework-free; its tensor glue is here
// (in the fused host TU with OPUS_FIX_FUSED), and so is the epilogue's once
// the framework is out of its launcher (OPUS_FIX_LAUNCHERS).
#include "opus/launcher.h"
#ifndef OPUS_FIX_FUSED
OPUS_TENSOR_WRAPPER(opus_gemm_bigtile)
#ifdef OPUS_FIX_LAUNCHERS
OPUS_TENSOR_WRAPPER(opus_epilogue)
#endif
#endif

namespace opus {
GemmArgs args_from(const at::Tensor &a, const at::Tensor &b, at::Tensor &c)
{
	TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && c.dim() == 2, "opus: expected 2-D tensors");
	return GemmArgs{ a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(),
			 (int)a.size(0), (int)b.size(1), (int)a.size(1) };
}
} // namespace opus

static void gemm(const std::string &key, const at::Tensor &a, const at::Tensor &b, at::Tensor &c)
{
	TORCH_CHECK(opus::dispatch(key, opus::args_from(a, b, c)), "opus: no kernel for ", key);
}

#ifdef OPUS_FIX_NARROW
// Python calls them as torch.ops.opus_demo.<name>.
TORCH_LIBRARY(opus_demo, m)
{
	m.def("gemm", &gemm);
#define OPUS_INSTANCE(name) m.def(#name, &name);
#include "opus_instances.inc"
#undef OPUS_INSTANCE
}
#else
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
	m.doc() = "buildwall demo module (opus GEMM instances)";
	m.def("gemm", &gemm, "run the instance serving KEY");
#define OPUS_INSTANCE(name) m.def(#name, &name);
#include "opus_instances.inc"
#undef OPUS_INSTANCE
}
#endif
