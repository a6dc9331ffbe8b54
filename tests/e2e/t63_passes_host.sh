# passes on the CUDA demo's dispatcher, a host TU gcc compiles: its plain
# job walls add up to the plain TU wall, within the 15 % this VM's
# repeats of one compile spread by, medians of three (one run of each on
# a busy 2-core runner can be 22 % apart); what -ftime-report costs the
# plain cc1plus, and the byte-identical build dir. Slow: nine compiles of
# a ~10 s TU.
# e2e: slow
# e2e: timing
. "$(dirname "$0")/lib.sh"
if command -v nvcc >/dev/null; then
	demo=$(demo_dir) || { not_ok "CUDA demo builds"; finish; exit 0; }
	before=$(tree_hash "$demo")
	run 0 "passes on the CUDA demo's dispatcher" "$BW" passes -C "$demo" -r 3 opus_dispatch.o --json
	cp "$T/out" "$T/host.json"
	ratio=$(tu_eval "$T/host.json" opus_dispatch.o 'round(t["jobs_sum_s"] / t["wall_s"], 3)')
	echo "# opus_dispatch.o: whole TU $(tu_eval "$T/host.json" opus_dispatch.o '"%(min).2f-%(max).2f s, median %(median).2f" % t["wall"]'); jobs $(tu_eval "$T/host.json" opus_dispatch.o '", ".join("%s %.2f s" % (j["tool"], j["wall_s"]) for j in t["jobs"])')"
	check "opus_dispatch.o (gcc): job sum within 15 % of the plain TU wall ($ratio)" python3 -c "import sys; sys.exit(0 if abs($ratio - 1) <= 0.15 else 1)"
	check "opus_dispatch.o: cc1plus timed plain and with -ftime-report" [ "$(tu_eval "$T/host.json" opus_dispatch.o '[(j["wall_s"] > 0, j["instrumented_wall_s"] > 0) for j in t["jobs"] if j["tool"] == "cc1plus"]')" = "[(True, True)]" ]
	echo "# opus_dispatch.o: gcc -ftime-report runs $(tu_eval "$T/host.json" opus_dispatch.o 'round([j["instrumented_wall_s"] / j["wall_s"] for j in t["jobs"] if j["tool"] == "cc1plus"][0], 2)') x the plain cc1plus"
	check "passes -r 3 leaves the build dir byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
fi

finish
