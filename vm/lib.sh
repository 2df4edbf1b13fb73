# shellcheck shell=bash
# Host-side guest control, sourced by the test runner, tests and make targets.
#
#   vm_net_init                 set up the link (tap+bridge or socket fallback)
#   vm_start ROLE DIR [JOB]     boot guest A or B; DIR is its 9p "work" share
#   vm_wait ROLE DIR SECS       wait for it to power off; kill it after SECS
#   vm_kill ROLE DIR [SIG]      stop it now (SIGKILL models a crash)
#   vm_wait_file DIR FILE SECS  wait for a guest to create FILE in DIR
#   vm_run2 DIR SECS            run DIR/A.job and DIR/B.job in two guests
#
# Knobs (environment): PMEMZC_KERNEL (6.12|6.1), PMEMZC_FLAVOUR (test|bench),
# PMEMZC_ACCEL (tcg|kvm, probed when unset), PMEMZC_NET (tap|socket, tap
# when a private network namespace exists), VM_MEM, VM_SMP, VM_NVDIMM_SIZE,
# VM_DISK_SIZE, VM_NVDIMM (guest A's NVDIMM backing: a file the caller
# owns, kept and never resized, or ram; for one benchmark or test, not a
# suite: 20, 50 and 52 read or keep the test folder's nvdimm.img),
# VM_NVDIMM_OPTS.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PMEMZC_FLAVOUR=${PMEMZC_FLAVOUR:-test}
VM_MEM=${VM_MEM:-1G}
VM_SMP=${VM_SMP:-1}
VM_NVDIMM_SIZE=${VM_NVDIMM_SIZE:-512M}
VM_NVDIMM_ADDR=${VM_NVDIMM_ADDR:-0x100000000}
# more properties of the NVDIMM device (unarmed=on, ...), comma-separated
VM_NVDIMM_OPTS=${VM_NVDIMM_OPTS:-}
VM_DISK_SIZE=${VM_DISK_SIZE:-256M}
VM_BOOT_TIMEOUT=${VM_BOOT_TIMEOUT:-120}
QEMU=${QEMU:-qemu-system-x86_64}

# A free UDP port on 127.0.0.1, chosen at run time so that runs coexist.
vm_free_udp_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 40000))
		ss -Hlun "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
	done
	return 1
}

# The link between the guests. Inside a private network namespace (the
# runner enters one and sets PMEMZC_NETNS=1) it is a bridge and two taps,
# named freely since the namespace is ours alone. Elsewhere, or where no tap
# can be made (no /dev/net/tun, or no right to open it), it is QEMU's socket
# netdev over UDP on 127.0.0.1, ports picked at run time, and one line says
# so. PMEMZC_NET=tap makes a missing tap an error, PMEMZC_NET=socket skips
# the tap.
vm_net_init() {
	local why=
	[ "${PMEMZC_NETNS:-0}" = 1 ] && ip link set lo up
	if [ "${PMEMZC_NET:-}" != socket ]; then
		if [ "${PMEMZC_NETNS:-0}" != 1 ]; then
			why="no private network namespace"
		elif ip link show pzbr0 >/dev/null 2>&1 || why=$(vm_make_tap_link 2>&1); then
			export PMEMZC_NET=tap
			return 0
		fi
		if [ "${PMEMZC_NET:-}" = tap ]; then
			say "error: PMEMZC_NET=tap, but no tap link: $why"
			return 1
		fi
		say "no tap link ($why): guests linked by QEMU socket netdev on 127.0.0.1 (sends are copied)"
	fi
	PMEMZC_NET=socket
	VM_PORT_A=${VM_PORT_A:-$(vm_free_udp_port)}
	VM_PORT_B=${VM_PORT_B:-$(vm_free_udp_port)}
	export PMEMZC_NET VM_PORT_A VM_PORT_B
}

