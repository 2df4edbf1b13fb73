#!/usr/bin/env bash
# Build the guests' initramfs for one kernel flavour.
#
#   vm/build-initramfs.sh test|bench|debian
#
# Contents: static busybox (vm/get-deb-file.sh), the Debian tools the tests
# use (TOOLS below)
# with their shared-library closure taken from the host, the flavour's
# kernel modules (upstream NFIT/libnvdimm/nd_pmem, not loaded unless asked)
# and vm/guest/init. The project's own modules and scripts are not in it:
# guests see the repository read-only over 9p (mount tag "top"), so editing
# them never rebuilds the initramfs. Uncompressed cpio: under TCG a
# decompressor costs more boot time than loading the bytes.
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavour=${1:-test}
kdir=$(kernel_dir "$flavour")
[ -e "$kdir/.pmemzc-done" ] || die "no $flavour kernel: run vm/build-kernel.sh $flavour"

TOOLS=(dd kmod iperf3 socat nbd-client nbd-server fio ndctl daxctl mke2fs mkfs.ext4
       e2fsck dumpe2fs filefrag chattr sfdisk mkfs.xfs xfs_io curl wget wrk fsverity ip setpriv)
PKGS=(coreutils kmod iperf3 socat nbd-client nbd-server fio ndctl daxctl e2fsprogs fdisk xfsprogs curl wget wrk fsverity iproute2 util-linux)
# out of Debian's .debs, never installed on the host: a static busybox, and
# nginx (the yardstick of make bench's HTTP rows)
busybox=$("$PMEMZC_TOP/vm/get-deb-file.sh" busybox-static /bin/busybox)
nginx=$("$PMEMZC_TOP/vm/get-deb-file.sh" nginx /usr/sbin/nginx)

# (the modules by name and size too: the debian flavour's tree keeps its
# name when vm/get-debian-kernel.sh picks other modules)
key=$( { basename "$kdir"; (cd "$kdir/modroot" && find . -type f -printf '%p %s\n' | LC_ALL=C sort)
	 dpkg-query -W "${PKGS[@]}"; echo "${TOOLS[*]} $busybox $nginx";
	 cat "$0" "$PMEMZC_TOP/vm/guest/init"; } | content_key)
# named after the kernel build, so that vm/cache.sh drop finds it
out=$PMEMZC_CACHE/initramfs/$(basename "$kdir")-$key.cpio
link=$(initramfs_link "$flavour")
if [ -e "$out" ]; then
	ln -sfn "$out" "$link"
	touch "$out"
	exit 0
fi

mkdir -p "$PMEMZC_CACHE/initramfs"
stage=$(mktemp -d "$PMEMZC_CACHE/initramfs/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cd "$stage"
mkdir -p usr/bin usr/sbin usr/lib usr/lib64 etc proc sys dev tmp run root \
	 mnt work top var/tmp var/run etc/nbd-server
for d in bin sbin lib lib64; do ln -s "usr/$d" "$d"; done

# copy FILE to the same path under the stage, following symlinks
put() {
	local f=$1 dst
	dst=.$(readlink -f "$f")
	[ -e "$dst" ] || { mkdir -p "$(dirname "$dst")"; cp -L "$f" "$dst"; }
	# keep the name the binary or loader asks for, too
	dst=.$f
	[ -e "$dst" ] || { mkdir -p "$(dirname "$dst")"; ln -sf "$(readlink -f "$f")" "$dst"; }
}

# shared_libs FILE: the libraries and loader FILE needs, one a line; none
# for a static FILE (ldd then says 1, which pipefail would make fatal)
shared_libs() {
	{ ldd "$1" 2>/dev/null || :; } | awk '/=> \//{print $3} /^\t\/[^ ]*ld-linux/{print $1}'
}

for t in "${TOOLS[@]}"; do
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t") || die "tool $t not found (vm/install-deps.sh)"
	put "$p"
	shared_libs "$p" | while read -r lib; do put "$lib"; done
done
# merged /usr: a library may have been recorded as /lib/x86_64-linux-gnu/...
# which is the same directory as usr/lib/... here; nothing more to do.

# kmod's module tools: busybox insmod retries a failed finit_module() with
# init_module(), so a refused load would run the module's init twice
for t in insmod rmmod lsmod modprobe modinfo depmod; do ln -sf ../bin/kmod "usr/sbin/$t"; done

# nginx at its own path, its libraries from the host
install -m 0755 "$nginx" usr/sbin/nginx
shared_libs "$nginx" | while read -r lib; do put "$lib"; done

cp "$busybox" usr/bin/busybox
for a in $(usr/bin/busybox --list); do
	[ -e "usr/bin/$a" ] || [ -e "usr/sbin/$a" ] || ln -s busybox "usr/bin/$a"
done

cp -a "$kdir/modroot/lib/modules" usr/lib/
# the modules init loads at boot (Debian's kernel: virtio and 9p are
# modules there)
[ ! -e "$kdir/modroot/etc/pmemzc-modules" ] || cp "$kdir/modroot/etc/pmemzc-modules" etc/
install -m 0755 "$PMEMZC_TOP/vm/guest/init" init
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > etc/passwd
printf 'root:x:0:\nnogroup:x:65534:\n' > etc/group
printf '127.0.0.1 localhost\n169.254.77.1 guest-a\n169.254.77.2 guest-b\n' > etc/hosts
: > etc/ld.so.conf

find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 > "$out.tmp"
mv "$out.tmp" "$out"
ln -sfn "$out" "$link"
say "initramfs $flavour: $(du -h "$out" | cut -f1) ($out)"
