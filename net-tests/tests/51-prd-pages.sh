# prd in each page mode on the same NVDIMM: load, sysfs, RAM spent on the
# memmap (sysfs and MemFree; with memmap=dev, the memmap of a partial
# section counted as RAM), PAT's record of the region (none in sparse), time to
# map; mkfs.ext4 -b 4096 and mount -o dax (refused cleanly without
# ZONE_DEVICE pages), files written and read back; gup_test and an
# O_DIRECT write from a DAX mmap on fs DAX; unload. On Debian's own kernels
# (FLAVOUR=debian: no mm exports, no CONFIG_GUP_TEST) pages=sparse must be
# refused in one line instead, and gup_test is skipped.
TEST_TIMEOUT=900

test_run() {
	echo "FLAVOUR=$PMEMZC_FLAVOUR" > "$T/A.job"
	cat >> "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
BIN=/top/net-tests/tools/bin
free_kb() { awk '/^MemFree:/ {print $2}' /proc/meminfo; }
mount -t debugfs none /sys/kernel/debug 2>/dev/null
PAT=/sys/kernel/debug/x86/pat_memtype_list PAT_RANGE=0x0000000100000000-0x0000000120000000
[ -r $PAT ] || fail "no $PAT"

# mode: the page mode; dax: whether fs DAX must work
check_mode() {
	name=$1 args=$2 dax=$3
	sync; echo 3 > /proc/sys/vm/drop_caches
	before=$(free_kb)
	$INSMOD /top/pmem-driver/prd.ko map=512M@4G $args || fail "$name: insmod"
	after=$(free_kb)
	d=/sys/block/pmem0/prd
	echo "$name: page_mode=$(cat $d/page_mode) memmap=$(cat $d/memmap) memmap_ram_bytes=$(cat $d/memmap_ram_bytes)" \
	     "data_offset=$(cat $d/data_offset) map_usecs=$(cat $d/map_usecs) memfree_drop_kb=$((before - after))" \
	     "disk_bytes=$(blockdev --getsize64 /dev/pmem0)"
	echo "$name $(cat $d/memmap_ram_bytes) $((before - after)) $(cat $d/map_usecs) $(cat $d/data_offset)" >> /work/modes
	[ "$(cat $d/pages_referenced)" = 0 ] || fail "$name: pages referenced at load"
	[ "$(cat /sys/block/pmem0/queue/dax)" = "$dax" ] || fail "$name: queue/dax is not $dax"
	# PAT: memremap() and memremap_pages() record the region's memory
	# type; sparse mode records none (docs/sparse-mode.md, section 3)
	pat=$(sed -n "s/^PAT: \[mem $PAT_RANGE\] //p" $PAT)
	case $name in
	sparse) [ -z "$pat" ] || fail "$name: PAT records '$pat': update docs/sparse-mode.md" ;;
	*) [ -n "$pat" ] || fail "$name: PAT has no record of the region: $(grep "0x00000001[01]" $PAT | head -3)" ;;
	esac
	echo "$name: PAT record of the region: ${pat:-none}"

	mkfs.ext4 -q -F -b 4096 /dev/pmem0 || fail "$name: mkfs"
	mkdir -p /mnt
	if mount -o dax /dev/pmem0 /mnt 2>/tmp/mount.err; then
		[ "$dax" = 1 ] || fail "$name: mount -o dax succeeded without ZONE_DEVICE pages"
		grep -q 'pmem0 /mnt ext4 .*dax' /proc/mounts || fail "$name: not mounted with dax"
	else
		[ "$dax" = 0 ] || fail "$name: mount -o dax: $(cat /tmp/mount.err)"
		echo "$name: mount -o dax refused: $(cat /tmp/mount.err)"
		dmesg | grep -q 'pmem0.*DAX unsupported' || fail "$name: no 'DAX unsupported' message"
		mount /dev/pmem0 /mnt || fail "$name: mount"
	fi

	randfill $((3 << 20)) > /tmp/f || fail "$name: test data"
	sum=$(sha256sum < /tmp/f)
	cp /tmp/f /mnt/f && head -c 4097 /tmp/f > /mnt/small && sync || fail "$name: write files"
	opts=; [ "$dax" = 1 ] && opts="-o dax"
	umount /mnt && mount $opts /dev/pmem0 /mnt || fail "$name: remount"
	[ "$(sha256sum < /mnt/f)" = "$sum" ] || fail "$name: file differs"
	[ "$(head -c 4097 /tmp/f | sha256sum)" = "$(sha256sum < /mnt/small)" ] || fail "$name: small file differs"

	if [ "$dax" = 1 ]; then
		# GUP on a shared DAX mapping: the pmem pages themselves
		randfill $((8 << 20)) > /mnt/gup && sync || fail "$name: gup file"
		if [ "$FLAVOUR" = debian ]; then
			echo "$name: gup_test: skipped (Debian's kernel has no CONFIG_GUP_TEST)"
		else
			for cmd in -U -b -a -L; do
				$BIN/gup_test -f /mnt/gup -S -m 8 $cmd > /tmp/gup 2>&1 || { cat /tmp/gup; fail "$name: gup_test $cmd"; }
			done
			echo "$name: gup_test -U -b -a -L on a DAX file: passed"
		fi
		[ "$(cat $d/pages_referenced)" = 0 ] || fail "$name: pages referenced after gup_test"
		# O_DIRECT write from a DAX mmap to another disk
		$BIN/dax_odirect /mnt/f /dev/vda $((3 << 20)) || fail "$name: dax_odirect"
		[ "$(head -c $((3 << 20)) /dev/vda | sha256sum)" = "$sum" ] || fail "$name: vda differs"
		echo "$name: O_DIRECT from a DAX mmap to vda: intact"
	fi

	# a mounted filesystem holds the disk: unload is refused
	rmmod prd 2>/tmp/rmmod.err && fail "$name: rmmod succeeded while mounted"
	echo "$name: rmmod while mounted: $(cat /tmp/rmmod.err)"
	umount /mnt || fail "$name: umount"
	rmmod prd || fail "$name: rmmod"
	test ! -e /sys/block/pmem0 || fail "$name: disk left behind"
	grep -q ' prd$' /proc/iomem && fail "$name: region still claimed"
	grep -q "$PAT_RANGE" $PAT && fail "$name: the PAT record outlives the unload"
	after_unload=$(free_kb)
	echo "$name: MemFree back to $((before - after_unload)) kB below the level before load"
}

