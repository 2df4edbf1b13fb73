# Helpers for job scripts running inside a guest (busybox sh).
# Jobs source it as: . /top/vm/guest/lib.sh

# busybox sh runs its own applets before $PATH: tools whose busybox
# version differs are called by path
INSMOD=/usr/sbin/insmod
# the project's modules and CLI, from the repository shared at /top
PRD_KO=/top/pmem-driver/prd.ko
ZC_KO=/top/pmem-zc-demo/module/pmem_zc.ko
ZC=/top/pmem-zc-demo/cli/pmem-zc
# randfill BYTES > FILE: pseudo-random test data in 1 MiB writes
# (net-tests/tools/randfill.c; /dev/urandom through head -c takes minutes
# per 100 MiB on a DAX file here), run from a copy in /tmp: an exec over
# 9p reads the whole binary again, 0.3 s a call
randfill() {
	if [ ! -x /tmp/randfill ]; then
		rf_tmp=$(mktemp /tmp/randfill.XXXXXX) &&
			cp /top/net-tests/tools/bin/randfill "$rf_tmp" && chmod 0755 "$rf_tmp" &&
			mv -f "$rf_tmp" /tmp/randfill || { rm -f "$rf_tmp"; return 1; }
	fi
	/tmp/randfill "$@"
}
PEER_A=169.254.77.1
PEER_B=169.254.77.2

# wait_for SECS CMD...: retry CMD every 0.2 s until it succeeds or SECS pass
wait_for() {
	secs=$1; shift
	end=$(( $(date +%s) + secs ))
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$end" ] && { echo "timeout (${secs}s): $*"; return 1; }
		sleep 0.2
	done
}

# wait_value SECS FILE WANT: FILE reads WANT (one line, e.g. a counter of
# sysfs) within SECS, re-read every 0.2 s. Never wait_for SECS test
# "$(cat FILE)" = WANT: the shell expands that once, before wait_for runs,
# and every retry compares the same stale string.
wait_value() {
	wv_end=$(( $(date +%s) + $1 ))
	until [ "$(cat "$2" 2>/dev/null)" = "$3" ]; do
		[ "$(date +%s)" -ge "$wv_end" ] &&
			{ echo "timeout (${1}s): $2 reads '$(cat "$2" 2>/dev/null)', not '$3'"; return 1; }
		sleep 0.2
	done
}

# the file /work/NAME appears (made by the other guest or the host)
wait_work() { wait_for "$2" test -e "/work/$1"; }

fail() { echo "FAIL: $*"; exit 1; }

# Data checks on block devices (byte offsets, O_DIRECT). coreutils dd by
# path: busybox sh runs its own applets before $PATH, and its dd has no dsync.
# put DEV OFF LEN [FLAGS]: write LEN random bytes at OFF, echo their SHA
#   and, when $MANIFEST is set, append "DEV OFF LEN SHA" to it
put() {
	randfill "$3" > /tmp/put.$$ || return 1
	/usr/bin/dd if=/tmp/put.$$ of="$1" bs="$3" count=1 oflag=seek_bytes,direct${4:+,$4} seek="$2" \
		conv=notrunc status=none || { rm -f /tmp/put.$$; return 1; }
	s=$(sha256sum < /tmp/put.$$ | cut -d' ' -f1)
	rm -f /tmp/put.$$
	[ -z "$MANIFEST" ] || echo "$1 $2 $3 $s" >> "$MANIFEST"
	echo "$s"
}
# get DEV OFF LEN [FLAGS]: echo the SHA of LEN bytes at OFF
get() {
	/usr/bin/dd if="$1" bs=1M iflag=skip_bytes,count_bytes${4:+,$4} skip="$2" count="$3" \
		status=none | sha256sum | cut -d' ' -f1
}
# put then get back with O_DIRECT, and once more through the page cache
putget() {
	w=$(put "$@") || fail "write $*"
	[ "$(get "$1" "$2" "$3" direct)" = "$w" ] || fail "read back (direct) $*"
	echo 3 > /proc/sys/vm/drop_caches
	[ "$(get "$1" "$2" "$3")" = "$w" ] || fail "read back (buffered) $*"
}

