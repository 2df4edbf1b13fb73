# Soak: issue 22's whole matrix of fs-DAX references that outlive their
# mapping (net-tests/tests/69-fsdax-hold.sh, whose header says how a case
# runs and passes): every path (vmsplice, MSG_ZEROCOPY, io_uring SEND_ZC,
# O_DIRECT write and read to a stalled nbd disk) x every layout operation
# (truncate, punch, zero, collapse, insert, unlink, umount) x the fix on
# and off, on ext4 and XFS over prd pages=devmap and over nd_pmem's fsdax
# namespace; the unfixed zero and insert are left out (they free no block
# to leak); on 6.12 also splice and sendfile (the DAX splice series), by
# reference, unentered (N) and copied (C); and on XFS swapext (-o dax, and
# -o dax=inode with a non-DAX donor), reflink, dedupe and the killed
# operations. make check runs 56 cases on 6.12 (FSDAX_MATRIX=check, some
# of them its own: resplice) and 15 on 6.1 (FSDAX_MATRIX=subset).
# shellcheck source=../tests/69-fsdax-hold.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tests/69-fsdax-hold.sh"
FSDAX_MATRIX=full
FSDAX_GUEST_SECS=3300
TEST_TIMEOUT=3600
