#!/usr/bin/env bash
# The reliability tests (tests/reliability/) with longer loops: more
# decisions next to the live intake, more racing rounds, more SIGKILLs, more
# damaged files, more property cases. `cargo test` runs them at scale 1.
#
#   scripts/reliability.sh                  # long run: RELIAB_SCALE=20 (several minutes)
#   scripts/reliability.sh --short          # CI: RELIAB_SCALE=2 (a minute or two)
#   RELIAB_SCALE=50 scripts/reliability.sh  # any scale
#   RELIAB_SEED=123 scripts/reliability.sh  # replay the random moments and bytes of a run
#                                           # (each test prints the seed it used)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

scale=20
case "${1:-}" in
  --short) scale=2 ;;
  "") ;;
  *) echo "usage: $0 [--short]" >&2; exit 2 ;;
esac
export RELIAB_SCALE="${RELIAB_SCALE:-$scale}"
echo "reliability: RELIAB_SCALE=$RELIAB_SCALE" >&2

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
# The same debug build as `cargo test` (nothing extra to compile in CI).
# --nocapture: each test prints its figures (decisions, stalls, kills, inputs).
# The hostile data does not grow with the scale: `cargo test` ran it already.
cargo test --locked --test reliability -- --skip hostile:: \
  --nocapture >"$log" 2>&1 || status=$?
grep -E '^(test |test result|live intake|resolve:|screen:|byte flips|truncation|full disk|stuck:|dup:)|RELIAB_SEED' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "--- failures ---" >&2
  grep -E -A12 'panicked at|^error' "$log" | head -n 200 >&2 || true
  echo "reliability: FAILED (RELIAB_SCALE=$RELIAB_SCALE)" >&2
  exit "$status"
fi
echo "reliability: ok (RELIAB_SCALE=$RELIAB_SCALE)" >&2
