#pragma once
#include <c10/core/TensorImpl.h>
#include <ATen/Tensor.h>
#include <ATen/ops/generated.h>
