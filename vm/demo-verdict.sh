#!/usr/bin/env bash
# The verdict of `make demo` over its results folder: what the guests
# reported, compared and checked on the host. vm/demo.sh runs it after the
# guests; the tests run it over canned folders.
#
#   vm/demo-verdict.sh DIR
#
# DIR holds what the demo's guests wrote: A.file/B.file and A.range/B.range
# ("BYTES SHA256" of the served file and of the copied range on each side),
# A.serve and A.copy (the CLI's output with its summary line), B.fetch
# (curl's line), A.access (the access log), A.stats (pmem-zc stats), the
# guests' serial and dmesg logs, A.job.rc/B.job.rc (each job's exit
# status, written by the guest's init) and link (tap|socket). It prints both
# comparisons (intact or MISMATCH), the summaries, the access log line and
# the counters, then one last line: "demo: done, ..." with exit status 0
# when both jobs ended with 0, both transfers are intact, went by reference (the send over a tap
# link; over the socket link the stack copies and the send is not held to
# it), no operation failed (every err_* counter 0) and no guest log shows a
# kernel splat; otherwise "demo: FAILED: REASON; REASON..." and status 1.
set -uo pipefail
. "$(dirname "$0")/common.sh"

T=${1:?results folder}
[ -d "$T" ] || die "no folder $T"
why=()
link=$(cat "$T/link" 2>/dev/null) || link=unknown

# field NAME FILE: the value of NAME=VALUE in FILE's summary line
field() {
	grep -a 'summary:' "$T/$2" 2>/dev/null | tail -n 1 |
		sed -n "s/.* $1=\([^ ]*\).*/\1/p"
}

# compare LABEL A-FILE B-FILE: "BYTES SHA256" on both sides
compare() {
	local ab= asum= bb= bsum=
	[ -s "$T/$2" ] && read -r ab asum < "$T/$2"
	[ -s "$T/$3" ] && read -r bb bsum < "$T/$3"
	printf '  guest A: %s bytes sha256 %s\n  guest B: %s bytes sha256 %s\n' \
		"${ab:-?}" "${asum:-?}" "${bb:-?}" "${bsum:-?}"
	if [ -z "$ab" ] || [ -z "$bb" ]; then
		echo "  result: MISSING"
		why+=("$1: no result from guest $([ -z "$ab" ] && echo A || echo B)")
	elif [ "$ab/$asum" = "$bb/$bsum" ]; then
		echo "  result: intact"
	else
		echo "  result: MISMATCH"
		why+=("$1: guest B's bytes differ from guest A's")
	fi
}

# by_ref LABEL FILE WANT: FILE's summary moved WANT bytes, all by reference
by_ref() {
	local bytes ref copied
	bytes=$(field bytes "$2") ref=$(field by_ref "$2") copied=$(field copied "$2")
	if [ -z "$bytes" ]; then
		why+=("$1: no summary line")
	elif [ "$bytes" != "$3" ]; then
		why+=("$1: $bytes bytes, expected $3")
	elif [ "$ref" != "$3" ] || [ "$copied" != 0 ]; then
		why+=("$1: by_ref=$ref copied=$copied, expected all $3 bytes by reference")
	fi
}

for r in A B; do
	rc=$(cat "$T/$r.job.rc" 2>/dev/null) || rc=
	if [ -z "$rc" ]; then
		why+=("guest $r's job did not finish")
	elif [ "$rc" != 0 ]; then
		why+=("guest $r's job exit $rc: $(grep -a '^FAIL' "$T/$r.serial.log" 2>/dev/null | tail -n 1 | tr -d '\r')")
	fi
done

mib=$(( $(cut -d' ' -f1 "$T/A.file" 2>/dev/null || echo 0) >> 20 ))
echo
echo "1. /mnt/demo.bin ($mib MiB, ext4 -o dax on prd pages=devmap) served by guest A over HTTP, fetched by curl on guest B:"
compare "the served file" A.file B.file
sed 's/^/  access log on A: /' "$T/A.access" 2>/dev/null
grep -a 'summary:' "$T/A.serve" 2>/dev/null | sed 's/^pmem-zc serve: /  serve on A: /'
grep -a '^curl:' "$T/B.fetch" 2>/dev/null | sed 's/^/  on B: /'
size=$(cut -d' ' -f1 "$T/A.file" 2>/dev/null)
if [ "$link" = tap ]; then
	by_ref "the HTTP send" A.serve "${size:-?}"
else
	echo "  ($link link: no scatter-gather, the stack copies what is sent)"
	[ -n "$(field bytes A.serve)" ] || why+=("the HTTP send: no summary line")
fi

range=$(cut -d' ' -f1 "$T/A.range" 2>/dev/null)
echo "2. pmem1[0, $(( ${range:-0} >> 20 )) MiB) of guest A copied to guest B's disk over NBD (nbd-client /dev/nbd0):"
compare "the copied range" A.range B.range
grep -a '^summary:' "$T/A.copy" 2>/dev/null | sed 's/^/  copy on A: /'
by_ref "the copy" A.copy "${range:-?}"

echo "pmem_zc counters on A:"
if [ -s "$T/A.stats" ]; then
	sed 's/^/  /' "$T/A.stats"
	errs=$(awk '$1 ~ /^err_/ && $2 != 0 { printf "%s%s=%s", n++ ? " " : "", $1, $2 }' "$T/A.stats")
	[ -z "$errs" ] || why+=("operations failed: $errs")
else
	why+=("no counters from guest A")
fi

splats=$(splat_lines "$T")
if [ -n "$splats" ]; then
	echo "$splats"
	why+=("kernel splat in the guests' logs ($(echo "$splats" | wc -l) lines, above)")
fi

if [ ${#why[@]} -gt 0 ]; then
	msg=$(printf '%s; ' "${why[@]}")
	echo "demo: FAILED: ${msg%; }"
	exit 1
fi
how="by reference"
[ "$link" = tap ] || how="the copy by reference, the send copied by the stack ($link link)"
echo "demo: done, both transfers intact, $how, no error counted, no kernel splat in the guests' logs ($(basename "$T"))"
