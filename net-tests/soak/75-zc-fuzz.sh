# Soak: the ioctl fuzzer, 71-zc-fuzz, for 300 x SOAK_SCALE s (issue 26:
# its run in make soak), bound by time alone (FUZZ_SECS; FUZZ_CALLS is not
# reached), with 71's checks: 0 failures, the read-only sources unchanged,
# bytes by reference to guest B, the unprivileged caller refused, the
# racer's unlinks and rescans, both modules unloaded, the coverage figure,
# no splat. The seed is 71's (the day's, or FUZZ_SEED).
SOAK_SCALE=${SOAK_SCALE:-1}
FUZZ_SECS=${FUZZ_SECS:-$((300 * SOAK_SCALE))}
FUZZ_CALLS=${FUZZ_CALLS:-1000000000}
# shellcheck source=../tests/71-zc-fuzz.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tests/71-zc-fuzz.sh"
