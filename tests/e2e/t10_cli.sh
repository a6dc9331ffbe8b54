# The command line: help, version, and one clear line with exit 2 for every
# kind of bad input.
# e2e: aside
. "$(dirname "$0")/lib.sh"

run 0 "--help" "$BW" --help
contains "$T/out" "rank" "--help lists rank"
contains "$T/out" "wall" "--help lists wall"
for c in passes log sim survey; do contains "$T/out" "  $c " "--help lists $c"; done
run 0 "--version" "$BW" --version
contains "$T/out" "buildwall 0.1.0" "--version prints the version"
for c in wall rank passes log sim survey; do
	run 0 "$c --help" "$BW" "$c" --help
	contains "$T/out" "usage: buildwall $c" "$c --help shows its usage"
	contains "$T/out" "--json" "$c --help documents --json"
	run 0 "help $c" "$BW" help "$c"
done

# --help: the synopsis, then the options, then the prose, as a man page.
run 0 "advise --help" "$BW" advise --help
check "--help: the options right after the synopsis" [ "$(awk '/^$/ && !b { b = NR } /^options:/ { print NR - b; exit }' "$T/out")" = 1 ]

# The references as man pages, each from its docs/ page: every page in a
# man page's sections, every option its synopsis names among its options.
root=$(cd "$(dirname "$0")/../.." && pwd)
for page in "$root"/docs/buildwall.md "$root"/docs/wall.md "$root"/docs/rank.md "$root"/docs/passes.md "$root"/docs/log.md \
	"$root"/docs/sim.md "$root"/docs/pp.md "$root"/docs/leak.md "$root"/docs/advise.md "$root"/docs/ab.md "$root"/docs/trace.md \
	"$root"/docs/report.md "$root"/docs/record.md "$root"/docs/history.md "$root"/docs/check.md "$root"/docs/survey.md; do
	name=$(basename "$page" .md)
	check "docs/$name.md: NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS, EXAMPLES, SEE ALSO" [ "$(grep '^# ' "$page" | grep -v COMMANDS | grep -v ENVIRONMENT | tr '\n' '|')" = "# NAME|# SYNOPSIS|# DESCRIPTION|# OPTIONS|# EXIT STATUS|# EXAMPLES|# SEE ALSO|" ]
	check "docs/$name.md: every option the synopsis names is among its options" python3 -c '
import re, sys
text = open(sys.argv[1]).read()
synopsis = text.split("# SYNOPSIS", 1)[1].split("\n# ", 1)[0]
options = text.split("# OPTIONS", 1)[1].split("\n# ", 1)[0]
named = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", synopsis))
listed = set(re.findall(r"`(--?[A-Za-z][\w-]*)`", options))
missing = sorted(named - listed)
print(missing) if missing else None
sys.exit(1 if missing else 0)' "$page"
done
if command -v lowdown >/dev/null && command -v man >/dev/null; then
	run 0 "make install into a temp prefix" make -s -C "$root" install PREFIX="$T/prefix" BUILD="$(dirname "$BW")"
	check "the binary and a man page per command installed" [ "$(ls "$T/prefix/share/man/man1" | wc -l):$(test -x "$T/prefix/bin/buildwall" && echo x)" = 16:x ]
	run 0 "man buildwall-advise" env MANPATH="$T/prefix/share/man" MANWIDTH=100 man buildwall-advise
	contains "$T/out" "buildwall advise --from DOC.json" "man buildwall-advise: the synopsis"
	contains "$T/out" "EXIT STATUS" "man buildwall-advise: the exit status"
else
	not_ok "lowdown and man installed (make test installs them)"
fi

run 2 "unknown command" "$BW" frobnicate
one_line "$T/err" "unknown command: one line"
contains "$T/err" "'frobnicate' is not a buildwall command" "unknown command named"
run 2 "unknown option" "$BW" rank --bogus
one_line "$T/err" "unknown option: one line"
contains "$T/err" "buildwall: rank: unknown option '--bogus'" "unknown option named"
run 2 "bad number" "$BW" rank -r many
contains "$T/err" "-r takes a whole number" "bad number explained"
run 2 "missing option value" "$BW" wall -n
contains "$T/err" "option '-n' needs a value" "missing value explained"
for c in rank passes log sim; do
	extra=; [ $c = passes ] && extra=--all
	run 2 "$c: missing build dir" "$BW" $c -C "$T/nowhere" $extra
	one_line "$T/err" "$c: missing build dir: one line"
	contains "$T/err" "no such build directory" "$c: missing build dir named"
