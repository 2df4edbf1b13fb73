# Benchmark (not a test): fio on the same NVDIMM, side by side in each of
# BENCH_REPS repetitions: prd in each page mode (none, sparse, devmap,
# devmap memmap=dev), upstream's nd_pmem on a raw namespace and on an fsdax
# namespace (ndctl), and brd of the same size in RAM; 4 KiB random reads
# and writes, 1 MiB sequential reads and writes, with psync and io_uring,
# O_DIRECT, 2 s each. Rows fio-DRIVER-PATTERN-ENGINE: IOPS and MB/s. Also
# the guest's memcpy bandwidth (memcpy_bw), the ceiling of any copy in it.
# Raw figures in $T/raw.txt. BENCH_NVDIMM_SHM=1 puts the NVDIMM's backing
# file on the host's tmpfs instead of the results folder's disk, and
# BENCH_ROW_SUFFIX names those drivers (bench/run: -shm, as in
# fio-prd-none-shm-randwrite4k-psync): a file on disk is
# written back by the host's flusher, which write-protects each page it
# cleans, so the guest's next store to it takes a host page fault; tmpfs
# pages are never written back.
TEST_TIMEOUT=3600
BENCH_REPS=${BENCH_REPS:-5}

test_run() {
	cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
REPS=$BENCH_REPS S=${BENCH_ROW_SUFFIX:-}
JOB
	cat >> "$T/A.job" <<'JOB'
# run_fio DRIVER DEV REP: the 8 jobs on DEV
run_fio() {
	for w in randread:4k randwrite:4k read:1M write:1M; do
		for e in psync io_uring; do
			fio --name=b --filename=$2 --ioengine=$e --direct=1 --rw=${w%%:*} \
			    --bs=${w#*:} --size=256M --runtime=2 --time_based --output-format=terse \
			    --terse-version=3 > /tmp/fio.out 2>&1 || { cat /tmp/fio.out; fail "fio $1 $w $e"; }
			# terse v3: field 7 read bw KiB/s, 8 read iops, 48 write bw, 49 write iops
			row=fio-$1$S-${w%%:*}${w#*:}-$e
			awk -F';' -v w=$w -v r=$row -v n=$3 '{
				if (w ~ /read/) { bw = $7; io = $8 } else { bw = $48; io = $49 }
				printf "%s iops %d %s\n%s MBps %d %.2f\n", r, n, io, r, n, bw * 1024 / 1e6 }' /tmp/fio.out >> /work/raw.txt
		done
	done
}
P=/top/pmem-driver/prd.ko
modprobe nd_pmem && modprobe nfit || fail "nd_pmem"
wait_for 30 test -b /dev/pmem0 || fail "no nd_pmem disk"
ndctl disable-region all > /dev/null || fail "ndctl disable-region"
for rep in $(seq $REPS); do
	for m in none sparse devmap devmap-dev; do
		args="pages=${m%-dev}"; [ $m = devmap-dev ] && args="pages=devmap memmap=dev"
		if [ $m = devmap-dev ]; then
			# memmap=dev lays the region out anew: only over a head with nothing in it
			$INSMOD $P map=512M@4G && /usr/bin/dd if=/dev/zero of=/dev/pmem0 \
				bs=1M count=16 oflag=direct status=none && rmmod prd || fail "clear the head"
		fi
		$INSMOD $P map=512M@4G $args || fail "prd $m"
		run_fio prd-$m /dev/pmem0 $rep
		rmmod prd
	done
	# upstream: the namespace raw, then fsdax (pages, memmap on the device)
	ndctl enable-region all > /dev/null || fail "ndctl enable-region"
	ndctl create-namespace -f -e namespace0.0 -m raw > /dev/null || fail "raw namespace"
	wait_for 30 test -b /dev/pmem0 || fail "no nd_pmem disk"
	run_fio nd_pmem-raw /dev/pmem0 $rep
	ndctl create-namespace -f -e namespace0.0 -m fsdax > /dev/null || fail "fsdax namespace"
	wait_for 30 test -b /dev/pmem0 || fail "no fsdax disk"
	run_fio nd_pmem-fsdax /dev/pmem0 $rep
	ndctl create-namespace -f -e namespace0.0 -m raw > /dev/null || fail "back to raw"
	ndctl disable-region all > /dev/null || fail "ndctl disable-region"
	modprobe brd rd_nr=1 rd_size=524288 || fail "brd"
	run_fio brd /dev/ram0 $rep
	rmmod brd
	/top/net-tests/tools/bin/memcpy_bw --size 256M --reps 3 > /tmp/mc || fail "memcpy_bw"
	raw limit-memcpy$S MBps $rep "$(awk '{print $2}' /tmp/mc)"
	echo "repetition $rep done"
done
JOB
	local rc=0
	if [ "${BENCH_NVDIMM_SHM:-0}" = 1 ]; then
		export VM_NVDIMM=/dev/shm/pmemzc-fio-$$.img
		rm -f "$VM_NVDIMM"
		# shellcheck disable=SC2064
		trap "rm -f $VM_NVDIMM" EXIT
	fi
	vm_run A "$T" A.job 3500 || rc=1
	# the tmpfs file it made, never one the caller named
	[ "${BENCH_NVDIMM_SHM:-0}" != 1 ] || rm -f "$VM_NVDIMM"
	[ $rc = 0 ] || return 1
	[ -s "$T/raw.txt" ] || { echo "no figures"; return 1; }
	echo "# $(grep -c . "$T/raw.txt") figures in $T/raw.txt"
}
