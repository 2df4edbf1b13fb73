# prd's queue and the rest of its contract with the block and DAX layers:
# RWF_NOWAIT I/O works; queue/iostats is honoured and an empty flush is not
# counted as a write; the DAX device has write-back on (dax/write_cache),
# and a DAX-mmap store + msync survives a QEMU SIGKILL; bad blocks
# (/sys/block/pmemN/badblocks) fail reads, direct access (pmem-zc) and DAX
# faults with EIO/SIGBUS until a write clears them (a block write, or a
# whole-page write through ext4 -o dax: dax_recovery_write); a load whose
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
head -c 4096 /dev/urandom > /tmp/blk
/usr/bin/dd if=/tmp/blk of=/dev/pmem0 bs=4k seek=512 count=1 oflag=direct status=none || fail "write over bad blocks"
[ -z "$(cat /sys/block/pmem0/badblocks)" ] || fail "the write left bad blocks: $(cat /sys/block/pmem0/badblocks)"
[ "$(get /dev/pmem0 2097152 4096 direct)" = "$(sha256sum < /tmp/blk | cut -d' ' -f1)" ] || fail "read after clearing"
echo "ok - bad blocks: read EIO, send EIO, a full write clears them"

# DAX fault on a bad block: SIGBUS, then fine once written
mount -o dax /dev/pmem1 /mnt || fail "mount pmem1"
head -c 65536 /dev/urandom > /mnt/f && sync
blk=$(filefrag -v /mnt/f | awk '/^ *0:/ {sub(/\.\./, "", $4); print $4}')
[ -n "$blk" ] || fail "no extent of /mnt/f"
echo "$((blk * 8)) 8" > /sys/block/pmem1/badblocks
/top/net-tests/tools/bin/dax_touch /mnt/f > /tmp/touch 2>&1; rc=$?
[ $rc = 3 ] && [ "$(cat /tmp/touch)" = SIGBUS ] || fail "DAX fault on a bad block: exit $rc, $(cat /tmp/touch)"
echo "ok - a DAX fault on a bad block gets SIGBUS"
# through the file system: a read fails, a part-page write is refused, a
# whole-page write replaces the bad page (dax_recovery_write) and clears it
/usr/bin/dd if=/mnt/f of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null &&
	fail "a DAX read of a bad block succeeded"
/usr/bin/dd if=/dev/zero of=/mnt/f bs=512 count=1 conv=notrunc oflag=direct status=none 2>/dev/null &&
	fail "a part-page DAX write over a bad page succeeded"
[ -n "$(cat /sys/block/pmem1/badblocks)" ] || fail "a part-page write cleared the bad block"
head -c 4096 /dev/urandom > /tmp/page
/usr/bin/dd if=/tmp/page of=/mnt/f bs=4k count=1 conv=notrunc,fsync oflag=direct status=none ||
	fail "a whole-page DAX write over a bad block failed"
[ -z "$(cat /sys/block/pmem1/badblocks)" ] || fail "the DAX write left bad blocks: $(cat /sys/block/pmem1/badblocks)"
[ "$(head -c 4096 /mnt/f | sha256sum)" = "$(sha256sum < /tmp/page)" ] || fail "the page written over a bad block reads back wrong"
/top/net-tests/tools/bin/dax_touch /mnt/f > /tmp/touch 2>&1 || fail "DAX fault after the write: $(cat /tmp/touch)"
# pages 0 and 1 bad; a write of page 1 and half of page 2 (the bad range
# starts before it) goes through page by page and leaves page 0 bad
echo "$((blk * 8)) 16" > /sys/block/pmem1/badblocks
head -c 6144 /dev/urandom > /tmp/p15
/usr/bin/dd if=/tmp/p15 of=/mnt/f bs=6144 count=1 seek=4096 oflag=seek_bytes,direct conv=notrunc,fsync status=none ||
	fail "a DAX write from inside a bad range failed"
[ "$(cat /sys/block/pmem1/badblocks)" = "$((blk * 8)) 8" ] ||
	fail "after writing page 1: badblocks '$(cat /sys/block/pmem1/badblocks)', expected page 0 only"
# (read past page 0, which is still bad)
[ "$(/usr/bin/dd if=/mnt/f bs=6144 count=1 skip=4096 iflag=skip_bytes status=none | sha256sum)" = "$(sha256sum < /tmp/p15)" ] ||
	fail "the write from inside a bad range reads back wrong"
/usr/bin/dd if=/tmp/page of=/mnt/f bs=4k count=1 conv=notrunc,fsync oflag=direct status=none &&
	[ -z "$(cat /sys/block/pmem1/badblocks)" ] || fail "page 0 not cleared"
umount /mnt
echo "ok - a DAX write of a whole bad page replaces it and clears the bad block, also from inside a bad range; a part-page write is refused"
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
