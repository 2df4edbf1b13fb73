# prd persistence: raw data and an ext4 (DAX) file written in one boot are
# intact after QEMU restarts, and after QEMU is killed with SIGKILL while
# the filesystem is still mounted.
TEST_TIMEOUT=600

load() {
	cat <<'JOB'
. /top/vm/guest/lib.sh
$INSMOD /top/pmem-driver/prd.ko map=256M@4G,256M@0x110000000 pages=devmap || fail "insmod"
mkdir -p /mnt
JOB
}

test_run() {
	{ load; cat <<'JOB'
mkfs.ext4 -q -F -b 4096 /dev/pmem0 || fail "mkfs"
mount -o dax /dev/pmem0 /mnt || fail "mount -o dax"
randfill $((5 << 20)) > /mnt/one && sync || fail "write file"
sha256sum < /mnt/one > /work/one.file
put /dev/pmem1 $((7 << 20)) $((9 << 20)) > /work/one.raw || fail "raw write"
umount /mnt && rmmod prd || fail "teardown"
JOB
	} > "$T/w1.job"
	vm_run A "$T" w1.job || { echo "boot 1 failed"; return 1; }

	{ load; cat <<'JOB'
mount -o dax /dev/pmem0 /mnt || fail "mount after restart"
sha256sum < /mnt/one > /work/one.file.back
get /dev/pmem1 $((7 << 20)) $((9 << 20)) > /work/one.raw.back
randfill $((3 << 20)) > /mnt/two && sync || fail "write file two"
sha256sum < /mnt/two > /work/two.file
put /dev/pmem1 $((100 << 20)) $((2 << 20)) > /work/two.raw || fail "raw write two"
touch /work/two.done
sleep 600
JOB
	} > "$T/w2.job"
	vm_start A "$T" w2.job
	vm_wait_file "$T" two.done 240 || { vm_kill A "$T" KILL; return 1; }
	vm_kill A "$T" KILL
	echo "boot 2 killed with SIGKILL, filesystem mounted"

	{ load; cat <<'JOB'
mount -o dax /dev/pmem0 /mnt || fail "mount after SIGKILL"
sha256sum < /mnt/one > /work/one.file.back2
sha256sum < /mnt/two > /work/two.file.back
get /dev/pmem1 $((100 << 20)) $((2 << 20)) > /work/two.raw.back
umount /mnt && e2fsck -fn /dev/pmem0 > /work/fsck.out 2>&1 || fail "fsck: $(cat /work/fsck.out)"
rmmod prd
JOB
	} > "$T/r3.job"
	vm_run A "$T" r3.job || { echo "boot 3 failed"; return 1; }

	local a b
	for a in one.file:one.file.back one.raw:one.raw.back one.file:one.file.back2 \
		 two.file:two.file.back two.raw:two.raw.back; do
		b=${a#*:}; a=${a%%:*}
		[ -s "$T/$a" ] && cmp -s "$T/$a" "$T/$b" || { echo "$a != $b"; return 1; }
	done
	echo "# prd persistence: ext4 DAX file and raw data intact after restart and after SIGKILL; e2fsck clean"
}
