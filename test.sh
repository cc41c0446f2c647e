#!/usr/bin/env bash
# The whole test suite: formatting, lints, every crate's tests, the benches
# in their quick mode, and the docs. Each step says what it runs; a failing
# test does not stop the others (--no-fail-fast), and the run ends with
# the failures listed. The end-to-end mail tests start Dovecot and aiosmtpd
# themselves when those are installed (apt-get install dovecot-imapd
# python3-aiosmtpd) and say "skipped" otherwise. A first run builds
# everything and takes some minutes.
set -euo pipefail
cd "$(dirname "$0")"

step() { printf '\n==> %s\n' "$*" >&2; }

# Most tests wait on the binary they run or on a mail server more than they
# compute: three at a time per core keeps the cores busy (RUST_TEST_THREADS
# given by the caller wins).
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-$(( $(nproc) * 3 ))}"

step "formatting: cargo fmt --all --check"
cargo fmt --all --check
step "lints: cargo clippy --workspace --all-targets"
cargo clippy --workspace --all-targets -- -D warnings
step "tests: cargo test --workspace --no-fail-fast"
cargo test --workspace --no-fail-fast
step "benches, quick mode: cargo test --workspace --bench '*'"
cargo test --workspace --bench '*' --no-fail-fast
step "docs: cargo doc, warnings refused (the server's private items too)"
export RUSTDOCFLAGS="-D warnings"
cargo doc --no-deps --quiet -p pbmchess-rules -p pbmchess-computer -p pbmchess-game
cargo doc --no-deps --quiet -p pbmchess --document-private-items
step "all passed"
