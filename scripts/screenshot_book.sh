#!/usr/bin/env bash
# Screenshot check of the built book: headless Chromium opens every chapter of book/_toc.yml,
# takes a screenshot and verifies that the page was built, its formulas were typeset, its
# images load, the browser console shows no error and no cell's output is an error, with the
# network unreachable (scripts/check_book_pages.py says what exactly is checked).
#   bash scripts/screenshot_book.sh [OUTDIR]      (default: book/_build/screenshots)
#   STRICT=1 bash scripts/screenshot_book.sh      (a missing chromium is an error)
# Needs book/_build/html (`make book` first) and chromium (Debian: apt-get install chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
CHROMIUM=${CHROMIUM:-$(command -v chromium || echo /usr/bin/chromium)}
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
if [ ! -x "$CHROMIUM" ]; then
    echo "screenshot_book: chromium not found ($CHROMIUM): the pages were NOT checked." >&2
    echo "screenshot_book: install it (Debian: apt-get install -y chromium) or set CHROMIUM=/path/to/chromium." >&2
    if [ "${STRICT:-0}" != "0" ]; then exit 1; fi
    exit 0
fi
exec "$PYTHON" scripts/check_book_pages.py --chromium "$CHROMIUM" ${1:+--out "$1"}
