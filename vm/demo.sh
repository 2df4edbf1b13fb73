#!/usr/bin/env bash
# make demo: the real job, between guest A (pmem host) and guest B (peer).
#  1. A file on an ext4 -o dax filesystem on prd (pages=devmap) in guest A
#     is served over HTTP/1.1 by `pmem-zc serve` and fetched with curl by
#     guest B: the file's pmem pages go to the network stack by reference,
#     no CPU copy.
#  2. A pmem range of guest A is copied by `pmem-zc copy` to guest B's disk,
#     attached with nbd-client: bios whose pages are the pmem pages.
# Both are checked by sha256 on both sides; vm/demo-verdict.sh prints the
# summaries and decides the exit status (its last line says why).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
vm_enter_netns "$0" "$@"
vm_net_init

# PMEMZC_DEMO_DIR=DIR puts the results there (the test of make demo does)
if [ -n "${PMEMZC_DEMO_DIR:-}" ]; then
	T=$PMEMZC_DEMO_DIR
	mkdir -p "$T"
else
	T=$PMEMZC_TOP/results/demo-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$T"
	ln -sfn "$(basename "$T")" "$PMEMZC_TOP/results/latest-demo"
fi
# the NVDIMM and disk images are scratch (PMEMZC_KEEP_IMAGES=1 keeps them)
[ "${PMEMZC_KEEP_IMAGES:-0}" = 1 ] || trap 'rm -f "$T"/*.img' EXIT
MIB=64

cat > "$T/B.job" <<JOB
. /top/vm/guest/lib.sh
nbd_serve /dev/vda || fail "nbd-server"
touch /work/B.ready
wait_work A.serving 300 || fail "A not serving"
curl -sS -f -w 'curl: bytes=%{size_download} seconds=%{time_total} Bps=%{speed_download}\n' -o /tmp/demo.bin http://\$PEER_A:5002/demo.bin > /work/B.fetch 2>&1 || fail "curl: \$(cat /work/B.fetch)"
echo "\$(stat -c %s /tmp/demo.bin) \$(sha256sum < /tmp/demo.bin | cut -d' ' -f1)" > /work/B.file
wait_work A.copied 300 || fail "A never copied"
echo 3 > /proc/sys/vm/drop_caches
echo "\$(( $MIB << 20 )) \$(get /dev/vda 0 \$(( $MIB << 20 )))" > /work/B.range
JOB
cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
load_zc map=256M@4G,256M@0x110000000 pages=devmap || fail "load"
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mkdir -p /mnt && mount -o dax /dev/pmem0 /mnt || fail "ext4 -o dax on pmem0"
randfill \$(( $MIB << 20 )) > /mnt/demo.bin && sync || fail "write demo.bin"
echo "\$(stat -c %s /mnt/demo.bin) \$(sha256sum < /mnt/demo.bin | cut -d' ' -f1)" > /work/A.file
R=\$(put /dev/pmem1 0 \$(( $MIB << 20 ))) || fail "fill pmem1"
echo "\$(( $MIB << 20 )) \$R" > /work/A.range

\$ZC serve --root /mnt --port 5002 --count 1 --access-log /work/A.access > /work/A.serve 2>&1 & srv=\$!
wait_for 10 listening 5002 || fail "serve not listening"
touch /work/A.serving
wait \$srv || fail "serve: \$(cat /work/A.serve)"

wait_work B.ready 120 || fail "B not ready"
nbd_attach \$PEER_B || fail "nbd-client"
\$ZC copy /dev/pmem1 --length ${MIB}M --to /dev/nbd0 --flush > /work/A.copy 2>&1 || fail "copy: \$(cat /work/A.copy)"
nbd-client -d /dev/nbd0 > /dev/null
touch /work/A.copied
\$ZC stats > /work/A.stats
umount /mnt && rmmod pmem_zc && rmmod prd || fail "teardown"
JOB

say "booting guest B (peer) and guest A (pmem host), link: $PMEMZC_NET, logs: $T"
echo "$PMEMZC_NET" > "$T/link"
# a failed job is reported by the verdict, from the job's status file
vm_run2 "$T" 600 || true
rc=0
"$PMEMZC_TOP/vm/demo-verdict.sh" "$T" || rc=$?
exit $rc
