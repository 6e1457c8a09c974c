"""The browser check of `make screenshots` (scripts/check_book_pages.py), run on a small site.

A handful of one-paragraph pages is built with Sphinx in a temporary directory, with the
book's theme (sphinx_book_theme) and the book's offline MathJax (book/_ext/offline_mathjax.py
copies the MathJax of the installed package sphinx-mathjax-offline; ``mathjax_path`` is read
from book/_config.yml), so the pages load the very MathJax copy the book does. Some pages are
then broken, as a build can break them, and the checker opens them all in headless Chromium:

- ``good`` (two formulas, one figure): passes, and its screenshot is written;
- ``nofig``: its figure file is deleted from the built site;
- ``badmath``: a formula MathJax rejects (a double exponent: a MathJax error);
- ``untypeset``: the page's MathJax script is removed (raw TeX is left in the page);
- ``corrupt``: its figure file starts like a PNG but does not decode (only the browser sees it);
- ``jserror``: a script of the page throws (an error on the browser console);
- ``errnb``: its executed notebook has an error output;
- ``absent``: listed by the table of contents, never built.

Each must fail, and the checker's message must name the page and the problem.

Needs chromium (Debian: ``apt-get install chromium``; or ``CHROMIUM=/path``) and the book
extra (Sphinx, sphinx-book-theme, sphinx-mathjax-offline). Without them these tests are
skipped, except when ``SKILIB_REQUIRE_CHROMIUM=1`` (set by .ci/run): then they fail, so that
CI cannot pass without having run the browser. About 20 s on two cores.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REQUIRE = os.environ.get("SKILIB_REQUIRE_CHROMIUM", "0") not in ("", "0")
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

yaml = __import__("yaml") if REQUIRE else pytest.importorskip("yaml")  # the checker reads _toc.yml

sys.path.insert(0, str(ROOT / "scripts"))
try:
    import check_book_pages as cbp
finally:
    sys.path.remove(str(ROOT / "scripts"))


def need(ok: bool, what: str) -> None:
    """Skip without ``what``; under SKILIB_REQUIRE_CHROMIUM=1 (CI) fail instead."""
    if ok:
        return
    if REQUIRE:
        pytest.fail(f"{what}, and SKILIB_REQUIRE_CHROMIUM=1 requires the browser check to run")
    pytest.skip(what)


def have_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


FORMULAS = """
Inline :math:`a^2 + b^2 = c^2` and a display:

.. math::

   \\int_0^1 x \\, dx = \\frac{1}{2}
"""
PAGES = {
    "good": FORMULAS + "\n.. image:: good.png\n",
    "nofig": FORMULAS + "\n.. image:: nofig.png\n",
    "badmath": "A formula MathJax rejects:\n\n.. math::\n\n   x^2^3\n",
    "untypeset": FORMULAS,
    "corrupt": "A figure that does not decode:\n\n.. image:: corrupt.png\n",
    "jserror": "A script that throws:\n\n.. raw:: html\n\n   <script>skilibNoSuchFunction();</script>\n",
    "errnb": "The page of a notebook whose cell raised.\n",
}
BROKEN = ["nofig", "badmath", "untypeset", "corrupt", "jserror", "errnb", "absent"]


def figure(path: Path, colour: tuple[int, int, int]) -> None:
    from PIL import Image

    Image.new("RGB", (120, 80), colour).save(path)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A Sphinx site like the book's: pages in SRC (with _toc.yml, as book/), HTML in SRC/_build/html."""
    need(Path(CHROMIUM).is_file(), f"chromium not found ({CHROMIUM}); Debian: apt-get install chromium")
    for module in ("sphinx", "sphinx_book_theme", "PIL"):
        need(have_module(module), f"the Python package {module} is not installed (the book extra)")
    src = tmp_path_factory.mktemp("site")
    book = yaml.safe_load((ROOT / "book" / "_config.yml").read_text())["sphinx"]["config"]
    mathjax_path = book["mathjax_path"]
    (src / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "project = 'checker test'\n"
        "root_doc = 'good'\n"
        "extensions = ['offline_mathjax']\n"
        "html_theme = 'sphinx_book_theme'\n"
        "exclude_patterns = ['_build']\n"
        # the book's own settings of what the checker looks at: MathJax, the theme's context
        + "".join(f"{key} = {book[key]!r}\n" for key in ("mathjax_path", "html_context", "html_show_sourcelink")
                  if key in book))
    for name, body in PAGES.items():
        (src / f"{name}.rst").write_text(f"{name}\n{'=' * len(name)}\n{body}")
    for i, name in enumerate(("good", "nofig", "corrupt")):
        figure(src / f"{name}.png", (40 * i, 90, 160))
    cell = {"cell_type": "code", "execution_count": 3, "metadata": {}, "source": "1 / 0",
            "outputs": [{"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
                         "traceback": []}]}
    (src / "errnb.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    html = src / "_build" / "html"
    r = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src), str(html)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"sphinx build failed:\n{r.stdout}\n{r.stderr}"
    assert (html / "_static" / mathjax_path).is_file(), "offline_mathjax did not copy MathJax into the site"
    # Jupyter Book writes an index.html that redirects to the root page; the checker looks for it
    (html / "index.html").write_text('<meta http-equiv="Refresh" content="0; url=good.html" />\n')
    # break the built pages
    (html / "_images" / "nofig.png").unlink()
    (html / "_images" / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"not a picture" * 20)
    page = html / "untypeset.html"
    text, n = re.subn(r"<script[^>]*src=\"_static/mathjax/[^\"]*\"[^>]*></script>", "", page.read_text())
    assert n == 1, "the MathJax <script> of untypeset.html was not found"
    page.write_text(text)
    return src, html


