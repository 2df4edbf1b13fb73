# Every class of bad map= (and bad companion parameters) is refused with
# an errno and one pr_err line naming the problem; a refused load leaves
# nothing behind and a good load works right after it.
TEST_TIMEOUT=600

# The cases: map= and companion parameters|errno as kmod insmod prints it|
# the message prd must print (one line). EINVAL is "Invalid parameters".
cases() {
	cat <<'CASES'
# parser: map= itself
NOARGS|Invalid parameters|missing map
map=|Invalid parameters|missing map
map=,|Invalid parameters|map element 0 is empty
map=4K@4G,|Invalid parameters|map element 1 is empty
map=,4K@4G|Invalid parameters|map element 0 is empty
map=4K@4G,,8K@5G|Invalid parameters|map element 1 is empty
map=@4G|Invalid parameters|size is not a number
map=K@4G|Invalid parameters|size is not a number
map=4K@|Invalid parameters|start is not a number
map=4K@G|Invalid parameters|start is not a number
map=4KB@4G|Invalid parameters|size has bad suffix "KB"
map=4K@4GiB|Invalid parameters|start has bad suffix "GiB"
map=4K|Invalid parameters|missing '$' or '@' and start after size
map=4K#4G|Invalid parameters|expected '$' or '@' after size
map=4K@4G@8G|Invalid parameters|trailing garbage "@8G" after start
map=0@4G|Invalid parameters|size is zero
map=0K$4G|Invalid parameters|size is zero
map=4097@4G|Invalid parameters|size 0x1001 is not aligned to 4 KiB
map=4K@0x100000800|Invalid parameters|start 0x100000800 is not aligned to 4 KiB
map=99999999999999999999@4G|Invalid parameters|size overflows 64 bits
map=4K@17E|Invalid parameters|start overflows 64 bits
map=16E@0|Invalid parameters|size overflows 64 bits
map=8K@0xfffffffffffff000|Invalid parameters|overflows 64 bits
map=4K@4G,4K@4G|Invalid parameters|overlaps map element 0
map=1G@4G,4K@0x120000000|Invalid parameters|overlaps map element 0
map=4K@4G,4K@5G,4K@6G,4K@7G,4K@8G,4K@9G,4K@10G,4K@11G,4K@12G,4K@13G,4K@14G,4K@15G,4K@16G,4K@17G,4K@18G,4K@19G,4K@20G|Invalid parameters|too many regions, at most 16
# page modes need coarser alignment
map=4K@4G pages=devmap|Invalid parameters|is not aligned to 2 MiB
map=2M@4G pages=sparse|Invalid parameters|is not aligned to 128 MiB
map=1M@0x100100000 pages=devmap|Invalid parameters|is not aligned to 2 MiB
# the driver: what the region is
map=4K@0x100000|Invalid parameters|touches System RAM
map=1G@0|Invalid parameters|touches System RAM
map=4K@0xfffffffffff000|Invalid parameters|beyond the physical address space
# only persistent memory the firmware describes (the lab's NVDIMM: NFIT
# SPA range 0x100000000-0x11fffffff)
map=16M@0xc0000000|Invalid parameters|region 0 0xc0000000+0x1000000 is not persistent memory: it overlaps device memory (MMIO) at 0xc0000000
map=4K@0xb0000000|Invalid parameters|is not persistent memory: it overlaps device memory (MMIO) at 0xb0000000
map=4K@0xfec00000|Invalid parameters|is not persistent memory: it overlaps device memory (MMIO) at 0xfec00000
map=4K@0xfed00000|Invalid parameters|is not persistent memory: it overlaps device memory (MMIO) at 0xfed00000
map=4K@0xfee00000|Invalid parameters|is not persistent memory: LAPIC
map=4K@0xa0000|Invalid parameters|is not persistent memory: it overlaps device memory (MMIO) at 0xa0000
map=4K@BAR|Invalid parameters|is not persistent memory: it overlaps device memory (MMIO) at BAR
map=1G@4G|Invalid parameters|region 0 0x100000000+0x40000000 is not persistent memory: it extends past the persistent memory range 0x100000000-0x11fffffff
map=2M@0x11ff00000|Invalid parameters|is not persistent memory: it extends past the persistent memory range 0x100000000-0x11fffffff
map=256M@0x180000000|Invalid parameters|region 0 0x180000000+0x10000000 is not persistent memory: nothing the firmware describes is there
map=16M@0x200000000|Invalid parameters|is not persistent memory: nothing the firmware describes is there
map=4K@0xfffc0000|Invalid parameters|is not persistent memory: nothing the firmware describes is there
map=256M@4G,16M@0xc0000000|Invalid parameters|region 1 0xc0000000+0x1000000 is not persistent memory: it overlaps device memory
map=4K@4G,4K@0x180000000 pages=none|Invalid parameters|region 1 0x180000000+0x1000 is not persistent memory: nothing
# companion parameters
map=4K@4G pages=foo|Invalid parameters|pages=foo: expected none, sparse or devmap
map=2M@4G memmap=disk pages=devmap|Invalid parameters|memmap=disk: expected ram or dev
map=4K@4G memmap=dev|Invalid parameters|memmap=dev needs pages=devmap
map=4K@4G prefix=a/b|Invalid parameters|prefix=a/b: expected
map=4K@4G prefix=|Invalid parameters|prefix=: expected
CASES
}

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
P=/top/pmem-driver/prd.ko
set -f
# a resource some driver already holds: the first virtio BAR
bar=$(awk -F'[- ]+' '/virtio-pci-modern/ {print $2; exit}' /proc/iomem)
[ -n "$bar" ] || fail "no virtio BAR in /proc/iomem"
# the local APIC is a resource only while it is used by MMIO: 6.12 in x2APIC
# mode (QEMU's CPU has it) registers none, and the range is then a hole
if grep -q '^ *fee00000-.* : Local APIC' /proc/iomem; then
	lapic="it overlaps device memory (MMIO) at 0xfee00000"
