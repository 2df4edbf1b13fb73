# Benchmark (not a test): one link, one run, side by side: pmem_zc
# zero-copy send, pmem_zc copy-mode send (bounce buffer, as read()+send()),
# and iperf3 (memory to socket) from guest A to guest B. Throughput and
# guest A's CPU time per GiB sent (all CPUs, from /proc/stat, so softirq
# and kernel threads count too). Writes $T/zc.txt.
TEST_TIMEOUT=1200
BENCH_MIB=${BENCH_MIB:-256}

test_run() {
	cat > "$T/B.job" <<JOB
. /top/vm/guest/lib.sh
iperf3 -s -D || fail "iperf3 -s"
for i in 1 2 3 4; do
	socat -u TCP-LISTEN:5001,reuseaddr - > /dev/null &
	wait_for 10 listening 5001 || fail "socat"
	touch /work/B.ready.\$i
	wait \$!
done
wait_work A.done 1100
JOB
	cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
# busy and total jiffies of all CPUs
cpu() { awk '/^cpu / { print \$2 + \$3 + \$4 + \$7 + \$8, \$2 + \$3 + \$4 + \$5 + \$6 + \$7 + \$8 }' /proc/stat; }
load_zc map=512M@4G pages=devmap || fail "load"
put /dev/pmem0 0 \$(($BENCH_MIB << 20)) > /dev/null || fail "fill"
i=0
for round in 1 2; do
	for mode in zero-copy copy; do
		i=\$((i + 1))
		wait_work B.ready.\$i 120 || fail "B not ready"
		flag=; [ \$mode = copy ] && flag=--copy
		set -- \$(cpu); b0=\$1
		t0=\$(now_us)
		\$ZC send /dev/pmem0 --length ${BENCH_MIB}M --to \$PEER_B:5001 \$flag > /tmp/out || fail "send"
		t1=\$(now_us)
		set -- \$(cpu); b1=\$1
		echo "\$mode \$round \$(($BENCH_MIB << 20)) \$((t1 - t0)) \$((b1 - b0)) \$(grep -o 'copied=[0-9]*' /tmp/out)" >> /work/zc.raw
	done
	set -- \$(cpu); b0=\$1
	t0=\$(now_us)
	iperf3 -c \$PEER_B -n ${BENCH_MIB}M > /tmp/ip.out || fail "iperf3"
	t1=\$(now_us)
	set -- \$(cpu); b1=\$1
	echo "iperf3 \$round \$(($BENCH_MIB << 20)) \$((t1 - t0)) \$((b1 - b0)) copied=-" >> /work/zc.raw
done
touch /work/A.done
JOB
	vm_run2 "$T" 1100 || return 1
	awk -v net="$PMEMZC_NET" '
	{ bytes[$1] += $3; us[$1] += $4; jif[$1] += $5 }
	END {
		printf "%-10s %10s %16s\n", "send", "MB/s", "CPU s per GiB"
		for (m in bytes) {
			mbps[m] = bytes[m] / us[m]
			cpu[m] = jif[m] / 100 / (bytes[m] / 2^30)
		}
		split("zero-copy copy iperf3", order, " ")
		for (i = 1; i <= 3; i++) { m = order[i]; printf "%-10s %10.1f %16.2f\n", m, mbps[m], cpu[m] }
		printf "zero-copy/copy: throughput x%.2f, CPU per GiB x%.2f; zero-copy/iperf3: throughput x%.2f, CPU per GiB x%.2f (link: %s)\n",
		       mbps["zero-copy"] / mbps["copy"], cpu["zero-copy"] / cpu["copy"],
		       mbps["zero-copy"] / mbps["iperf3"], cpu["zero-copy"] / cpu["iperf3"], net
	}' "$T/zc.raw" > "$T/zc.txt"
	sed 's/^/# /' "$T/zc.txt"
}
