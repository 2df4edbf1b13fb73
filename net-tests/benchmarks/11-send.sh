# Benchmark (not a test): sending 256 MiB from pmem to guest B, side by
# side in each of BENCH_REPS repetitions: pmem_zc zero-copy from the file on
# ext4 -o dax (pages=devmap) with 1, 2, 4 (the CLI's default) and 8 sends in
# flight, and from the raw disk; pmem_zc copy mode; sendfile(2) of the DAX
# file (6.1 copies once; 6.12's lab kernel sends it by reference, and
# copies with fs.dax_splice_read 0: row send-sendfile-daxcopy); sendfile(2)
# of the same file on ext4 without DAX,
# page cache warm; MSG_ZEROCOPY from a shared mmap of the DAX file
# (upstream's user-space zero copy, mzc_send) and io_uring's
# IORING_OP_SEND_ZC from the same mapping (uring_send_zc); iperf3 (memory to
# socket).
# Then 4 streams at once: 4 pmem_zc sends of 64 MiB against iperf3 -P 4.
# Each row: MB/s (wall time until the data is acknowledged), guest A's CPU
# seconds per GiB (all CPUs, /proc/stat) and the sender's own where it
# reports one. Raw figures in $T/raw.txt; BENCH_ROW_SUFFIX names a variant
# (VM_SMP=2: -smp2).
TEST_TIMEOUT=3000
BENCH_REPS=${BENCH_REPS:-5}

test_run() {
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
iperf3 -s -D || fail "iperf3 -s"
# the sink reads 128 KiB at a time, as iperf3 -s does (socat: 8 KiB)
socat -u -b 131072 TCP-LISTEN:5001,reuseaddr,fork /dev/null &
wait_for 10 listening 5001 || fail "sink"
touch /work/B.ready
wait_work A.done 2900
JOB
	cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
REPS=$BENCH_REPS S=${BENCH_ROW_SUFFIX:-}
JOB
	cat >> "$T/A.job" <<'JOB'
BIN=/top/net-tests/tools/bin
B=$PEER_B:5001
N=$((256 << 20))
load_zc map=1G@4G,1G@0x140000000 pages=devmap || fail "load"
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mkdir -p /mnt/dax /mnt/pc && mount -o dax /dev/pmem0 /mnt/dax || fail "ext4 dax"
mkfs.ext4 -q -F -b 4096 /dev/pmem1 && mount /dev/pmem1 /mnt/pc || fail "ext4"
randfill $N > /mnt/dax/f && cp /mnt/dax/f /mnt/pc/f && sync || fail "files"
cat /mnt/pc/f > /dev/null	# warm page cache
wait_work B.ready 120 || fail "B not ready"
for rep in $(seq $REPS); do
	measure send-zc$S $rep $N $ZC send /mnt/dax/f --to $B
	measure send-zc-disk$S $rep $N $ZC send /dev/pmem0 --length 256M --to $B
	measure send-copy$S $rep $N $ZC send /mnt/dax/f --copy --to $B
	# 6.12's lab kernel sends DAX files by reference once
	# fs.dax_splice_read is 1 (dax-splice series); its copy, as every
	# other kernel makes it, with 0 (row send-sendfile-daxcopy)
	[ -e /proc/sys/fs/dax_splice_read ] && echo 1 > /proc/sys/fs/dax_splice_read
	measure send-sendfile-dax$S $rep $N $BIN/sendfile_send /mnt/dax/f $B
	if [ -e /proc/sys/fs/dax_splice_read ]; then
		echo 0 > /proc/sys/fs/dax_splice_read
		measure send-sendfile-daxcopy$S $rep $N $BIN/sendfile_send /mnt/dax/f $B
	fi
	cat /mnt/pc/f > /dev/null
	measure send-sendfile-pagecache$S $rep $N $BIN/sendfile_send /mnt/pc/f $B
	measure send-mzc$S $rep $N $BIN/mzc_send /mnt/dax/f $B
	measure send-iperf3$S $rep $N iperf3 -c $PEER_B -n 256M
	for k in 1 2 8; do
		measure send-zc-k$k$S $rep $N $ZC send /mnt/dax/f --inflight $k --to $B
	done
	measure send4-zc$S $rep $N sh -c "p=; for i in 0 1 2 3; do $ZC send /dev/pmem0 --offset \$((i * 64))M --length 64M --to $B > /tmp/s\$i 2>&1 & p=\"\$p \$!\"; done; for i in \$p; do wait \$i || exit 1; done"
	measure send4-iperf3$S $rep $N iperf3 -c $PEER_B -P 4 -n 256M
	# last: a kernel without it loses no other row of the repetition
	measure send-uring-zc$S $rep $N $BIN/uring_send_zc /mnt/dax/f $B
	echo "repetition $rep done"
done
touch /work/A.done
umount /mnt/dax /mnt/pc && rmmod pmem_zc && rmmod prd || fail "teardown"
JOB
	# two filesystems that hold 256 MiB each
	VM_NVDIMM_SIZE=2G vm_run2 "$T" 2900 || return 1
	[ -s "$T/raw.txt" ] || { echo "no figures"; return 1; }
	echo "# $(grep -c . "$T/raw.txt") figures in $T/raw.txt"
}
