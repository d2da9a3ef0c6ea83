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
# Prints one line per crate (its items, at its root and in its modules),
# the distinct items reachable from the facade, then the facade's
# top-level names.

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
# Per crate: its items, those at its root, and those in its public
# modules (e.g. a `compat` module).
printf '%-16s %5s %5s %8s\n' crate items root modules
printf '%-16s %5s %5s %8s\n' "neardup" "$top" "$top" 0
for d in "${deps[@]}"; do
    dir="${d//-/_}"
    n=$(count "$dir")
    r=$(items "$target/doc/$dir" -maxdepth 1 | grep -c . || true)
    total=$((total + n))
    printf '%-16s %5s %5s %8s\n' "$d" "$n" "$r" "$((n - r))"
done
# The facade's top level re-exports the crates' items: they are counted
# once, under their crate, in the total of distinct items.
echo "distinct items reachable from the facade: $total"
echo "names at the facade's top level: $top"
echo
echo "top-level names of neardup:"
items "$target/doc/neardup" -maxdepth 1 | sort | tr '\n' ' '
echo
