#!/usr/bin/env python
"""Write the "How to read these numbers" box of the results chapters: book/_generated/reading_numbers.md.

    python scripts/reading_numbers.py

book/results.md includes the file.  Every number in it comes from
``skilib.models.thesis.artefacts.model_artefacts`` (two runs of the thesis's cases, a few seconds);
scripts/build_book.py runs this script before it builds the book.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "book" / "_generated" / "reading_numbers.md"


def box(table) -> str:
    from skilib.models.thesis.artefacts import artefacts_markdown

    return (
        "````{admonition} How to read these numbers\n"
        ":class: important\n\n"
        "The thesis's model (ch. 4–5) is rebuilt here as the thesis builds it, and with it some\n"
        "features that belong to the model, not to skiing.  Read the speeds, energies and forces of\n"
        "these chapters with them in mind (each number below is computed by\n"
        "`skilib.models.thesis.artefacts.model_artefacts()` when the book is built):\n\n"
        + artefacts_markdown(table)
        + "\nThe {doc}`differences` page lists where the compendium departs from the thesis.\n"
        "````\n"
    )


def main() -> int:
    from skilib.models.thesis.artefacts import model_artefacts

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(box(model_artefacts()), encoding="utf-8")
    print(f"[reading numbers] written {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