else
	lapic="nothing the firmware describes is there"
fi
echo "# 0xfee00000: expected '$lapic' (/proc/iomem: $(grep -c 'Local APIC' /proc/iomem) Local APIC line)"
n=0 bad=0
while IFS='|' read -r args errno want; do
	case $args in ''|'#'*) continue ;; esac
	args=$(echo "$args" | sed -e "s/BAR/0x$bar/" -e 's/^NOARGS$//')
	want=$(echo "$want" | sed -e "s/BAR/0x$bar/" -e "s/LAPIC/$lapic/")
	n=$((n + 1))
	dmesg -c > /dev/null
	if $INSMOD $P $args 2>/tmp/err; then
		echo "not ok $n - '$args' was accepted"; bad=1; rmmod prd; continue
	fi
	dmesg | grep 'prd: ' | grep -v 'taints kernel' > /tmp/msgs
	msgs=$(grep -c . /tmp/msgs)
	line=$(tail -1 /tmp/msgs | sed 's/^\[[^]]*\] //')
	if ! grep -q "$errno" /tmp/err; then
		echo "not ok $n - '$args': insmod said '$(cat /tmp/err)', expected $errno"; bad=1
	elif ! echo "$line" | grep -qF -- "$want"; then
		echo "not ok $n - '$args': message '$line', expected '$want'"; bad=1
	elif [ "$msgs" != 1 ]; then
		echo "not ok $n - '$args': $msgs prd lines, expected one"; dmesg | grep 'prd: '; bad=1
	elif lsmod | grep -q '^prd ' || ls /sys/block | grep -q pmem || grep -q ': prd$' /proc/iomem; then
		echo "not ok $n - '$args': something left behind"; bad=1
	else
		echo "ok $n - '$args' -> $line"
	fi
done < /work/cases > /work/badmap.tap
echo "1..$n" >> /work/badmap.tap
cat /work/badmap.tap
echo "$n refusals checked"
[ $bad = 0 ] || fail "some bad parameters were not refused as expected"

# right after all that, a good load works and unloads
$INSMOD $P map=256M@4G,128M@0x110000000 || fail "good load after refusals"
test -b /dev/pmem0 && test -b /dev/pmem1 || fail "no disks after good load"
rmmod prd || fail "rmmod"
echo "good load after $n refusals: ok"
# last, since nfit does not unload readily: a range another driver holds,
# upstream's nd_pmem on the NVDIMM
modprobe nd_pmem && modprobe nfit && wait_for 30 test -b /dev/pmem0 || fail "nd_pmem"
dmesg -c > /dev/null
$INSMOD $P map=4K@4G prefix=prd 2>/tmp/err && { rmmod prd; fail "a range nd_pmem holds was mapped"; }
grep -q 'Device or resource busy' /tmp/err || fail "claimed range: insmod said $(cat /tmp/err)"
dmesg | grep -q 'prd: region 0 0x100000000+0x1000 is already claimed' || fail "claimed range: $(dmesg | grep prd)"
echo "a range nd_pmem holds: EBUSY, already claimed"

echo "$n" > /work/refused
JOB
	cases > "$T/cases"
	local want
	want=$(grep -cv -e '^#' -e '^$' "$T/cases")
	vm_run A "$T" A.job 500 || return 1
	tap_check "$T/badmap.tap" "$want" || return 1
	echo "# $want bad parameter sets refused, each with one message, then a good load; a range nd_pmem holds: EBUSY"
}
