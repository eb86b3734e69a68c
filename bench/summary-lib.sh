# summary-lib.sh: readers of a run's outputs shared by the bench scripts
# (sourced, not run: `. "$here/summary-lib.sh"`).

# result FILE KEY: the first number of KEY inside summary.json's "results"
result() {
	awk -v k="\"$2\":" '
		/^  "results": \{/ { r = 1 }
		r && index($0, k) { v = $2; sub(/,$/, "", v); print v; exit }' "$1"
}

# goodput FCT_CSV: mean over completed flows of ideal FCT / FCT, in %
goodput() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ s += $(c["ideal_fct_ns"]) / $(c["fct_ns"]); n++ }
		END { if (n) printf "%.1f", 100 * s / n; else print "-" }' "$1"
}

# noise_cell CSV WHAT STAT: "candidate / band" of a row of `warpsim compare
# --noise --csv` (percentages; "-" when the row is absent or undefined)
noise_cell() {
	awk -F, -v w="$2" -v s="$3" '$1 == w && $2 == s {
		if ($6 == "" || $7 == "") print "-"
		else printf "%.3g%% / %.3g%%\n", $6 * 100, $7 * 100; found = 1; exit }
		END { if (!found) print "-" }' "$1"
}

# noise_within CSV: "rows within noise / rows with a verdict"
noise_within() {
	echo "$(awk -F, 'NR > 1 && $9 == "true"' "$1" | wc -l)/$(awk -F, 'NR > 1 && $9 != ""' "$1" | wc -l)"
}
