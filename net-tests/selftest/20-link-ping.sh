# Inner test of the runner self-tests (suite "selftest", never run alone):
# guests A and B reach each other over whatever link the runner chose.
TEST_TIMEOUT=300

test_run() {
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
touch /work/B.ready
wait_work A.done 200 || fail "A never finished"
JOB
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
wait_work B.ready 120 || fail "B not ready"
wait_for 60 ping -c1 -W1 $PEER_B || fail "no ping reply from B"
touch /work/A.done
JOB
	vm_run2 "$T" 240 || return 1
	echo "# A reached B over $PMEMZC_NET"
}
