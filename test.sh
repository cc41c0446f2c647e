#!/usr/bin/env bash
# The whole test suite: formatting, lints, and every test. The end-to-end
# mail tests start Dovecot and aiosmtpd themselves when those are installed
# (apt-get install dovecot-imapd python3-aiosmtpd) and say "skipped" otherwise.
set -euo pipefail
cd "$(dirname "$0")"
cargo fmt --check
cargo clippy --all-targets --quiet -- -D warnings
cargo test --all-targets
cargo test --doc
