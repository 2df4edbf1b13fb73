# Benchmark (not a test): serving files over HTTP/1.1 from guest A, wrk on
# guest B as the load, side by side in each of BENCH_REPS repetitions:
# pmem-zc serve on ext4 -o dax (pages=devmap, bodies by PMEM_ZC_IOC_SEND);
# nginx (Debian's, sendfile on) on the same DAX files (on 6.12's lab
# kernel with fs.dax_splice_read 1: its DAX splice series sends them by
# reference); there, nginx again with fs.dax_splice_read 0 (nginx-daxcopy:
# the copy every other kernel makes) and pmem-zc serve with it 1
# (pmemzc-splice: --body auto then sends by sendfile(2), by reference,
# without the module); nginx on the same files on ext4 without DAX, page
# cache warm. Files: one of 1 MiB, one of
# 64 MiB, 1000 of 64 KiB (s) and 1000 of 4 KiB (s4k) (wrk walks them); 1
# and 16 connections, 4 s each. No access log on either side (nginx's
# access_log off, serve's --access-log off); serve with its open-file
# cache (the default), nginx without one (its default).
# Rows http-SERVER-FILES-cCONN: requests/s, MB/s (body and headers, as wrk
# counts), guest A's CPU seconds per GiB (all CPUs) and the page cache it
# holds (MiB above the level before the server started). In $T/raw.txt.
# HTTP_SERVERS, HTTP_FILES: a subset of the servers and files (all by
# default), e.g. HTTP_SERVERS="pmemzc nginx-pc" HTTP_FILES="s4k s f1M".
TEST_TIMEOUT=5400
BENCH_REPS=${BENCH_REPS:-5}

test_run() {
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
wrk_requests 4
JOB
	cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
REPS=$BENCH_REPS
ONLY_SERVERS="${HTTP_SERVERS:-}"
FILES="${HTTP_FILES:-f1M f64M s s4k}"
JOB
	cat >> "$T/A.job" <<'JOB'
load_zc map=256M@4G,256M@0x110000000 pages=devmap || fail "load"
mkdir -p /mnt/dax /mnt/pc
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount -o dax /dev/pmem0 /mnt/dax || fail "ext4 dax"
mkfs.ext4 -q -F -b 4096 /dev/pmem1 && mount /dev/pmem1 /mnt/pc || fail "ext4"
http_files /mnt/dax /mnt/pc || fail "test files"
cached() { awk '/^Cached:/ {print $2}' /proc/meminfo; }
# wrk_bytes N, wrk_secs N: what wrk says it read, in bytes, and in how long
wrk_bytes() { sed -n 's/.* requests in [0-9.]*s, \([0-9.]*\)\([KMGT]*\)B read.*/\1 \2/p' /work/wrk.$1 |
	awk '{ m = 1; if ($2 == "K") m = 1024; if ($2 == "M") m = 1048576;
	       if ($2 == "G") m = 1073741824; if ($2 == "T") m = 1099511627776; printf "%.0f", $1 * m }'; }
wrk_secs() { sed -n 's/.* requests in \([0-9.]*\)s, .*/\1/p' /work/wrk.$1; }
n=1
# nginx-daxcopy and pmemzc-splice where the kernel has the DAX splice series
SERVERS="pmemzc nginx-dax nginx-pc"
[ -e $HTTP_SCTL ] && SERVERS="pmemzc pmemzc-splice nginx-dax nginx-daxcopy nginx-pc"
[ -n "$ONLY_SERVERS" ] && SERVERS=$ONLY_SERVERS
for rep in $(seq $REPS); do
	for srv in $SERVERS; do
		sync; echo 3 > /proc/sys/vm/drop_caches
		[ $srv = nginx-pc ] && cat /mnt/pc/f1M /mnt/pc/f64M /mnt/pc/s/* /mnt/pc/s4k/* > /dev/null
		c0=$(cached)
		http_server_start $srv || fail "$srv did not start"
		for files in $FILES; do
			for conns in 1 16; do
				path=/$files
				b0=$(cpu_busy)
				echo "$path $conns" > /work/req.$n
				wait_work done.$n 120 || fail "wrk $n never ended"
				b1=$(cpu_busy)
				bytes=$(wrk_bytes $n)
				[ "${bytes:-0}" -gt 0 ] || fail "wrk $n: $(cat /work/wrk.$n)"
				row=http-$srv-$files-c$conns
				raw $row rps $rep "$(awk '/^Requests\/sec:/ {print $2}' /work/wrk.$n)"
				raw $row MBps $rep "$(awk -v b=$bytes -v s=$(wrk_secs $n) 'BEGIN { printf "%.2f", b / s / 1e6 }')"
				raw $row cpu_s_per_GiB $rep "$(awk -v j=$((b1 - b0)) -v b=$bytes 'BEGIN { printf "%.3f", j / 100 / (b / 1073741824) }')"
				raw $row pagecache_MiB $rep "$(awk -v a=$(cached) -v z=$c0 'BEGIN { printf "%.1f", (a - z) / 1024 }')"
				n=$((n + 1))
			done
		done
		http_server_stop $srv
		# the open-file cache must have served
		case $srv in
		pmemzc*) grep -q 'open-file cache: hits=[1-9]' /tmp/serve.out ||
			fail "open-file cache: $(cat /tmp/serve.out)" ;;
		esac
	done
	echo "repetition $rep done"
done
echo end > /work/req.$n
umount /mnt/dax /mnt/pc && rmmod pmem_zc && rmmod prd || fail "teardown"
JOB
	vm_run2 "$T" 5300 600 || return 1
	[ -s "$T/raw.txt" ] || { echo "no figures"; return 1; }
	echo "# $(grep -c . "$T/raw.txt") figures in $T/raw.txt"
}