done
run 2 "survey --read of a dir that is not there" "$BW" survey --read "$T/nowhere"
one_line "$T/err" "survey --read: one line"
run 2 "survey: a bad option value" "$BW" survey --advise 0 "$T"
one_line "$T/err" "survey --advise 0: one line"
run 2 "missing build dir" "$BW" rank -C "$T/nowhere"
contains "$T/err" "$T/nowhere: no such build directory" "missing build dir named"
mkdir "$T/empty"
run 2 "dir without build.ninja" "$BW" rank -C "$T/empty"
contains "$T/err" "no build.ninja here" "no build.ninja explained"
run 2 "wall without a build" "$BW" wall
contains "$T/err" "name the build" "wall needs -C or --clean"
run 2 "wall -C and --clean" "$BW" wall -C "$T/empty" --clean true -- true
run 2 "wall bad regex" "$BW" wall --match '(' --clean true -- true
contains "$T/err" "invalid regex" "bad regex explained"
MAX_JOBS=lots run 2 "bad MAX_JOBS" "$BW" wall -C "$T/empty"
contains "$T/err" "MAX_JOBS must be a whole number" "bad MAX_JOBS explained"

# Targets: one naming rule, clear errors.
make_toy "$T/unbuilt"
run 2 "unbuilt tree" "$BW" rank -C "$T/unbuilt"
one_line "$T/err" "unbuilt tree: one line"
contains "$T/err" "the tree is not built: gen.h (input of a.o) is missing" "unbuilt tree explained"
build_toy "$T/toy"
run 2 "unknown target" "$BW" rank -C "$T/toy" nope.o
one_line "$T/err" "unknown target: one line"
contains "$T/err" "unknown target 'nope.o'" "unknown target named"
run 2 "glob matching nothing" "$BW" rank -C "$T/toy" '*.cuda.o'
contains "$T/err" "no target matches '*.cuda.o'" "empty glob named"
run 2 "not a compile step" "$BW" rank -C "$T/toy" prog
contains "$T/err" "prog is not a compile step (rule link)" "link target refused"
mkdir -p "$T/amb/src"
printf 'int x;\n' >"$T/amb/src/x.c"
cat >"$T/amb/build.ninja" <<'NINJA'
rule cc
  command = gcc -c $in -o $out
build one/x.o: cc src/x.c
build two/x.o: cc src/x.c
NINJA
ninja -C "$T/amb" >/dev/null
run 2 "ambiguous target" "$BW" rank -C "$T/amb" x.o
one_line "$T/err" "ambiguous target: one line"
contains "$T/err" "ambiguous target 'x.o': matches one/x.o, two/x.o" "ambiguous target lists both"
run 0 "full path disambiguates" "$BW" rank -C "$T/amb" two/x.o

# A corrupt .ninja_log is bad input with its line number for the commands
# that read it (log, sim); rank only takes other steps' times from it, so
# it says so and ranks the TUs.
cp -a "$T/toy" "$T/corrupt"
printf '10\tnot-a-number\t1\tb.o\tab\n' >>"$T/corrupt/.ninja_log"
n=$(wc -l <"$T/corrupt/.ninja_log")
run 2 "corrupt .ninja_log" "$BW" log -C "$T/corrupt"
one_line "$T/err" "corrupt .ninja_log: one line"
contains "$T/err" "$T/corrupt/.ninja_log:$n: malformed .ninja_log entry" "corrupt log: file and line"
run 0 "corrupt .ninja_log: rank still ranks" "$BW" rank -C "$T/corrupt" a.o
contains "$T/err" "$T/corrupt/.ninja_log:$n: malformed .ninja_log entry (want start, end, mtime, output, hash separated by tabs); no step times from it" "corrupt log: rank names it in its warning"

# Commands whose side outputs cannot be redirected are refused up front.
build_toy "$T/temps" "-save-temps=obj"
sed -i 's/-save-temps=obj/-save-temps/' "$T/temps/build.ninja"
run 2 "refuse -save-temps" "$BW" rank -C "$T/temps"
contains "$T/err" "cannot re-run this step safely: -save-temps writes files" "-save-temps refused with a reason"
finish
