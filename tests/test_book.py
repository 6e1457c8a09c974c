"""Static checks of the Jupyter Book sources (no build): what `make book` needs from book/.

- the table of contents lists every page and every numbered notebook, and only files that exist;
- nothing in _config.yml reaches the network, and MathJax comes from the local copy
  (book/_ext/offline_mathjax.py), whose guard rejects a CDN path;
- Jupyter Book stays 1.x (2.x fetches its theme at build time);
- every numbered display carries the thesis's equation number beside ours;
- the page checker of `make screenshots` flags remote references, untypeset math and raw TeX.
The built pages themselves are checked in headless Chromium by `make screenshots`.
"""
import importlib.metadata
import importlib.util
import re
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def toc_files():
    """The root and every file of _toc.yml, in reading order."""
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    found = [toc["root"]]

    def walk(node):
        if isinstance(node, list):
            for child in node:
                walk(child)
        elif isinstance(node, dict):
            if "file" in node:
                found.append(node["file"])
            for key in ("parts", "chapters", "sections"):
                walk(node.get(key) or [])

    walk(toc)
    return found


def strings(node):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from strings(v)
    elif isinstance(node, str):
        yield node


def test_toc_lists_every_page_and_notebook_and_nothing_else():
    listed = toc_files()
    assert len(listed) == len(set(listed)), f"listed twice: {sorted(f for f in listed if listed.count(f) > 1)}"
    for f in listed:
        if f.startswith("_executed/"):
            src = ROOT / "notebooks" / f"{f.split('/', 1)[1]}.ipynb"
            assert src.exists(), f"_toc.yml lists {f}, but there is no notebook {src.relative_to(ROOT)}"
        else:
            assert (BOOK / f"{f}.md").exists(), f"_toc.yml lists {f}, but book/{f}.md does not exist"
    pages = {p.stem for p in BOOK.glob("*.md")}
    assert pages <= set(listed), f"pages missing from _toc.yml: {sorted(pages - set(listed))}"
    nbs = {f"_executed/{p.stem}" for p in NOTEBOOKS}
    assert nbs <= set(listed), f"notebooks missing from _toc.yml: {sorted(nbs - set(listed))}"


def test_chapters_mirror_the_thesis():
    order = toc_files()
    want = ["intro", "theory", "_executed/01_theory_checks", "verification", "skier_model",
            "_executed/02_fourier_fit", "results", "_executed/03_single_phases", "_executed/04_long_run",
            "_executed/05_sensitivity", "_executed/06_conclusions", "differences", "data_provenance", "references"]
    assert [f for f in order if f in want] == want, order


def test_config_reaches_no_network():
    cfg = yaml.safe_load((BOOK / "_config.yml").read_text())
    urls = [s for s in strings(cfg) if re.search(r"(https?:)?//", s)]
    assert not urls, f"_config.yml names network locations: {urls}"
    sphinx = cfg["sphinx"]["config"]
    exts = sphinx["extensions"]
    assert "sphinx_thebe" not in exts and "sphinx.ext.intersphinx" not in exts, exts
    assert "offline_mathjax" in exts and cfg["sphinx"]["local_extensions"]["offline_mathjax"] == "_ext"
    assert sphinx["mathjax_path"].startswith("mathjax/")
    assert cfg["execute"]["execute_notebooks"] == "off", "papermill executes the notebooks, not Jupyter Book"


@pytest.fixture()
def offline_mathjax():
    pytest.importorskip("sphinx")
    sys.path.insert(0, str(BOOK / "_ext"))
    try:
        import offline_mathjax
        yield offline_mathjax
    finally:
        sys.path.remove(str(BOOK / "_ext"))


def test_mathjax_component_ships_in_the_installed_package(offline_mathjax):
    if importlib.util.find_spec(offline_mathjax.PACKAGE) is None:
        pytest.skip(f"{offline_mathjax.PACKAGE} not installed (the book extra)")
    path = yaml.safe_load((BOOK / "_config.yml").read_text())["sphinx"]["config"]["mathjax_path"]
    component = offline_mathjax.mathjax_source() / path[len("mathjax/"):]
    assert component.is_file() and component.stat().st_size > 100_000, component
    # SVG output draws its glyphs itself: the component names no web-font file to fetch
    # (the CommonHTML components do: they load .woff fonts next to the page)
    assert b".woff" not in component.read_bytes(), f"{component.name} loads web fonts"


def test_mathjax_guard_rejects_a_cdn(offline_mathjax):
    from sphinx.errors import ConfigError

    with pytest.raises(ConfigError, match="must be a file under 'mathjax/'"):
        offline_mathjax.check_config(None, SimpleNamespace(mathjax_path="https://cdn.example.org/mathjax/tex-svg.js"))
    if importlib.util.find_spec(offline_mathjax.PACKAGE) is None:
        pytest.skip(f"{offline_mathjax.PACKAGE} not installed (the book extra)")
    with pytest.raises(ConfigError, match="does not exist"):
        offline_mathjax.check_config(None, SimpleNamespace(mathjax_path="mathjax/no-such-component.js"))
    offline_mathjax.check_config(None, SimpleNamespace(mathjax_path="mathjax/tex-svg-full.js"))


