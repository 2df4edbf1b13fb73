# The README's first command: `make demo` (the kernel and modules already
# built, so it only boots the guests) exits 0, prints "result: intact" for
# both transfers, moves both by reference (the HTTP send over a tap link;
# the copy to B's disk always), counts no failed operation, and ends with
# "demo: done". The demo's guests write into this test's folder, so the
# runner scans their logs for splats as well.
TEST_TIMEOUT=900

test_run() {
	local d=$T/demo rc=0 out=$T/demo.out bytes line
	# (the run's kernel and flavour, on the command line: they win over any
	# KERNEL= or FLAVOUR= that reached us through MAKEFLAGS)
	PMEMZC_DEMO_DIR=$d make -s -C "$PMEMZC_TOP" demo KERNEL="$PMEMZC_KERNEL" \
		FLAVOUR="$PMEMZC_FLAVOUR" > "$out" 2>&1 || rc=$?
	sed 's/^/# demo: /' "$out" | grep -av '^# demo: *$'
	[ "$rc" = 0 ] && echo "ok - make demo exits 0" || echo "not ok - make demo exits $rc"
	[ "$(grep -c '^  result: intact$' "$out")" = 2 ] && echo "ok - both transfers: result: intact" ||
		echo "not ok - $(grep -c '^  result: intact$' "$out") 'result: intact' lines, expected 2"
	tail -n 1 "$out" | grep -q '^demo: done, both transfers intact' && echo "ok - last line: demo: done" ||
		echo "not ok - last line: $(tail -n 1 "$out")"
	bytes=$(cut -d' ' -f1 "$d/A.file" 2>/dev/null)
	line=$(grep -a 'serve on A: summary:' "$out")
	if [ "$(cat "$d/link" 2>/dev/null)" != tap ]; then
		echo "ok - the HTTP send by reference # SKIP socket link: no scatter-gather, the stack copies"
	elif [ -n "$bytes" ] && echo "$line" | grep -q " bytes=$bytes by_ref=$bytes copied=0 zero_copy=yes"; then
		echo "ok - the HTTP send: all $bytes bytes by reference, copied=0"
	else
		echo "not ok - the HTTP send: '$line', expected by_ref=$bytes copied=0"
	fi
	line=$(grep -a 'copy on A: summary:' "$out")
	if [ -n "$bytes" ] && echo "$line" | grep -q " bytes=$bytes .* by_ref=$bytes copied=0 .*zero_copy=yes"; then
		echo "ok - the copy: all $bytes bytes by reference, copied=0"
	else
		echo "not ok - the copy: '$line', expected by_ref=$bytes copied=0"
	fi
	line=$(awk '$1 ~ /^err_/ && $2 != 0' "$d/A.stats" 2>/dev/null | tr '\n' ' ')
	[ -s "$d/A.stats" ] && [ -z "$line" ] && echo "ok - every err_* counter of pmem_zc is 0" ||
		echo "not ok - err_* counters: ${line:-no counters}"
}
