# Benchmark (not a test): the link between the guests, as bench/run runs it
# once per link kind (tap, socket): iperf3 from A to B and back, one stream
# and 4 streams (-P 4), 3 s each, BENCH_REPS times. Rows
# link-LINK-{fwd,rev}[-P4], metric Mbps, in $T/raw.txt.
TEST_TIMEOUT=1200
BENCH_REPS=${BENCH_REPS:-5}

test_run() {
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
iperf3 -s -D || fail "iperf3 -s"
touch /work/B.ready
wait_work A.done 1100
JOB
	cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
REPS=$BENCH_REPS L=$PMEMZC_NET
JOB
	cat >> "$T/A.job" <<'JOB'
wait_work B.ready 120 || fail "B not ready"
wait_for 30 ping -c1 -W1 $PEER_B || fail "no ping reply from B"
for rep in $(seq $REPS); do
	for dir in fwd rev; do
		for p in 1 4; do
			flags=; [ $dir = rev ] && flags=-R
			row=link-$L-$dir; [ $p = 4 ] && row=$row-P4
			iperf3 -c $PEER_B -t 3 -P $p -f m $flags > /tmp/ip || { cat /tmp/ip; fail "iperf3 $row"; }
			v=$(awk '/ receiver$/ {v = $(NF-2)} END {print v}' /tmp/ip)
			[ -n "$v" ] || fail "iperf3 $row: no receiver line"
			raw $row Mbps $rep $v
		done
	done
done
touch /work/A.done
JOB
	vm_run2 "$T" 1100 || return 1
	[ -s "$T/raw.txt" ] || { echo "no figures"; return 1; }
	echo "# $(grep -c . "$T/raw.txt") figures in $T/raw.txt"
}
