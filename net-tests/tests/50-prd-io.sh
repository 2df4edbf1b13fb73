# prd block I/O (pages=none, two regions in one map=): writes and reads at
# many offsets and sizes, across page and region boundaries, checked in the
# guest (O_DIRECT and page cache) and on the host in the NVDIMM's backing
# file; fio with verify; partitions; HDIO_GETGEO; I/O past the end; flush
# and FUA.
TEST_TIMEOUT=600

R0=$((4 << 30))                 # pmem0: 128 MiB at 4 GiB
R1=$(((4 << 30) + (128 << 20))) # pmem1: 256 MiB right after it

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
set -e
$INSMOD /top/pmem-driver/prd.ko map=128M@4G,256M@0x108000000
test -b /dev/pmem0 && test -b /dev/pmem1 || fail "no disks"
[ "$(blockdev --getsize64 /dev/pmem0)" = $((128 << 20)) ] || fail "pmem0 size"
[ "$(blockdev --getsize64 /dev/pmem1)" = $((256 << 20)) ] || fail "pmem1 size"
q=/sys/block/pmem0/queue
# io_min 512 on 6.1; 6.12's blk_validate_limits() raises it to the physical block
case $(uname -r) in 6.1.*) io_min=512 ;; *) io_min=4096 ;; esac
[ "$(cat $q/physical_block_size) $(cat $q/logical_block_size) $(cat $q/minimum_io_size)" = "4096 512 $io_min" ] ||
	fail "queue limits: $(cat $q/physical_block_size) $(cat $q/logical_block_size) $(cat $q/minimum_io_size)"
[ "$(cat $q/dax)" = 0 ] || fail "pages=none must not offer fs DAX"
[ "$(cat /sys/block/pmem0/prd/page_mode)" = none ] || fail "page_mode"

# HDIO_GETGEO: all ones (RFC 4/9)
geo=$(/top/net-tests/tools/bin/getgeo /dev/pmem0)
[ "$geo" = "heads=1 sectors=1 cylinders=1 start=0" ] || fail "getgeo: $geo"

# partitions: a DOS label gives pmem0p1 and pmem0p2, 4 KiB aligned
printf 'label: dos\n,32M,L\n,,L\n' | sfdisk -q /dev/pmem0 || fail "sfdisk"
wait_for 10 test -b /dev/pmem0p2 || fail "no partitions"
s1=$(cat /sys/block/pmem0/pmem0p1/start); s2=$(cat /sys/block/pmem0/pmem0p2/start)
[ $((s1 % 8)) = 0 ] && [ $((s2 % 8)) = 0 ] || fail "partitions not 4 KiB aligned: $s1 $s2"
w=$(put /dev/pmem0p2 4096 8192) || fail "write p2"
[ "$(get /dev/pmem0 $((s2 * 512 + 4096)) 8192 direct)" = "$w" ] || fail "p2 data not at its offset in pmem0"
putget /dev/pmem0p1 0 4096
p1end=$(blockdev --getsize64 /dev/pmem0p1)
geo=$(/top/net-tests/tools/bin/getgeo /dev/pmem0p2)
[ "$geo" = "heads=1 sectors=1 cylinders=1 start=$s2" ] || fail "getgeo p2: $geo"
echo "partitions: p1 at sector $s1, p2 at sector $s2"
# past the end of a partition: refused
dd if=/dev/zero of=/dev/pmem0p1 bs=4096 seek=$((p1end / 4096)) count=1 oflag=direct status=none &&
	fail "write past p1 end succeeded"
# drop the label again: what follows owns the whole disk
dd if=/dev/zero of=/dev/pmem0 bs=512 count=1 oflag=direct status=none
blockdev --rereadpt /dev/pmem0
wait_for 10 test ! -e /dev/pmem0p1 || fail "partitions still there"


