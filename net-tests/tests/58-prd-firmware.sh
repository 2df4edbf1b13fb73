# prd reads what the NFIT says of the NVDIMMs behind a region, as libnvdimm
# does. On QEMU's unarmed NVDIMM (-device nvdimm,unarmed=on) the disk is
# read-only: writes are refused (also after blockdev --setrw), reads work,
# a first memmap=dev load (which would write its info block) is refused,
# and upstream's nd_pmem on the same NVDIMM is read-only too (the
# reference). On an armed NVDIMM, nd_pmem fails a write over an injected
# bad block with EIO and keeps the record, which is what prd does (57).
# Flush hints QEMU never builds: 01 tests them on crafted tables.
TEST_TIMEOUT=600

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
P=/top/pmem-driver/prd.ko
dmesg -c > /dev/null
$INSMOD $P map=256M@4G pages=devmap || fail "load on an unarmed NVDIMM"
dmesg | grep -q 'not_armed' && dmesg | grep -q 'the disk is read-only' ||
	fail "no message on the unarmed NVDIMM: $(dmesg | tail -3)"
[ "$(cat /sys/block/pmem0/ro)" = 1 ] || fail "pmem0 is writable (ro=$(cat /sys/block/pmem0/ro))"
/usr/bin/dd if=/dev/zero of=/dev/pmem0 bs=4k count=1 oflag=direct status=none 2>/tmp/err &&
	fail "a write to the disk of an unarmed NVDIMM succeeded"
grep -q 'Operation not permitted' /tmp/err || fail "write: $(cat /tmp/err)"
blockdev --setrw /dev/pmem0
/usr/bin/dd if=/dev/zero of=/dev/pmem0 bs=4k count=1 oflag=direct status=none 2>/dev/null &&
	fail "blockdev --setrw made the disk of an unarmed NVDIMM writable"
mkfs.ext4 -q -F -b 4096 /dev/pmem0 2>/dev/null && fail "mkfs on the disk of an unarmed NVDIMM succeeded"
/usr/bin/dd if=/dev/pmem0 of=/dev/null bs=4k count=16 iflag=direct status=none || fail "a read failed"
rmmod prd || fail "unload"
echo "ok - prd on an unarmed NVDIMM: the disk is read-only, writes refused (also after blockdev --setrw), reads work"

dmesg -c > /dev/null
$INSMOD $P map=256M@4G pages=devmap memmap=dev 2>/dev/null && { rmmod prd; fail "memmap=dev laid out a region of an unarmed NVDIMM"; }
dmesg | grep -q 'memmap=dev cannot record its layout' || fail "no message on memmap=dev: $(dmesg | tail -2)"
echo "ok - memmap=dev, which would write an info block, refused on an unarmed NVDIMM"

modprobe nd_pmem && modprobe nfit || fail "modprobe"
wait_for 30 test -b /dev/pmem0 || fail "no /dev/pmem0 from nd_pmem"
[ "$(cat /sys/block/pmem0/ro)" = 1 ] || fail "nd_pmem: pmem0 is writable on an unarmed NVDIMM"
echo "ok - nd_pmem on the same NVDIMM: read-only too"
JOB
	VM_NVDIMM_OPTS=unarmed=on vm_run A "$T" A.job 500 || return 1

	mkdir -p "$T/armed"
	cat > "$T/armed/A.job" <<'JOB'
. /top/vm/guest/lib.sh
modprobe nd_pmem && modprobe nfit || fail "modprobe"
wait_for 30 test -b /dev/pmem0 || fail "no /dev/pmem0 from nd_pmem"
[ "$(cat /sys/block/pmem0/ro)" = 0 ] || fail "nd_pmem: read-only on an armed NVDIMM"
echo "2048 8" > /sys/block/pmem0/badblocks || fail "cannot mark bad blocks on nd_pmem"
/usr/bin/dd if=/dev/zero of=/dev/pmem0 bs=4k seek=256 count=1 oflag=direct status=none 2>/tmp/err &&
	fail "nd_pmem: a write over a bad block succeeded"
grep -q 'Input/output error' /tmp/err || fail "nd_pmem write: $(cat /tmp/err)"
[ "$(cat /sys/block/pmem0/badblocks)" = "2048 8" ] || fail "nd_pmem: badblocks '$(cat /sys/block/pmem0/badblocks)' after the write"
echo "ok - nd_pmem (no clear-error command in QEMU's NFIT): a write over a bad block fails with EIO, the record stays"
JOB
	vm_run A "$T/armed" A.job 300 || return 1
	grep -a -h '^ok - ' "$T/A.serial.log" "$T/armed/A.serial.log"
	[ "$(grep -a -h -c '^ok - ' "$T/A.serial.log" "$T/armed/A.serial.log" | paste -sd+ | bc)" = 4 ] ||
		{ echo "expected 4 parts"; return 1; }
}
