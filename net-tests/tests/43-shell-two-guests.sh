# make shell (vm/shell.sh, started detached): guests A and B each get a
# shell on the console of a tmux window of their own; typed commands run
# there, A reaches B over the link, "poweroff -f" in both ends the session
# and the disk images go with it.
TEST_TIMEOUT=400

test_run() {
	local sock=$T/tmux.sock r
	PMEMZC_SHELL_DIR=$T PMEMZC_SHELL_ATTACH=0 PMEMZC_KEEP_IMAGES=0 "$PMEMZC_TOP/vm/shell.sh" > "$T/shell.out" 2>&1 ||
		{ cat "$T/shell.out"; echo "vm/shell.sh failed"; return 1; }
	cat "$T/shell.out"
	grep -q 'Ctrl-B n switches guest' "$T/shell.out" || { echo "no line on how to switch guests"; return 1; }
	for r in A B; do
		wait_log "$T/$r.serial.log" 'pmemzc-guest: shell' 180 || { echo "no shell on $r's console"; return 1; }
	done
	tmux -S "$sock" send-keys -t pmemzc:B 'touch /work/B.typed' Enter
	tmux -S "$sock" send-keys -t pmemzc:A 'ping -c1 -W10 169.254.77.2 && touch /work/A.pinged' Enter
	vm_wait_file "$T" B.typed 60 || { tmux -S "$sock" capture-pane -p -t pmemzc:B; return 1; }
	vm_wait_file "$T" A.pinged 60 || { tmux -S "$sock" capture-pane -p -t pmemzc:A; return 1; }
	echo "# commands typed into both windows ran; A pinged B"
	for r in A B; do tmux -S "$sock" send-keys -t "pmemzc:$r" 'poweroff -f' Enter; done
	for _ in $(seq 600); do tmux -S "$sock" has-session 2>/dev/null || break; sleep 0.1; done
	if tmux -S "$sock" has-session 2>/dev/null; then
		tmux -S "$sock" kill-server; echo "session still there 60 s after poweroff"; return 1
	fi
	! ls "$T"/*.img 2>/dev/null || { echo "disk images left behind"; return 1; }
	echo "# poweroff -f in both guests ended the session; no image left"
}
