# pmem_zc and the pmem-zc CLI refuse bad input with a clear errno and
# message, and no splat: ranges beyond the disk or file, unaligned copies,
# zero and huge lengths, a non-pmem disk, unconnected, closed and non-TCP
# sockets, read-only and too small targets, an active swap device
# (ETXTBSY, as write(2)), a directory, files on other
# filesystems or with inline data; and the raw calls the CLI never makes:
# unknown and retired ioctls, structs too short or too long for the size
# versioning, reserved fields set, out fields not zeroed, read() with a short
# buffer or nothing to read. Afterwards both modules unload.
TEST_TIMEOUT=600

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
n=0 bad=0
: > /work/badinput.tap
# expect RC SUBSTRING CMD...: CMD exits RC and says SUBSTRING
expect() {
	rc=$1 want=$2; shift 2
	n=$((n + 1))
	"$@" > /tmp/out 2>&1; got=$?
	if [ $got != $rc ] || ! grep -qiF -- "$want" /tmp/out; then
		echo "not ok $n - $* : exit $got (want $rc), said: $(head -3 /tmp/out | tr '\n' ' ') (want '$want')"
		bad=1
	else
		echo "ok $n - $* -> $(grep -iF -- "$want" /tmp/out | head -1)"
	fi >> /work/badinput.tap
}

expect 1 "not loaded" $ZC send /dev/vda --to 127.0.0.1:6000
expect 1 "not loaded" $ZC stats
load_zc map=256M@4G,256M@0x110000000 pages=devmap || fail "load"
[ "$(stat -c '%a %U' /dev/pmem_zc)" = "600 root" ] || fail "/dev/pmem_zc is $(stat -c '%a %U' /dev/pmem_zc), not 600 root"
check "pmem_zc's counters are root's alone (0400): they show every user's traffic" sh -c 'for f in /sys/class/misc/pmem_zc/stats/*; do [ "$(stat -c %a "$f")" = 400 ] || { echo "$f: $(stat -c %a "$f")"; exit 1; }; done'
socat -u TCP-LISTEN:6000,fork,reuseaddr /dev/null & sink=$!
wait_for 10 listening 6000 || fail "no sink"
mkfs.ext4 -q -F -b 4096 /dev/pmem1 && mkdir -p /mnt /mnt2 && mount -o dax /dev/pmem1 /mnt || fail "pmem1 fs"
head -c 100000 /dev/urandom > /mnt/file; mkdir /mnt/dir; sync
mkfs.ext4 -q -F -b 4096 /dev/vda && mount /dev/vda /mnt2 || fail "vda fs"
head -c 8192 /dev/urandom > /mnt2/other; head -c 8192 /dev/urandom > /tmp/tmpfs-file; sync
truncate -s 1M /tmp/small.img && losetup /dev/loop0 /tmp/small.img || fail "loop"
# a file whose data lives in its inode
mkfs.ext4 -q -F -O inline_data /dev/loop0 && mkdir -p /mnt3 && mount /dev/loop0 /mnt3 && echo tiny > /mnt3/inline && sync || fail "inline fs"
S=127.0.0.1:6000

expect 1 "beyond the end"   $ZC send /dev/pmem0 --offset 300M --length 4K --to $S
expect 1 "beyond the end"   $ZC send /dev/pmem0 --offset 255M --length 2M --to $S
expect 1 "beyond the end"   $ZC send /dev/pmem0 --length 1T --to $S
expect 2 "length"           $ZC send /dev/pmem0 --length 99999999999999999999 --to $S
expect 2 "length"           $ZC send /dev/pmem0 --length 12Q --to $S
expect 1 "beyond the end"   $ZC send /mnt/file --offset 200000 --length 10 --to $S
expect 1 "not a prd disk"   $ZC send /dev/vda --length 4K --to $S
expect 1 "not a prd disk"   $ZC send /mnt2/other --to $S
expect 1 "not a prd disk"   $ZC send /tmp/tmpfs-file --to $S
expect 1 "directory"        $ZC send /mnt/dir --to $S
expect 1 "inline"           $ZC send /mnt3/inline --to $S
expect 1 "refused"          $ZC send /dev/pmem0 --length 4K --to 127.0.0.1:6999
expect 1 "No such file"     $ZC send /dev/nonexistent --to $S
expect 1 "alignment"        $ZC copy /dev/pmem0 --to /dev/loop0 --offset 100 --length 4K
expect 1 "alignment"        $ZC copy /dev/pmem0 --to /dev/loop0 --length 1000
expect 1 "smaller"          $ZC copy /dev/pmem0 --to /dev/loop0 --length 2M
expect 1 "smaller"          $ZC copy /dev/pmem0 --to /dev/loop0 --dst-offset 2M --length 4K
blockdev --setro /dev/loop0
expect 1 "read-only"        $ZC copy /dev/pmem0 --to /dev/loop0 --length 4K
blockdev --setrw /dev/loop0
expect 1 "alignment"        $ZC copy /dev/pmem0 --to /dev/pmem0 --dst-offset 1M --length 4K
expect 1 "not a prd disk"   $ZC copy /dev/vda --to /dev/loop0 --length 4K
umount /mnt3
# an active swap device: write(2) refuses it (ETXTBSY), and so must a copy,
# or a writer of the disk could put chosen bytes into swapped-out pages
truncate -s 16M /tmp/swap.img && losetup /dev/loop1 /tmp/swap.img && mkswap /dev/loop1 > /dev/null &&
	swapon /dev/loop1 || fail "swap on loop1"
