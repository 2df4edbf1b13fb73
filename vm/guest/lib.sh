# Helpers for job scripts running inside a guest (busybox sh).
# Jobs source it as: . /top/vm/guest/lib.sh

# busybox sh runs its own applets before $PATH: tools whose busybox
# version differs are called by path
INSMOD=/usr/sbin/insmod
# the project's modules and CLI, from the repository shared at /top
PRD_KO=/top/pmem-driver/prd.ko
ZC_KO=/top/pmem-zc-demo/module/pmem_zc.ko
ZC=/top/pmem-zc-demo/cli/pmem-zc
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

# the file /work/NAME appears (made by the other guest or the host)
wait_work() { wait_for "$2" test -e "/work/$1"; }

fail() { echo "FAIL: $*"; exit 1; }

# Data checks on block devices (byte offsets, O_DIRECT). coreutils dd by
# path: busybox sh runs its own applets before $PATH, and its dd has no dsync.
# put DEV OFF LEN [FLAGS]: write LEN random bytes at OFF, echo their SHA
#   and, when $MANIFEST is set, append "DEV OFF LEN SHA" to it
put() {
	head -c "$3" /dev/urandom > /tmp/put.$$ || return 1
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