def run_checker(src: Path, html: Path, pages: list[str], out: Path) -> tuple[int, dict[str, list[str]], str]:
    """Run the checker on ``pages`` (the first is the table of contents' root): its exit code,
    its "ok ..." / "FAIL ..." lines by page, and all it printed."""
    (src / "_toc.yml").write_text(yaml.safe_dump(
        {"format": "jb-book", "root": pages[0], "chapters": [{"file": p} for p in pages[1:]]}))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = cbp.main(["--book", str(src), "--html", str(html), "--out", str(out), "--chromium", CHROMIUM])
    lines: dict[str, list[str]] = {}
    for line in buf.getvalue().splitlines():
        m = re.match(r"(ok  |FAIL) ([\w/]+): (.*)", line)
        if m:
            lines.setdefault(m[2], []).append(f"{m[1].strip()} {m[3]}")
    return rc, lines, buf.getvalue()


def test_checker_passes_on_a_good_page(site, tmp_path):
    src, html = site
    rc, lines, out = run_checker(src, html, ["good"], tmp_path)
    assert rc == 0, out
    [line] = lines["good"]
    assert line.startswith("ok ") and "formulas 2/2 typeset" in line and "1 images, 1/1 <img> loaded in the browser" in line, line
    shot = tmp_path / "good.png"
    from PIL import Image

    with Image.open(shot) as img:
        assert img.width == 1280 and img.height >= 1000, img.size
        assert img.convert("L").getextrema()[0] < 250, "the screenshot is blank"


@pytest.fixture(scope="module")
def broken_run(site, tmp_path_factory):
    """One checker run over the good page and every broken one (one Chromium profile)."""
    src, html = site
    return run_checker(src, html, ["good", *BROKEN], tmp_path_factory.mktemp("shots"))


# the page, and what its FAIL line(s) must say
EXPECTED = {
    "nofig": [r"<img src=_images/nofig\.png> points to a missing or empty file",
              r"<img src=_images/nofig\.png> did not load in the browser"],
    "badmath": [r"MathJax errors: \['Double exponent"],
    "untypeset": [r"only 0 of 2 formulas typeset by MathJax", r"raw TeX \[.*'\\\\\(.*\] visible in the page text"],
    "corrupt": [r"<img src=_images/corrupt\.png> did not load in the browser"],
    "jserror": [r"1 error\(s\) on the browser console: Uncaught ReferenceError: skilibNoSuchFunction is not defined "
                r"\(jserror\.html:\d+\)"],
    "errnb": [r"the executed notebook \w+/errnb\.ipynb has 1 error output\(s\): cell 1 \[In 3\]: "
              r"ZeroDivisionError: division by zero"],
    "absent": [r"the table of contents lists 'absent' but the build has no absent\.html"],
}


@pytest.mark.slow
def test_checker_fails_and_keeps_the_good_page(broken_run):
    rc, lines, out = broken_run
    assert rc == 1, out
    assert [line[:2] for line in lines["good"]] == ["ok"], out
    assert sorted(p for p, ls in lines.items() if any(s.startswith("FAIL") for s in ls)) == sorted(BROKEN), out
    assert re.search(r"check_book_pages: 8 pages, 7 with problems, 0 network references", out), out


@pytest.mark.slow
@pytest.mark.parametrize("page", BROKEN)
def test_checker_names_the_page_and_the_problem(broken_run, page):
    rc, lines, out = broken_run
    got = lines.get(page, [])
    for want in EXPECTED[page]:
        assert any(line.startswith("FAIL") and re.search(want, line) for line in got), \
            f"{page}: no FAIL line matching {want!r}; the checker said:\n" + "\n".join(got)
    if page == "corrupt":  # the file exists and starts like a PNG: only the browser finds it broken
        assert not any("missing or empty" in line or "not an image file" in line for line in got), got


