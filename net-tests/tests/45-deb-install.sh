# The install guide, docs/install.md, run as written on Debian's own
# kernel (issue 24; make check-debian, FLAVOUR=debian): its commands of
# sections 2 to 7 are read out of the guide here and run one by one, in
# order, in guest A, whose root is this machine's own Debian 12 (read-only
# over 9p, a tmpfs over it) with systemd as init and udev
# (vm/guest/hostroot.sh; where this machine has no udev, Debian's udev of
# its systemd's version unpacked over that root, vm/get-guest-udev.sh:
# udevd loads nfit and applies the package's rule, but without the
# package's postinst no hwdb.bin is built and its groups (input, kvm,
# render, sgx) are not made, which only the rules of other devices use):
# apt installs the packages `make deb` built, DKMS
# builds prd and pmem_zc for the running kernel, the package's udev rule
# gives /dev/pmem_zc to its group, the unit serves a file on ext4 -o dax
# over prd to curl, pmem-zc copies a prd disk to the guest's virtio disk,
# and it is all removed again. Each command is a part of its own; a
# command that fails fails the test.
#
# The lab's stand-ins, the only changes made to the guide's commands:
#   sudo            a shell function that runs its arguments (the job is
#                   root; this machine has no sudo)
#   apt install linux-headers-$(uname -r) linux-headers-amd64
#                   the running kernel's headers from their .debs (the
#                   guest has no mirror; vm/get-install-debs.sh): with what
#                   they need that this machine lacks, and a stand-in
#                   linux-image-KREL package (a user's running kernel is
#                   installed; the guest's modules are the real package's,
#                   shared read-only); not the meta-package, which is for
#                   the next kernels
#   cd build/deb    /work/debs, the three packages `make deb` built
#   sudoedit /etc/default/pmem-zc   the assignment its comment shows
#   /dev/sdX        /dev/vda, the guest's 1 GiB virtio disk
#   update-initramfs -u, mokutil    skipped: the guest boots the lab's own
#                   initramfs, and has no EFI (no Secure Boot)
# apt answers yes by itself (APT::Get::Assume-Yes in the guest's
# configuration: the commands run without a terminal). The NVDIMM is the
# guide's example, 1 GiB at 4 GiB, for map=512M@4G,512M@0x120000000.
# Checked besides: dkms status lists both modules installed for the running
# kernel and modprobe loads DKMS's prd; /dev/pmem_zc is group pmem-zc, mode
# 0660; the unit is active, its server runs as pmem-zc with no capability;
# curl gets 200; the journal has the access log's by_ref=; the copy went by
# reference; after the purge no module, no dkms entry and no unit is left,
# and the system user stays (Debian's policy).
TEST_TIMEOUT=2700

