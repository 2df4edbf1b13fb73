#!/bin/sh
# Guest A's root becomes this machine's own Debian root, systemd its init
# (45-deb-install: the Debian packages installed as a user installs them,
# on a system that runs systemd, its units and udev). vm/guest/init execs
# this as PID 1 when the kernel command line has pmemzc.root=host
# (VM_HOSTROOT in vm/lib.sh).
#
#   sh hostroot.sh ROLE JOB
#
# The root: an overlay of the 9p share "hostroot" (this machine's /,
# read-only) under a tmpfs, so that what dpkg, DKMS and the tests write
# stays in the guest's memory and goes with it. The running kernel's
# modules: Debian's package's own tree (the share "kmods", read-only) at
# /usr/lib/modules/KREL/kernel, the indexes copied beside it (depmod
# rewrites them when DKMS installs). The job folder's hostroot-add/, if
# any, copied over the root. /work, /top, /dev, /proc, /sys and
# /run move over; an empty /etc/fstab (this machine's is not the
# guest's), a tmpfs /tmp; timers.target masked; the job runs as pmemzc-job.service
# (hostroot-job.sh), the unit systemd starts instead of its default
# target.
role=$1 job=$2
die() {
	echo "pmemzc-guest: hostroot: $*"
	[ -z "$job" ] || { echo 1 > "/work/$job.rc"; sync; }
	poweroff -f
}
[ -n "$job" ] || die "no job"
krel=$(uname -r)
opts=trans=virtio,version=9p2000.L,msize=262144,ro
modprobe overlay || die "modprobe overlay"
mkdir -p /hostroot /kmods /upper /newroot
mount -t 9p -o $opts hostroot /hostroot || die "mount hostroot"
mount -t 9p -o $opts kmods /kmods || die "mount kmods"
mount -t tmpfs -o mode=0755,size=80% tmpfs /upper || die "tmpfs"
mkdir -p /upper/u /upper/w
mount -t overlay -o lowerdir=/hostroot,upperdir=/upper/u,workdir=/upper/w overlay /newroot ||
	die "overlay"
m=/newroot/usr/lib/modules/$krel
mkdir -p "$m/kernel" || die "mkdir $m"
cp /kmods/modules.* "$m/" && mount -o bind /kmods/kernel "$m/kernel" || die "modules"
: > /newroot/etc/fstab
# what the job's folder brings to lay over the root (45-deb-install: the
# udev package, which this machine lacks; its paths merged-/usr already)
# (files and links alone, made root's: the root's own directories keep
# their owner and mode whoever ran the lab)
if [ -d /work/hostroot-add ]; then
	(cd /work/hostroot-add &&
	 find . -type d | while read -r d; do mkdir -p "/newroot/$d" || exit 1; done &&
	 find . ! -type d | while read -r f; do
		cp -a "$f" "/newroot/$f" && chown -h 0:0 "/newroot/$f" || exit 1
	 done) || die "hostroot-add"
fi
# a /tmp of the guest's own: boot's systemd-tmpfiles empties /tmp, and
# would walk this machine's over 9p first
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp || die "tmpfs /tmp"
# no timers (apt-daily's would take apt's lock from the job)
ln -sf /dev/null /newroot/etc/systemd/system/timers.target
cat > /newroot/etc/systemd/system/pmemzc-job.service <<EOF
[Unit]
Description=pmem-zc lab job $job (vm/guest/hostroot-job.sh)
Wants=systemd-udev-settle.service
After=systemd-udev-settle.service systemd-journald.service

[Service]
Type=oneshot
Environment=PMEMZC_ROLE=$role
ExecStart=/bin/sh /top/vm/guest/hostroot-job.sh $job
StandardOutput=journal+console
StandardError=journal+console
EOF
mkdir -p /newroot/work /newroot/top
for d in work top dev proc sys run; do
	mount -o move "/$d" "/newroot/$d" || die "move /$d"
done
hostname "guest-$role"
echo "pmemzc-guest: role=$role up after $(cut -d' ' -f1 /newroot/proc/uptime) s; this machine's root, systemd"
exec switch_root /newroot /lib/systemd/systemd --unit=pmemzc-job.service