sig=$(get /dev/loop1 0 4096)
check "dd onto the active swap device: Text file busy" sh -c '! /usr/bin/dd if=/dev/zero of=/dev/loop1 bs=4096 count=1 conv=notrunc status=none 2> /tmp/dd.err && grep -q "Text file busy" /tmp/dd.err'
check "copy onto the active swap device: refused with ETXTBSY" sh -c '! $0 copy /dev/pmem0 --length 4M --to /dev/loop1 > /tmp/out 2>&1 && grep -q "Text file busy" /tmp/out || { cat /tmp/out; exit 1; }' $ZC
check "the swap signature page is intact" test "$(get /dev/loop1 0 4096)" = "$sig"
swapoff /dev/loop1 && losetup -d /dev/loop1 || fail "swapoff"
# calls the CLI never makes
/top/net-tests/tools/bin/zc_badioctl /dev/pmem0 /tmp/regular > /tmp/bad || fail "zc_badioctl"
while read -r c e; do
	n=$((n + 1))
	want=$(grep "^$c " <<'WANT' | cut -d' ' -f2
unknown_ioctl ENOTTY
retired_abi_v1_send ENOTTY
null_argument EFAULT
send_struct_too_short EINVAL
send_longer_struct_nonzero_tail E2BIG
send_longer_struct_zero_tail_bad_flags EINVAL
send_reserved0 EINVAL
send_reserved1 EINVAL
send_reserved_array EINVAL
send_bad_flags EINVAL
send_copy_only_flag EINVAL
send_zero_length EINVAL
send_huge_length ERANGE
send_offset_wraps ERANGE
send_unconnected_socket ENOTCONN
send_udp_socket EINVAL
send_not_a_socket ENOTSOCK
send_closed_fd EBADF
send_src_write_only EBADF
out_fields_zeroed OK
copy_struct_too_short EINVAL
copy_reserved_array EINVAL
copy_send_only_flag EINVAL
copy_to_regular_file EINVAL
copy_onto_itself EINVAL
copy_unaligned_offset EINVAL
copy_unaligned_length EINVAL
read_short_buffer EINVAL
read_nothing_nonblocking EAGAIN
WANT
)
	[ "$e" = "$want" ] && echo "ok $n - ioctl $c -> $e" || { echo "not ok $n - ioctl $c -> $e, want $want"; bad=1; }
done < /tmp/bad >> /work/badinput.tap
echo "1..$n" >> /work/badinput.tap
cat /work/badinput.tap

echo "$n bad inputs checked"
cat /sys/class/misc/pmem_zc/stats/err_* | tr '\n' ' '; echo
kill $sink; losetup -d /dev/loop0; umount /mnt /mnt2
rmmod pmem_zc || fail "rmmod pmem_zc"
rmmod prd || fail "rmmod prd"
echo $n > /work/count
[ $bad = 0 ] || fail "some bad inputs were not refused as expected"
JOB
	vm_run A "$T" A.job 500 || return 1
	# 22 through the CLI, 29 raw calls
	tap_check "$T/badinput.tap" 51 || return 1
	echo "# $(cat "$T/count") bad inputs refused with the expected errno and message; modules unloaded"
}
