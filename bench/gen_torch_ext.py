#!/usr/bin/env python3
"""Write a PyTorch CUDA extension shaped like the ones advise is for, as
torch's cpp_extension lays it out (build.ninja with nvcc and c++ rules), in
one of its variants: N kernel instance TUs (kern_0.cu ...), a dispatcher
with an unordered_map<int, std::function<...>> and a binding TU.

--fixes applies the playbook's fixes, each as a build-side change:
  split  guard the torch include (and the tensor wrapper) from the device pass
  fused  kernel TUs torch-free; every tensor wrapper in one fused host TU
  raw    the dispatcher takes raw pointers, no torch; the binding converts
  flat   a flat array of function pointers instead of the std::function map
  narrow beyond the playbook: <ATen/core/Tensor.h> instead of <torch/extension.h>
         where tensors are all the code handles; the binding registers with
         TORCH_LIBRARY (<torch/library.h>) instead of PYBIND11_MODULE

Usage: gen_torch_ext.py DIR [--fixes split,fused,raw,flat] [--instances N]
                            [--arch sm_90] [--unroll U] [--torch-include DIR]
Needs torch (its include dirs) and python3's headers."""
import argparse
import os
import sys
import sysconfig

FIXES = ("split", "fused", "raw", "flat", "narrow")


def tensor_header(fixes):
    """What a TU that handles tensors includes: the umbrella, or narrowed."""
    return "#include <ATen/core/Tensor.h>\n" if "narrow" in fixes else "#include <torch/extension.h>\n"


def tensor(fixes):
    """The tensor type as it is spelled: torch::Tensor is the umbrella's alias."""
    return "at::Tensor" if "narrow" in fixes else "torch::Tensor"


def kernel_tu(i, fixes, unroll):
    torch_include = tensor_header(fixes)
    if "fused" in fixes:
        torch_include = ""
    elif "split" in fixes:
        torch_include = "#ifndef __CUDA_ARCH__\n" + torch_include + "#endif\n"
    wrapper = ""
    if "fused" not in fixes:
        wrapper = tensor_glue(i, fixes)
        if "split" in fixes:
            wrapper = "#ifndef __CUDA_ARCH__\n" + wrapper + "#endif\n"
    return (
        f"// Kernel instance {i}: generated.\n{torch_include}"
        "#include <cstdint>\n\n"
        f"template <int U>\n__global__ void kern_{i}_k(const float *a, float *c, long n)\n{{\n"
        "\tlong i = (long)blockIdx.x * blockDim.x + threadIdx.x;\n\tfloat acc = 0;\n"
        "#pragma unroll\n\tfor (int u = 0; u < U; u++)\n"
        f"\t\tacc = fmaf(a[(i + u) % n], 1.0f + u * {i + 1}.5f, acc);\n"
        "\tif (i < n)\n\t\tc[i] = acc;\n}\n\n"
        f"void kern_{i}_launch(const float *a, float *c, long n)\n{{\n"
        f"\tkern_{i}_k<{unroll}><<<(unsigned)((n + 255) / 256), 256>>>(a, c, n);\n}}\n\n"
        + wrapper
    )


def tensor_glue(i, fixes):
    """An instance's tensor wrapper: in its kernel TU, or moved as it is
    into the fused host TU (the fix moves the glue; it adds none)."""
    t = tensor(fixes)
    return (f"void kern_{i}({t} a, {t} c)\n{{\n"
            f"\tkern_{i}_launch(a.data_ptr<float>(), c.data_ptr<float>(), a.numel());\n}}\n")


def fused_tu(n, fixes):
    out = "// The fused host TU: every instance's tensor glue, torch parsed once.\n"
    out += tensor_header(fixes) + "\n"
    for i in range(n):
        out += f"void kern_{i}_launch(const float *a, float *c, long n);\n" + tensor_glue(i, fixes)
    return out


def dispatcher(n, fixes):
    raw, flat = "raw" in fixes, "flat" in fixes
    if raw:
        sig, args, call = "const float *, float *, long", "const float *a, float *c, long n", "a, c, n"
        head = "#include <cstddef>\n"
        decl = "".join(f"void kern_{i}_launch(const float *a, float *c, long n);\n" for i in range(n))
        target = "kern_{}_launch"
    else:
        t = tensor(fixes)
        sig, args, call = f"{t}, {t}", f"{t} a, {t} c", "a, c"
        head = tensor_header(fixes)
        decl = "".join(f"void kern_{i}({t} a, {t} c);\n" for i in range(n))
        target = "kern_{}"
    out = "// The dispatcher: key -> kernel instance.\n" + head
    if flat:
        out += decl + f"\nusing Fn = void (*)({sig});\nstatic const Fn table[] = {{\n"
        out += "".join(f"\t&{target.format(i)},\n" for i in range(n)) + "};\n\n"
        out += f"bool run({'int key, ' + args})\n{{\n\tif (key < 0 || key >= {n})\n\t\treturn false;\n"
        out += f"\ttable[key]({call});\n\treturn true;\n}}\n"
    else:
        out += "#include <functional>\n#include <unordered_map>\n" + decl
        out += f"\nbool run({'int key, ' + args})\n{{\n"
        out += f"\tstatic const std::unordered_map<int, std::function<void({sig})>> table = {{\n"
        out += "".join(f"\t\t{{ {i}, []({args}) {{ {target.format(i)}({call}); }} }},\n" for i in range(n))
        out += "\t};\n\tauto it = table.find(key);\n\tif (it == table.end())\n\t\treturn false;\n"
        out += f"\tit->second({call});\n\treturn true;\n}}\n"
    return out


