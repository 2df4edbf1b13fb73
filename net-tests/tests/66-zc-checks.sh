# pmem_zc reads and writes as read(2) and an O_DIRECT write(2) would, and
# never sends a byte twice. A disk source's dirty page cache is written
# back before its pmem is read; a copy writes the target's dirty cache back
# first and invalidates the range after (a buffered read sees the copy,
# and no stale page lands on it later); offsets not aligned to the target's
# logical block size (a 4 KiB NBD disk) are refused. Bounce copies of bad
# blocks fail with EIO (copy_mc), for send and copy. A send cut short by a
# signal (SA_RESTART handler) reports what it queued and is never restarted:
# the receiver gets each byte once; one interrupted before it queued
# anything restarts, as send(2); SO_SNDTIMEO gives the bytes queued and
# EAGAIN. 2000 one-bio copies in a row complete without a KASAN report. An
# rmmod right after a copy whose end a debug knob holds 300 ms waits for it
# (no code of the module runs on freed text).
TEST_TIMEOUT=900

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
BIN=/top/net-tests/tools/bin
load_zc map=256M@4G,256M@0x110000000 pages=devmap || fail "load"
# recv FILE [DELAY]: a one-shot receiver on 127.0.0.1:5001, reading after DELAY s
recv() {
	socat -u TCP-LISTEN:5001,reuseaddr,bind=127.0.0.1 SYSTEM:"sleep ${2:-0}; cat > $1" & rx=$!
	wait_for 10 listening 5001 || fail "no receiver"
}

# 1. a disk source's dirty page cache reaches pmem before the send reads it
head -c 65536 /dev/urandom > /tmp/new
/usr/bin/dd if=/tmp/new of=/dev/pmem1 bs=4k count=16 status=none	# buffered, not synced
recv /tmp/got
$ZC send /dev/pmem1 --length 64K --to 127.0.0.1:5001 > /tmp/out 2>&1 || fail "send: $(cat /tmp/out)"
wait $rx
cmp -s /tmp/new /tmp/got || fail "the send read pmem under a dirty page cache"
echo "ok - a disk's dirty page cache is written back before pmem is read"

# 2. a copy and the target's page cache
put /dev/pmem0 0 65536 > /tmp/P || fail "fill pmem0"
head -c 65536 /dev/urandom > /tmp/junk
/usr/bin/dd if=/dev/vda of=/dev/null bs=4k count=16 status=none	# cached
/usr/bin/dd if=/tmp/junk of=/dev/vda bs=4k count=16 status=none	# dirty, not synced
$ZC copy /dev/pmem0 --length 64K --to /dev/vda > /tmp/out 2>&1 || fail "copy: $(cat /tmp/out)"
[ "$(get /dev/vda 0 65536)" = "$(cat /tmp/P)" ] || fail "a buffered read of the target does not see the copy"
sync; echo 3 > /proc/sys/vm/drop_caches
[ "$(get /dev/vda 0 65536 direct)" = "$(cat /tmp/P)" ] || fail "a stale cached page landed on the copy"
echo "ok - a copy writes the target's dirty cache back first and invalidates it after"

# 3. the target's logical block size: a 4 KiB-sector NBD disk
truncate -s 16M /tmp/nbd.img
printf '[generic]\n[d]\nexportname = /tmp/nbd.img\n' > /tmp/nbd.conf
nbd-server -C /tmp/nbd.conf && wait_for 10 listening 10809 || fail "nbd-server"
nbd-client -N d 127.0.0.1 /dev/nbd0 -b 4096 > /dev/null || fail "nbd-client"
[ "$(cat /sys/block/nbd0/queue/logical_block_size)" = 4096 ] || fail "nbd0 logical block $(cat /sys/block/nbd0/queue/logical_block_size)"
$ZC copy /dev/pmem0 --length 4K --dst-offset 512 --to /dev/nbd0 > /tmp/out 2>&1 && fail "a copy to a 512-byte offset of a 4K disk"
grep -q 'alignment' /tmp/out || fail "4K target: $(cat /tmp/out)"
$ZC copy /dev/pmem0 --length 8K --dst-offset 4K --to /dev/nbd0 > /tmp/out 2>&1 || fail "aligned copy to nbd0: $(cat /tmp/out)"
nbd-client -d /dev/nbd0 > /dev/null
echo "ok - offsets not aligned to the target's 4 KiB logical blocks: refused"

