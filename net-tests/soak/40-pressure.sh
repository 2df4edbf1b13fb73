# Soak: memory pressure. Guest A with 448 MiB (about the least the debug
# kernel and the initramfs boot with) and the whole 4 GiB NVDIMM, in sparse
# and in devmap mode (64 MiB of memmap each); sends to B and copies to the
# scratch disk run while a process allocates until the OOM killer ends it,
# 3 x SOAK_SCALE times per mode. No splat (the OOM report's stack dump
# aside), no prd page below its base reference at unload (none reached the
# page allocator), the transfers either complete intact or fail cleanly,
# both modules unload. Figure: runs, OOM kills, splats (the runner's scan,
# goal 0).
TEST_TIMEOUT=2400
SOAK_SCALE=${SOAK_SCALE:-1}
# the OOM killer's report dumps the allocating task's stack on purpose
TEST_SPLAT_ALLOW='Call Trace:'

test_run() {
	local runs=$((3 * SOAK_SCALE))
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
socat -u TCP-LISTEN:5001,reuseaddr,fork /dev/null &
wait_for 10 listening 5001 || fail "sink"
touch /work/B.ready
wait_work A.done 2200
JOB
	cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
RUNS=$runs
JOB
	cat >> "$T/A.job" <<'JOB'
wait_work B.ready 120 || fail "B not ready"
ooms=0 runs=0
for m in sparse devmap; do
	load_zc map=4G@4G pages=$m || fail "$m: load"
	put /dev/pmem0 0 $((32 << 20)) > /tmp/sum || fail "fill"
	for i in $(seq $RUNS); do
		runs=$((runs + 1))
		# (no /proc/vmstat oom_kill without VM_EVENT_COUNTERS: the log)
		o0=$(dmesg | grep -c 'Killed process [0-9]* (memhog)')
		/top/net-tests/tools/bin/memhog > /dev/null 2>&1 & hog=$!
		$ZC send /dev/pmem0 --length 32M --to $PEER_B:5001 > /tmp/s 2>&1 &
		s=$!
		$ZC copy /dev/pmem0 --length 32M --to /dev/vda > /tmp/c 2>&1 &
		c=$!
		wait $s || echo "$m $i: send failed: $(tail -1 /tmp/s)"
		if wait $c; then
			[ "$(get /dev/vda 0 $((32 << 20)) direct)" = "$(cat /tmp/sum)" ] || fail "$m $i: the copy is not intact"
		else
			echo "$m $i: copy failed: $(tail -1 /tmp/c)"
		fi
		wait_for 120 sh -c "! kill -0 $hog 2>/dev/null" || { kill -9 $hog; echo "$m $i: no OOM kill"; }
		wait $hog 2>/dev/null
		o1=$(dmesg | grep -c 'Killed process [0-9]* (memhog)')
		ooms=$((ooms + o1 - o0))
	done
	wait_value 60 /sys/class/misc/pmem_zc/stats/ops_inflight 0 || fail "$m: sends in flight"
	wait_value 60 /sys/block/pmem0/prd/pages_referenced 0 || fail "$m: pages referenced"
	dmesg -c > /dev/null
	rmmod pmem_zc && rmmod prd || fail "$m: unload"
	dmesg | grep -q 'below their base reference\|leaked' && fail "$m: $(dmesg | grep 'below\|leaked')"
	echo "ok - $m: $RUNS runs under OOM pressure, modules unloaded, no page below its base"
done
echo "$runs $ooms" > /work/figure
touch /work/A.done
JOB
	VM_MEM=448M VM_NVDIMM_SIZE=4G vm_run2 "$T" 2200 || return 1
	local runs ooms
	read -r runs ooms < "$T/figure"
	grep -a '^ok - ' "$T/A.serial.log"
	echo "# soak-figure pressure: runs=$runs oom_kills=$ooms (splats: the runner fails the test on any)"
	[ "$ooms" -ge "$runs" ]
}