# The bridge pzbr0 with taps pztapA and pztapB, up; on failure nothing of it
# is left and the reason is printed.
vm_make_tap_link() {
	local err r
	if err=$({ ip link add pzbr0 type bridge &&
		   for r in A B; do
			   ip tuntap add dev "pztap$r" mode tap &&
			   ip link set "pztap$r" master pzbr0 up || exit 1
		   done && ip link set pzbr0 up; } 2>&1); then
		return 0
	fi
	for r in A B; do ip link del "pztap$r" 2>/dev/null; done
	ip link del pzbr0 2>/dev/null
	echo "${err:-ip failed}" | head -1
	return 1
}

# Re-execute the calling script inside a network namespace of its own, so
# the bridge and taps of vm_net_init exist only there and die with it. Root
# gets a plain network namespace; any other user a user namespace with one
# (unshare -rn), where it may make taps if it may open /dev/net/tun (0666 on
# Debian). Where no namespace can be made, stay: vm_net_init then links the
# guests by socket.
vm_enter_netns() {
	[ -n "${PMEMZC_NETNS:-}" ] && return 0
	local how=-n
	[ "$(id -u)" -eq 0 ] || how=-rn
	if unshare $how true 2>/dev/null; then
		exec unshare $how env PMEMZC_NETNS=1 "$@"
	fi
	export PMEMZC_NETNS=0
}

# KVM only where a guest really boots under it (on some hosts it hangs after
# "Booting from ROM"): one bounded probe per host boot, remembered in the cache.
vm_accel() {
	[ -n "${PMEMZC_ACCEL:-}" ] && { echo "$PMEMZC_ACCEL"; return; }
	local stamp log
	stamp=$PMEMZC_CACHE/accel.$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
	if [ ! -e "$stamp" ]; then
		local acc=tcg
		if [ -w /dev/kvm ]; then
			log=$(mktemp)
			# no root: the kernel boots, panics and QEMU exits (-no-reboot)
			timeout -s KILL 30 "$QEMU" -accel kvm -cpu kvm64 -m 256M -bios /usr/share/qemu/qboot.rom \
				-kernel "$(kernel_dir "$PMEMZC_FLAVOUR")/arch/x86/boot/bzImage" \
				-append "console=ttyS0 panic=-1" -display none \
				-monitor none -serial "file:$log" -no-reboot >/dev/null 2>&1 || :
			grep -q 'Kernel panic' "$log" && acc=kvm
			rm -f "$log"
		fi
		echo "$acc" > "$stamp"
	fi
	cat "$stamp"
}

