# Profile (not a benchmark, no figures): where guest A's CPU goes while it
# serves, perf record -a -g (cpu-clock, 499 Hz; TCG has no hardware
# counters) for 7 s of an 8 s wrk load from guest B at 16 connections:
# pmem-zc serve (module bodies, its open-file cache, no access log) and
# nginx (sendfile on, access_log off) from a warm page cache, on 1000
# files of 4 KiB (s4k), 1000 of 64 KiB (s) and one of 1 MiB (f1M); where
# the kernel has the DAX splice series, nginx on the DAX files by reference
# too (nginx-dax, fs.dax_splice_read 1). HTTP_SERVERS (of pmemzc, nginx-pc,
# nginx-dax, and pmemzc-splice: serve by sendfile(2) with
# fs.dax_splice_read 1, not by default; not 30-http's nginx-daxcopy),
# HTTP_FILES (of s4k, s, f1M): a
# subset (e.g. HTTP_SERVERS="nginx-dax nginx-pc" HTTP_FILES=f1M). The
# host's perf (Debian's linux-perf) runs in the guest with its libraries,
# copied into this test's directory; without it the profile is skipped.
# Reports: $T/prof-SERVER-FILES.txt (a line of wrk's figures, busy
# jiffies, requests, and skbs (pure ACKs included), TCP segments and
# PMEM_ZC_IOC_SENDs per request; symbols,
# then command and object, then symbols with their callees' time).
#   net-tests/run --suite benchmarks 31-http-profile   (PMEMZC_FLAVOUR=bench)
TEST_TIMEOUT=1800

test_run() {
	local perf lib
	perf=$(command -v perf) || { echo "no perf on the host (apt-get install linux-perf)"; return 77; }
	mkdir -p "$T/perf/lib"
	cp "$perf" "$T/perf/"
	for lib in $(ldd "$perf" | awk '/=> \//{print $3} /^\t\/[^ ]*ld-linux/{print $1}'); do
		cp -L "$lib" "$T/perf/lib/"
	done
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
wrk_requests 8
JOB
	cat > "$T/A.job" <<JOB
ONLY_SERVERS="${HTTP_SERVERS:-}"
FILES="${HTTP_FILES:-s4k s f1M}"
JOB
	cat >> "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
PERF="/work/perf/lib/ld-linux-x86-64.so.2 --library-path /work/perf/lib /work/perf/perf"
load_zc map=256M@4G,256M@0x110000000 pages=devmap || fail "load"
mkdir -p /mnt/dax /mnt/pc
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount -o dax /dev/pmem0 /mnt/dax || fail "ext4 dax"
mkfs.ext4 -q -F -b 4096 /dev/pmem1 && mount /dev/pmem1 /mnt/pc || fail "ext4"
http_files /mnt/dax /mnt/pc || fail "test files"
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
# snmp GROUP FIELD: a counter of /proc/net/snmp (Ip OutRequests: skbs
# handed to IP, a GSO skb once, pure ACKs included; Tcp OutSegs: segments)
snmp() { awk -v k="$1:" -v f="$2" '$1 == k { if (!h) { for (i = 2; i <= NF; i++) c[$i] = i; h = 1 } else print $c[f] }' /proc/net/snmp; }
ZS=/sys/class/misc/pmem_zc/stats
n=1
SERVERS="pmemzc nginx-pc"
[ -e $HTTP_SCTL ] && SERVERS="pmemzc nginx-dax nginx-pc"
[ -n "$ONLY_SERVERS" ] && SERVERS=$ONLY_SERVERS
for srv in $SERVERS; do
	cat /mnt/pc/f1M /mnt/pc/s/* /mnt/pc/s4k/* > /dev/null
	case $srv in
	pmemzc|nginx-pc) ;;
	nginx-dax|pmemzc-splice) [ -e $HTTP_SCTL ] || fail "$srv needs $HTTP_SCTL" ;;
	*) fail "no server $srv here (pmemzc, nginx-pc, nginx-dax, pmemzc-splice)" ;;
	esac
	http_server_start $srv || fail "$srv did not start"
	for files in $FILES; do
		o0=$(snmp Ip OutRequests) g0=$(snmp Tcp OutSegs) z0=$(cat $ZS/sends)
		b0=$(cpu_busy)
		echo "/$files 16" > /work/req.$n
		$PERF record -a -g -e cpu-clock -F 499 -o /tmp/perf.data -- sleep 7 > /dev/null 2>&1 ||
			fail "perf record"
		wait_work done.$n 120 || fail "wrk $n never ended"
		b1=$(cpu_busy)
		o1=$(snmp Ip OutRequests) g1=$(snmp Tcp OutSegs) z1=$(cat $ZS/sends)
		req=$(awk '/ requests in / {print $1}' /work/wrk.$n)
		out=/work/prof-$srv-$files.txt
		echo "# $srv $files: $(grep -E 'Requests/sec|Transfer/sec' /work/wrk.$n | tr -s ' ' | tr '\n' ' ')busy_jiffies=$((b1 - b0)) requests=$req $(awk -v o=$((o1 - o0)) -v g=$((g1 - g0)) -v z=$((z1 - z0)) -v r=${req:-0} 'BEGIN { if (r > 0) printf "skbs_per_request=%.2f segments_per_request=%.2f module_sends_per_request=%.2f", o / r, g / r, z / r }')" > $out
		$PERF report -i /tmp/perf.data --no-children --sort sym --stdio -g none 2>/dev/null | grep '%' | head -60 >> $out
		$PERF report -i /tmp/perf.data --no-children --sort comm,dso --stdio -g none 2>/dev/null | grep '%' | head -15 >> $out
		echo "# inclusive (children)" >> $out
		$PERF report -i /tmp/perf.data --children --sort sym --stdio -g none 2>/dev/null | grep '%' | head -80 >> $out
		head -1 $out
		n=$((n + 1))
	done
	http_server_stop $srv
done
echo end > /work/req.$n
umount /mnt/dax /mnt/pc && rmmod pmem_zc && rmmod prd || fail "teardown"
JOB
	vm_run2 "$T" 1700 600 || return 1
	rm -rf "$T/perf"
	ls "$T"/prof-*.txt
}
