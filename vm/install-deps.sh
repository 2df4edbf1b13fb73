#!/usr/bin/env bash
# Install the Debian packages listed in vm/packages.txt (or in the list
# given: vm/packages-deb.txt for make deb) that are missing.
# Idempotent and silent when everything is present.
#
#   vm/install-deps.sh [LIST]
set -euo pipefail
. "$(dirname "$0")/common.sh"

vm_refuse_foreign_root
list=${1:-$PMEMZC_TOP/vm/packages.txt}
mapfile -t want < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")
missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

say "installing: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo > /dev/null ||
		die "missing Debian packages and no sudo: as root, apt-get install ${missing[*]}"
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! { ${SUDO:-} apt-get update -qq && ${SUDO:-} apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
	cat "$log" >&2; rm -f "$log"
	die "apt-get failed"
fi
rm -f "$log"
