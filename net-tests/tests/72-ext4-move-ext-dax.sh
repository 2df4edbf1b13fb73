# EXT4_IOC_MOVE_EXT (online defrag, e4defrag's ioctl) with a DAX donor,
# by an unprivileged user (issue 44). ext4 refused a DAX original file
# but never looked at the donor, and the ioctl asks only for write access
# to both files: on ext4 -o dax=inode the owner of two files, one made
# DAX by its directory's flag (FS_XFLAG_DAX, the owner's to set), could
# exchange a DAX file's blocks with a non-DAX file's. The page cache
# folios the move put into the DAX donor's mapping replaced its DAX
# entries as if they were shadow entries, with no layout break and no
# wait for busy pages; the count of the replaced entries stayed in
# nrpages, so the donor's eviction hit BUG_ON(inode->i_data.nrpages) in
# clear_inode() (fs/inode.c), with no page held by anyone. With
# mm-export-patch/<version>/ext4-move-ext-dax/0001 the ioctl refuses a DAX
# donor with EOPNOTSUPP, as it refuses a DAX original. (With a page of
# the donor held by a pipe, the leak of its block to another file is
# 69-fsdax-hold's moveext case.)
#
# As uid 65534 in its own directory of a 32 MiB ext4 -o dax=inode on prd
# (pages=devmap): D (DAX) and O (not DAX), 4 MiB each; D mapped and read
# whole (a read fault makes a DAX entry of each page); then
#   MOVE_EXT(orig=O, donor=D)   refused: Operation not supported
#   MOVE_EXT(orig=D, donor=O)   refused: Operation not supported (as before)
#   MOVE_EXT(orig=O, donor=O2)  two non-DAX files: moved 1024, O keeps its
#                               bytes on what were O2's blocks (the ioctl
#                               and the tool work)
# D's bytes unchanged; then both files removed and the filesystem unmounted
# (evicting D) and checked by e2fsck -fn; no splat in the kernel log.
TEST_TIMEOUT=300

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
MX=/top/net-tests/tools/bin/ext4_move_ext
$INSMOD $PRD_KO map=32M@4G pages=devmap || fail "insmod prd"
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mkdir -p /mnt && mount -o dax=inode /dev/pmem0 /mnt ||
	fail "ext4 -o dax=inode"
mkdir /mnt/u && chown 65534:65534 /mnt/u || fail "the user's directory"
# (randfill's copy in /tmp, which the user may run)
randfill 0 > /dev/null || fail "randfill"
cat > /tmp/user.sh <<'EOF'
cd /mnt/u || exit 1
xfs_io -c 'chattr +x' . && /tmp/randfill $((4 << 20)) > D && xfs_io -c 'chattr -x' . &&
	/tmp/randfill $((4 << 20)) > O && /tmp/randfill $((4 << 20)) > O2 && sync || { echo "files"; exit 1; }
xfs_io -c lsattr D | grep -q '^[^ ]*x' && ! xfs_io -c lsattr O | grep -q '^[^ ]*x' || { echo "D not DAX, or O DAX"; exit 1; }
md5sum < D > D.md5 && md5sum < O > O.md5
# the first physical block of a file
first() { filefrag -v "$1" | awk '$1 == "0:" { sub(/\.\..*/, "", $4); print $4 }'; }
o2blk=$(first O2)
# a DAX entry for each page of D
xfs_io -r -c 'mmap -r 0 4m' -c 'mread 0 4m' D > /dev/null || { echo "mread"; exit 1; }
echo "donor $($MX O D 1024)"
echo "orig $($MX D O 1024)"
echo "plain $($MX O O2 1024)"
[ "$(md5sum < D)" = "$(cat D.md5)" ] && echo "d intact" || echo "d changed"
[ "$(md5sum < O)" = "$(cat O.md5)" ] && [ -n "$o2blk" ] && [ "$(first O)" = "$o2blk" ] &&
	echo "o moved" || echo "o not moved: $(first O) $o2blk"
rm -f D O O2
EOF
chmod 0755 /tmp/user.sh
MX=$MX /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups sh /tmp/user.sh > /work/user.out 2>&1 ||
	fail "as uid 65534: $(tail -n 1 /work/user.out)"
umount /mnt || fail "umount"
e2fsck -fn /dev/pmem0 > /work/fsck.out 2>&1 && echo clean > /work/fsck || echo "dirty $?" > /work/fsck
rmmod prd || fail "unload"
JOB
	vm_run A "$T" A.job 240 || return 1
	local bad=0 out=$T/user.out
	if grep -qx 'donor refused: Operation not supported' "$out"; then
		echo "ok - MOVE_EXT with a DAX donor, as uid 65534: refused (EOPNOTSUPP)"
	else
		echo "not ok - MOVE_EXT with a DAX donor, as uid 65534: $(grep '^donor' "$out" || echo 'no result')"; bad=1
	fi
	if grep -qx 'orig refused: Operation not supported' "$out"; then
		echo "ok - MOVE_EXT with a DAX original: refused (EOPNOTSUPP)"
	else
		echo "not ok - MOVE_EXT with a DAX original: $(grep '^orig' "$out" || echo 'no result')"; bad=1
	fi
	if grep -qx 'plain moved 1024' "$out" && grep -qx 'o moved' "$out"; then
		echo "ok - MOVE_EXT of two non-DAX files: 1024 blocks moved, the original keeps its bytes on the donor's blocks"
	else
		echo "not ok - MOVE_EXT of two non-DAX files: $(grep -e '^plain' -e '^o ' "$out" | tr '\n' ' ')"; bad=1
	fi
	if grep -qx 'd intact' "$out"; then
		echo "ok - the DAX file's bytes unchanged"
	else
		echo "not ok - the DAX file's bytes: $(grep '^d ' "$out" || echo 'no result')"; bad=1
	fi
	if [ "$(cat "$T/fsck" 2> /dev/null)" = clean ]; then
		echo "ok - unmounted (the DAX donor evicted) and e2fsck -fn clean"
	else
		echo "not ok - e2fsck -fn after the unmount: $(cat "$T/fsck" 2> /dev/null) $(tail -n 3 "$T/fsck.out" 2> /dev/null)"; bad=1
	fi
	return $bad
}
