// Every kernel instance this module builds (generated list): each exports
// a framework-free NAME_launch(GemmArgs) and a tensor wrapper NAME(...).
#pragma once
#include "opus/tensor_args.h"

#define OPUS_INSTANCE(name)                      \
	void name##_launch(const opus::GemmArgs &); \
	void name(const at::Tensor &, const at::Tensor &, at::Tensor &);
#include "opus_instances.inc"
#undef OPUS_INSTANCE