vm_start() {
	local role=$1 dir=$2 job=${3:-} kdir initrd accel cpu netdev mac
	kdir=$(kernel_dir "$PMEMZC_FLAVOUR")
	initrd=$(initramfs_link "$PMEMZC_FLAVOUR")
	[ -e "$kdir/arch/x86/boot/bzImage" ] || die "no $PMEMZC_KERNEL $PMEMZC_FLAVOUR kernel (make kernel KERNEL=$PMEMZC_KERNEL)"
	[ -e "$initrd" ] || die "no $PMEMZC_KERNEL $PMEMZC_FLAVOUR initramfs (make initramfs KERNEL=$PMEMZC_KERNEL)"
	[ -n "${PMEMZC_NET:-}" ] || vm_net_init
	accel=$(vm_accel)
	cpu=max
	[ "$accel" = kvm ] && cpu=kvm64
	mkdir -p "$dir"
	# keep the log of an earlier boot of this guest in the same test
	if [ -e "$dir/$role.serial.log" ]; then
		local i=1
		while [ -e "$dir/$role.boot$i.serial.log" ]; do i=$((i + 1)); done
		mv "$dir/$role.serial.log" "$dir/$role.boot$i.serial.log"
		[ ! -e "$dir/$role.dmesg.log" ] || mv "$dir/$role.dmesg.log" "$dir/$role.boot$i.dmesg.log"
	fi
	rm -f "${job:+$dir/$job.rc}"

	case $role in A) mac=52:54:00:77:00:01 ;; B) mac=52:54:00:77:00:02 ;; *) die "role $role";; esac
	if [ "$PMEMZC_NET" = tap ]; then
		netdev="tap,id=n0,ifname=pztap$role,script=no,downscript=no"
	elif [ "$role" = A ]; then
		netdev="socket,id=n0,udp=127.0.0.1:$VM_PORT_B,localaddr=127.0.0.1:$VM_PORT_A"
	else
		netdev="socket,id=n0,udp=127.0.0.1:$VM_PORT_A,localaddr=127.0.0.1:$VM_PORT_B"
	fi

	# (nbd.nbds_max=1: the tests use /dev/nbd0 alone, and 16 devices took
	# 0.4 s of each boot)
	local hostroot=
	[ -z "${VM_HOSTROOT:-}" ] || [ "$role" != A ] || hostroot=" pmemzc.root=host"
	local args=(
		-machine "${VM_MACHINE:-q35},nvdimm=on" -accel "$accel" -cpu "$cpu" -smp "$VM_SMP"
		-m "$VM_MEM,slots=2,maxmem=8G" -bios /usr/share/qemu/qboot.rom
		-kernel "$kdir/arch/x86/boot/bzImage" -initrd "$initrd"
		-append "console=ttyS0 panic=-1 loglevel=6 nbd.nbds_max=1 pmemzc.role=$role${job:+ pmemzc.job=$job}$hostroot ${VM_APPEND:-}"
		-display none -nodefaults -no-reboot
		-virtfs "local,path=$dir,mount_tag=work,security_model=none,id=work"
		-virtfs "local,path=$PMEMZC_TOP,mount_tag=top,security_model=none,readonly=on,id=top"
		-netdev "$netdev" -device "virtio-net-pci,netdev=n0,mac=$mac"
	)
	# VM_HOSTROOT=DIR: guest A's root becomes this machine's own, read-only
	# with a tmpfs over it, systemd its init (vm/guest/hostroot.sh), DIR
	# the running kernel's module tree (45-deb-install)
	if [ -n "${VM_HOSTROOT:-}" ] && [ "$role" = A ]; then
		args+=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap,id=hostroot"
		       -virtfs "local,path=$VM_HOSTROOT,mount_tag=kmods,security_model=none,readonly=on,id=kmods")
	fi
	if [ "$role" = A ]; then
		local nv=${VM_NVDIMM:-$dir/nvdimm.img} disk=${VM_DISK_A:-$dir/scratch.img}
		[ -e "$disk" ] || truncate -s "$VM_DISK_SIZE" "$disk"
		# VM_NVDIMM=ram: the NVDIMM in anonymous memory like the guest's
		# RAM (transparent huge pages on the host, not persistent), so
		# that what QEMU's NIC reads from it costs what it costs from RAM
		if [ "$nv" = ram ]; then
			args+=(-object "memory-backend-ram,id=nvmem0,size=$VM_NVDIMM_SIZE")
		else
			[ -e "$nv" ] || truncate -s "$VM_NVDIMM_SIZE" "$nv"
			args+=(-object "memory-backend-file,id=nvmem0,share=on,mem-path=$nv,size=$VM_NVDIMM_SIZE")
		fi
		args+=(-device "nvdimm,id=nvdimm0,memdev=nvmem0,addr=$VM_NVDIMM_ADDR${VM_NVDIMM_OPTS:+,$VM_NVDIMM_OPTS}"
		       -drive "file=$disk,format=raw,if=virtio,cache=unsafe")
	else
		local disk=${VM_DISK_B:-$dir/peer.img}
		[ -e "$disk" ] || truncate -s "$VM_DISK_SIZE" "$disk"
		args+=(-drive "file=$disk,format=raw,if=virtio,cache=unsafe")
	fi
	if [ "${VM_INTERACTIVE:-0}" = 1 ]; then
		# console on the terminal (Ctrl-A X quits QEMU), logged as well
		args+=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$dir/$role.serial.log"
		       -serial chardev:con -mon chardev=con,mode=readline)
		"$QEMU" "${args[@]}"
		return
	fi
	args+=(-monitor none -serial "file:$dir/$role.serial.log")
	printf '%q ' "$QEMU" "${args[@]}" > "$dir/$role.cmdline"
	"$QEMU" "${args[@]}" >"$dir/$role.qemu.log" 2>&1 &
	echo $! > "$dir/$role.pid"
}

