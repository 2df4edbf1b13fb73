# prd's queue and the rest of its contract with the block and DAX layers:
# RWF_NOWAIT I/O works; queue/iostats is honoured and an empty flush is not
# counted as a write; the DAX device has write-back on (dax/write_cache),
# and a DAX-mmap store + msync survives a QEMU SIGKILL; bad blocks
# (/sys/block/pmemN/badblocks) fail reads, writes, direct access (pmem-zc)
# and DAX faults with EIO/SIGBUS, and stay (prd cannot clear a media error,
# so it never claims to, as pmem.c without a clear-error command); a load whose
# second region is refused announces no disk at all (no uevent); an e820 legacy
# pmem range (memmap=nn!ss) loads, and says so in prd/firmware.
TEST_TIMEOUT=900

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
P=/top/pmem-driver/prd.ko
mkdir -p /mnt
load_zc map=256M@4G,256M@0x110000000 pages=devmap || fail "load"
q=/sys/block/pmem0/queue

# 1. RWF_NOWAIT (O_DIRECT preadv2/pwritev2): supported, as on brd
fio --name=nw --filename=/dev/pmem0 --ioengine=pvsync2 --nowait=1 --direct=1 \
    --rw=randrw --bs=4k --size=8M --io_size=8M --verify=crc32c > /tmp/fio 2>&1 ||
	{ cat /tmp/fio; fail "RWF_NOWAIT I/O failed"; }
echo "ok - RWF_NOWAIT reads and writes with verify"

# 2. iostats honoured; an empty flush is no write
w0=$(awk '{print $5}' /sys/block/pmem0/stat)
f0=$(cat /sys/block/pmem0/prd/flushes)
/usr/bin/dd if=/dev/null of=/dev/pmem0 count=0 conv=fsync status=none
f1=$(cat /sys/block/pmem0/prd/flushes)
w1=$(awk '{print $5}' /sys/block/pmem0/stat)
[ "$f1" -gt "$f0" ] || fail "fsync sent no flush"
[ "$w1" = "$w0" ] || fail "an empty flush counted as $((w1 - w0)) writes"
echo 0 > $q/iostats
r0=$(awk '{print $1}' /sys/block/pmem0/stat)
/usr/bin/dd if=/dev/pmem0 of=/dev/null bs=4k count=16 iflag=direct status=none
[ "$(awk '{print $1}' /sys/block/pmem0/stat)" = "$r0" ] || fail "iostats=0: reads still counted"
echo 1 > $q/iostats
/usr/bin/dd if=/dev/pmem0 of=/dev/null bs=4k count=16 iflag=direct status=none
[ "$(awk '{print $1}' /sys/block/pmem0/stat)" -gt "$r0" ] || fail "iostats=1: reads not counted"
echo "ok - empty flush counted as a flush only; iostats=0 stops the accounting"

# 3. DAX write-back on; a DAX-mmap write + msync is durable
[ "$(cat /sys/block/pmem0/dax/write_cache)" = 1 ] || fail "dax/write_cache is $(cat /sys/block/pmem0/dax/write_cache)"
echo "ok - dax/write_cache = 1"
[ "$(cat /sys/block/pmem0/prd/firmware)" = "ACPI NFIT" ] || fail "firmware: $(cat /sys/block/pmem0/prd/firmware)"

# 4. bad blocks: sector 4096 and 8 after it
mkfs.ext4 -q -F -b 4096 /dev/pmem1 || fail "mkfs pmem1"
echo "4096 8" > /sys/block/pmem0/badblocks || fail "cannot mark bad blocks"
grep -q '^4096 8$' /sys/block/pmem0/badblocks || fail "badblocks: $(cat /sys/block/pmem0/badblocks)"
/usr/bin/dd if=/dev/pmem0 of=/dev/null bs=4k skip=512 count=1 iflag=direct status=none 2>/tmp/err &&
	fail "a read of a bad sector succeeded"
