"""Typeset the book's equations with a MathJax that ships inside the built HTML.

Sphinx's ``sphinx.ext.mathjax`` loads MathJax from a CDN by default, so a book read without
network access shows raw TeX. This extension copies the MathJax 3 distribution of the PyPI
package ``sphinx-mathjax-offline`` (the ``book`` extra of pyproject.toml) into
``_build/html/_static/mathjax/`` when the HTML build finishes; ``_config.yml`` points
``mathjax_path`` there.  The files come from the installed package at build time and are
never committed.

The SVG-output component (``tex-svg-full.js``) is used rather than the default CommonHTML
one: SVG output draws every glyph as a path, so no web fonts have to be fetched, and
browsers refuse font loads between ``file://`` pages (the book is meant to be opened as
``book/_build/html/index.html``).  The ``-full`` component contains every TeX extension, so
nothing is loaded on demand either.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from sphinx.errors import ConfigError, ExtensionError
from sphinx.util import logging
from sphinx.util.fileutil import copy_asset

PACKAGE = "sphinx-mathjax-offline"  # its import name has dashes; find_spec handles that
PREFIX = "mathjax/"                 # under _static/
logger = logging.getLogger(__name__)


def mathjax_source() -> Path:
    """The MathJax distribution inside the installed package (ExtensionError if missing)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise ExtensionError(f"offline_mathjax: the Python package '{PACKAGE}' is not installed; "
                             "install the book dependencies: pip install -e '.[book]'")
    src = Path(spec.origin).parent / "static" / "mathjax"
    if not src.is_dir():
        raise ExtensionError(f"offline_mathjax: {src} is missing; reinstall '{PACKAGE}'")
    return src


def check_config(app, config) -> None:
    """mathjax_path must name a component of the local copy, never a URL."""
    path = config.mathjax_path or ""
    if not path.startswith(PREFIX):
        raise ConfigError(f"offline_mathjax: mathjax_path = {path!r}; it must be a file under "
                          f"'{PREFIX}' (the local MathJax copy in _static/), e.g. '{PREFIX}tex-svg-full.js'")
    component = mathjax_source() / path[len(PREFIX):]
    if not component.is_file():
        raise ConfigError(f"offline_mathjax: mathjax_path = {path!r}, but {component} does not exist")


def copy_mathjax(app, exc) -> None:
    if exc is not None or app.builder.format != "html":
        return
    dest = Path(app.outdir) / "_static" / PREFIX.rstrip("/")
    copy_asset(str(mathjax_source()), str(dest))
    logger.info(f"offline_mathjax: MathJax copied to {dest}")


def setup(app):
    app.setup_extension("sphinx.ext.mathjax")
    app.connect("config-inited", check_config)
    app.connect("build-finished", copy_mathjax)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
