# Benchmark (not a test): 256 MiB from pmem to a disk, side by side in each
# of BENCH_REPS repetitions: pmem-zc copy by reference and --copy, to A's
# virtio disk and to B's disk over NBD, against dd iflag=direct
# oflag=direct bs=1M from the prd disk, and an O_DIRECT write from a shared
# mmap of a file on ext4 -o dax (dax_odirect: the block layer pins the pmem
# pages). Rows copy-{zc,copy,dd,daxodirect}-{vda,nbd}: MB/s and guest A's
# CPU seconds per GiB, in $T/raw.txt.
TEST_TIMEOUT=3000
BENCH_REPS=${BENCH_REPS:-5}

test_run() {
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
nbd_serve /dev/vda || fail "nbd-server"
touch /work/B.ready
wait_work A.done 2900
JOB
	cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
REPS=$BENCH_REPS
JOB
	cat >> "$T/A.job" <<'JOB'
BIN=/top/net-tests/tools/bin
N=$((256 << 20))
load_zc map=1G@4G,1G@0x140000000 pages=devmap || fail "load"
put /dev/pmem1 0 $N > /dev/null || fail "fill"
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mkdir -p /mnt && mount -o dax /dev/pmem0 /mnt || fail "ext4 dax"
head -c $N /dev/urandom > /mnt/f && sync || fail "file"
wait_work B.ready 120 || fail "B not ready"
nbd_attach $PEER_B || fail "nbd-client"
for rep in $(seq $REPS); do
	for d in vda nbd; do
		t=/dev/$d; [ $d = nbd ] && t=/dev/nbd0
		measure copy-zc-$d $rep $N $ZC copy /dev/pmem1 --length 256M --to $t --flush
		measure copy-copy-$d $rep $N $ZC copy /dev/pmem1 --length 256M --to $t --flush --copy
		measure copy-dd-$d $rep $N /usr/bin/dd if=/dev/pmem1 of=$t bs=1M count=256 iflag=direct oflag=direct conv=fsync status=none
		measure copy-daxodirect-$d $rep $N $BIN/dax_odirect /mnt/f $t $N
	done
	echo "repetition $rep done"
done
nbd-client -d /dev/nbd0 > /dev/null
touch /work/A.done
umount /mnt && rmmod pmem_zc && rmmod prd || fail "teardown"
JOB
	# two filesystems that hold 256 MiB each
	VM_NVDIMM_SIZE=2G vm_run2 "$T" 2900 || return 1
	[ -s "$T/raw.txt" ] || { echo "no figures"; return 1; }
	echo "# $(grep -c . "$T/raw.txt") figures in $T/raw.txt"
}
