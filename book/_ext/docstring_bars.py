"""Sphinx extension: read ``|x|`` in the package's docstrings as an absolute value, not as a
reStructuredText substitution.

skilib's docstrings are written for ``help()`` and use ``|v|``, ``|C|``, ``|Φ(u) − u|`` for
norms; reStructuredText reads ``|...|`` as a substitution reference and autodoc would
report each one as an undefined substitution.  Every ``|`` of a docstring line is escaped
(``\\|``) except inside ````literal```` spans and on lines that draw a table (a line that
starts with ``+-``/``+=``, or a row ``| … | … |``).  Local, no network.
"""
from __future__ import annotations

import re

_TABLE_LINE = re.compile(r"^\s*(\+[-=]|\|.*\|.*\|\s*$)")


def escape_bars(line: str) -> str:
    if "|" not in line or _TABLE_LINE.match(line):
        return line
    parts = line.split("``")
    for i in range(0, len(parts), 2):  # outside ``literal`` spans
        parts[i] = re.sub(r"(?<!\\)\|", r"\\|", parts[i])
    return "``".join(parts)


def _process(app, what, name, obj, options, lines):
    lines[:] = [escape_bars(line) for line in lines]


def setup(app):
    app.connect("autodoc-process-docstring", _process)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
