# Helpers for job scripts running inside a guest (busybox sh).
# Jobs source it as: . /top/vm/guest/lib.sh

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