vm_pid() { cat "$2/$1.pid" 2>/dev/null; }
vm_alive() { local p; p=$(vm_pid "$1" "$2") && kill -0 "$p" 2>/dev/null; }

# vm_parts ROLE DIR: print the part lines guest ROLE appended to
# DIR/ROLE.parts (check in vm/guest/lib.sh) since the last call, the role
# before each description ("not ok - A: what"), "# " lines as they are;
# DIR/ROLE.parts.shown counts the lines already printed
vm_parts() {
	local f=$2/$1.parts shown=0 total
	[ -e "$f" ] || return 0
	[ ! -s "$f.shown" ] || shown=$(cat "$f.shown")
	total=$(wc -l < "$f")
	[ "$total" -ge "$shown" ] || shown=0
	tail -n +$((shown + 1)) "$f" |
		LC_ALL=C sed -nE "/^(not )?ok( |\$)/{s/^((not )?ok)( [0-9]+)?( -)? ?/\1 - $1: /;p;}; /^# /p"
	echo "$total" > "$f.shown"
}

# Wait for guest ROLE to exit; a guest still running after SECS is killed
# and reported. Prints the parts the guest reported (vm_parts). Returns the
# guest job's exit status (from DIR/JOB.rc) when there was a job, 124 on
# timeout, 125 when the guest died without one.
vm_wait() {
	local role=$1 dir=$2 secs=$3 job=${4:-} t=0
	while vm_alive "$role" "$dir"; do
		if [ "$t" -ge $((secs * 10)) ]; then
			say "guest $role still running after ${secs}s: killed"
			vm_kill "$role" "$dir" KILL
			vm_parts "$role" "$dir"
			return 124
		fi
		sleep 0.1; t=$((t + 1))
	done
	wait "$(vm_pid "$role" "$dir")" 2>/dev/null || true
	vm_parts "$role" "$dir"
	[ -n "$job" ] || return 0
	[ -s "$dir/$job.rc" ] || { say "guest $role ended without finishing $job"; return 125; }
	local rc
	rc=$(cat "$dir/$job.rc")
	if [ "$rc" != 0 ]; then
		echo "guest $role: $job exit $rc; its last lines:"
		{ grep -av '^\[ *[0-9]' "$dir/$role.serial.log" || :; } | tail -n 8 | sed 's/^/  /'
	fi
	return "$rc"
}

vm_kill() {
	local p
	p=$(vm_pid "$1" "$2") || return 0
	kill -"${3:-TERM}" "$p" 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}

vm_wait_file() {
	local dir=$1 file=$2 secs=$3 t=0
	until [ -e "$dir/$file" ]; do
		[ "$t" -ge $((secs * 10)) ] && { say "timeout after ${secs}s waiting for $file"; return 124; }
		sleep 0.1; t=$((t + 1))
	done
}

# Run JOB (a script in DIR) in guest ROLE and wait for it: one call for the
# single-guest case.
vm_run() {
	local role=$1 dir=$2 job=$3 secs=${4:-$VM_BOOT_TIMEOUT}
	vm_start "$role" "$dir" "$job"
	vm_wait "$role" "$dir" "$secs" "$job"
}

# Run DIR/B.job in guest B and DIR/A.job in guest A (B first: it usually
# serves), wait up to SECS for A, then tell B it may finish (DIR/A.done)
# and wait up to B_SECS (120) for it. Fails when either job fails.
vm_run2() {
	local dir=$1 secs=$2 rca=0 rcb=0
	vm_start B "$dir" B.job
	vm_start A "$dir" A.job
	vm_wait A "$dir" "$secs" A.job || rca=$?
	touch "$dir/A.done"
	vm_wait B "$dir" "${3:-120}" B.job || rcb=$?
	[ $rca -eq 0 ] && [ $rcb -eq 0 ] && return 0
	echo "guest A job exit $rca, guest B job exit $rcb"
	return 1
}

