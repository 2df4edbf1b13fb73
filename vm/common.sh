# shellcheck shell=bash
# Shared definitions for the vm/ scripts. Sourced, never run.

PMEMZC_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# One variable moves the whole build cache (kernel sources, builds, ccache,
# initramfs); nothing of it ever lives inside the repository.
PMEMZC_CACHE=${PMEMZC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-zc}
PMEMZC_KSRC_TAR=${PMEMZC_KSRC_TAR:-/usr/src/linux-source-6.1.tar.xz}

say() { printf '[%s] %s\n' "${0##*/}" "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Short content hash of files and strings given on stdin.
content_key() { sha256sum | cut -c1-16; }

# The flavour's current kernel build directory (bzImage, modules, .config).
kernel_dir() { readlink -f "$PMEMZC_CACHE/kernel-$1"; }
