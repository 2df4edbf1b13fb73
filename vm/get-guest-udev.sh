#!/usr/bin/env bash
# Debian's udev package for the guest that boots this machine's root
# (45-deb-install, vm/guest/hostroot.sh), when this machine has none: the
# version of its systemd (udev depends on libudev1 of that exact
# version), fetched and unpacked into the cache by vm/get-deb-file.sh,
# never installed here. Prints the unpacked folder; prints nothing when
# this machine has udev installed (the guest then has it too).
# vm/get-install-debs.sh fetches it with the kernel's packages, so that
# the test finds it in the cache without a network.
#
#   vm/get-guest-udev.sh
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ "$(dpkg-query -W -f='${db:Status-Status}' udev 2>/dev/null || :)" != installed ] || exit 0
ver=$(dpkg-query -W -f='${Version}' systemd 2>/dev/null || :)
[ -n "$ver" ] || die "no systemd package installed: no udev version to match"
"$PMEMZC_TOP/vm/get-deb-file.sh" "udev=$ver" ||
	die "no udev $ver (this machine's systemd's version) in the apt lists: upgrade systemd, or install udev"
