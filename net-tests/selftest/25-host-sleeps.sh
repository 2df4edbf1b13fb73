# Inner test of the runner self-tests (suite "selftest", never run alone):
# a host-side test that sleeps, its sleep's pid in $T/sleep.pid, so that
# the self-test can check that stopping the runner stopped it too.
TEST_TIMEOUT=600

test_run() {
	sleep 500 &
	echo $! > "$T/sleep.pid"
	wait
}
