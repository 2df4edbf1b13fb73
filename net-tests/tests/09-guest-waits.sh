# Host only: the guests' waits re-read what they wait for. Under the
# guests' own shell (Debian's static busybox), a file that changes to the
# wanted value after 1 s satisfies wait_value within its 4 s, while the
# old form, wait_for 4 test "$(cat FILE)" = WANT, compares the value read
# once before it started and times out; wait_value also times out, saying
# what it read, when the value never comes.
TEST_TIMEOUT=60

test_run() {
	local bb f=$T/value rc t0 dt out
	bb=$("$PMEMZC_TOP/vm/get-deb-file.sh" busybox-static /bin/busybox) || return 1
	# wait CODE: run CODE under busybox sh with the guest library, while the
	# file goes from 1 to 0 after one second; "RC SECONDS" on stdout
	wait_case() {
		echo 1 > "$f"
		(sleep 1; echo 0 > "$f.new"; mv "$f.new" "$f") &
		t0=$(date +%s)
		rc=0
		F=$f "$bb" sh -c ". '$PMEMZC_TOP/vm/guest/lib.sh'; $1" > "$T/out" 2>&1 || rc=$?
		wait
		echo "$rc $(( $(date +%s) - t0 ))"
	}
	read -r rc dt < <(wait_case 'wait_value 4 "$F" 0')
	[ "$rc" = 0 ] && [ "$dt" -lt 4 ] && echo "ok - wait_value sees the value change after 1 s (${dt} s)" ||
		echo "not ok - wait_value: exit $rc after ${dt} s: $(cat "$T/out")"
	read -r rc dt < <(wait_case 'wait_for 4 test "$(cat "$F")" = 0')
	[ "$rc" != 0 ] && [ "$dt" -ge 4 ] && echo "ok - the old form, wait_for with \"\$(cat F)\", times out on the stale value (${dt} s)" ||
		echo "not ok - the old form: exit $rc after ${dt} s (expected a timeout: it cannot see the change)"
	read -r rc dt < <(wait_case 'wait_value 2 "$F" 7')
	out=$(cat "$T/out")
	[ "$rc" = 1 ] && echo "$out" | grep -q "reads '0', not '7'" && echo "ok - wait_value times out saying what it read: $out" ||
		echo "not ok - wait_value of a value that never comes: exit $rc, '$out'"
	# no job or test is left with the stale form
	out=$(grep -rnE --exclude=09-guest-waits.sh 'wait_for [0-9]+ (test|\[) "?\\?\$\(' "$PMEMZC_TOP/net-tests" "$PMEMZC_TOP/vm" || :)
	[ -z "$out" ] && echo "ok - no wait_for of a value expanded once is left" ||
		echo "not ok - waits that never re-read: $out"
}
