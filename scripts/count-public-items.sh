#!/usr/bin/env bash
# The public items a user of the `neardup` facade can reach, counted from
# rustdoc's item pages (struct, enum, trait, fn, constant, type, macro,
# union, static): the facade's own top level, and every workspace crate the
# facade depends on (re-exported whole or in part), as `cargo doc` writes
# them. Methods are not items here; a re-exported crate's module pages are
# not counted, its items are.
#
#   scripts/count-public-items.sh          # build the docs, then count
#   NO_BUILD=1 scripts/count-public-items.sh
#
# Prints one line per crate (its item count) and the total, then the
# facade's top-level names.

set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
# The workspace crates the facade depends on, from its manifest.
mapfile -t deps < <(sed -n 's/^\(neardup-[a-z]*\)\.workspace = true$/\1/p' \
    crates/neardup/Cargo.toml | sort -u)
if [ "${NO_BUILD:-0}" != 1 ]; then
    args=(-p neardup)
    for d in "${deps[@]}"; do args+=(-p "$d"); done
    cargo doc --no-deps -q "${args[@]}"
fi
pages='(struct|enum|trait|fn|constant|type|macro|union|static)\.'
# rustdoc also writes a redirect page at each re-exported item's own path
# (crate/module/struct.X.html); those are not items of their own.
items() { # the item pages under one folder ($2: find's depth options)
    local dir="$1"; shift
    find "$dir" "$@" -type f -name '*.html' -printf '%p\n' \
        | grep -E "/$pages" | xargs -r grep -L '<title>Redirection</title>' \
        | sed 's|.*/||; s/\.html$//' || true
}
count() { items "$target/doc/$1" | grep -c . || true; }
top=$(items "$target/doc/neardup" -maxdepth 1 | grep -c . || true)
total=0
printf '%-16s %5s\n' crate items
printf '%-16s %5s\n' "neardup (top)" "$top"
for d in "${deps[@]}"; do
    n=$(count "${d//-/_}")
    total=$((total + n))
    printf '%-16s %5s\n' "$d" "$n"
done
# Inside the facade but below its top level (e.g. neardup::advanced::*):
# pages rustdoc inlined there, not counted again under their own crate.
below=$(( $(count neardup) - top ))
printf '%-16s %5s\n' "neardup (below)" "$below"
printf '%-16s %5s\n' total "$((total + top + below))"
echo
echo "top-level names of neardup:"
items "$target/doc/neardup" -maxdepth 1 | sort | tr '\n' ' '
echo