test_run() {
	if [ "${PMEMZC_FLAVOUR:-test}" != debian ]; then
		echo "Debian's own kernel only (make check-debian)"
		return 77
	fi
	local kdir krel img debs
	kdir=$(readlink -f "$(kernel_dir debian)")
	krel=${kdir##*/linux-headers-}
	img=$("$PMEMZC_TOP/vm/get-deb-file.sh" "linux-image-$krel") || return 1
	# the running kernel's headers and what they need (fetched by make all
	# FLAVOUR=debian: this runs without a network)
	debs=$kdir/install-debs
	[ -e "$debs/.pmemzc-done" ] ||
		{ echo "not ok - no $debs: make all FLAVOUR=debian KERNEL=$PMEMZC_KERNEL"; return 1; }
	# the packages, as the guide's section 1 builds them
	make -s -C "$PMEMZC_TOP" deb > "$T/deb.log" 2>&1 ||
		{ echo "not ok - make deb"; tail -5 "$T/deb.log"; return 1; }
	# udev, where this machine (the guest's root) lacks it: the package
	# of its systemd's version (vm/get-guest-udev.sh, fetched by make
	# all), unpacked over the guest's root (dpkg does not know it),
	# /lib's files under /usr/lib (merged /usr)
	local udev add=$T/hostroot-add d
	if ! udev=$("$PMEMZC_TOP/vm/get-guest-udev.sh"); then
		echo "no udev for the guest: the guide's udev rule and nfit cannot be shown"
		return 77
	fi
	if [ -n "$udev" ]; then
		mkdir -p "$add"
		cp -a "$udev/." "$add/" && rm -f "$add/.pmemzc-unpacked" || return 1
		for d in bin sbin lib; do
			[ -L "/$d" ] && [ -d "$add/$d" ] || continue
			mkdir -p "$add/usr/$d" && cp -a "$add/$d/." "$add/usr/$d/" &&
				rm -rf "${add:?}/$d" || return 1
		done
	fi
	mkdir -p "$T/debs/kernel"
	cp "$PMEMZC_TOP"/build/deb/*.deb "$T/debs/" && cp "$debs"/*.deb "$T/debs/kernel/" || return 1
	echo "# the headers' packages: $(cd "$T/debs/kernel" && ls | tr '\n' ' ')"

	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
krel=$(uname -r)
echo 'APT::Get::Assume-Yes "true";' > /etc/apt/apt.conf.d/90pmemzc-lab
sudo() { "$@"; }
log=/work/guide.log
: > $log

# after CMD: what is checked besides its exit status
after() {
	case $1 in
	'dkms status'*)
		# (fixed strings: a kernel release has a "+")
		check "dkms status: prd and pmem-zc installed for $krel" sh -c \
			"grep '^prd/' /tmp/out | grep -qF ', $krel, x86_64: installed' &&
			 grep '^pmem-zc/' /tmp/out | grep -qF ', $krel, x86_64: installed'" ;;
	'sudo modprobe pmem_zc'*)
		check "modprobe loaded DKMS's prd ($(modinfo -n prd))" sh -c \
			"modinfo -n prd | grep -q '/updates/dkms/prd\.ko'"
		# (udevd applies the rule once it has read the uevent)
		check "/dev/pmem_zc: group pmem-zc, mode 0660 (the package's udev rule)" \
			wait_for 10 sh -c "[ \"\$(stat -c '%G %a' /dev/pmem_zc)\" = 'pmem-zc 660' ]" ;;
	'sudo systemctl enable --now pmem-zc'*)
		check "the unit active, its server pmem-zc with no capability" sh -c '
			[ "$(systemctl is-active pmem-zc)" = active ] || exit 1
			pid=$(systemctl show -P MainPID pmem-zc); uid=$(id -u pmem-zc)
			grep -E "^Uid:\s+$uid\s+$uid\s+$uid\s+$uid$" /proc/$pid/status &&
			grep -E "^CapEff:\s+0+$" /proc/$pid/status' ;;
	'curl '*)
		check "curl: 200" grep -q '^HTTP/1.1 200' /tmp/out ;;
	'sudo journalctl -u pmem-zc'*)
		check "the journal: the access log's by_ref=" wait_for 10 sh -c \
			"journalctl -u pmem-zc | grep -q 'index.html.*by_ref='" ;;
	'sudo pmem-zc copy'*)
		check "the copy went by reference" grep -qE 'by_ref=[1-9]' /tmp/out ;;
	'sudo apt purge'*)
		check "purged: no dkms entry, no module, no unit" sh -c "
			! dkms status | grep -E '^(prd|pmem-zc)/' &&
			! find /usr/lib/modules/$krel/updates -name 'prd.ko*' -o -name 'pmem_zc.ko*' | grep -q . &&
			! systemctl cat pmem-zc > /dev/null 2>&1"
		check "the system user pmem-zc stays" getent passwd pmem-zc ;;
	esac
}

n=0
awk '/^## [2-7]\. /{on=1; sec=substr($2, 1, 1); next} /^## /{on=0}
	on && /^    [^ #]/ {sub(/^    /, ""); print sec "\t" $0}' /top/docs/install.md > /tmp/guide
[ -s /tmp/guide ] || fail "no commands read out of docs/install.md"
while IFS='	' read -r sec cmd; do
	n=$((n + 1))
	run=$cmd skip=
	case $cmd in
	*mokutil*) skip="no EFI in the lab: no Secure Boot" ;;
	*update-initramfs*) skip="the guest boots the lab's own initramfs" ;;
	'sudo apt install linux-headers-$(uname -r) linux-headers-amd64'*)
		run="sudo apt install /work/debs/kernel/*.deb" ;;
	'cd build/deb'*) run="cd /work/debs" ;;
	'sudoedit /etc/default/pmem-zc'*)
		run="sed -i 's|^PMEMZC_SERVE_OPTS=.*|${cmd#*# }|' /etc/default/pmem-zc" ;;
	*/dev/sdX*) run=$(echo "$cmd" | sed 's|/dev/sdX|/dev/vda|g') ;;
	esac
	if [ -n "$skip" ]; then
		check_skip "§$sec: $cmd" "$skip"
		continue
	fi
	printf '\n### §%s: %s\n### ran: %s\n' "$sec" "$cmd" "$run" >> $log
	eval "$run" < /dev/null > /tmp/out 2>&1
	rc=$?
	cat /tmp/out >> $log
	if [ $rc = 0 ]; then
		check_line "ok - §$sec: $cmd"
	else
		: > "$PMEMZC_CHECK_MARK"
		check_line "not ok - §$sec: $cmd (exit $rc)"
		tail -n 3 /tmp/out | while IFS= read -r l; do check_line "# $l"; done
	fi
	after "$cmd"
done < /tmp/guide
echo "guide: $n commands" >> $log
JOB
	# (2560M: under q35's 2.75 GiB the RAM lies below 4 GiB, where the
	# guide's NVDIMM is; about 25 minutes under TCG on this machine's 2
	# cores, DKMS's builds most of it: 40 allowed)
	VM_APPEND="systemd.show_status=error" VM_HOSTROOT=$img/lib/modules/$krel VM_MEM=2560M VM_SMP=2 VM_NVDIMM_SIZE=1G \
		VM_NVDIMM_ADDR=0x100000000 VM_DISK_SIZE=1G vm_run A "$T" A.job 2400
}