# 4. bounce copies of bad blocks: EIO, nothing sent or written
echo "2048 8" > /sys/block/pmem0/badblocks
recv /tmp/got
$ZC send /dev/pmem0 --offset 1M --length 4K --copy --to 127.0.0.1:5001 > /tmp/out 2>&1 && fail "send --copy over bad blocks"
grep -q 'Input/output error' /tmp/out || fail "send --copy over bad blocks: $(cat /tmp/out)"
kill $rx 2>/dev/null; wait $rx 2>/dev/null
[ ! -s /tmp/got ] || fail "bytes of a bad block were sent"
$ZC copy /dev/pmem0 --offset 1M --length 4K --copy --to /dev/vda > /tmp/out 2>&1 && fail "copy --copy over bad blocks"
grep -q 'Input/output error' /tmp/out || fail "copy --copy over bad blocks: $(cat /tmp/out)"
# (the record stays: prd cannot clear it; the later parts stay below 1 MiB)
echo "ok - bounce copies of bad blocks: EIO for send and copy"

# 5. signals and timeouts never duplicate bytes
put /dev/pmem1 0 $((48 << 20)) > /tmp/S48 || fail "fill pmem1"
recv /tmp/got 5
$BIN/zc_sendtest restart /dev/pmem1 127.0.0.1:5001 $((48 << 20)) > /tmp/restart || fail "restart: $(cat /tmp/restart)"
wait $rx
cat /tmp/restart
[ "$(sha256sum < /tmp/got | cut -d' ' -f1)" = "$(cat /tmp/S48)" ] ||
	fail "with signals: the receiver got $(stat -c %s /tmp/got) bytes, not the 48 MiB once"
[ "$(awk '/^signals/ {print $2}' /tmp/restart)" -gt 10 ] || fail "too few signals to test anything"
[ "$(awk '/^sends/ {print $2}' /tmp/restart)" -gt 1 ] || fail "no send was cut short by a signal"
echo "ok - sends cut short by $(awk '/^signals/ {print $2}' /tmp/restart) signals: $(awk '/^sends/ {print $2}' /tmp/restart) sends, each byte once"
check "a send interrupted before it queued anything restarts under SA_RESTART, never EINTR" grep -q '^eintr_nothing_queued 0$' /tmp/restart
recv /tmp/got 10
$BIN/zc_sendtest sndtimeo /dev/pmem1 127.0.0.1:5001 $((48 << 20)) > /tmp/tmo || fail "sndtimeo: $(cat /tmp/tmo)"
wait $rx
q=$(awk '/^queued/ {print $2}' /tmp/tmo)
[ "$(stat -c %s /tmp/got)" = "$q" ] || fail "SO_SNDTIMEO: $q bytes queued, the receiver got $(stat -c %s /tmp/got)"
[ "$(head -c $q /tmp/got | sha256sum)" = "$(get /dev/pmem1 0 $q | sed 's/$/  -/')" ] || fail "SO_SNDTIMEO: wrong bytes"
echo "ok - SO_SNDTIMEO: $q bytes queued and reported with EAGAIN"

# 6. one-bio copies racing their completions
$BIN/zc_copyloop /dev/pmem0 /dev/vda 2000 || fail "copy loop"
echo "ok - 2000 one-bio copies"

# 7. module exit and a copy's last code: a debug knob keeps the copy's
# end running 300 ms after the caller was woken; an rmmod right after the
# copy must wait for it (a loop target: the completion in process context)
truncate -s 64M /tmp/loop.img && losetup /dev/loop2 /tmp/loop.img || fail "loop2"
ok7=1
for i in 1 2 3 4 5; do
	rmmod pmem_zc && $INSMOD $ZC_KO debug_copy_end_delay_ms=300 || { ok7=0; break; }
	$ZC copy /dev/pmem0 --length 1M --to /dev/loop2 > /tmp/out 2>&1 || { cat /tmp/out; ok7=0; break; }
done
check "rmmod right after a copy whose end is held 300 ms: 5 times, no fault" test $ok7 = 1
losetup -d /dev/loop2
rmmod pmem_zc && rmmod prd || fail "unload"
JOB
	vm_run A "$T" A.job 800 || return 1
	# A's own ok lines (its check parts vm_wait printed already)
	tr -d '\r' < "$T/A.serial.log" | grep -a '^ok - ' | grep -avxFf "$T/A.parts"
	[ "$(grep -a -c "^ok - " "$T/A.serial.log")" = 9 ] || { echo "not ok - expected 9 parts"; return 1; }
}
