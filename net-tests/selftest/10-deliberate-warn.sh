# Inner test of the runner self-test (suite "selftest", never run alone):
# its own checks pass, but the guest's kernel WARNs, so the runner must
# report it as failed.
TEST_TIMEOUT=200

test_run() {
	cat > "$T/A.job" <<'JOB'
insmod /top/net-tests/modules/warn_test/warn_test.ko || exit 1
rmmod warn_test || exit 1
JOB
	vm_run A "$T" A.job
}
