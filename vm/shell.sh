#!/usr/bin/env bash
# make shell: an interactive shell in guest A (NVDIMM, scratch disk, the
# repository read-only at /top, the project's modules built). The guest's
# work share and serial log are in results/shell-*/. Ctrl-A X quits QEMU.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
vm_enter_netns "$0" "$@"
vm_net_init
dir=$PMEMZC_TOP/results/shell-$(date +%Y%m%d-%H%M%S)
mkdir -p "$dir"
say "guest A: repository at /top, this folder at /work: $dir"
VM_INTERACTIVE=1 vm_start A "$dir"