grep -q 'Input/output error' /tmp/err || fail "bad read: $(cat /tmp/err)"
/usr/bin/dd if=/dev/pmem0 of=/dev/null bs=4k skip=511 count=1 iflag=direct status=none || fail "a good sector next to it failed"
socat -u TCP-LISTEN:5001,reuseaddr,bind=127.0.0.1 /dev/null & rx=$!
wait_for 10 listening 5001
$ZC send /dev/pmem0 --offset 2M --length 8K --to 127.0.0.1:5001 > /tmp/out 2>&1 && fail "pmem-zc send over bad blocks succeeded"
grep -q 'Input/output error' /tmp/out || fail "send over bad blocks: $(cat /tmp/out)"
kill $rx 2>/dev/null; wait $rx 2>/dev/null
# prd cannot clear a media error: a write over the range fails with EIO as
# on pmem.c where the bus has no clear-error command, and the record stays
head -c 4096 /dev/urandom > /tmp/blk
/usr/bin/dd if=/tmp/blk of=/dev/pmem0 bs=4k seek=512 count=1 oflag=direct status=none 2>/tmp/err &&
	fail "a write over bad blocks succeeded"
grep -q 'Input/output error' /tmp/err || fail "bad write: $(cat /tmp/err)"
/usr/bin/dd if=/tmp/blk of=/dev/pmem0 bs=512 seek=4100 count=1 oflag=direct status=none 2>/dev/null &&
	fail "a one-sector write into the bad range succeeded"
[ "$(cat /sys/block/pmem0/badblocks)" = "4096 8" ] || fail "after the writes: badblocks '$(cat /sys/block/pmem0/badblocks)'"
/usr/bin/dd if=/tmp/blk of=/dev/pmem0 bs=4k seek=513 count=1 oflag=direct status=none || fail "a write next to the bad range failed"
[ "$(get /dev/pmem0 $((513 * 4096)) 4096 direct)" = "$(sha256sum < /tmp/blk | cut -d' ' -f1)" ] || fail "read next to the bad range"
echo "ok - bad blocks: read EIO, send EIO, write EIO, the record stays; the sectors next to them work"

# DAX fault on a bad block: SIGBUS, then fine once written
mount -o dax /dev/pmem1 /mnt || fail "mount pmem1"
head -c 65536 /dev/urandom > /mnt/f && sync
blk=$(filefrag -v /mnt/f | awk '/^ *0:/ {sub(/\.\./, "", $4); print $4}')
[ -n "$blk" ] || fail "no extent of /mnt/f"
echo "$((blk * 8)) 8" > /sys/block/pmem1/badblocks
/top/net-tests/tools/bin/dax_touch /mnt/f > /tmp/touch 2>&1; rc=$?
[ $rc = 3 ] && [ "$(cat /tmp/touch)" = SIGBUS ] || fail "DAX fault on a bad block: exit $rc, $(cat /tmp/touch)"
echo "ok - a DAX fault on a bad block gets SIGBUS"
# through the file system: reads and writes of the bad page fail (no DAX
# recovery write: nothing could clear it), the record stays, the rest of the
# file works
/usr/bin/dd if=/mnt/f of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null &&
	fail "a DAX read of a bad block succeeded"
/usr/bin/dd if=/dev/zero of=/mnt/f bs=512 count=1 conv=notrunc oflag=direct status=none 2>/dev/null &&
	fail "a part-page DAX write over a bad page succeeded"
head -c 4096 /dev/urandom > /tmp/page
/usr/bin/dd if=/tmp/page of=/mnt/f bs=4k count=1 conv=notrunc,fsync oflag=direct status=none 2>/tmp/err &&
	fail "a whole-page DAX write over a bad block succeeded"
grep -q 'Input/output error' /tmp/err || fail "whole-page DAX write: $(cat /tmp/err)"
[ "$(cat /sys/block/pmem1/badblocks)" = "$((blk * 8)) 8" ] || fail "after the DAX writes: badblocks '$(cat /sys/block/pmem1/badblocks)'"
/usr/bin/dd if=/tmp/page of=/mnt/f bs=4k count=1 seek=1 conv=notrunc,fsync oflag=direct status=none ||
	fail "a DAX write of the next page failed"