# listening PORT: a local TCP socket (IPv4, or IPv6 dual stack) listens on PORT
listening() {
	grep -qiE ":$(printf %04X "$1") 0+:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# now_us: microseconds since boot, 10 ms resolution (busybox date has no %N)
now_us() { awk '{ printf "%d\n", $1 * 1000000 }' /proc/uptime; }

# load_zc PRD-PARAMS...: prd.ko with these parameters, then pmem_zc.ko
load_zc() {
	$INSMOD $PRD_KO "$@" || { echo "insmod prd $*: failed"; return 1; }
	$INSMOD $ZC_KO || { rmmod prd; echo "insmod pmem_zc: failed"; return 1; }
}

# nbd_serve DEV: export DEV as "disk" with nbd-server, listening on 10809
nbd_serve() {
	printf '[generic]\n[disk]\nexportname = %s\n' "$1" > /tmp/nbd.conf
	nbd-server -C /tmp/nbd.conf && wait_for 10 listening 10809
}

# nbd_attach HOST: HOST's export as /dev/nbd0, requests time out after 20 s
nbd_attach() {
	nbd-client -N disk "$1" /dev/nbd0 -t 20 > /dev/null
}

# --- nginx (Debian's, in every initramfs) ----------------------------------
# nginx_conf ROOT: /tmp/nginx/nginx.conf, one worker serving ROOT on port
# 8080 with sendfile on (the yardstick of make bench, and the unchanged
# user of the DAX splice series in 70); nginx_start starts it and waits
# until it listens, nginx_stop stops it and waits (10 s at most) until no
# nginx process is left
NGINX="nginx -c /tmp/nginx/nginx.conf -p /tmp/nginx/"
nginx_conf() {
	mkdir -p /tmp/nginx
	cat > /tmp/nginx/nginx.conf <<CONF
user root;
worker_processes 1;
pid /tmp/nginx/pid;
error_log /tmp/nginx/error.log;
events { worker_connections 1024; }
http {
	types { }
	default_type application/octet-stream;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 100000;
	access_log off;
	client_body_temp_path /tmp/nginx/body;
	proxy_temp_path /tmp/nginx/proxy;
	fastcgi_temp_path /tmp/nginx/fastcgi;
	uwsgi_temp_path /tmp/nginx/uwsgi;
	scgi_temp_path /tmp/nginx/scgi;
	server { listen 8080; root $1; }
}
CONF
}
nginx_start() { $NGINX && wait_for 10 listening 8080; }
nginx_stop() { $NGINX -s stop; wait_for 10 sh -c '! pidof nginx'; }

# http_server_start SRV: one of the HTTP benchmarks' servers (30-http,
# 31-http-profile) on port 8080, started and listening: pmemzc (pmem-zc
# serve on /mnt/dax, its open-file cache, no access log, bodies by the
# module: its banner must say "bodies zero-copy"; its pid in
# HTTP_SERVE_PID, its output in /tmp/serve.out), pmemzc-splice (the same
# with fs.dax_splice_read 1, a kernel with the DAX splice series: its
# --body auto must say it sends by sendfile(2), by reference, without the
# module), nginx-dax (nginx on /mnt/dax; fs.dax_splice_read 1 where the
# kernel has the series), nginx-daxcopy (the same with it 0), nginx-pc
# (nginx on /mnt/pc). Otherwise it says why, stops what it started (and
# sets fs.dax_splice_read back to 0) and returns 1.
# http_server_stop SRV: stops it (pmem-zc serve by SIGTERM, waited for)
# and sets fs.dax_splice_read back to 0.
HTTP_SCTL=/proc/sys/fs/dax_splice_read
http_server_start() {
	local why=
	case $1 in
	pmemzc|pmemzc-splice)
		if [ $1 = pmemzc-splice ]; then
			[ -e $HTTP_SCTL ] || { echo "$1: no $HTTP_SCTL (no DAX splice series)"; return 1; }
			echo 1 > $HTTP_SCTL
		fi
		$ZC serve --root /mnt/dax --port 8080 --access-log off > /tmp/serve.out 2>&1 &
		HTTP_SERVE_PID=$!
		# its banner comes after listen(): wait for the banner
		if ! wait_for 10 grep -q ' bodies ' /tmp/serve.out; then
			why="no banner: $(cat /tmp/serve.out)"
		elif [ $1 = pmemzc ] && ! grep -q 'bodies zero-copy' /tmp/serve.out; then
			why="bodies not by the module: $(cat /tmp/serve.out)"
		elif [ $1 = pmemzc-splice ] && ! grep -q 'bodies by sendfile(2)' /tmp/serve.out; then
			why="bodies not by sendfile(2): $(cat /tmp/serve.out)"
		fi ;;
	nginx-dax|nginx-daxcopy|nginx-pc)
		if [ -e $HTTP_SCTL ] && [ $1 != nginx-pc ]; then
			if [ $1 = nginx-dax ]; then echo 1; else echo 0; fi > $HTTP_SCTL
		fi
		if [ $1 = nginx-pc ]; then nginx_conf /mnt/pc; else nginx_conf /mnt/dax; fi
		$NGINX || why="nginx did not start: $(tail -2 /tmp/nginx/error.log 2>/dev/null)" ;;
	*) echo "no HTTP server $1 (pmemzc, pmemzc-splice, nginx-dax, nginx-daxcopy, nginx-pc)"; return 1 ;;
	esac
	[ -n "$why" ] || wait_for 10 listening 8080 || why="not listening on 8080 in 10 s"
	[ -z "$why" ] && return 0
	echo "$1: $why"
	http_server_stop $1 > /dev/null 2>&1
	return 1
}
http_server_stop() {
	case $1 in
	pmemzc*) kill -TERM $HTTP_SERVE_PID; wait $HTTP_SERVE_PID ;;
	*) nginx_stop ;;
	esac
	if [ -e $HTTP_SCTL ]; then echo 0 > $HTTP_SCTL; fi
}