def test_jupyter_book_is_1x():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["book"]
    jb = [d for d in extra if d.lower().replace("_", "-").startswith("jupyter-book")]
    assert jb and "<2" in jb[0].replace(" ", ""), f"the book extra must pin jupyter-book below 2: {jb}"
    try:
        version = importlib.metadata.version("jupyter-book")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("jupyter-book not installed")
    assert int(version.split(".")[0]) == 1, f"jupyter-book {version} installed; 2.x cannot build offline"


def test_every_numbered_display_names_the_thesis_equation():
    """The chapters that restate the thesis (ch. 3 and 4) put its number under each display."""
    display = re.compile(r"^\$\$\n((?:(?!^\$\$).)*?)\n\$\$ \((eq-[\w-]+)\)", re.S | re.M)
    n = 0
    for page in (BOOK / "theory.md", BOOK / "skier_model.md"):
        for body, label in display.findall(page.read_text()):
            n += 1
            assert re.search(r"thesis eqs?\. \d+", body), f"{page.name} ({label}): no thesis equation number"
    assert n >= 9, f"only {n} numbered displays found"


def test_synthetic_data_are_called_synthetic():
    for name in ("intro.md", "data_provenance.md", "skier_model.md"):
        assert "synthetic" in (BOOK / name).read_text().lower(), name


def test_page_checker_flags_what_it_should():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import check_book_pages as cbp
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    static = cbp.parse('<html><head><script src="https://cdn.example.org/x.js"></script>'
                       '<script>const U = "https://unpkg.com/y";</script>'
                       '<link rel="stylesheet" href="_static/a.css"></head><body><main>'
                       '<div class="math notranslate">\\[ a = b \\]</div><span class="math">\\(x\\)</span>'
                       '<img src="../_images/f.png"></main></body></html>')
    assert static.remote == ["<script src=https://cdn.example.org/x.js>"]
    assert static.inline_urls == ["https://unpkg.com/y"]
    assert static.math_nodes == 2 and static.images == ["../_images/f.png"]
    assert "\\[" in " ".join(static.text)  # untypeset TeX is visible text
    typeset = cbp.parse('<main><div class="math"><mjx-container><svg></svg><mjx-assistive-mml>'
                        '<math><mi>a</mi></math></mjx-assistive-mml></mjx-container></div>'
                        '<pre>print("$$")</pre></main>')
    assert typeset.mjx == 1 and not [t for t in cbp.RAW_TEX if t in " ".join(typeset.text)]
    err = cbp.parse('<mjx-container><g data-mml-node="merror" data-mjx-error="Undefined control sequence \\foo">'
                    '</g></mjx-container>')
    assert err.mjx_errors == ["Undefined control sequence \\foo"]


def test_page_checker_finds_animation_players_and_the_page_height(tmp_path):
    """A notebook that calls to_jshtml must show its player(s); the probe's height is read."""
    import json

    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import check_book_pages as cbp
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    dom = cbp.parse('<html data-scroll-height="38012.4"><body><main><div class="animation">'
                    '<img id="_anim_img1"><div class="anim-controls"></div></div></main></body></html>')
    assert dom.players == 1 and dom.scroll_height == 38012 and dom.images == []  # frame not yet drawn
    player = '<div class="animation"><img id="_anim_img9"><div class="anim-controls"></div></div>'
    cell = {"cell_type": "code", "metadata": {}, "source": "HTML(anim.to_jshtml())",
            "outputs": [{"output_type": "display_data", "data": {"text/html": player}}]}
    (tmp_path / "_executed").mkdir()
    (tmp_path / "_executed" / "07_x.ipynb").write_text(json.dumps({"cells": [cell, cell]}))
    assert cbp.expected_players(tmp_path, "_executed/07_x") == 2
    cell["source"] = "plt.plot()"
    (tmp_path / "_executed" / "08_y.ipynb").write_text(json.dumps({"cells": [cell]}))
    assert cbp.expected_players(tmp_path, "_executed/08_y") is None
    assert "<script>" in cbp.PROBE and "data-scroll-height" in cbp.PROBE


def test_the_build_keeps_and_reads_the_times_it_measured(tmp_path, monkeypatch):
    """--record-times keeps a build's seconds per step as one mode's entry of book/build_times.json
    (the other mode's entry stays), and the next build of that mode reads them back to say how
    long each notebook took; without the file it says nothing."""
    import json

    spec = importlib.util.spec_from_file_location("build_book", ROOT / "scripts" / "build_book.py")
    bb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bb)
    monkeypatch.setattr(bb, "TIMES", tmp_path / "times.json")
    assert bb.expected_times(False) == {} and bb.expected_times(True) == {}
    full = {"measured": "2026-01-01", "seconds": {"05_sensitivity.ipynb": 600.0}, "total_s": 600.0}
    (tmp_path / "times.json").write_text(json.dumps({"full": full}))
    bb.record_times(True, {"01_a.ipynb": 2.0, "jupyter-book build": 3.04})
    got = json.loads((tmp_path / "times.json").read_text())
    assert got["full"] == full and got["quick"]["seconds"] == {"01_a.ipynb": 2.0, "jupyter-book build": 3.0}
    assert got["quick"]["total_s"] == 5.0 and got["quick"]["cpus"] >= 1
    assert bb.expected_times(True) == got["quick"]["seconds"] and bb.expected_times(False) == full["seconds"]
    assert bb._minutes(600.0) == "10 min" and bb._minutes(42.0) == "42 s"