def test_console_error_catcher_is_one_line_and_runs_first(tmp_path):
    """The catcher goes right after <head> and adds no line (inline scripts keep their line numbers)."""
    page = tmp_path / "p.html"
    page.write_text("<!DOCTYPE html>\n<html>\n<head>\n<script>x()</script></head>\n<body>\n</body>\n</html>\n")
    copy = cbp.probe_copy(page, cbp.PROBE, head=cbp.CATCHER)
    text = copy.read_text()
    assert "\n" not in cbp.CATCHER
    assert text.index(cbp.CATCHER) < text.index("<script>x()</script>")
    assert text.splitlines()[3] == "<script>x()</script></head>"  # still line 4
    assert text.index(cbp.PROBE) > text.index("<body>")


def test_notebook_errors_are_read_from_the_executed_notebook(tmp_path):
    """Every error output counts, also where the page hides the cell's output."""
    err = {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": []}
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "x"},
             {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "ok",
              "outputs": [{"output_type": "stream", "name": "stderr", "text": "a warning"}]},
             {"cell_type": "code", "execution_count": 2, "metadata": {"tags": ["remove-output"]}, "source": "f()",
              "outputs": [err]}]
    (tmp_path / "_executed").mkdir()
    (tmp_path / "_executed" / "07_x.ipynb").write_text(json.dumps({"cells": cells}))
    assert cbp.notebook_errors(tmp_path, "_executed/07_x") == ["cell 3 [In 2]: ValueError: bad"]
    assert cbp.notebook_errors(tmp_path, "_executed/no_such") == []


def test_probe_attributes_are_read_back():
    dom = cbp.parse('<html data-scroll-height="900" data-images=\'{"n": 3, "broken": ["a.png"]}\' '
                    'data-console-errors=\'["console.error: x"]\'><body></body></html>')
    assert (dom.scroll_height, dom.images_measured, dom.broken_images, dom.console_errors) == \
        (900, 3, ["a.png"], ["console.error: x"])
    assert cbp.parse("<html><body></body></html>").images_measured is None


FAKE_CHROMIUM = """#!/bin/bash
# a stand-in for Chromium: hangs (with a helper process, as Chromium has) while {hangs} exists
# and its count of calls is below {n}; else writes the screenshot it is asked for and a page
calls=$(( $(cat {count} 2>/dev/null || echo 0) + 1 )); echo $calls > {count}
if [ $calls -le {n} ]; then sleep 300 & echo $! >> {helpers}; wait; fi
for a in "$@"; do case $a in --screenshot=*) printf 'png' > "${{a#--screenshot=}}";; esac; done
echo '<html><body>drawn</body></html>'
"""


def fake_chromium(tmp_path, hangs: int) -> tuple[Path, Path, Path]:
    exe, count, helpers = tmp_path / "chromium", tmp_path / "calls", tmp_path / "helpers"
    exe.write_text(FAKE_CHROMIUM.format(hangs=count, n=hangs, count=count, helpers=helpers))
    exe.chmod(0o755)
    return exe, count, helpers


def alive(pid: int, wait: float = 5.0) -> bool:
    """True if the process still runs after ``wait`` s (a SIGKILL is delivered asynchronously;
    a zombie, killed but not yet reaped by its new parent, does not run)."""
    import time

    end = time.monotonic() + wait
    while True:
        try:
            if "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text():
                return False
        except FileNotFoundError:
            return False
        if time.monotonic() > end:
            return True
        time.sleep(0.05)


@pytest.mark.parametrize("hangs", [1, 2])
def test_a_hung_chromium_is_killed_and_run_again(tmp_path, capsys, hangs):
    """A run that hangs is killed with the processes it started, and the next attempt's answer
    is the result: the screenshot is there, and stderr says how many attempts hung."""
    exe, count, helpers = fake_chromium(tmp_path, hangs)
    shot = tmp_path / "page.png"
    r = cbp.chromium(str(exe), str(tmp_path), "file:///page.html", f"--screenshot={shot}", timeout=1.0, attempts=3)
    assert r.returncode == 0 and "<html>" in r.stdout
    assert shot.read_text() == "png"
    assert int(count.read_text()) == hangs + 1
    err = capsys.readouterr().err
    assert err.count("no answer in 1 s for file:///page.html") == hangs
    pids = [int(x) for x in helpers.read_text().split()]
    assert len(pids) == hangs and not any(alive(p) for p in pids)


def test_a_chromium_that_always_hangs_is_a_failed_run_not_a_traceback(tmp_path, capsys):
    exe, count, helpers = fake_chromium(tmp_path, hangs=99)
    r = cbp.chromium(str(exe), str(tmp_path), "file:///page.html", "--dump-dom", timeout=0.5, attempts=2)
    assert r.returncode == 124 and r.stdout == ""
    assert r.stderr == "chromium hung: no answer in 0.5 s, 2 times"
    assert int(count.read_text()) == 2
    assert capsys.readouterr().err.count("no answer in 0.5 s") == 2
    assert not any(alive(int(p)) for p in helpers.read_text().split())
