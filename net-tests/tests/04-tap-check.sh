# Host only: tap_check, which the tests use to count the cases of a TAP
# stream (unit tests, bad-parameter and bad-input lists), accepts a whole
# stream and rejects a short, failed, misnumbered, unplanned or wrongly
# sized one, and a subtest (the runner's parts of a test) that is
# misnumbered, unplanned, planned twice or failed under an "ok" test;
# tap_parts turns a test's log into that subtest; vm_parts shows a guest's
# parts once; the guest's check and check_skip (vm/guest/lib.sh), run by a
# real busybox sh, report every part and fail the job only through the
# marker.
TEST_TIMEOUT=60

test_run() {
	local bad=0 f=$T/s.tap n=0 nbad=0 why out want rc bb d
	# expect OK|BAD N TEXT [ERE]: tap_check of TEXT with count N says OK or
	# BAD, and with ERE says why in a line matching it
	expect() {
		printf %b "$3" > "$f"
		if why=$(tap_check "$f" "$2"); then got=OK; else got=BAD; fi
		n=$((n + 1))
		[ "$1" = OK ] || nbad=$((nbad + 1))
		if [ "$got" != "$1" ]; then
			echo "not ok - tap_check said $got of: $(printf %b "$3" | tr '\n' '|')"
			bad=1
		elif [ -n "${4:-}" ] && ! grep -qE -- "$4" <<< "$why"; then
			echo "not ok - tap_check did not say '$4' of: $(printf %b "$3" | tr '\n' '|')"
			echo "# it said: $(tr '\n' '|' <<< "$why")"
			bad=1
		fi
	}
	# show WHAT: stdin as "# WHAT: " lines
	show() { sed "s/^/# $1: /"; }
	# 1. top level
	expect OK  3 '1..3\nok 1 - a\nok 2 - b\n# note\nok 3 - c\n'
	expect OK  '' 'ok 1 - a\nok 2 - b\n1..2\n'
	expect BAD 3 '1..3\nok 1 - a\nok 2 - b\n'
	expect BAD '' '1..3\nok 1 - a\nok 2 - b\n'
	expect BAD '' 'ok 1 - a\nok 2 - b\n'
	expect BAD '' '1..2\nok 1 - a\nnot ok 2 - b\n'
	expect BAD '' '1..2\nok 1 - a\nok 3 - b\n'
	expect BAD '' '1..2\nok 1 - a\nok 2 - b\n1..2\n'
	expect BAD 39 '1..2\nok 1 - a\nok 2 - b\n'
	expect BAD '' ''
	[ $bad = 0 ] && echo "ok - tap_check: top-level streams"
	local bad0=$bad
	# 2. subtests, 4 spaces in, before their test line
	expect OK  2 '1..2\n    # Subtest: a\n    1..3\n    ok 1 - x\n    # fig\n    ok 2 - y # SKIP z\n    ok 3 - w\nok 1 - a\n  # note\nok 2 - b\n'
	expect OK  '' '1..1\n    # Subtest: a\n    1..1\n    ok 1 - x\nok 1 - a (3s) # SKIP why\n'
	expect BAD '' '1..1\n    1..2\n    ok 1 - x\n    ok 3 - y\nok 1 - a\n' '^test 1: part 2 is numbered 3$'
	expect BAD '' '1..1\n    1..1\n    ok - x\nok 1 - a\n' '^test 1: part 1 is numbered -$'
	expect BAD '' '1..1\n    # Subtest: a\n    ok 1 - x\nok 1 - a\n' '^test 1: 0 subtest plan lines, expected one$'
	expect BAD '' '1..1\n    1..1\n    ok 1 - x\n    1..1\nok 1 - a\n' '^test 1: 2 subtest plan lines, expected one$'
	expect BAD '' '1..1\n    1..3\n    ok 1 - x\n    ok 2 - y\nok 1 - a\n' '^test 1: subtest plan 1..3 but 2 part lines$'
	expect BAD '' '1..2\nok 1 - a\n    1..2\n    ok 1 - x\n    not ok 2 - y\nok 2 - b\n' '^test 2: failed: not ok 2 - y$'
	expect BAD '' '1..1\nok 1 - a\n    1..1\n    ok 1 - x\n' '^a subtest without its test line$'
	# a failed part under a failed test: the test is the failure
	expect BAD '' '1..1\n    1..1\n    not ok 1 - x\nnot ok 1 - a\n' '^failed: not ok 1 - a$'
	[ $bad = "$bad0" ] && echo "ok - tap_check: subtests (plan, numbering, a failed part under ok)"
	echo "# tap_check judged $n streams, $nbad of them bad"

	# 3. tap_parts: a test log's parts as a subtest, renumbered, figures in
	#    place, other lines left out; none without a part
	printf 'started\nok - a\n# fig\n  ok indented\nnot ok - b\nokay\nok 9 - c # SKIP why\nnot ok 3 - d\n' > "$T/p.log"
	want='    # Subtest: 99-x
    1..4
    ok 1 - a
    # fig
    not ok 2 - b
    ok 3 - c # SKIP why
    not ok 4 - d'
	out=$(tap_parts "$T/p.log" 99-x)
	if [ "$out" = "$want" ]; then
		echo "ok - tap_parts: renumbered subtest with figures in place"
	else
		echo "not ok - tap_parts: renumbered subtest with figures in place"
		show got <<< "$out"; bad=1
	fi
	printf 'started\n# fig only\n' > "$T/p.log"
	out=$(tap_parts "$T/p.log" x)
	if [ -z "$out" ]; then
		echo "ok - tap_parts: no subtest for a log without parts"
	else
		echo "not ok - tap_parts: no subtest for a log without parts"; bad=1
	fi
	# what the runner prints for a passing test passes tap_check
	printf 'ok - a\n# fig\nok 4 - b # SKIP why\n' > "$T/p.log"
	{ echo "1..1"; tap_parts "$T/p.log" x; echo "ok 1 - x (1s)"; } > "$f"
	if why=$(tap_check "$f"); then
		echo "ok - tap_parts then its test line pass tap_check"
	else
		echo "not ok - tap_parts then its test line pass tap_check"; echo "# $why"; bad=1
	fi

	# 4. vm_parts: a guest's parts with its role, each line once, other
	#    lines of the file left out
	d=$T/parts
	mkdir -p "$d"
	printf 'ok - a\nnot ok - b\n# why b\n7\nok 3 - c # SKIP s\n' > "$d/A.parts"
	out=$(vm_parts A "$d")
	printf 'ok - d\n' >> "$d/A.parts"
	out="$out|$(vm_parts A "$d")|$(vm_parts A "$d")|$(vm_parts B "$d")"
	want='ok - A: a
not ok - A: b
# why b
ok - A: c # SKIP s|ok - A: d||'
	if [ "$out" = "$want" ]; then
		echo "ok - vm_parts: role in each part, each line shown once"
	else
		echo "not ok - vm_parts: role in each part, each line shown once"
		show got <<< "$out"; bad=1
	fi

	# 5. check and check_skip under busybox sh, as in a guest
	bb=$(setsid -w timeout 40 "$PMEMZC_TOP/vm/get-deb-file.sh" busybox-static /bin/busybox 2>/dev/null < /dev/null)
	if [ -z "$bb" ] || ! "$bb" true 2>/dev/null; then
		echo "ok - guest check helpers under busybox sh # SKIP no busybox-static (vm/get-deb-file.sh failed)"
		return $bad
	fi
	d=$T/work
	mkdir -p "$d"
	# passing parts only: no marker
	out=$(cd "$PMEMZC_TOP" && PMEMZC_ROLE=A PMEMZC_WORK=$d PMEMZC_CHECK_MARK=$d/mark "$bb" sh -c '
		. vm/guest/lib.sh
		check "u" true; echo "rc $?"
		check_skip "s" "no disk"; echo "rc $?"' 2>&1)
	want='ok - u
rc 0
ok - s # SKIP no disk
rc 0'
	if [ "$out" = "$want" ] && [ ! -e "$d/mark" ] &&
	   [ "$(cat "$d/A.parts")" = "$(printf 'ok - u\nok - s # SKIP no disk')" ]; then
		echo "ok - check: passing parts printed and recorded, no marker"
	else
		echo "not ok - check: passing parts printed and recorded, no marker"
		show got <<< "$out"; show parts < "$d/A.parts"
		[ ! -e "$d/mark" ] || echo "# marker left"
		bad=1
	fi
	# failed parts: every one reported with 3 lines of its output, the job
	# goes on (a fail in CMD ends only CMD), the marker is left
	rm -f "$d/A.parts"
	out=$(cd "$PMEMZC_TOP" && PMEMZC_ROLE=B PMEMZC_WORK=$d PMEMZC_CHECK_MARK=$d/mark "$bb" sh -c '
		. vm/guest/lib.sh
		check "t" sh -c "echo one; echo two >&2; echo three; echo four; exit 3"; echo "rc $?"
		check "f" fail "inner"; echo "rc $?"
		check "u" true; echo "rc $?"
		echo "end"' 2>&1)
	rc=$?
	want='not ok - t
# one
# two
# three
rc 3
not ok - f
# FAIL: inner
rc 1
ok - u
rc 0
end'
	if [ $rc = 0 ] && [ "$out" = "$want" ] && [ -e "$d/mark" ] &&
	   [ "$(cat "$d/B.parts")" = "$(grep -v -e '^rc ' -e '^end$' <<< "$want")" ] &&
	   [ ! -e "$d/A.parts" ]; then
		echo "ok - check: failed parts printed with their output, recorded, marker left, job goes on"
	else
		echo "not ok - check: failed parts printed with their output, recorded, marker left, job goes on"
		show got <<< "$out"; show parts < "$d/B.parts"
		[ -e "$d/mark" ] || echo "# no marker"
		bad=1
	fi
	# no role (make shell): printed, not recorded
	rm -f "$d"/*.parts
	out=$(cd "$PMEMZC_TOP" && env -u PMEMZC_ROLE PMEMZC_WORK="$d" PMEMZC_CHECK_MARK="$d/mark" "$bb" sh -c '
		. vm/guest/lib.sh; check "u" true' 2>&1)
	if [ "$out" = "ok - u" ] && [ -z "$(ls "$d"/*.parts 2>/dev/null)" ]; then
		echo "ok - check: without PMEMZC_ROLE printed only"
	else
		echo "not ok - check: without PMEMZC_ROLE printed only"; bad=1
	fi
	echo "# guest helpers run by $("$bb" 2>&1 | head -1 | cut -d' ' -f1-2)"
	return $bad
}
