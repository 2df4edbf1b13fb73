# Host only: tap_check, which the tests use to count the cases of a TAP
# stream (unit tests, bad-parameter and bad-input lists), accepts a whole
# stream and rejects a short, failed, misnumbered, unplanned or wrongly
# sized one.
TEST_TIMEOUT=30

test_run() {
	local bad=0 f=$T/s.tap n=0
	# expect OK|BAD N TEXT: tap_check of TEXT with count N says OK or BAD
	expect() {
		printf "$3" > "$f"
		if tap_check "$f" "$2" > /dev/null; then got=OK; else got=BAD; fi
		n=$((n + 1))
		if [ "$got" != "$1" ]; then
			echo "not ok - tap_check said $got of: $(printf "$3" | tr '\n' '|')"
			bad=1
		fi
	}
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
	echo "# tap_check judged $n streams, $((n - 2)) of them bad"
	return $bad
}