# memmap=dev puts only whole sections' memmap on the device: a region that
# starts 2 MiB before a section boundary (on the NVDIMM still empty) has 512
# pages' memmap in RAM
for args in "pages=devmap memmap=dev" "pages=devmap"; do
	$INSMOD /top/pmem-driver/prd.ko map=130M@0x117e00000 $args || fail "130M $args: insmod"
	ram=$(cat /sys/block/pmem0/prd/memmap_ram_bytes)
	rmmod prd || fail "130M $args: rmmod"
	case $args in
	*dev) want=$((512 * 64)) ;;
	*) want=$(((130 << 8) * 64)) ;;
	esac
	[ "$ram" = "$want" ] || fail "130M $args: memmap_ram_bytes $ram, expected $want"
	echo "130M $args: memmap_ram_bytes=$ram"
done

check_mode none "pages=none" 0
if [ "$FLAVOUR" = debian ]; then
	check "pages=sparse refused on Debian's kernel, in one line" sparse_refused map=512M@4G || fail "sparse refusal"
else
	check_mode sparse "pages=sparse" 0
fi
check_mode devmap "pages=devmap" 1
# memmap=dev lays the region out anew: only over a head with nothing in it
$INSMOD /top/pmem-driver/prd.ko map=512M@4G || fail "insmod to clear"
/usr/bin/dd if=/dev/zero of=/dev/pmem0 bs=1M count=16 oflag=direct status=none || fail "clear the head"
rmmod prd
check_mode devmap-dev "pages=devmap memmap=dev" 1
JOB
	vm_run A "$T" A.job 800 || return 1
	local name ram drop us off
	while read -r name ram drop us off; do
		echo "# pages=$name: memmap $ram bytes of RAM (MemFree fell $drop kB), mapped in $us us, data offset $off"
	done < "$T/modes"
	grep -a -h 'PAT record\|^130M' "$T/A.serial.log" | tr -d '\r' | sed 's/^/# /'
}
