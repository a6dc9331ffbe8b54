# narrow, the fix beyond the playbook, and the demo's narrow variant
# (configure --fixes narrow: <ATen/core/Tensor.h> where only tensors are
# handled, the binding TORCH_LIBRARY with <torch/library.h>): it builds,
# its binding parses no pybind11 nor Python, and on it nothing is left to
# narrow; every tree byte-identical. (The narrow variant's wall against
# advise's prediction is bench/narrow_validate.sh's.)
# e2e: slow
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

narrow=$T/narrow
"$here/../../examples/demo-module/configure" --size small --fixes narrow "$narrow" >/dev/null
check "the narrow variant builds" ninja -C "$narrow" -j 2

# Preprocessed, the binding parses no pybind11 nor Python any more.
run 0 "pp on the narrow variant's binding" "$BW" pp -C "$narrow" opus_pybind.o --json
check "the narrowed binding parses no pybind11 or Python" [ "$(json "$T/out" '[g["name"] for t in d["tus"] for p in t["passes"] for g in p["groups"] if g["name"] in ("pybind11", "python")]')" = "[]" ]

# Nothing left to narrow: no TU includes an umbrella.
before=$(tree_hash "$narrow")
run 0 "advise on the narrow variant (the binding and the dispatcher)" "$BW" advise -C "$narrow" -j 2 -r 1 opus_pybind.o opus_dispatch.o --json
check "narrow variant: narrow does not apply, no umbrella left" [ "$(json "$T/out" '[c["checked"] for c in d["not_applicable"] if c["fix"] == "narrow"][0].startswith("no TU includes a framework")')" = True ]
check "advise leaves the narrow variant byte-identical" [ "$(tree_hash "$narrow")" = "$before" ]
finish