[ "$(/usr/bin/dd if=/mnt/f bs=4k skip=1 count=1 status=none | sha256sum)" = "$(sha256sum < /tmp/page)" ] ||
	fail "the next page reads back wrong"
umount /mnt
echo "ok - DAX reads and writes of a bad page fail with EIO and leave the record; the next page works"
rmmod pmem_zc && rmmod prd || fail "unload"

# 5. claim-then-commit: a bad second region announces nothing
s0=$(cat /sys/kernel/uevent_seqnum)
$INSMOD $P map=256M@0x180000000 2>/dev/null && fail "an undescribed region loaded"
s1=$(cat /sys/kernel/uevent_seqnum)
$INSMOD $P map=256M@4G,256M@0x180000000 2>/dev/null && fail "a map with an undescribed region loaded"
s2=$(cat /sys/kernel/uevent_seqnum)
[ $((s2 - s1)) = $((s1 - s0)) ] || fail "a refused second region cost $((s2 - s1)) uevents, a refused first $((s1 - s0)): disks were announced"
echo "ok - a refused second region announced no disk ($((s2 - s1)) uevents, as for a refused load)"
JOB
	vm_run A "$T" A.job 700 || return 1

	# 6. durability of a DAX-mmap store + msync across a QEMU SIGKILL
	cat > "$T/w.job" <<'JOB'
. /top/vm/guest/lib.sh
$INSMOD /top/pmem-driver/prd.ko map=256M@4G pages=devmap || fail "load"
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mkdir -p /mnt && mount -o dax /dev/pmem0 /mnt || fail "ext4 dax"
head -c 65536 /dev/zero > /mnt/f && sync
/top/net-tests/tools/bin/dax_touch /mnt/f write > /tmp/msync.out 2>&1 || fail "msync write: $(cat /tmp/msync.out)"
# read(2) of a DAX file reads the pmem itself: what the stores left there
echo "written $(sha256sum < /mnt/f | cut -d' ' -f1)" > /work/msync.out
touch /work/written
sleep 600
JOB
	vm_start A "$T" w.job
	vm_wait_file "$T" written 240 || { vm_kill A "$T" KILL; return 1; }
	vm_kill A "$T" KILL
	cat > "$T/r.job" <<'JOB'
. /top/vm/guest/lib.sh
$INSMOD /top/pmem-driver/prd.ko map=256M@4G pages=devmap || fail "load"
mkdir -p /mnt && mount -o dax /dev/pmem0 /mnt || fail "mount after SIGKILL"
sha256sum < /mnt/f | cut -d' ' -f1 > /work/msync.back
JOB
	vm_run A "$T" r.job || return 1
	[ "$(cut -d' ' -f2 "$T/msync.out")" = "$(cat "$T/msync.back")" ] ||
		{ echo "DAX store + msync lost across SIGKILL: wrote $(cat "$T/msync.out"), read $(cat "$T/msync.back")"; return 1; }
	echo "ok - a DAX-mmap store + msync survived a QEMU SIGKILL"

	# 7. e820 legacy persistent memory (memmap=64M!768M): described, loads
	cat > "$T/e.job" <<'JOB'
. /top/vm/guest/lib.sh
grep -q 'Persistent Memory (legacy)' /proc/iomem || fail "no e820 legacy range: $(cat /proc/iomem)"
$INSMOD /top/pmem-driver/prd.ko map=64M@768M || fail "the e820 range did not load"
[ "$(cat /sys/block/pmem0/prd/firmware)" = e820 ] || fail "firmware: $(cat /sys/block/pmem0/prd/firmware)"
putget /dev/pmem0 4096 8192
rmmod prd
echo "ok - an e820 legacy persistent memory range loads (firmware=e820)"
JOB
	VM_APPEND="memmap=64M!768M" vm_run A "$T" e.job || return 1
	grep -a '^ok - ' "$T"/A*.serial.log | sed 's/^[^:]*://'
	[ "$(grep -a -h -c '^ok - ' "$T"/A*.serial.log | paste -sd+ | bc)" = 8 ] || { echo "expected 8 parts in the guests"; return 1; }
}