def binding(fixes):
    narrow = "narrow" in fixes
    out = "// The binding: the module's Python face.\n"
    # Narrowed: registered as an operator (torch.ops.bench_ext.run), whose
    # schema takes int64_t, with no pybind11 or Python headers.
    out += "#include <torch/library.h>\n#include <ATen/core/Tensor.h>\n\n" if narrow else "#include <torch/extension.h>\n\n"
    key, t = "int64_t key" if narrow else "int key", tensor(fixes)
    if "raw" in fixes:
        out += "bool run(int key, const float *a, float *c, long n);\n"
        out += (f"static bool run_tensors({key}, {t} a, {t} c)\n{{\n"
                "\tTORCH_CHECK(a.is_cuda() && a.numel() == c.numel(), \"run: bad tensors\");\n"
                "\treturn run((int)key, a.data_ptr<float>(), c.data_ptr<float>(), a.numel());\n}\n")
    else:
        out += f"bool run(int key, {t} a, {t} c);\n"
        out += f"static bool run_tensors({key}, {t} a, {t} c) {{ return run((int)key, a, c); }}\n"
    if narrow:
        out += "\nTORCH_LIBRARY(bench_ext, m)\n{\n\tm.def(\"run\", &run_tensors);\n}\n"
    else:
        out += "\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m)\n{\n\tm.def(\"run\", &run_tensors);\n}\n"
    return out


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir")
    p.add_argument("--fixes", default="")
    p.add_argument("--instances", type=int, default=6)
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--unroll", type=int, default=64)
    p.add_argument("--torch-include", help="torch's include dir (default: the installed torch's)")
    o = p.parse_args()
    fixes = set(f for f in o.fixes.split(",") if f)
    bad = fixes - set(FIXES)
    if bad:
        sys.exit(f"gen_torch_ext.py: unknown fix {sorted(bad)[0]} (know: {', '.join(FIXES)})")
    tinc = o.torch_include
    if not tinc:
        import torch
        tinc = os.path.join(os.path.dirname(torch.__file__), "include")
    incs = f"-isystem {tinc} -isystem {tinc}/torch/csrc/api/include -isystem {sysconfig.get_paths()['include']}"
    defs = "-DTORCH_EXTENSION_NAME=bench_ext -DTORCH_API_INCLUDE_EXTENSION_H -D_GLIBCXX_USE_CXX11_ABI=1"
    cc = "sm_" + o.arch.split("_")[1]
    src = os.path.join(os.path.abspath(o.dir), "src")
    n = o.instances
    for i in range(n):
        write(f"{src}/kern_{i}.cu", kernel_tu(i, fixes, o.unroll))
    write(f"{src}/dispatch.cpp", dispatcher(n, fixes))
    write(f"{src}/bind.cpp", binding(fixes))
    objs = [f"kern_{i}.cuda.o" for i in range(n)] + ["dispatch.o", "bind.o"]
    if "fused" in fixes:
        write(f"{src}/fused_host.cpp", fused_tu(n, fixes))
        objs.append("fused_host.o")
    nin = (f"ninja_required_version = 1.3\ncxx = c++\nnvcc = nvcc\n\n"
           f"cflags = {defs} {incs} -fPIC -std=c++17 -O2\n"
           f"cuda_cflags = {defs} {incs} -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ "
           f"-D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr "
           f"-gencode=arch=compute_{cc[3:]},code={cc} --compiler-options '-fPIC' -O2 -std=c++17\n\n"
           "rule compile\n  command = $cxx -MMD -MF $out.d $cflags -c $in -o $out\n  depfile = $out.d\n  deps = gcc\n\n"
           "rule cuda_compile\n  depfile = $out.d\n  deps = gcc\n"
           "  command = $nvcc --generate-dependencies-with-compile --dependency-output $out.d $cuda_cflags -c $in -o $out\n\n"
           "rule link\n  command = $cxx $in -shared -o $out\n\n")
    for i in range(n):
        nin += f"build kern_{i}.cuda.o: cuda_compile {src}/kern_{i}.cu\n"
    nin += f"build dispatch.o: compile {src}/dispatch.cpp\nbuild bind.o: compile {src}/bind.cpp\n"
    if "fused" in fixes:
        nin += f"build fused_host.o: compile {src}/fused_host.cpp\n"
    nin += f"\nbuild bench_ext.so: link {' '.join(objs)}\n\ndefault bench_ext.so\n"
    write(os.path.join(os.path.abspath(o.dir), "build", "build.ninja"), nin)


if __name__ == "__main__":
    main()
