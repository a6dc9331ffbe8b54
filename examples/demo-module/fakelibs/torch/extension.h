// Stand-in for <torch/extension.h>: everything a C++ extension needs,
// tensors and Python bindings, in one heavy include.
#pragma once
#include <torch/all.h>
#include <torch/python.h>
