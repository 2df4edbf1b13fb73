# Benchmark (not a test): what struct pages cost against the NVDIMM's size:
# guest A booted with an NVDIMM of 256 MiB, 1 GiB and 4 GiB; prd maps all
# of it in each page mode, BENCH_REPS times. Rows scale-MODE-SIZE (SIZE in
# MiB): map_ms (prd's own map_usecs: sections or memremap_pages and the
# memmap initialisation) and memmap_MiB (RAM the memmap takes; 0 for
# memmap=dev), in $T/raw.txt. bench/run fits a cost per GiB to them.
TEST_TIMEOUT=1800
BENCH_REPS=${BENCH_REPS:-5}

test_run() {
	local size mib
	for size in 256M 1G 4G; do
		mib=$(($(numfmt --from=iec $size) >> 20))
		mkdir -p "$T/$size"
		cat > "$T/$size/A.job" <<JOB
. /top/vm/guest/lib.sh
REPS=$BENCH_REPS SIZE=$size MIB=$mib
JOB
		cat >> "$T/$size/A.job" <<'JOB'
P=/top/pmem-driver/prd.ko
for rep in $(seq $REPS); do
	for m in none sparse devmap devmap-dev; do
		args="pages=${m%-dev}"; [ $m = devmap-dev ] && args="pages=devmap memmap=dev"
		if [ $m = devmap-dev ] && [ $rep = 1 ]; then
			# memmap=dev lays the region out anew: only over a head with nothing in it
			$INSMOD $P map=$SIZE@4G && /usr/bin/dd if=/dev/zero of=/dev/pmem0 \
				bs=1M count=128 oflag=direct status=none && rmmod prd || fail "clear the head"
		fi
		$INSMOD $P map=$SIZE@4G $args || fail "prd $m $SIZE"
		d=/sys/block/pmem0/prd
		raw scale-$m-$MIB map_ms $rep "$(awk -v u=$(cat $d/map_usecs) 'BEGIN { printf "%.3f", u / 1000 }')"
		raw scale-$m-$MIB memmap_MiB $rep "$(awk -v b=$(cat $d/memmap_ram_bytes) 'BEGIN { printf "%.3f", b / 1048576 }')"
		rmmod prd || fail "rmmod"
	done
done
JOB
		VM_NVDIMM_SIZE=$size vm_run A "$T/$size" A.job 1700 || { echo "$size failed"; return 1; }
		cat "$T/$size/raw.txt" >> "$T/raw.txt"
	done
	echo "# $(grep -c . "$T/raw.txt") figures in $T/raw.txt"
}
