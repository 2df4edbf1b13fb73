# The NVDIMM range is claimed by no driver unless a test asks for it: after
# boot, /proc/iomem shows nothing of it and no nvdimm module is loaded. As a
# control that the check can see a claim, the job then loads the upstream
# nfit + nd_pmem drivers and the same check must report the range taken.
TEST_TIMEOUT=300

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
# /proc/iomem lines inside the NVDIMM window [4 GiB, 4 GiB + size)
claims() {
	lo=$((0x100000000)); hi=$((lo + $1))
	while IFS= read -r l; do
		r=$(echo ${l%% : *})
		s=$((0x${r%-*}))
		[ $s -ge $lo ] && [ $s -lt $hi ] && echo "$l"
	done < /proc/iomem
}
size=$(($(cat /work/nvdimm.size)))
claims $size > /work/iomem.before
lsmod | grep -E '^(nfit|libnvdimm|nd_pmem) ' > /work/lsmod.before
modprobe nd_pmem && modprobe nfit || fail "modprobe"
wait_for 30 test -b /dev/pmem0 || fail "no /dev/pmem0"
claims $size > /work/iomem.after
cat /proc/iomem
JOB
	numfmt --from=iec "$VM_NVDIMM_SIZE" > "$T/nvdimm.size"
	vm_run A "$T" A.job || return 1
	echo "before: $(cat "$T/iomem.before") | modules: $(cat "$T/lsmod.before")"
	echo "after: $(cat "$T/iomem.after")"
	[ ! -s "$T/iomem.before" ] || { echo "range claimed at boot: $(cat "$T/iomem.before")"; return 1; }
	[ ! -s "$T/lsmod.before" ] || { echo "nvdimm modules loaded at boot"; return 1; }
	grep -q . "$T/iomem.after" || { echo "control failed: nd_pmem loaded but /proc/iomem shows no claim"; return 1; }
	echo "# after modprobe nd_pmem: $(tr '\n' ';' < "$T/iomem.after")"
}
