#!/usr/bin/env bash
# Growth of the index with the tree (issue 35): a quarter, a half, one and
# four copies of $(go env GOROOT)/src, each its own git repository under
# ${BENCH_DIR:-/tmp/autarch-bench-index}; per tree: a cold build (index
# removed) through `autarch index`, then a cold `autarch search` with
# nothing changed (a new process), peak RSS of each, the index's size on
# disk against the source's. Prints a markdown table.
set -euo pipefail
bin=${AUTARCH:-$(pwd)/bin/autarch}
base=${BENCH_DIR:-/tmp/autarch-bench-index}
src=$(go env GOROOT)/src
mkdir -p "$base"
mk() { # name, then the directories of src to copy (or "all" n times)
	local dir=$base/$1
	[ -d "$dir/.git" ] && return
	rm -rf "$dir" && mkdir -p "$dir"
	case $1 in
	x4) for i in 1 2 3 4; do mkdir -p "$dir/c$i" && cp -r "$src/." "$dir/c$i/"; done ;;
	x1) cp -r "$src/." "$dir/" ;;
	half) for d in $(ls "$src" | awk 'NR%2==0'); do cp -r "$src/$d" "$dir/"; done ;;
	quarter) for d in $(ls "$src" | awk 'NR%4==0'); do cp -r "$src/$d" "$dir/"; done ;;
	esac
	git -C "$dir" init -q
}
echo "| tree | files | source MB | build s | build peak RSS MB | index MB | cold search, nothing changed, s | its peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|"
for t in ${TREES:-quarter half x1 x4}; do
	mk "$t"
	dir=$base/$t
	rm -rf "$dir/.git/autarch/index"
	files=$(find "$dir" -path "$dir/.git" -prune -o -type f -print | wc -l)
	srcmb=$(du -sm --exclude=.git "$dir" | cut -f1)
	/usr/bin/time -o "$base/time" -f "%e %M" "$bin" index --root "$dir" >/dev/null 2>&1
	b=$(tail -1 "$base/time")
	/usr/bin/time -o "$base/time" -f "%e %M" "$bin" search --root "$dir" "parse an http header" >/dev/null 2>&1
	s=$(tail -1 "$base/time")
	ixmb=$(du -sm "$dir/.git/autarch/index" | cut -f1)
	echo "| $t | $files | $srcmb | ${b% *} | $(( ${b#* } / 1024 )) | $ixmb | ${s% *} | $(( ${s#* } / 1024 )) |"
done
