# Host only: the runner's splat patterns catch real kernel reports and
# nothing of ordinary guest output.
TEST_TIMEOUT=30

test_run() {
	local pat=$PMEMZC_TOP/net-tests/splat-patterns bad=0 line
	while IFS= read -r line; do
		echo "$line" | grep -qE -f "$pat" || { echo "missed: $line"; bad=1; }
	done <<'POS'
[    3.120443] WARNING: CPU: 0 PID: 93 at drivers/block/prd.c:120 prd_probe+0x2a/0x40 [prd]
[    3.120001] ------------[ cut here ]------------
[    5.2] BUG: KASAN: slab-out-of-bounds in prd_rw_page+0x51/0x90
[    5.2] BUG: sleeping function called from invalid context at mm/slab.h:723
[    1.0] kernel BUG at mm/page_alloc.c:1234!
[    1.0] Oops: 0002 [#1] PREEMPT SMP KASAN
[    2.2] general protection fault, probably for non-canonical address 0xdffffc0000000000
[    9.1] WARNING: possible circular locking dependency detected
[    9.1] WARNING: inconsistent lock state
[    9.1] WARNING: possible recursive locking detected
[    9.1] WARNING: suspicious RCU usage
[  120.0] INFO: task fio:211 blocked for more than 120 seconds.
[    4.0] Kernel panic - not syncing: Fatal exception
[    4.0] UBSAN: shift-out-of-bounds in lib/foo.c:12:3
POS
	while IFS= read -r line; do
		echo "$line" | grep -qE -f "$pat" && { echo "false hit: $line"; bad=1; }
	done <<'NEG'
[    0.512345] ACPI: NFIT 0x000000001FFE1A3B 0000E0 (v01 BOCHS  BXPCNFIT 00000001 BXPC 00000001)
[    2.000000] EXT4-fs (pmem0): DAX enabled. Warning: EXPERIMENTAL, use at your own risk
[    2.000000] random: crng init done
pmemzc-guest: role=A up after 2.31 s
iperf3: warning: report_interval ignored
ok 3 - no WARNING found in dmesg
[    1.1] nd_pmem namespace0.0: unable to guarantee persistence of writes
NEG
	return $bad
}
