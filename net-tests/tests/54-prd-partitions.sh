# prd_direct_access() on partitions, in devmap and sparse mode: a partition
# that starts at sector 2049 (not on a 4 KiB boundary) is refused for
# pmem-zc send and copy, with one kernel line naming the partition and its
# start, and no byte of it or of its neighbour reaches the receiver or the
# target; an aligned partition gives exactly its own bytes; a range that
# straddles its end is refused.
TEST_TIMEOUT=600

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
# recv FILE: a one-shot receiver on 127.0.0.1:5001 writing FILE
recv() {
	socat -u TCP-LISTEN:5001,reuseaddr,bind=127.0.0.1 - > "$1" & rx=$!
	wait_for 10 listening 5001 || fail "no receiver"
}
for m in devmap sparse; do
	load_zc map=512M@4G pages=$m || fail "$m: load"
	# random bytes around both partitions' starts, then p1 at sector 2049
	# (unaligned), p2 at sector 264192 (129 MiB, aligned), 64 MiB each
	put /dev/pmem0 0 $((4 << 20)) > /dev/null || fail "$m: fill"
	put /dev/pmem0 $((128 << 20)) $((4 << 20)) > /dev/null || fail "$m: fill"
	printf 'label: dos\n2049,131072,L\n264192,131072,L\n' | sfdisk -q /dev/pmem0 || fail "$m: sfdisk"
	wait_for 10 test -b /dev/pmem0p2 || fail "$m: no partitions"
	[ "$(cat /sys/block/pmem0/pmem0p1/start)" = 2049 ] || fail "$m: p1 start"
	P1=$(get /dev/pmem0p1 0 $((1 << 20)))
	P2=$(get /dev/pmem0p2 0 $((1 << 20)))

	# 1. send from the unaligned partition
	dmesg -c > /dev/null
	recv /tmp/got
	if $ZC send /dev/pmem0p1 --length 1M --to 127.0.0.1:5001 > /tmp/out 2>&1; then
		wait $rx
		[ "$(sha256sum < /tmp/got | cut -d' ' -f1)" = "$P1" ] || fail "$m: send from p1 delivered bytes that are not p1's"
		echo "ok - $m: send from p1 delivered p1's own bytes"
	else
		kill $rx 2>/dev/null; wait $rx
		[ ! -s /tmp/got ] || fail "$m: a refused send delivered $(stat -c %s /tmp/got) bytes"
		dmesg | grep -q 'pmem0p1: partition at sector 2049, 131072 sectors long, is not aligned' ||
			fail "$m: no kernel line naming pmem0p1 and its start: $(dmesg | tail -3)"
		echo "ok - $m: send from p1 refused: $(tail -1 /tmp/out)"
	fi

	# 2. copy from the unaligned partition to the scratch disk
	dd if=/dev/zero of=/dev/vda bs=1M count=2 oflag=direct status=none
	Z=$(get /dev/vda 0 $((1 << 20)) direct)
	if $ZC copy /dev/pmem0p1 --length 1M --to /dev/vda > /tmp/out 2>&1; then
		[ "$(get /dev/vda 0 $((1 << 20)) direct)" = "$P1" ] || fail "$m: copy from p1 wrote bytes that are not p1's"
		echo "ok - $m: copy from p1 wrote p1's own bytes"
	else
		[ "$(get /dev/vda 0 $((1 << 20)) direct)" = "$Z" ] || fail "$m: a refused copy wrote to the target"
		echo "ok - $m: copy from p1 refused: $(tail -1 /tmp/out)"
	fi

	# 3. the aligned partition: its own bytes, by send and by copy
	recv /tmp/got
	$ZC send /dev/pmem0p2 --length 1M --to 127.0.0.1:5001 > /tmp/out 2>&1 || fail "$m: send p2: $(cat /tmp/out)"
	wait $rx
	[ "$(sha256sum < /tmp/got | cut -d' ' -f1)" = "$P2" ] || fail "$m: send from p2: wrong bytes"
	$ZC copy /dev/pmem0p2 --length 1M --to /dev/vda > /tmp/out 2>&1 || fail "$m: copy p2: $(cat /tmp/out)"
	[ "$(get /dev/vda 0 $((1 << 20)) direct)" = "$P2" ] || fail "$m: copy from p2: wrong bytes"
	echo "ok - $m: p2 (aligned) sent and copied intact"

	# 4. a range straddling p2's end
	$ZC send /dev/pmem0p2 --offset $(((64 << 20) - 4096)) --length 8K --to 127.0.0.1:5999 > /tmp/out 2>&1 &&
		fail "$m: send past p2's end succeeded"
	grep -q 'beyond the end' /tmp/out || fail "$m: send past the end: $(cat /tmp/out)"
	$ZC copy /dev/pmem0p2 --offset $(((64 << 20) - 4096)) --length 8K --to /dev/vda > /tmp/out 2>&1 &&
		fail "$m: copy past p2's end succeeded"
	grep -q 'beyond the end' /tmp/out || fail "$m: copy past the end: $(cat /tmp/out)"
	echo "ok - $m: ranges past p2's end refused"

	# 5. a copy between two partitions of one disk (they may overlap)
	$ZC copy /dev/pmem0p2 --length 4K --to /dev/pmem0p1 > /tmp/out 2>&1 && fail "$m: copy from p2 to p1 of the same disk"
	echo "ok - $m: a copy between partitions of one disk refused: $(tail -1 /tmp/out)"

	dd if=/dev/zero of=/dev/pmem0 bs=512 count=1 oflag=direct status=none
	rmmod pmem_zc && rmmod prd || fail "$m: unload"
done
JOB
	vm_run A "$T" A.job 500 || return 1
	grep -a '^ok - ' "$T/A.serial.log"
	[ "$(grep -a -c '^ok - ' "$T/A.serial.log")" = 10 ] || { echo "expected 10 parts"; return 1; }
}
