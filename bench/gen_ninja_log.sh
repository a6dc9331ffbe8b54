#!/bin/sh
# A .ninja_log (v5) of one clean build, as ninja writes it: STEPS steps on
# SLOTS job slots, in completion order, with Chromium-like output paths
# (obj/<component>/<target>/<file>.o, ~100 bytes a line), 1 % two-output
# edges (one line per output, same hash and times), 2 % zero-length stamp
# steps, and an idle gap now and then. Deterministic for a seed.
#   bench/gen_ninja_log.sh STEPS [SLOTS] [SEED] >.ninja_log
steps=${1:?usage: gen_ninja_log.sh STEPS [SLOTS] [SEED]}
slots=${2:-64}
seed=${3:-7}
echo "# ninja log v5"
awk -v steps="$steps" -v slots="$slots" -v seed="$seed" 'BEGIN {
	srand(seed)
	for (s = 0; s < slots; s++) free_at[s] = 0
	for (i = 0; i < steps; i++) {
		s = i % slots
		start = free_at[s]
		if (rand() < 0.001) start += int(rand() * 3000)	# an idle gap
		r = rand()
		if (r < 0.02) { dur = 0; ext = "stamp" }
		else { dur = int(-log(rand() + 1e-9) * 2500) + 5; ext = "o" }
		end = start + dur
		free_at[s] = end
		comp = sprintf("component_%03d", int(rand() * 200))
		target = sprintf("target_%04d", int(rand() * 3000))
		file = sprintf("source_file_%06d_impl", i)
		hash = sprintf("%08x%08x", int(rand() * 4294967295), i)
		mtime = sprintf("17%017d", i)
		printf "%d\t%d\t%s\tobj/%s/%s/%s.%s\t%s\n", start, end, mtime, comp, target, file, ext, hash
		if (r > 0.99)	# a second output of the same edge
			printf "%d\t%d\t%s\tgen/%s/%s/%s.h\t%s\n", start, end, mtime, comp, target, file, hash
	}
}' | sort -t "$(printf '\t')" -k2,2n -s
