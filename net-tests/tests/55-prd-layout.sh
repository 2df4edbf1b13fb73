# The memmap=dev layout is recorded on the region (prd info block): ext4
# made under pages=devmap memmap=dev is intact when the region is reloaded
# with memmap=ram, pages=none and pages=sparse (the disk starts at the same
# offset), and again under memmap=dev; a region that holds data but no
# info block is refused by memmap=dev (it would be overwritten), and so is
# a map= of another size than the one the block records; a load whose
# info block cannot be written fails and leaves the head empty.
TEST_TIMEOUT=600

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
P=/top/pmem-driver/prd.ko
D=/sys/block/pmem0/prd
mkdir -p /mnt
$INSMOD $P map=256M@4G pages=devmap memmap=dev || fail "memmap=dev load"
off=$(cat $D/data_offset)
[ "$off" -gt 0 ] || fail "data_offset 0 with memmap=dev"
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount -o dax /dev/pmem0 /mnt || fail "ext4 on memmap=dev"
randfill $((3 << 20)) > /mnt/f && sync || fail "write"
S=$(sha256sum < /mnt/f | cut -d' ' -f1)
umount /mnt && rmmod prd || fail "unload"
echo "ok - ext4 made under memmap=dev, disk at $off"

for args in "pages=devmap" "pages=none" "pages=sparse" "pages=devmap memmap=dev"; do
	$INSMOD $P map=256M@4G $args || fail "$args: load"
	[ "$(cat $D/data_offset)" = "$off" ] || fail "$args: disk at $(cat $D/data_offset), not $off"
	opts=; [ "$args" = pages=devmap ] && opts="-o dax"
	mount $opts /dev/pmem0 /mnt || fail "$args: ext4 does not mount"
	[ "$(sha256sum < /mnt/f | cut -d' ' -f1)" = "$S" ] || fail "$args: file differs"
	umount /mnt
	e2fsck -fn /dev/pmem0 > /tmp/fsck 2>&1 || { cat /tmp/fsck; fail "$args: e2fsck"; }
	[ "$(cat $D/layout)" = info-block ] || fail "$args: layout $(cat $D/layout), not info-block"
	rmmod prd || fail "$args: unload"
	echo "ok - reloaded with $args: disk at $off, file intact, e2fsck clean"
done

# another size than the block records: refused, saying so
dmesg -c > /dev/null
$INSMOD $P map=128M@4G pages=devmap memmap=dev 2>/dev/null && { rmmod prd; fail "a 128M map of a 256M layout loaded"; }
dmesg | grep -q 'laid out for 268435456 bytes' || fail "no message on the size mismatch: $(dmesg | tail -2)"
echo "ok - a map of another size refused: $(dmesg | grep 'laid out' | sed 's/^\[[^]]*\] //')"

# data and no info block (second half of the NVDIMM): memmap=dev refuses
$INSMOD $P map=256M@0x110000000 || fail "plain load"
mkfs.ext4 -q -F -b 4096 /dev/pmem0 || fail "mkfs plain"
rmmod prd
dmesg -c > /dev/null
$INSMOD $P map=256M@0x110000000 pages=devmap memmap=dev 2>/dev/null && { rmmod prd; fail "memmap=dev over data loaded"; }
dmesg | grep -q 'holds data and no prd info block' || fail "no message on data without layout: $(dmesg | tail -2)"
$INSMOD $P map=256M@0x110000000 || fail "plain reload"
e2fsck -fn /dev/pmem0 > /tmp/fsck 2>&1 || { cat /tmp/fsck; fail "the refused load damaged the filesystem"; }
rmmod prd
echo "ok - memmap=dev over data without an info block refused, data untouched"

# a new layout whose info block cannot be written (prd's fault attribute
# fail_layout_write, kernels with CONFIG_FAULT_INJECTION): the load fails
# and leaves the head as it found it, so no later load starts the disk at
# another offset than this one would have
if grep -aq 'parmtype=fail_layout_write' $P; then
	$INSMOD $P map=256M@0x110000000 || fail "plain load"
	/usr/bin/dd if=/dev/zero of=/dev/pmem0 bs=1M count=16 oflag=direct status=none || fail "zero the head"
	rmmod prd
	dmesg -c > /dev/null
	$INSMOD $P map=256M@0x110000000 pages=devmap memmap=dev fail_layout_write=1,100,0,1 2>/dev/null &&
		{ off=$(cat $D/data_offset) l=$(cat $D/layout); rmmod prd; fail "the load went on without its info block (disk at $off, layout $l)"; }
	dmesg | grep -q 'cannot write its info block' || fail "no message on the failed write: $(dmesg | tail -2)"
	[ ! -e /sys/block/pmem0 ] || fail "a disk is left"
	$INSMOD $P map=256M@0x110000000 || fail "plain load after the failed one"
	[ "$(cat $D/layout) $(cat $D/data_offset)" = "none 0" ] || fail "after the failed load: layout $(cat $D/layout), disk at $(cat $D/data_offset)"
	cmp -s -n $((16 << 20)) /dev/pmem0 /dev/zero || fail "the failed load left its head written"
	rmmod prd
	$INSMOD $P map=256M@0x110000000 pages=devmap memmap=dev || fail "memmap=dev load after the failed one"
	[ "$(cat $D/layout)" = info-block ] || fail "layout $(cat $D/layout)"
	rmmod prd
	echo "ok - an info block that cannot be written fails the load, the head left empty"
else
	echo "ok - an info block that cannot be written fails the load # SKIP prd built without CONFIG_FAULT_INJECTION (no fail_layout_write)"
fi
JOB
	vm_run A "$T" A.job 500 || return 1
	grep -a '^ok - ' "$T/A.serial.log"
	[ "$(grep -a -c '^ok - ' "$T/A.serial.log")" = 8 ] || { echo "expected 8 parts"; return 1; }
}
