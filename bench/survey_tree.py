#!/usr/bin/env python3
"""Write a tree of N JIT modules of S steps each, as aiter lays them out
(<root>/build/<module>/build), for bench/survey_speed.sh: each module's
build.ninja (S-1 compiles and a link), its sources (a tenth shared by every
module) and a .ninja_log of B clean builds. Nothing is compiled."""
import os
import random
import sys

root, modules, steps, builds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(7)
shared = os.path.join(root, "csrc")
os.makedirs(shared, exist_ok=True)
nshared = max(1, (steps - 1) // 10)
for i in range(nshared):
    with open(os.path.join(shared, f"common_{i}.cu"), "w") as f:
        f.write(f'#include "common.h"\n__global__ void common_{i}(float *x) {{ x[0] = {i}; }}\n')
for m in range(modules):
    name = f"module_{m:03d}"
    build = os.path.join(root, "build", name, "build")
    srcs = os.path.join(root, "build", name, "blob")
    os.makedirs(build, exist_ok=True)
    os.makedirs(srcs, exist_ok=True)
    objs = []
    with open(os.path.join(build, "build.ninja"), "w") as f:
        f.write("rule cuda_compile\n  command = hipcc -c $in -o $out\n  depfile = $out.d\n  deps = gcc\n"
                "rule link\n  command = hipcc -shared $in -o $out\n")
        for k in range(steps - 1):
            if k < nshared:
                src = os.path.join(shared, f"common_{k}.cu")
            else:
                src = os.path.join(srcs, f"{name}_kernel_{k}.cu")
                with open(src, "w") as s:
                    s.write(f'#include "{name}.h"\n__global__ void kernel_{k}(float *x) {{ x[0] = {k}; }}\n'
                            f"void launch_{k}(float *x) {{ kernel_{k}<<<1, 64>>>(x); }}\n")
            obj = f"{name}_kernel_{k}.cuda.o"
            objs.append(obj)
            f.write(f"build {obj}: cuda_compile {src}\n")
        f.write(f"build {name}.so: link {' '.join(objs)}\ndefault {name}.so\n")
    with open(os.path.join(build, ".ninja_log"), "w") as f:
        f.write("# ninja log v5\n")
        for b in range(builds):
            t = [0] * 16
            lines = []
            for k, obj in enumerate(objs):
                slot = min(range(16), key=lambda j: t[j])
                start = t[slot]
                end = start + rnd.randint(2000, 30000)
                t[slot] = end
                lines.append((end, f"{start}\t{end}\t0\t{obj}\t{rnd.getrandbits(64):016x}\n"))
            for _, line in sorted(lines):
                f.write(line)
            last = max(t)
            f.write(f"{last}\t{last + 500}\t0\t{name}.so\t{rnd.getrandbits(64):016x}\n")
