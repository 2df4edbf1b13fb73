# Soak: bad blocks (prd's badblocks, as the firmware would report poison),
# 20 x SOAK_SCALE rounds on a random 4 KiB-aligned range of a file on ext4
# -o dax (devmap): a read of the range fails with EIO, a pmem-zc send and a
# copy (by reference and --copy) fail with EIO and deliver nothing, a DAX
# mmap fault on it gets SIGBUS; a write of the range fails with EIO too and
# a read after it still does (prd cannot clear a media error, so bad stays
# bad). Never a panic or a splat. Figure: rounds, EIOs (7 per round),
# SIGBUSes, failures (goal 0).
TEST_TIMEOUT=1800
SOAK_SCALE=${SOAK_SCALE:-1}

test_run() {
	cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
ROUNDS=$((20 * SOAK_SCALE))
JOB
	cat >> "$T/A.job" <<'JOB'
BIN=/top/net-tests/tools/bin
load_zc map=256M@4G pages=devmap || fail "load"
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mkdir -p /mnt && mount -o dax /dev/pmem0 /mnt || fail "ext4 dax"
head -c $((16 << 20)) /dev/urandom > /mnt/f && sync
socat -u TCP-LISTEN:5001,reuseaddr,fork,bind=127.0.0.1 /dev/null &
wait_for 10 listening 5001 || fail "sink"
# the disk blocks of the file, one per line (4 KiB each)
filefrag -v /mnt/f | awk '$1 ~ /^[0-9]+:$/ { sub(/\.\./, "", $2); sub(/:/, "", $3); sub(/\.\./, "", $4); print $2, $3 - $2 + 1, $4 }' > /tmp/ext
eios=0 bus=0 bad=0
for r in $(seq $ROUNDS); do
	# a random block of the file: its offset in the file and on the disk
	blk=$(awk -v r=$RANDOM 'NR == 1 { print $1 + r % $2, $3 + r % $2 }' /tmp/ext)
	fo=${blk% *} db=${blk#* }
	echo "$((db * 8)) 8" > /sys/block/pmem0/badblocks
	/usr/bin/dd if=/mnt/f of=/dev/null bs=4k skip=$fo count=1 iflag=direct status=none 2>/dev/null &&
		{ bad=$((bad + 1)); echo "round $r: a read of a bad block succeeded"; } || eios=$((eios + 1))
	for c in "" --copy; do
		$ZC send /mnt/f --offset $((fo * 4096)) --length 4K $c --to 127.0.0.1:5001 > /tmp/o 2>&1 &&
			{ bad=$((bad + 1)); echo "round $r: send $c over a bad block succeeded"; }
		grep -q 'Input/output error' /tmp/o && eios=$((eios + 1))
		$ZC copy /mnt/f --offset $((fo * 4096)) --length 4K $c --to /dev/vda > /tmp/o 2>&1 &&
			{ bad=$((bad + 1)); echo "round $r: copy $c over a bad block succeeded"; }
		grep -q 'Input/output error' /tmp/o && eios=$((eios + 1))
	done
	# a DAX fault on the bad block
	$BIN/dax_touch /mnt/f at $((fo * 4096)) > /tmp/t 2>&1
	[ "$(cat /tmp/t)" = SIGBUS ] && bus=$((bus + 1)) || { bad=$((bad + 1)); echo "round $r: DAX fault: $(cat /tmp/t)"; }
	# a full write fails too (prd cannot clear a media error), and the
	# block stays bad
	/usr/bin/dd if=/dev/urandom of=/mnt/f bs=4k seek=$fo count=1 conv=notrunc,fsync oflag=direct status=none 2>/dev/null &&
		{ bad=$((bad + 1)); echo "round $r: the write over the bad block succeeded"; } || eios=$((eios + 1))
	/usr/bin/dd if=/mnt/f of=/dev/null bs=4k skip=$fo count=1 iflag=direct status=none 2>/dev/null &&
		{ bad=$((bad + 1)); echo "round $r: a read after the write succeeded"; } || eios=$((eios + 1))
done
echo "$ROUNDS $eios $bus $bad" > /work/figure
umount /mnt && rmmod pmem_zc && rmmod prd || fail "unload"
JOB
	vm_run A "$T" A.job 1700 || return 1
	local rounds eios bus bad
	read -r rounds eios bus bad < "$T/figure"
	echo "# soak-figure poison: rounds=$rounds eio=$eios sigbus=$bus failures=$bad"
	[ "$bad" = 0 ] && [ "$eios" = $((rounds * 7)) ] && [ "$bus" = "$rounds" ]
}
