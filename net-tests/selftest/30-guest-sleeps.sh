# Inner test of the runner self-tests (suite "selftest", never run alone):
# guest A boots and sleeps; the self-test stops the runner meanwhile.
TEST_TIMEOUT=600

test_run() {
	printf 'touch /work/A.up\nsleep 500\n' > "$T/A.job"
	vm_run A "$T" A.job 550
}
