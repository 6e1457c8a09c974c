#!/usr/bin/env bash
# Headless-chromium screenshots of the built book, to check by eye that pages and figures render.
#   bash scripts/screenshot_book.sh [OUTDIR]      (default: book/_build/screenshots)
# Needs book/_build/html (run `make book` first) and a chromium binary; without chromium it
# says so and exits 0 (this check is optional and not part of `make test`).
set -euo pipefail
cd "$(dirname "$0")/.."
HTML=book/_build/html
OUT=${1:-book/_build/screenshots}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
    echo "screenshot_book: $CHROMIUM not found; skipping (install chromium to use this check)"
    exit 0
fi
if [ ! -f "$HTML/index.html" ]; then
    echo "screenshot_book: $HTML/index.html missing; run 'make book' first" >&2
    exit 1
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PROFILE=$(mktemp -d)
trap 'rm -rf "$PROFILE"' EXIT
shoot() {  # shoot PAGE NAME
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --user-data-dir="$PROFILE" \
        --hide-scrollbars --virtual-time-budget=5000 --window-size=1280,2000 \
        --screenshot="$OUT/$2.png" "file://$PWD/$HTML/$1" > /dev/null 2>&1 || {
        echo "screenshot_book: chromium failed on $1" >&2; return 1; }
    [ -s "$OUT/$2.png" ] || { echo "screenshot_book: no image written for $1" >&2; return 1; }
    echo "screenshot_book: $OUT/$2.png"
}
shoot intro.html 00_index
shoot theory.html 01_theory
shoot _executed/03_single_phases.html 03_single_phases
shoot _executed/04_long_run.html 04_long_run
shoot _executed/05_sensitivity.html 05_sensitivity
