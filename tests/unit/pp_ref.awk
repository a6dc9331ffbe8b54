# An independent count of preprocessed output, for the markers tests: the
# total (NR), the marker lines, and each file's own lines (non-marker lines
# while it is on top of the include stack), as "lines<TAB>name" lines.
# Plain names only (no escaped quotes), which is what compilers emit here.
BEGIN { depth = 1; stack[1] = "(no line marker)" }
{ sub(/\r$/, "") }
/^#( |line )[ ]*[0-9]+ "/ {
	markers++
	i = index($0, "\""); rest = substr($0, i + 1)
	j = match(rest, /"( [0-9]+)*$/)
	name = substr(rest, 1, j - 1); flags = " " substr(rest, j + 1) " "
	if (flags ~ / 1 /) { depth++; stack[depth] = name }
	else if (flags ~ / 2 /) { depth--; stack[depth] = name }
	else stack[depth] = name
	next
}
{ own[stack[depth]]++ }
END {
	printf "%d\t%d\n", NR, markers
	for (f in own) printf "%d\t%s\n", own[f], f
}
