#!/bin/sh
# pmemzc-job.service's command (vm/guest/hostroot.sh): the job as
# vm/guest/init runs it, then its status and the kernel log to /work, and
# power off at once.
#
#   sh hostroot-job.sh JOB
job=$1
cd /work || exit 1
export PMEMZC_WORK=/work
rm -f /tmp/pmemzc-check-failed
bash "/work/$job" < /dev/null
rc=$?
[ $rc -ne 0 ] || [ ! -e /tmp/pmemzc-check-failed ] || rc=1
dmesg > "/work/$PMEMZC_ROLE.dmesg.log" 2>&1
journalctl -b --no-pager > "/work/$PMEMZC_ROLE.journal.log" 2>&1
echo $rc > "/work/$job.rc"
sync
echo "pmemzc-guest: job $job exit $rc" > /dev/console
systemctl poweroff -ff
