# The runner itself: SIGINT (Ctrl-C) while a test's guest runs, and SIGTERM
# while a host-side test runs, stop the run: the running test is reported
# "not ok ... interrupted", its guest and processes are gone, no later test
# starts, the summary so far is printed and the exit status is 130 / 143.
TEST_TIMEOUT=400

# inner SIGNAL WAIT-FILE TESTS...: start an inner runner on TESTS, send
# SIGNAL once $T/inner-SIGNAL/WAIT-FILE exists, give it 30 s to exit.
# Leaves its output in $T/SIGNAL.tap and its status in $T/SIGNAL.rc.
inner() {
	local sig=$1 file=$2 pid rc=0
	shift 2
	# job control: the inner runner gets its own process group and, unlike
	# a plain background job, keeps SIGINT
	set -m
	"$PMEMZC_TOP/net-tests/run" --suite selftest --results "$T/inner-$sig" "$@" > "$T/$sig.tap" 2>&1 &
	pid=$!
	set +m
	vm_wait_file "$T/inner-$sig" "$file" 200 || { kill -KILL -- -"$pid"; echo "never reached $file"; return 1; }
	kill -"$sig" "$pid"
	for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL -- -"$pid"; echo "inner runner still running 30 s after SIG$sig"; return 1
	fi
	wait "$pid" || rc=$?
	echo "$rc" > "$T/$sig.rc"
	sed 's/^/    /' "$T/$sig.tap"
}

# check SIGNAL RC TEST: the inner run stopped as it should
check() {
	local sig=$1 want=$2 t=$3 out=$T/$1.tap
	[ "$(cat "$T/$sig.rc")" = "$want" ] || { echo "SIG$sig: exit $(cat "$T/$sig.rc"), expected $want"; return 1; }
	grep -q "^not ok 1 - $t " "$out" && grep -q "^  # interrupted by SIG$sig" "$out" ||
		{ echo "SIG$sig: $t not reported as interrupted"; return 1; }
	[ "$(tail -n 1 "$out")" = "0 passed, 1 failed" ] || { echo "SIG$sig: last line '$(tail -n 1 "$out")'"; return 1; }
	[ ! -e "$T/inner-$sig/31-never-runs" ] || { echo "SIG$sig: the next test still started"; return 1; }
}

test_run() {
	local p
	inner INT 30-guest-sleeps/A.up guest-sleeps never-runs || return 1
	check INT 130 30-guest-sleeps || return 1
	p=$(cat "$T/inner-INT/30-guest-sleeps/A.pid")
	! kill -0 "$p" 2>/dev/null || { kill -KILL "$p"; echo "SIGINT: guest A (QEMU pid $p) still running"; return 1; }
	echo "# SIGINT: run stopped with 130, the test's guest gone, the next test never started"

	inner TERM 25-host-sleeps/sleep.pid host-sleeps never-runs || return 1
	check TERM 143 25-host-sleeps || return 1
	p=$(cat "$T/inner-TERM/25-host-sleeps/sleep.pid")
	! kill -0 "$p" 2>/dev/null || { kill -KILL "$p"; echo "SIGTERM: the test's sleep (pid $p) still running"; return 1; }
	echo "# SIGTERM: run stopped with 143, the test's processes gone, the next test never started"
}