# offsets and sizes: 512 B unaligned to 1 MiB, across page boundaries, at
# both ends of each region
M=$((1 << 20))
MANIFEST=/work/manifest
for dev in /dev/pmem0 /dev/pmem1; do
	end=$(blockdev --getsize64 $dev)
	# none overlaps another: the host checks the final bytes of each
	for c in "0 512" "512 512" "3584 1024" "8192 4096" "15872 4608" \
		 "65024 66048" "$((M + 512)) $M" "$((3 * M - 512)) 1536" \
		 "$((5 * M)) $((M - 512))" "$((end - 2 * M)) $M" "$((end - 512)) 512"; do
		putget $dev $c
	done
done
echo "data: 22 writes verified"

# fio: random sizes 512 B..1 MiB with verify, O_DIRECT and buffered
fio --name=direct --filename=/dev/pmem1 --ioengine=psync --direct=1 \
    --rw=randwrite --bsrange=512-1M --offset=16M --size=48M --io_size=64M \
    --verify=crc32c --verify_fatal=1 --randrepeat=0 > /tmp/fio1 2>&1 || { cat /tmp/fio1; fail "fio direct"; }
fio --name=buffered --filename=/dev/pmem1 --ioengine=psync --direct=0 \
    --rw=randwrite --bsrange=4k-256k --offset=96M --size=32M \
    --verify=md5 --verify_fatal=1 --randrepeat=0 > /tmp/fio2 2>&1 || { cat /tmp/fio2; fail "fio buffered"; }
grep -q 'err= 0' /tmp/fio1 && grep -q 'err= 0' /tmp/fio2 || fail "fio errors"
echo "fio: verify passed"

# I/O past the end: an error, not a crash; reads at the end see EOF
set +e
dd if=/dev/zero of=/dev/pmem0 bs=4096 seek=$((128 << 8)) count=1 oflag=direct status=none && fail "write past end succeeded"
n=$(dd if=/dev/pmem0 bs=4096 skip=$((128 << 8)) count=1 iflag=direct status=none | wc -c)
[ "$n" = 0 ] || fail "read past end returned $n bytes"
set -e
echo "past end: refused"

# flush and FUA: fsync sends a flush bio; O_DSYNC O_DIRECT writes use FUA
[ "$(cat $q/fua)" = 1 ] && [ "$(cat $q/write_cache)" = "write back" ] || fail "no flush/FUA advertised"
d=/sys/block/pmem1/prd
f0=$(cat $d/flushes)
dd if=/dev/urandom of=/dev/pmem1 bs=4096 seek=$((220 << 8)) count=4 conv=fsync status=none
f1=$(cat $d/flushes)
[ "$f1" -gt "$f0" ] || fail "fsync sent no flush ($f0 -> $f1)"
u0=$(cat $d/fuas)
putget /dev/pmem1 $((200 << 20)) 65536 dsync
u1=$(cat $d/fuas)
[ "$u1" -gt "$u0" ] || fail "O_DSYNC write sent no FUA ($u0 -> $u1)"
echo "flush: $((f1 - f0)) flush bios, $((u1 - u0)) FUA writes completed and verified"

rmmod prd || fail "rmmod"
test ! -e /dev/pmem0 || fail "pmem0 still there"
JOB
	vm_run A "$T" A.job 500 || return 1

	# the host reads every write of the manifest in the backing file
	local dev off len sum base bad=0 n=0
	[ -s "$T/manifest" ] || { echo "no manifest"; return 1; }
	while read -r dev off len sum; do
		case $dev in
		/dev/pmem0) base=$R0 ;;
		/dev/pmem1) base=$R1 ;;
		*) continue ;;
		esac
		[ "$(tail -c +$((off + base - (4 << 30) + 1)) "$T/nvdimm.img" | head -c "$len" | sha256sum | cut -d' ' -f1)" = "$sum" ] ||
			{ echo "host: $dev $off+$len differs in the backing file"; bad=1; }
		n=$((n + 1))
	done < "$T/manifest"
	[ $bad = 0 ] || return 1
	# 11 offset/size cases on each of the two disks and the O_DSYNC write
	[ $n = 23 ] || { echo "the manifest lists $n writes, expected 23"; return 1; }
	echo "# prd I/O: $n writes found intact at their physical addresses in the NVDIMM backing file"
}
