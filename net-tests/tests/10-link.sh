# Guests A and B reach each other over the link; iperf3 runs both ways and
# its throughput is reported (never asserted: benchmarks are not tests).
TEST_TIMEOUT=300

test_run() {
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
iperf3 -s -D -I /tmp/iperf3.pid || fail "iperf3 server"
touch /work/B.ready
wait_work A.done 240 || fail "A never finished"
JOB
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
wait_work B.ready 120 || fail "B not ready"
wait_for 30 ping -c1 -W1 $PEER_B || fail "no ping reply from B"
ping -c3 -q $PEER_B || fail "ping"
for dir in "" -R; do
	iperf3 -c $PEER_B -t 4 -f m $dir | tee /tmp/iperf.out || fail "iperf3 $dir"
	grep -q ' receiver$' /tmp/iperf.out || fail "iperf3 $dir: no receiver line"
	awk '/ receiver$/ {print $(NF-2)}' /tmp/iperf.out > /work/iperf${dir:--fwd}.mbps
done
touch /work/A.done
JOB
	vm_run2 "$T" 240 || return 1
	echo "# iperf3 over $PMEMZC_NET: A->B $(cat "$T/iperf-fwd.mbps") Mbit/s, B->A $(cat "$T/iperf-R.mbps") Mbit/s"
}
