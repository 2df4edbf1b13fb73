# Host only: the benchmark tooling that make bench relies on:
# net-tests/bench/aggregate (medians, spreads, ratios per repetition, its
# refusals), net-tests/bench/plot (gnuplot PNGs, absent categories
# skipped), and the guest tools mzc_send, sendfile_send and memcpy_bw
# against a receiver on 127.0.0.1 (net-tests/bench/tests/run).
TEST_TIMEOUT=120

test_run() {
	"$PMEMZC_TOP/net-tests/bench/tests/run" > "$T/bench.tap" 2>&1
	local rc=$?
	grep -a '^not ok' "$T/bench.tap"
	tap_check "$T/bench.tap" || { tail -n 5 "$T/bench.tap"; return 1; }
	[ $rc -eq 0 ] || { tail -n 5 "$T/bench.tap"; echo "exit $rc"; return 1; }
	echo "# $(grep -c '^ok' "$T/bench.tap") benchmark tooling checks passed"
}