# tap_check FILE [N]: FILE is a TAP stream with one plan 1..P, P "ok" lines
# numbered 1..P in order, no "not ok"; with N, P must be N. A subtest (lines
# indented 4 spaces, before its parent test line) has one plan 1..Q and Q
# "ok" or "not ok" lines numbered 1..Q in order, and no "not ok" under an
# "ok" parent. Says what is wrong (a subtest's faults as "test N: ...") and
# returns 1 otherwise.
tap_check() {
	[ -r "$1" ] || { echo "no TAP file $1"; return 1; }
	awk -v want="${2:-}" '
	# the subtest block before a parent line: its faults, named by the parent
	function sub_end(parent, num,   i) {
		if (!sub_open) return
		if (sub_plans != 1) sub_err[++sub_nerr] = sub_plans + 0 " subtest plan lines, expected one"
		else if (sub_plan != sub_n) sub_err[++sub_nerr] = "subtest plan 1.." sub_plan " but " sub_n " part lines"
		if (parent ~ /^ok/ && sub_failed != "") sub_err[++sub_nerr] = "failed: " sub_failed
		for (i = 1; i <= sub_nerr; i++) { print "test " num ": " sub_err[i]; bad = 1 }
		sub_open = sub_plans = sub_plan = sub_n = sub_nerr = 0; sub_failed = ""
	}
	/^    (# Subtest|1\.\.|ok( |$)|not ok)/ { sub_open = 1 }
	/^    1\.\.[0-9]+/ { sub_plans++; sub_plan = substr($1, 4) + 0; next }
	/^    (ok( |$)|not ok)/ {
		sub_n++
		num = $1 == "not" ? $3 : $2
		if (num + 0 != sub_n || num !~ /^[0-9]+$/) sub_err[++sub_nerr] = "part " sub_n " is numbered " num
		if ($1 == "not" && sub_failed == "") { sub_failed = $0; sub(/^ +/, "", sub_failed) }
		next
	}
	/^not ok/ { sub_end($0, $3); print "failed: " $0; bad = 1; next }
	/^ok / { sub_end($0, $2) }
	/^1\.\.[0-9]+/ { plans++; plan = substr($1, 4) + 0; next }
	/^ok / { n++; if ($2 + 0 != n) { print "ok line " n " is numbered " $2; bad = 1 } }
	END {
		if (sub_open) { print "a subtest without its test line"; bad = 1 }
		if (plans != 1) { print plans + 0 " plan lines, expected one"; bad = 1 }
		else if (plan != n) { print "plan 1.." plan " but " n " ok lines"; bad = 1 }
		if (want != "" && plan != want) { print "plan 1.." plan ", expected 1.." want; bad = 1 }
		exit bad
	}' "$1"
}

# tap_parts FILE NAME: the parts test NAME printed in FILE (its test.log):
# lines "ok ...", "not ok ..." (numbered or not, "# SKIP" kept) and "# "
# figures between them, as a TAP subtest indented 4 spaces: "# Subtest:
# NAME", the plan 1..P, the parts numbered 1..P in order, the figures in
# place. Prints nothing when FILE has no part.
tap_parts() {
	LC_ALL=C awk -v name="$2" '
	/^(not )?ok( |$)/ {
		d = $0; st = "ok"
		if (sub(/^not ok/, "", d)) st = "not ok"; else sub(/^ok/, "", d)
		sub(/^ +/, "", d)
		if (d ~ /^[0-9]+( |$)/) sub(/^[0-9]+ */, "", d)
		if (d ~ /^-( |$)/) sub(/^- */, "", d)
		p++
		line[++l] = "    " st " " p (d == "" ? "" : d ~ /^#/ ? " " d : " - " d)
		next
	}
	/^# / { line[++l] = "    " $0 }
	END {
		if (!p) exit
		print "    # Subtest: " name
		print "    1.." p
		for (i = 1; i <= l; i++) print line[i]
	}' "$1"
}

# wait_log FILE ERE SECS: FILE gets a line matching ERE within SECS
wait_log() {
	local t=0
	until [ -e "$1" ] && LC_ALL=C grep -aqE -- "$2" "$1"; do
		[ "$t" -ge $(($3 * 10)) ] && { say "timeout after ${3}s waiting for '$2' in $1"; return 124; }
		sleep 0.1; t=$((t + 1))
	done
}
