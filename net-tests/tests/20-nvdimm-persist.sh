# Data written to the NVDIMM in one boot of guest A is intact after QEMU is
# stopped and started again, and after QEMU is killed with SIGKILL. The
# guest reaches the NVDIMM through the upstream nfit/nd_pmem modules (raw
# namespace = the whole NVDIMM); the host also checks the bytes in the
# backing file itself.
TEST_TIMEOUT=600

# job that loads the upstream driver and waits for /dev/pmem0
pmem_job_head() {
	cat <<'JOB'
. /top/vm/guest/lib.sh
modprobe nd_pmem && modprobe nfit || fail "modprobe"
wait_for 30 test -b /dev/pmem0 || fail "no /dev/pmem0"
JOB
}

# write_job TAG MIB_OFFSET: random 16 MiB at MIB_OFFSET, sum to /work/TAG.sum
write_job() {
	pmem_job_head
	cat <<JOB
dd if=/dev/urandom of=/tmp/data bs=1M count=16 2>/dev/null || fail "urandom"
dd if=/tmp/data of=/dev/pmem0 bs=1M seek=$2 oflag=direct conv=fsync 2>/dev/null || fail "write"
sha256sum < /tmp/data | cut -d' ' -f1 > /work/$1.sum
touch /work/$1.written
JOB
}

# read_line TAG MIB_OFFSET: sum of the 16 MiB at MIB_OFFSET to /work/TAG.back
read_line() {
	echo "dd if=/dev/pmem0 bs=1M skip=$2 count=16 iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1 > /work/$1.back"
}

host_sum() { dd if="$T/nvdimm.img" bs=1M skip="$1" count=16 2>/dev/null | sha256sum | cut -d' ' -f1; }

same() {
	[ -s "$T/$1.sum" ] || { echo "no $1.sum"; return 1; }
	[ "$(cat "$T/$1.sum")" = "$(cat "$T/$2")" ] || { echo "$1: wrote $(cat "$T/$1.sum"), $2 has $(cat "$T/$2")"; return 1; }
}

test_run() {
	# 1. clean power-off, restart, read back
	write_job one 100 > "$T/w1.job"
	vm_run A "$T" w1.job || { echo "write boot failed"; return 1; }
	host_sum 100 > "$T/one.host"
	same one one.host || return 1
	{ pmem_job_head; read_line one 100; } > "$T/r1.job"
	vm_run A "$T" r1.job || { echo "read boot failed"; return 1; }
	same one one.back || return 1
	echo "# clean restart: 16 MiB intact"

	# 2. write, then QEMU dies by SIGKILL while the guest still runs
	{ write_job two 300; echo 'sleep 600'; } > "$T/w2.job"
	vm_start A "$T" w2.job
	vm_wait_file "$T" two.written 180 || { vm_kill A "$T" KILL; return 1; }
	vm_kill A "$T" KILL
	host_sum 300 > "$T/two.host"
	same two two.host || return 1
	rm -f "$T/one.back"
	{ pmem_job_head; read_line two 300; read_line one 100; } > "$T/r2.job"
	vm_run A "$T" r2.job || { echo "read boot after SIGKILL failed"; return 1; }
	same two two.back || return 1
	same one one.back || return 1
	echo "# after SIGKILL: 16 MiB intact"
}
