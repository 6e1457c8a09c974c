#!/usr/bin/env python
"""Open every chapter of the built book in headless Chromium, screenshot it, and check it.

    python scripts/check_book_pages.py [--html book/_build/html] [--out book/_build/screenshots]

Run by `make screenshots` (scripts/screenshot_book.sh) after `make book`, and by CI (.ci/run,
with STRICT=1). For every page the table of contents (book/_toc.yml) lists, it

0. fails if the build did not produce the page's HTML file (the table of contents lists it);

1. takes a screenshot of the whole page (PNG, for a person to look at): the page's height is
   measured first (a probe copy of the page records ``scrollHeight`` once it has rendered),
   then Chromium captures it in tiles of at most ``--tile`` px (the page shifted up by a CSS
   transform for each) that are stacked into one PNG; a blank tile is a failure (a page no
   taller than the window keeps the capture the measuring run took);
2. loads the page with JavaScript and with every host name unresolvable (so nothing can come
   from the network) and reads the resulting DOM (``chromium --dump-dom``):
   - every formula of the page was typeset by MathJax (one ``mjx-container`` per math node
     of the static HTML), none is a MathJax error, and no raw TeX (``$$``, ``\\begin{``,
     ``\\[``) is left in the page's text;
   - every ``<img>`` points to an existing, non-empty image file, and a notebook chapter
     shows at least as many images as its executed notebook (book/_executed) has figures;
   - every image of the page loaded in the browser: measured in the page by the probe script
     (``naturalWidth`` and ``naturalHeight`` not 0 once the page has loaded), so a file that
     exists but does not decode fails too;
   - nothing was reported as an error on the browser console: ``console.error``, an uncaught
     exception, an unhandled promise rejection, or a script, stylesheet or other resource that
     failed to load (recorded by a script that runs first in the page's ``<head>``);
   - no cell output is a traceback, and the executed notebook behind a chapter has no error
     output at all (also none in a cell whose output the page hides);
   - a notebook whose source calls ``to_jshtml`` (a matplotlib JavaScript animation) shows
     its player on the page (``div.anim-controls``), as many as the executed notebook has;
3. checks that no ``<script>``, ``<link>``, ``<img>``, ``<iframe>`` or ``<source>`` of any
   built HTML file, and no inline script, refers to an http(s) URL.

Exits 1 and names the page and the problem if any check fails, 2 if Chromium is missing.
tests/test_page_checker.py runs this checker on a small Sphinx-built site with these faults.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parent.parent
REMOTE = re.compile(r"^(https?:)?//", re.I)
INLINE_URL = re.compile(r"https?://(?!www\.w3\.org/)[^\s\"'<>)]+", re.I)
RAW_TEX = ("$$", "\\begin{", "\\[", "\\(")
IMAGE_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"<svg", b"<?xml")
FIGURE_MIMES = ("image/png", "image/jpeg", "image/svg+xml", "image/gif")


class Page(HTMLParser):
    """What the checks need from one HTML document (static or after JavaScript)."""

    SKIP_TEXT = {"script", "style", "pre", "code", "textarea", "mjx-assistive-mml", "math"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.remote, self.inline_urls, self.images = [], [], []
        self.math_nodes = self.mjx = 0
        self.mjx_errors, self.tracebacks = [], 0
        self.players, self.scroll_height = 0, None
        self.console_errors, self.broken_images, self.images_measured = [], [], None
        self.text, self._stack, self._script = [], [], None
        self._main_depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag in ("script", "link", "img", "iframe", "source", "video", "audio", "embed"):
            for key in ("src", "href"):
                if a.get(key) and REMOTE.match(a[key]):
                    self.remote.append(f"<{tag} {key}={a[key]}>")
        if tag == "script" and not a.get("src"):
            self._script = []
        if tag == "main":
            self._main_depth += 1
        if tag == "img" and self._main_depth and not (not a.get("src") and (a.get("id") or "").startswith("_anim_img")):
            self.images.append(a.get("src") or "")  # a player's frame before its script ran is not an image
        if "anim-controls" in classes:
            self.players += 1
        if tag == "html" and a.get("data-scroll-height"):
            self.scroll_height = int(float(a["data-scroll-height"]))
        if tag == "html" and a.get("data-console-errors"):
            self.console_errors = json.loads(a["data-console-errors"])
        if tag == "html" and a.get("data-images"):
            measured = json.loads(a["data-images"])
            self.images_measured, self.broken_images = measured["n"], measured["broken"]
        if "math" in classes and tag in ("span", "div"):
            self.math_nodes += 1
        if tag == "mjx-container":
            self.mjx += 1
        if a.get("data-mml-node") == "merror":
            self.mjx_errors.append(a.get("data-mjx-error") or "MathJax error")
        if "traceback" in classes:
            self.tracebacks += 1
        if tag not in ("img", "br", "hr", "meta", "link", "input", "source", "col", "wbr", "area", "base"):
            self._stack.append(tag)

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.inline_urls += INLINE_URL.findall("".join(self._script))
            self._script = None
        if tag == "main":
            self._main_depth -= 1
        if tag in self._stack:
            while self._stack and self._stack.pop() != tag:
                pass

    def handle_data(self, data):
        if self._script is not None:
            self._script.append(data)
        elif not self.SKIP_TEXT & set(self._stack):
            self.text.append(data)


def parse(html: str) -> Page:
    p = Page()
    p.feed(html)
    p.close()
    return p


def toc_pages(book: Path) -> list[str]:
    """The root and every file of _toc.yml, in reading order (no suffix)."""
    import yaml

    toc = yaml.safe_load((book / "_toc.yml").read_text())
    found = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(node["file"])
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key, []) or []:
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(toc)
    return found


def expected_figures(book: Path, page: str) -> int | None:
    """Figures in the executed notebook behind a page (None if the page is not a notebook)."""
    nb_path = book / f"{page}.ipynb"
    if not nb_path.exists():
        return None
    nb = json.loads(nb_path.read_text())
    n = 0
    for cell in nb["cells"]:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell["cell_type"] != "code" or {"remove-cell", "remove-output"} & tags:
            continue
        n += sum(1 for o in cell.get("outputs", []) if any(m in o.get("data", {}) for m in FIGURE_MIMES))
    return n


def expected_players(book: Path, page: str) -> int | None:
    """JavaScript animation players a notebook page must show: None if its notebook never calls
    ``to_jshtml``, else the number of players in the executed notebook's outputs (at least 1)."""
    nb_path = book / f"{page}.ipynb"
    if not nb_path.exists():
        return None
    nb = json.loads(nb_path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    if not any("to_jshtml" in "".join(c.get("source", "")) for c in code):
        return None
    n = sum("".join(o.get("data", {}).get("text/html", "")).count('class="anim-controls"')
            for c in code if "remove-output" not in set(c.get("metadata", {}).get("tags", []))
            and "remove-cell" not in set(c.get("metadata", {}).get("tags", []))
            for o in c.get("outputs", []))
    return max(n, 1)


def notebook_errors(book: Path, page: str) -> list[str]:
    """The error outputs of the executed notebook behind a page, "cell N [In k]: Name: value"
    each (a cell's output hidden on the page, tag remove-output or remove-cell, counts too)."""
    nb_path = book / f"{page}.ipynb"
    if not nb_path.exists():
        return []
    found = []
    for i, cell in enumerate(json.loads(nb_path.read_text())["cells"], start=1):
        for o in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            if o.get("output_type") == "error":
                n = cell.get("execution_count")
                found.append(f"cell {i}{f' [In {n}]' if n else ''}: {o.get('ename')}: {str(o.get('evalue'))[:200]}")
    return found


PROBE = """<script>/* check_book_pages: record the rendered page's height, and which images did not load */
window.addEventListener("load", function () {
  Array.prototype.forEach.call(document.images, function (im) { if (im.loading === "lazy") im.loading = "eager"; });
  setTimeout(function () {
    var d = document.documentElement, broken = [], n = 0;
    Array.prototype.forEach.call(document.images, function (im) {
      if (!im.hasAttribute("src")) return;  /* an animation's frame before its script drew one */
      n += 1;
      if (!im.complete || !im.naturalWidth || !im.naturalHeight) broken.push(im.getAttribute("src").slice(0, 200));
    });
    d.setAttribute("data-images", JSON.stringify({n: n, broken: broken}));
    d.setAttribute("data-scroll-height", Math.ceil(Math.max(d.scrollHeight, document.body.scrollHeight)));
  }, 8000);
});
</script>"""
# What the page reports as an error, recorded into the DOM (read back with --dump-dom) by a
# script inserted as the first thing in <head>, so that it runs before any script of the page.
# Chosen over parsing Chromium's own log (--enable-logging=stderr --v=0): that log prints every
# console message as "INFO:CONSOLE" whatever its level (Chromium 156: console.log and
# console.error look alike), its line format has changed between versions, and it does not list
# a script or stylesheet that failed to load. In the page, console.error is wrapped, and
# uncaught exceptions, unhandled promise rejections and failed resource loads (the "error"
# event, captured) are caught; each is recorded as it happens, so one that comes late is kept
# too. A failed <img> is left to the image check. The script is one line, so the line numbers
# of the page's own inline scripts stay what they are in the page.
CATCHER = " ".join(line.strip() for line in """<script>/* check_book_pages: record errors */
(function () {
  var root = document.documentElement, seen = [];
  function keep(what) {
    seen.push(String(what).slice(0, 300));
    root.setAttribute("data-console-errors", JSON.stringify(seen));
  }
  function text(a) {
    if (a instanceof Error) return a.name + ": " + a.message;
    if (a !== null && typeof a === "object") { try { return JSON.stringify(a); } catch (e) { } }
    return String(a);
  }
  var original = console.error;
  console.error = function () {
    keep("console.error: " + Array.prototype.map.call(arguments, text).join(" "));
    return original.apply(console, arguments);
  };
  window.addEventListener("error", function (e) {
    var t = e.target;
    if (t && t !== window && t.tagName) {
      if (t.tagName !== "IMG") {
        keep("failed to load <" + t.tagName.toLowerCase() + " " + (t.hasAttribute("src") ? "src=" + t.getAttribute("src") : "href=" + t.getAttribute("href")) + ">");
      }
    } else {
      keep((e.message || "uncaught error") + (e.filename ? " (" + e.filename.split("/").pop() + ":" + e.lineno + ")" : ""));
    }
  }, true);
  window.addEventListener("unhandledrejection", function (e) { keep("unhandled promise rejection: " + text(e.reason)); });
})();
</script>""".splitlines())
SHIFT = """<style>/* check_book_pages: show the page from %dpx down; the theme's sticky header and
sidebars would otherwise repeat over every tile */
.bd-header, .bd-sidebar-primary, .bd-sidebar-secondary { position: static !important; }
body { transform: translateY(-%dpx); }</style>"""


def probe_copy(path: Path, script: str, head: str = "") -> Path:
    """A copy of the page next to it (same relative links) with ``script`` before </body> and
    ``head`` right after the opening <head> tag."""
    html = path.read_text(encoding="utf-8")
    i = html.lower().rfind("</body>")
    html = html[:i] + script + html[i:] if i >= 0 else html + script
    if head:
        m = re.search(r"<head\b[^>]*>", html, re.I) or re.search(r"<html\b[^>]*>", html, re.I)
        if m is None:
            raise ValueError(f"{path}: no <head> or <html> tag to put a script after")
        html = html[:m.end()] + head + html[m.end():]
    copy = path.with_name(f".check-{path.stem}.html")
    copy.write_text(html, encoding="utf-8")
    return copy


def full_page_screenshot(binary, profile, path: Path, shot: Path, width: int, height: int, tile: int,
                         first: Path | None = None) -> str | None:
    """Screenshot the whole page, ``height`` px tall, in tiles of ≤ ``tile`` px stacked into
    ``shot``; None if it worked, else the problem. ``first``: a capture of the page's top that
    the measuring run took; it is the first tile if it has that tile's size (a page no taller
    than the window), which saves starting Chromium once more."""
    from PIL import Image

    tiles, parts = [], []
    # equal tiles of at most `tile` px: a page a little taller than one tile is cut in two halves,
    # not into a full tile and a sliver of its bottom margin (which is blank, and would fail)
    step = -(-height // -(-height // tile))
    try:
        for k, top in enumerate(range(0, height, step)):
            h = min(step, height - top)
            if k == 0 and first is not None and first.is_file() and first.stat().st_size:
                with Image.open(first) as img:
                    if img.size == (width, h):
                        parts.append(first)
                        img.load()
                        if img.convert("L").getextrema()[0] >= 250:
                            return "tile 0 of the screenshot (from 0 px down) is blank"
                        tiles.append(img.copy())
                        continue
            # a tile below the top: the page shifted up by `top` (window scrolling is not kept
            # by a headless screenshot; a CSS transform is)
            src = probe_copy(path, SHIFT % (top, top)) if top else path
            part = shot.with_name(f"{shot.stem}.part{k}.png")
            part.unlink(missing_ok=True)
            r = chromium(binary, profile, src.resolve().as_uri(), "--hide-scrollbars",
                         f"--window-size={width},{h}", f"--screenshot={part}")
            if src != path:
                src.unlink(missing_ok=True)
            if r.returncode or not part.exists() or part.stat().st_size == 0:
                return f"no screenshot of tile {k} (chromium exit {r.returncode}: {r.stderr.strip()[-300:]})"
            parts.append(part)
            img = Image.open(part)
            img.load()
            if img.convert("L").getextrema()[0] >= 250:
                return f"tile {k} of the screenshot (from {top} px down) is blank"
            tiles.append(img)
        page = Image.new("RGB", (max(t.width for t in tiles), sum(t.height for t in tiles)), "white")
        y = 0
        for t in tiles:
            page.paste(t, (0, y))
            y += t.height
        page.save(shot)
    finally:
        for part in parts:
            part.unlink(missing_ok=True)
    return None


def chromium(binary: str, profile: str, url: str, *args: str, timeout: float = 180.0,
             attempts: int = 3) -> subprocess.CompletedProcess:
    """One headless Chromium run with its own fresh profile under ``profile`` (a profile still
    held by the previous run's lingering processes would make the next run wait).

    Chromium now and then hangs on a tall window of a long page when the machine is busy (seen
    once in CI: a 1280 x 7718 tile of the Verification page, after thirty pages had passed). A
    run that takes longer than ``timeout`` seconds is killed with every process it started and
    run again, at most ``attempts`` times, each with a new profile; when every attempt hangs the
    result is a failed run (exit 124) whose stderr says so, which the caller reports as the
    page's problem. A hang says nothing of the page, so trying again hides no defect of it: a
    page that fails to load or draw fails each time and is reported."""
    shot = next((a.split("=", 1)[1] for a in args if a.startswith("--screenshot=")), None)
    for attempt in range(1, attempts + 1):
        with tempfile.TemporaryDirectory(dir=profile) as own:
            cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                   "--disable-sync", "--disable-background-networking", "--disable-component-update",
                   "--disable-extensions", f"--user-data-dir={own}", "--host-resolver-rules=MAP * ~NOTFOUND",
                   "--virtual-time-budget=20000", "--run-all-compositor-stages-before-draw", *args, url]
            # its own session, so that a hang can be killed with Chromium's helper processes
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
            try:
                out, err = proc.communicate(timeout=timeout)
                return subprocess.CompletedProcess(cmd, proc.returncode, out, err)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
        if shot:  # a hung run may have left a partial screenshot
            Path(shot).unlink(missing_ok=True)
        print(f"chromium: no answer in {timeout:g} s for {url} (attempt {attempt} of {attempts})"
              + ("; trying again" if attempt < attempts else ""), file=sys.stderr, flush=True)
    return subprocess.CompletedProcess(cmd, 124, "", f"chromium hung: no answer in {timeout:g} s, {attempts} times")


def check_page(binary, profile, html_dir: Path, book: Path, page: str, out: Path, size: str,
               tile: int = 8000) -> tuple[list[str], str]:
    path = html_dir / f"{page}.html"
    if not path.exists():
        return [f"the table of contents lists '{page}' but the build has no {path.relative_to(html_dir)}"], ""
    url = path.resolve().as_uri()
    static = parse(path.read_text(encoding="utf-8"))
    problems = []

    width, min_height = (int(x) for x in size.split(","))
    probe = probe_copy(path, PROBE, head=CATCHER)
    shot = out / (page.replace("/", "__") + ".png")
    first = shot.with_name(f"{shot.stem}.first.png")  # the window's worth of the page's top
    first.unlink(missing_ok=True)
    try:
        # no --hide-scrollbars here: the height is measured as it always was (a scrollbar, if the
        # page is taller than the window; then `first` is not used). A page that fits shows none.
        r = chromium(binary, profile, probe.resolve().as_uri(), f"--window-size={width},{min_height}", "--dump-dom",
                     f"--screenshot={first}")
    finally:
        probe.unlink(missing_ok=True)
    if r.returncode or "<html" not in r.stdout[:500].lower():
        first.unlink(missing_ok=True)
        return problems + [f"chromium --dump-dom failed (exit {r.returncode}: {r.stderr.strip()[-300:]})"], ""
    dom = parse(r.stdout)
    if dom.scroll_height is None or dom.images_measured is None:
        problems.append("the page's height and images were not measured (its probe script did not run)")
    if dom.console_errors:
        errs = [e.replace(probe.name, path.name) for e in dom.console_errors]
        problems.append(f"{len(errs)} error(s) on the browser console: " + " | ".join(errs[:5])
                        + (" | ..." if len(errs) > 5 else ""))
    height = max(dom.scroll_height or min_height, min_height)

    shot.unlink(missing_ok=True)
    try:
        problem = full_page_screenshot(binary, profile, path, shot, width, height, tile, first)
    finally:
        first.unlink(missing_ok=True)
    if problem:
        problems.append(problem)
    elif not shot.exists() or shot.stat().st_size == 0:
        problems.append("no screenshot")

    if static.math_nodes and dom.mjx < static.math_nodes:
        problems.append(f"only {dom.mjx} of {static.math_nodes} formulas typeset by MathJax")
    if dom.mjx_errors:
        problems.append(f"MathJax errors: {dom.mjx_errors[:3]}")
    text = " ".join(dom.text)
    raw = sorted({t for t in RAW_TEX if t in text})
    if raw:
        i = min(text.find(t) for t in raw)
        problems.append(f"raw TeX {raw} visible in the page text: ...{text[max(0, i - 60):i + 60]!r}...")
    for src in dom.images:
        if src.startswith("data:image/"):
            continue
        if REMOTE.match(src):
            problems.append(f"image from the network: {src}")
            continue
        f = (path.parent / unquote(urlparse(src).path)).resolve()
        if not f.is_file() or f.stat().st_size == 0:
            problems.append(f"<img src={src}> points to a missing or empty file")
        elif not f.read_bytes()[:64].lstrip().startswith(IMAGE_MAGIC):
            problems.append(f"<img src={src}> is not an image file")
    for src in dom.broken_images:
        problems.append(f"<img src={src}> did not load in the browser (naturalWidth or naturalHeight 0)")
    n_fig = expected_figures(book, page)
    if n_fig is not None and len(dom.images) < n_fig:
        problems.append(f"the executed notebook has {n_fig} figures, the page shows {len(dom.images)} images")
    if dom.tracebacks:
        problems.append(f"{dom.tracebacks} traceback output(s) on the page")
    nb_errors = notebook_errors(book, page)
    if nb_errors:
        problems.append(f"the executed notebook {book.name}/{page}.ipynb has {len(nb_errors)} error output(s): "
                        + " | ".join(nb_errors[:5]))
    n_play = expected_players(book, page)
    if n_play is not None and dom.players < n_play:
        problems.append(f"the notebook makes {n_play} JavaScript animation(s) (to_jshtml), the page shows "
                        f"{dom.players} player(s)")
    fig = (f"{len(dom.images)} images" + (f" (notebook: {n_fig} figures)" if n_fig is not None else "")
           + f", {(dom.images_measured or 0) - len(dom.broken_images)}/{dom.images_measured} <img> loaded in the browser")
    if dom.players or n_play is not None:
        fig += f", {dom.players} animation player(s)"
    return problems, (f"formulas {dom.mjx}/{static.math_nodes} typeset, {fig}, no console error, page {height} px, "
                      f"{shot.relative_to(ROOT) if shot.is_relative_to(ROOT) else shot}")


def check_offline(html_dir: Path) -> list[str]:
    problems = []
    for f in sorted(html_dir.rglob("*.html")):
        if "_static" in f.relative_to(html_dir).parts:
            continue
        p = parse(f.read_text(encoding="utf-8", errors="replace"))
        for what in p.remote + [f"inline script URL {u}" for u in p.inline_urls]:
            problems.append(f"{f.relative_to(html_dir)}: {what}")
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--book", default=str(ROOT / "book"))
    ap.add_argument("--html", default=None, help="default: BOOK/_build/html")
    ap.add_argument("--out", default=None, help="screenshots (default: BOOK/_build/screenshots)")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--size", default="1280,1000",
                    help="W,H in px: the window width, and the smallest height captured (the whole page is)")
    ap.add_argument("--tile", type=int, default=8000, help="tallest single capture in px; longer pages are stacked")
    args = ap.parse_args(argv)
    book = Path(args.book).resolve()
    html_dir = Path(args.html).resolve() if args.html else book / "_build" / "html"
    out = Path(args.out).resolve() if args.out else book / "_build" / "screenshots"
    if not Path(args.chromium).is_file():
        print(f"check_book_pages: chromium not found at {args.chromium} (apt-get install chromium)", file=sys.stderr)
        return 2
    if not (html_dir / "index.html").exists():
        print(f"check_book_pages: {html_dir}/index.html missing; run 'make book' first", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)

    failed = 0
    t0 = time.perf_counter()
    pages = toc_pages(book)
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        for page in pages:
            problems, summary = check_page(args.chromium, profile, html_dir, book, page, out, args.size, args.tile)
            if problems:
                failed += 1
                for p in problems:
                    print(f"FAIL {page}: {p}", flush=True)
            else:
                print(f"ok   {page}: {summary}", flush=True)
    offline = check_offline(html_dir)
    for p in offline:
        print(f"FAIL network reference: {p}")
    print(f"check_book_pages: {len(pages)} pages, {failed} with problems, "
          f"{len(offline)} network references; {time.perf_counter() - t0:.0f} s; screenshots in {out}")
    return 1 if failed or offline else 0


if __name__ == "__main__":
    sys.exit(main())
