#!/usr/bin/env bash
# Crash safety of neardup serve, at length: the CI test (100 trials) run
# 1,000 times over, on the release build. Each trial: four clients insert
# while the server is killed with SIGKILL at a random moment (20 to 150 ms
# in), the server restarts on the same store, and every acknowledged insert
# must be found by its fingerprint. Prints the trials and the inserts
# acknowledged; fails on the first loss.
#
#   bench/serve-crash.sh            1,000 trials
#   TRIALS=5000 bench/serve-crash.sh
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
NEARDUP_CRASH_TRIALS="${TRIALS:-1000}" cargo test --release -q -p neardup-cli --test tests \
    serve::no_acknowledged_insert_is_lost_to_sigkill -- --nocapture 2>&1 | grep -E "trials|test result|panicked|lost"
