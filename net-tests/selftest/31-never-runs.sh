# Inner test of the runner self-tests (suite "selftest", never run alone):
# runs after 30-guest-sleeps or 25-host-sleeps, which the self-test stops
# the runner in: it must never start.
TEST_TIMEOUT=30

test_run() {
	touch "$T/ran"
}
