# passes on the CUDA demo's dispatcher, a host TU gcc compiles: gcc's jobs
# (the driver's -### re-run one by one), cc1plus timed plain and with
# -ftime-report, and the byte-identical build dir. (How close the jobs add
# up to the TU's wall, and what -ftime-report costs, are
# bench/passes_validate.sh's.) Slow: three compiles of a ~10 s TU.
# e2e: slow
# e2e: aside
. "$(dirname "$0")/lib.sh"
if command -v nvcc >/dev/null; then
	demo=$(demo_dir) || { not_ok "CUDA demo builds"; finish; exit 0; }
	before=$(tree_hash "$demo")
	run 0 "passes on the CUDA demo's dispatcher" "$BW" passes -C "$demo" opus_dispatch.o --json
	cp "$T/out" "$T/host.json"
	check "opus_dispatch.o (gcc): the driver's jobs, in order" [ "$(tu_eval "$T/host.json" opus_dispatch.o '[j["tool"] for j in t["jobs"]]')" = "['cc1plus', 'as']" ]
	check "opus_dispatch.o: cc1plus timed plain and with -ftime-report" [ "$(tu_eval "$T/host.json" opus_dispatch.o '[(j["wall_s"] > 0, j["instrumented_wall_s"] > 0) for j in t["jobs"] if j["tool"] == "cc1plus"]')" = "[(True, True)]" ]
	check "passes leaves the build dir byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
fi

finish
