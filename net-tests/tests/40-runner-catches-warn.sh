# The runner itself: a guest whose test passes but whose kernel WARNs (the
# test-only warn_test module) is reported as a failure, with the splat
# named; a line announces the test (name, timeout) before it runs.
TEST_TIMEOUT=300

test_run() {
	local out=$T/inner.tap rc
	"$PMEMZC_TOP/net-tests/run" --suite selftest --results "$T/inner" deliberate-warn > "$out" 2>&1
	rc=$?
	sed "s/^/    /" "$out"
	[ $rc -ne 0 ] || { echo "inner runner exited 0 despite the WARN"; return 1; }
	grep -qx '0 passed, 1 failed' "$out" || { echo "inner summary wrong"; return 1; }
	grep -q '^  # kernel splat: A.serial.log: .*WARNING: CPU: .*warn_test' "$out" ||
		{ echo "inner runner did not name the WARN"; return 1; }
	grep -q 'test_run exit' "$out" && { echo "the inner test itself failed: not a test of the splat check"; return 1; }
	echo "# runner reported the deliberate WARN as a failure"
	# the announcement comes first, with the test's own timeout
	awk '/^# 10-deliberate-warn: started [0-9:]+, timeout 200s$/ { getline; ok = /^not ok 1 - 10-deliberate-warn / }
	     END { exit !ok }' "$out" || { echo "no 'started' line right before the test's result"; return 1; }
	echo "# runner announced the test and its timeout before running it"
}
