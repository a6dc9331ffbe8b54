// Stand-in for <torch/python.h>: the Python binding layer.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>
#include <torch/all.h>
