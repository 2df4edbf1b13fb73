# pmem_zc copy: a pmem range and a file on pmem written by bio, from the
# pmem pages themselves, to A's scratch virtio disk and to B's disk over
# NBD; intact (checked on A, and on B for the NBD copies); copy mode too.
TEST_TIMEOUT=900

test_run() {
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
nbd_serve /dev/vda || fail "nbd-server"
touch /work/B.ready
wait_work A.done 600 || fail "A never finished"
echo 3 > /proc/sys/vm/drop_caches
while read -r off len sum; do
	got=$(get /dev/vda $off $len)
	[ "$got" = "$sum" ] && echo "intact $off $len" || echo "BAD $off $len $got"
done < /work/expect.nbd > /work/B.check
JOB
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
load_zc map=256M@4G,256M@0x110000000 pages=devmap || fail "load"
R=$(put /dev/pmem0 0 $((32 << 20))) || fail "fill pmem0"
mkfs.ext4 -q -F -b 4096 /dev/pmem1 && mkdir -p /mnt && mount -o dax /dev/pmem1 /mnt || fail "mkfs/mount"
# a file with a hole in the middle
randfill $((2 << 20)) > /mnt/file || fail "test file"
head -c $((1 << 20)) /dev/urandom | dd of=/mnt/file bs=1M seek=4 conv=notrunc status=none
sync
F=$(sha256sum < /mnt/file | cut -d' ' -f1); FL=$(stat -c %s /mnt/file)

# copy SRC DEV DSTOFF EXPECTED_SUM LEN [ARGS]: copy and check on A
copy() {
	$ZC copy $1 --to $2 --dst-offset $3 $6 > /tmp/out 2>&1 || { cat /tmp/out; fail "copy $*"; }
	grep '^summary:' /tmp/out | sed "s|^summary:|$1 -> $2 $6:|" >> /work/summaries
	echo 3 > /proc/sys/vm/drop_caches
	[ "$(get $2 $3 $5)" = "$4" ] || fail "copy $1 -> $2 at $3: data differs"
}
copy /dev/pmem0 /dev/vda 0 $R $((32 << 20)) "--length 32M --fua"
copy /mnt/file /dev/vda $((64 << 20)) $F $FL "--flush"
copy /dev/pmem0 /dev/vda $((128 << 20)) $R $((32 << 20)) "--length 32M --copy"
echo "local copies intact"

wait_work B.ready 120 || fail "B not ready"
nbd_attach $PEER_B || fail "nbd-client"
wait_for 10 sh -c 'test "$(blockdev --getsize64 /dev/nbd0)" -gt 0' || fail "nbd0 has no size"
copy /dev/pmem0 /dev/nbd0 0 $R $((32 << 20)) "--length 32M --flush"
copy /mnt/file /dev/nbd0 $((64 << 20)) $F $FL "--fua"
nbd-client -d /dev/nbd0
printf '0 %s %s\n%s %s %s\n' $((32 << 20)) $R $((64 << 20)) $FL $F > /work/expect.nbd
touch /work/A.done
S=/sys/class/misc/pmem_zc/stats
echo "$(cat $S/bytes_ref) $(cat $S/bytes_copied) $(cat $S/bios)" > /work/stats
umount /mnt && rmmod pmem_zc && rmmod prd || fail "teardown"
JOB
	vm_run2 "$T" 800 || return 1
	sed "s/^/# B: /" "$T/B.check"
	[ "$(grep -c "^intact " "$T/B.check")" = 2 ] || { echo "B did not find both NBD copies intact"; return 1; }
	# by reference unless --copy, then all by copy; every byte accounted
	local line bytes by_ref copied n=0 bad=0
	while IFS= read -r line; do
		n=$((n + 1))
		bytes=$(echo "$line" | sed -n 's/.* bytes=\([0-9]*\).*/\1/p')
		by_ref=$(echo "$line" | sed -n 's/.* by_ref=\([0-9]*\).*/\1/p')
		copied=$(echo "$line" | sed -n 's/.* copied=\([0-9]*\).*/\1/p')
		case $line in
		*--copy:*) [ "$by_ref" = 0 ] && [ "$copied" = "$bytes" ] ;;
		*) [ "$by_ref" = "$bytes" ] && [ "$copied" = 0 ] ;;
		esac && [ "${bytes:-0}" -gt 0 ] || { echo "not ok - $line"; bad=1; continue; }
		echo "# $line"
	done < "$T/summaries"
	[ $n = 5 ] || { echo "$n copy summaries, expected 5"; return 1; }
	[ $bad = 0 ] || return 1
	echo "# on B over NBD: range and file intact"
}
