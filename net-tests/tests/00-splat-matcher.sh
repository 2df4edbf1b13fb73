# Host only: the runner's splat scan (splat_lines, net-tests/splat-patterns)
# catches a real sample of every kernel report it lists, every pattern has
# a sample, ordinary guest output is no splat, and a log with NUL bytes or
# bad UTF-8 (read in a UTF-8 locale) hides nothing.
TEST_TIMEOUT=60

# Real report lines, in the formats of Linux 6.1 (one per pattern at least).
pos_samples() {
	cat <<'POS'
[    3.120443] WARNING: CPU: 0 PID: 93 at drivers/block/prd.c:120 prd_probe+0x2a/0x40 [prd]
[    3.120443] WARNING: at kernel/foo.c:12 bar+0x1/0x2
[    3.120001] ------------[ cut here ]------------
[    1.0] kernel BUG at mm/page_alloc.c:1234!
[    1.0] Oops: 0002 [#1] PREEMPT SMP KASAN
[    2.2] general protection fault, probably for non-canonical address 0xdffffc0000000000: 0000 [#1] PREEMPT SMP KASAN
[    2.2] BUG: unable to handle page fault for address: ffffc90000a00000
[    5.2] BUG: KASAN: slab-out-of-bounds in prd_rw_page+0x51/0x90
[    5.2] BUG: KASAN: use-after-free in pzc_bio_end+0x1c/0x80 [pmem_zc]
[    5.2] BUG: KFENCE: use-after-free read in pzc_op_put+0x10/0x40
[    5.2] BUG: sleeping function called from invalid context at mm/slab.h:723
[    5.2] BUG: scheduling while atomic: kworker/0:1/23/0x00000002
[    5.2] BUG: Bad page state in process rmmod  pfn:100200
[    5.2] BUG: soft lockup - CPU#0 stuck for 22s! [fio:212]
[    5.2] [ BUG: Invalid wait context ]
[    5.2] BUG: MAX_LOCKDEP_ENTRIES too low!
[    5.2] BUG: spinlock bad magic on CPU#0, insmod/99
[    5.2] BUG kmalloc-64 (Tainted: G           O      ): Redzone overwritten
[    5.2] BUG kmalloc-128 (Not tainted): Poison overwritten
[    5.2] page dumped because: nonzero mapcount
[    4.0] UBSAN: shift-out-of-bounds in lib/foo.c:12:3
[    9.1] WARNING: possible circular locking dependency detected
[    9.1] WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected
[    9.1] WARNING: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected
[    9.1] WARNING: possible recursive locking detected
[    9.1] WARNING: inconsistent lock state
[    9.1] WARNING: possible irq lock inversion dependency detected
[    9.1] WARNING: Nested lock was not taken
[    9.1] WARNING: bad unlock balance detected!
[    9.1] WARNING: bad contention detected!
[    9.1] WARNING: held lock freed!
[    9.1] WARNING: rmmod/211 still has locks held!
[    9.1] WARNING: lock held when returning to user space!
[    9.1] WARNING: suspicious RCU usage
[    9.1] WARNING: chain_key collision
[    9.1] INFO: trying to register non-static key.
[    9.1] turning off the locking correctness validator.
[    9.1] INFO: lockdep is turned off.
[    9.1] ODEBUG: free active (active state 0) object: 000000001b5b5b5b object type: timer_list hint: pzc_timeout+0x0/0x10
[    9.1] list_add corruption. next->prev should be prev (ffff888003a1c0a8), but was 0000000000000000.
[    9.1] list_del corruption, ffff888003a1c0a8->next is LIST_POISON1 (dead000000000100)
[    9.1] refcount_t: underflow; use-after-free.
[  120.0] INFO: task fio:211 blocked for more than 120 seconds.
[   30.0] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
[   30.0] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 0-... } 21003 jiffies s: 129 root: 0x1/.
[   30.0] rcu: INFO: rcu_preempt self-detected stall on CPU
[   30.0] INFO: rcu_tasks detected stalls on tasks:
[   30.0] NMI watchdog: Watchdog detected hard LOCKUP on cpu 1
[    4.0] Kernel panic - not syncing: Fatal exception
[    7.7]  Call Trace:
POS
}

# Ordinary guest and test output: no splat.
neg_samples() {
	cat <<'NEG'
[    0.512345] ACPI: NFIT 0x000000001FFE1A3B 0000E0 (v01 BOCHS  BXPCNFIT 00000001 BXPC 00000001)
[    2.000000] EXT4-fs (pmem0): DAX enabled. Warning: EXPERIMENTAL, use at your own risk
[    2.000000] random: crng init done
pmemzc-guest: role=A up after 2.31 s
iperf3: warning: report_interval ignored
ok 3 - no WARNING found in dmesg
[    1.1] nd_pmem namespace0.0: unable to guarantee persistence of writes
[    0.0] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar
[    0.0] ... MAX_LOCKDEP_SUBCLASSES:  8
[    0.1] Running RCU self tests
[    0.2] rcu: RCU lockdep checking is enabled.
[    1.0] prd: pmem0: 512 MiB at 0x100000000, pages=devmap
NEG
}

test_run() {
	local pat=$PMEMZC_TOP/net-tests/splat-patterns bad=0 line p n=0 d
	d=$(mktemp -d)
	# 1. the scan itself flags every sample, one file a sample
	while IFS= read -r line; do
		n=$((n + 1))
		printf '%s\n' "$line" > "$d/A.serial.log"
		[ -n "$(splat_lines "$d")" ] || { echo "missed: $line"; bad=1; }
	done < <(pos_samples)
	echo "# $n report samples flagged"

	# 2. every pattern has a sample of its own
	n=0
	while IFS= read -r p; do
		n=$((n + 1))
		pos_samples | grep -qE -- "$p" || { echo "pattern without a sample: $p"; bad=1; }
	done < <(grep -v -e '^#' -e '^$' "$pat")
	echo "# $n patterns, each with a sample"

	# 3. nothing of ordinary output
	neg_samples > "$d/A.serial.log"
	if [ -n "$(splat_lines "$d")" ]; then
		echo "false hits: $(splat_lines "$d")"; bad=1
	fi

	# 4. NUL bytes and bad UTF-8 around and on the splat line, read in a
	#    UTF-8 locale (grep would call the file binary and print nothing)
	printf 'boot\0\0\0garbage\n\xff\xfe junk\n[    5.0] BUG: KASAN: use-after-free in x\xff+0x1\n' > "$d/A.serial.log"
	printf 'clean\n' > "$d/B.serial.log"
	line=$(LC_ALL=C.UTF-8 splat_lines "$d")
	echo "$line" | grep -q '^A.serial.log: \[    5.0\] BUG: KASAN: use-after-free in x?+0x1$' ||
		{ echo "binary log: got '$line'"; bad=1; }
	echo "# a splat after NUL bytes and on a line with a bad UTF-8 byte is found"

	# 5. the dmesg a guest dumps after its job is scanned too; ALLOW drops
	#    only the lines it matches
	rm -f "$d"/*.log
	printf '[    7.7]  Call Trace:\n[    7.8] WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x1\n' > "$d/A.dmesg.log"
	line=$(splat_lines "$d" 'Call Trace:')
	[ "$line" = "A.dmesg.log: [    7.8] WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x1" ] ||
		{ echo "dmesg log with ALLOW: got '$line'"; bad=1; }

	# 6. guests of a test that boots several side by side log into a
	#    folder right under it: scanned; a nested runner's results, deeper,
	#    are that runner's own
	rm -f "$d"/*.log
	mkdir -p "$d/4G" "$d/inner/10-x"
	printf '[    7.8] BUG: KASAN: wild-memory-access in y\n' > "$d/4G/A.serial.log"
	printf '[    7.8] WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x1\n' > "$d/inner/10-x/A.serial.log"
	line=$(splat_lines "$d")
	[ "$line" = "4G/A.serial.log: [    7.8] BUG: KASAN: wild-memory-access in y" ] ||
		{ echo "folders: got '$line'"; bad=1; }
	rm -rf "$d/4G" "$d/inner"

	# 7. an unreadable log is a failure, not silence
	rm -f "$d"/*.log
	mkdir "$d/A.serial.log"
	line=$(splat_lines "$d")
	echo "$line" | grep -q '^A.serial.log: cannot be scanned' || { echo "unreadable log: got '$line'"; bad=1; }
	rm -rf "$d"
	return $bad
}
