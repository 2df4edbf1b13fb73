# Benchmark (not a test): prd against upstream's nd_pmem on the same
# NVDIMM, one after the other in one boot: fio 4 KiB random read and write
# and 1 MiB sequential read and write, O_DIRECT, psync. prd in each page
# mode; nd_pmem on the raw namespace (no pages). Writes $T/pmem.txt with
# IOPS, MB/s and the prd/nd_pmem ratios, and prd's time to map the 512 MiB
# NVDIMM and the RAM its memmap takes, per mode.
TEST_TIMEOUT=1200

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
run_fio() { # NAME DEV
	for w in randread:4k randwrite:4k read:1M write:1M; do
		fio --name=b --filename=$2 --ioengine=psync --direct=1 --rw=${w%%:*} \
		    --bs=${w#*:} --size=256M --runtime=5 --time_based --output-format=terse \
		    --terse-version=3 > /tmp/fio.out 2>&1 || { cat /tmp/fio.out; fail "fio $1 $w"; }
		# terse v3: field 7 read bw KiB/s, 8 read iops, 48 write bw, 49 write iops
		awk -F';' -v n=$1 -v w=$w '{ if (w ~ /read/) print n, w, $7, $8; else print n, w, $48, $49 }' /tmp/fio.out >> /work/pmem.raw
	done
}
for m in none sparse devmap devmap-dev; do
	args="pages=${m%-dev}"; [ $m = devmap-dev ] && args="pages=devmap memmap=dev"
	if [ $m = devmap-dev ]; then
		# memmap=dev lays the region out anew: only over a head with nothing in it
		$INSMOD /top/pmem-driver/prd.ko map=512M@4G && /usr/bin/dd if=/dev/zero of=/dev/pmem0 \
			bs=1M count=16 oflag=direct status=none && rmmod prd || fail "clear the head"
	fi
	$INSMOD /top/pmem-driver/prd.ko map=512M@4G $args || fail "prd $m"
	d=/sys/block/pmem0/prd
	echo "$m $(cat $d/map_usecs) $(cat $d/memmap_ram_bytes) $(cat $d/data_offset)" >> /work/map.raw
	run_fio prd-$m /dev/pmem0
	rmmod prd
done
modprobe nd_pmem && modprobe nfit || fail "nd_pmem"
wait_for 30 test -b /dev/pmem0 || fail "no nd_pmem disk"
run_fio nd_pmem /dev/pmem0
JOB
	vm_run A "$T" A.job 1100 || return 1
	awk '
	{ k = $2; bw[$1 " " k] = $3 / 1024; iops[$1 " " k] = $4; names[$1] = 1; ws[k] = 1 }
	END {
		split("randread:4k randwrite:4k read:1M write:1M", w, " ")
		printf "%-14s", "fio"; for (i = 1; i <= 4; i++) printf " %22s", w[i]; printf "\n"
		split("nd_pmem prd-none prd-sparse prd-devmap prd-devmap-dev", n, " ")
		for (j = 1; j <= 5; j++) {
			printf "%-14s", n[j]
			for (i = 1; i <= 4; i++) printf " %12.0f IOPS %4.0fMB", iops[n[j] " " w[i]], bw[n[j] " " w[i]]
			printf "\n"
		}
		for (j = 2; j <= 5; j++) {
			printf "%s/nd_pmem:", n[j]
			for (i = 1; i <= 4; i++) printf " %s x%.2f", w[i], bw[n[j] " " w[i]] / bw["nd_pmem " w[i]]
			printf "\n"
		}
	}' "$T/pmem.raw" > "$T/pmem.txt"
	{
		echo
		printf '%-12s %12s %18s %14s\n' "prd pages=" "map time ms" "memmap RAM bytes" "data offset"
		awk '{ printf "%-12s %12.1f %18d %14d\n", $1, $2 / 1000, $3, $4 }' "$T/map.raw"
	} >> "$T/pmem.txt"
	sed 's/^/# /' "$T/pmem.txt"
}