# --- benchmarks -----------------------------------------------------------
# cpu_busy: busy jiffies (USER_HZ, 100/s) of all CPUs: user, nice, system,
# irq, softirq; what a sender costs the machine, kernel threads included
cpu_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# http_files DIR...: the HTTP benchmarks' files in each DIR (30-http,
# 31-http-profile): f1M, f64M, 1000 files of 64 KiB in s/, 1000 of 4 KiB
# in s4k/ (named 1..1000)
http_files() {
	local r i
	for r in "$@"; do
		head -c $((1 << 20)) /dev/urandom > $r/f1M || return 1
		head -c $((64 << 20)) /dev/urandom > $r/f64M || return 1
		mkdir -p $r/s $r/s4k
		for i in $(seq 1000); do head -c 65536 /dev/urandom > $r/s/$i; done
		for i in $(seq 1000); do head -c 4096 /dev/urandom > $r/s4k/$i; done
	done
	sync
}

# wrk_requests SECS: guest B's side of the HTTP benchmarks. Runs each
# request guest A writes as /work/req.N ("PATH CONNS", or "end") with wrk
# for SECS seconds against A's port 8080 (/s and /s4k walk their 1000
# files), keeps wrk's output as /work/wrk.N, then touches /work/done.N.
# (not "secs": wait_for() sets that one)
wrk_requests() {
	local dur=$1 d n=1 path conns script
	for d in s s4k; do
		cat > /tmp/$d.lua <<LUA
n = 0
request = function()
	n = n + 1
	return wrk.format(nil, "/$d/" .. (n % 1000 + 1))
end
LUA
	done
	while :; do
		wait_work req.$n 900 || fail "no request $n from A"
		read -r path conns < /work/req.$n
		[ "$path" = end ] && break
		script=; case $path in /s|/s4k) script="-s /tmp$path.lua" ;; esac
		wrk -t1 -c$conns -d${dur}s $script http://$PEER_A:8080$path > /tmp/wrk 2>&1 ||
			{ cat /tmp/wrk; fail "wrk $path"; }
		cp /tmp/wrk /work/wrk.$n
		touch /work/done.$n
		n=$((n + 1))
	done
}
# raw ROW METRIC REP VALUE: one measured figure, for net-tests/bench/aggregate
raw() { echo "$*" >> /work/raw.txt; }
# measure ROW REP BYTES CMD...: run CMD (it moves BYTES), record MB/s (10^6
# bytes per second of wall time), the machine's CPU seconds per GiB and,
# when CMD reports its own (cpu_seconds=S or "cpu_seconds S"), the
# process's; fails with CMD's output when CMD fails
measure() {
	m_row=$1 m_rep=$2 m_bytes=$3
	shift 3
	m_c0=$(cpu_busy); m_t0=$(now_us)
	"$@" > /tmp/measure.out 2>&1 || { cat /tmp/measure.out; fail "$m_row: $*"; }
	m_t1=$(now_us); m_c1=$(cpu_busy)
	raw "$m_row" MBps "$m_rep" "$(awk -v b="$m_bytes" -v u=$((m_t1 - m_t0)) 'BEGIN { printf "%.2f", b / u }')"
	raw "$m_row" cpu_s_per_GiB "$m_rep" "$(awk -v j=$((m_c1 - m_c0)) -v b="$m_bytes" 'BEGIN { printf "%.3f", j / 100 / (b / 1073741824) }')"
	m_p=$(sed -n 's/.*cpu_seconds[= ]\([0-9.]*\).*/\1/p' /tmp/measure.out | tail -1)
	[ -z "$m_p" ] || raw "$m_row" proc_cpu_s_per_GiB "$m_rep" "$(awk -v s="$m_p" -v b="$m_bytes" 'BEGIN { printf "%.3f", s / (b / 1073741824) }')"
}

