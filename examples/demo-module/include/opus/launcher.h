// What every kernel instance TU includes: the GPU prologue and the
// framework's tensor and binding headers, as aiter's instance TUs do.
//
// Planted fact (baseline): these host-only headers are parsed by BOTH the
// host pass and every device pass, so each kernel TU pays for torch and
// pybind11 once per pass.
// The fixes (configure --fixes): with OPUS_FIX_SPLIT the device pass never
// sees them (guarded by __CUDA_ARCH__ / __HIP_DEVICE_COMPILE__); with the
// per-source flag -DOPUS_DEVICE_ONLY (fixes "fused" for the generated
// instances, "launchers" for the epilogue) the TU keeps no framework code
// at all: its tensor glue lives in a host TU. With OPUS_FIX_NARROW (beyond
// the playbook) the wrapper's only header is <ATen/core/Tensor.h>.
#pragma once
#include "opus/gemm_args.h"
#include "opus/gpu.h"

#if !defined(OPUS_DEVICE_ONLY) && \
    (!defined(OPUS_FIX_SPLIT) || (!defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)))
#define OPUS_WITH_FRAMEWORK 1
#ifdef OPUS_FIX_NARROW
#include <ATen/core/Tensor.h> // the tensor wrapper needs no more
#else
#include <pybind11/pybind11.h>
#include <torch/extension.h>
#endif
#endif

// The tensor wrapper every instance exposes to Python; defined per instance
// TU in the baseline, in src/opus_host_fused.cpp when optimized.
#define OPUS_TENSOR_WRAPPER(name)                                                   \
	void name(const at::Tensor &a, const at::Tensor &b, at::Tensor &c)             \
	{                                                                               \
		TORCH_CHECK(a.dim() == 2 && b.dim() == 2, #name ": expected 2-D tensors"); \
		TORCH_CHECK(a.size(1) == b.size(0), #name ": inner sizes differ");         \
		name##_launch(opus::GemmArgs{ a.data_ptr<float>(), b.data_ptr<float>(),   \
					      c.data_ptr<float>(), (int)a.size(0),          \
					      (int)b.size(1), (int)a.size(1) });            \
	}
