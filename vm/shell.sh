#!/usr/bin/env bash
# make shell: guests A (NVDIMM, scratch disk) and B (a disk) on the link,
# each with a shell on its console in its own tmux window; the repository
# is read-only at /top in both (the project's modules built), each guest's
# folder of results/shell-*/ read-write at /work. tmux runs on a socket of
# its own inside the link's network namespace, so the guests reach each
# other and nothing else.
#
#   PMEMZC_SHELL_DIR=DIR     where the guests' folders go (results/shell-*)
#   PMEMZC_SHELL_ATTACH=0    start the session but do not attach to it (the
#                            line printed says how to); for scripts and tests
set -euo pipefail
. "$(dirname "$0")/lib.sh"
vm_enter_netns "$0" "$@"
vm_net_init

dir=${PMEMZC_SHELL_DIR:-$PMEMZC_TOP/results/shell-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$dir"
command -v tmux > /dev/null || die "tmux missing (make deps installs it)"
attach=${PMEMZC_SHELL_ATTACH:-1}
[ "$attach" = 0 ] || [ -t 0 ] || die "make shell needs a terminal (PMEMZC_SHELL_ATTACH=0 starts it detached)"

sock=$dir/tmux.sock
# one window a guest; a window closes when its guest powers off
guest() {
	printf 'cd %q && . vm/lib.sh && VM_INTERACTIVE=1 vm_start %s %q; ' "$PMEMZC_TOP" "$1" "$dir"
	# disk images are scratch: gone with the guest unless asked to keep them
	printf '[ "${PMEMZC_KEEP_IMAGES:-0}" = 1 ] || rm -f %q/*.img' "$dir"
}
tmux -S "$sock" new-session -d -s pmemzc -n A -x 200 -y 50 "bash -c $(printf %q "$(guest A)")"
tmux -S "$sock" new-window -d -t pmemzc -n B "bash -c $(printf %q "$(guest B)")"
tmux -S "$sock" set-option -t pmemzc status-right " A 169.254.77.1, B 169.254.77.2 | C-b n: next guest " > /dev/null
tmux -S "$sock" set-option -t pmemzc status-right-length 60 > /dev/null

say "guests A and B ($PMEMZC_NET link), logs and /work in $dir"
say "tmux: Ctrl-B n switches guest, Ctrl-B d detaches (tmux -S $sock attach returns); 'poweroff -f' in both guests quits"
[ "$attach" = 0 ] && exit 0
tmux -S "$sock" attach -t pmemzc || true
# detached: the guests (and the link's namespace, held by tmux) go on
if tmux -S "$sock" has-session -t pmemzc 2>/dev/null; then
	say "guests still running: tmux -S $sock attach"
fi