# --- parts: a job's checks, each reported, none stopping the job ----------
# Where the parts go and the marker of a failed one (the host test points
# them elsewhere); init fails a job that ends 0 with the marker present.
PMEMZC_WORK=${PMEMZC_WORK:-/work}
PMEMZC_CHECK_MARK=${PMEMZC_CHECK_MARK:-/tmp/pmemzc-check-failed}
# check_line LINE: print LINE and append it to $PMEMZC_WORK/$PMEMZC_ROLE.parts (vm_wait shows that file)
check_line() {
	printf '%s\n' "$1"
	[ -z "${PMEMZC_ROLE:-}" ] || printf '%s\n' "$1" >> "$PMEMZC_WORK/$PMEMZC_ROLE.parts"
}
# check DESC CMD...: run CMD (in a subshell: a fail ends only CMD), report "ok - DESC" or else "not ok - DESC", 3 lines of its output as "# " lines and the marker; returns CMD's status
check() {
	ck_desc=$1; shift
	ck_out=$(mktemp) || ck_out=/tmp/check.$$
	( "$@" ) > "$ck_out" 2>&1
	ck_rc=$?
	if [ $ck_rc -eq 0 ]; then
		check_line "ok - $ck_desc"
	else
		: > "$PMEMZC_CHECK_MARK"
		check_line "not ok - $ck_desc"
		head -n 3 "$ck_out" | while IFS= read -r ck_l || [ -n "$ck_l" ]; do check_line "# $ck_l"; done
	fi
	rm -f "$ck_out"
	return $ck_rc
}
# check_skip DESC WHY: report "ok - DESC # SKIP WHY"
check_skip() { check_line "ok - $1 # SKIP $2"; }
# sparse_refused ARGS...: prd built without the mm exports pages=sparse
# needs (a kernel without mm-export-patch/, as Debian's own) refuses it:
# the load fails with EOPNOTSUPP and says so in one line, offering the
# other modes; nothing of prd is left loaded
sparse_refused() {
	dmesg -c > /dev/null
	if $INSMOD $PRD_KO "$@" pages=sparse 2> /tmp/sparse.err; then
		rmmod prd
		echo "pages=sparse loaded on a kernel without the exports"
		return 1
	fi
	grep -q 'Operation not supported' /tmp/sparse.err ||
		{ echo "insmod: $(cat /tmp/sparse.err), expected EOPNOTSUPP"; return 1; }
	dmesg | grep -q 'prd: pages=sparse: this kernel lacks the mm exports it needs (mm-export-patch/); pages=devmap or pages=none work here' ||
		{ echo "no one-line refusal in the log: $(dmesg | tail -n 3)"; return 1; }
	! grep -q '^prd ' /proc/modules || { echo "prd left loaded"; return 1; }
}
