#!/usr/bin/env python
"""Build the compendium: execute every notebook with papermill, then build the Jupyter Book.

    python scripts/build_book.py            # full settings (what `make book` runs)
    python scripts/build_book.py --quick    # the notebooks' small CI settings
    python scripts/build_book.py --only 02  # execute only notebooks whose name starts so
    python scripts/build_book.py --no-verification  # skip measuring the Verification chapter
    python scripts/build_book.py --record-times     # and keep this build's times in book/build_times.json

The sources in notebooks/ are executed in notebooks/ (so that they find ../data and write
their shared results to notebooks/results/), in name order: later notebooks may read what
earlier ones wrote.  The executed copies go to book/_executed/ (not tracked by git); the
book's table of contents points there.  Then scripts/verification_report.py runs the
verification tests and writes the Verification chapter's tables to book/_generated/ (with
--no-verification it writes tables that say no numbers were produced), and
scripts/reading_numbers.py writes the results chapter's "How to read these numbers" box there.  A notebook that
raises stops the build with a non-zero exit status, and so do a failing verification test
and a failing `jupyter-book build`.

Each notebook's console line gives the time it took when the build was last measured (the
tracked ``book/build_times.json``: seconds per step of a full and of a quick build, with the
date, commit and cores of that build; ``--record-times`` replaces the mode's entry with this
build's times), so that a reader of a long full build knows where it is.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # skilib from this checkout (its notebook runner), as the kernel sees it
NOTEBOOKS = ROOT / "notebooks"
BOOK = ROOT / "book"
EXECUTED = BOOK / "_executed"
REPORT = ROOT / "scripts" / "verification_report.py"
KERNEL = "python3"
TIMES = BOOK / "build_times.json"


def expected_times(quick: bool) -> dict:
    """{step: seconds} of the last measured build of this mode (``TIMES``), or {}."""
    try:
        return json.loads(TIMES.read_text(encoding="utf-8"))["quick" if quick else "full"]["seconds"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def record_times(quick: bool, times: dict) -> None:
    """Keep ``times`` as the measured build of this mode in ``TIMES`` (the other mode's entry stays)."""
    import platform
    import datetime

    try:
        kept = json.loads(TIMES.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        kept = {}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    kept["quick" if quick else "full"] = {
        "measured": datetime.date.today().isoformat(), "commit": commit.stdout.strip() or "unknown",
        "cpus": os.cpu_count(), "machine": platform.machine(), "total_s": round(sum(times.values()), 1),
        "seconds": {k: round(v, 1) for k, v in times.items()}}
    tmp = TIMES.with_suffix(".tmp")
    tmp.write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")
    tmp.replace(TIMES)


def notebooks(only=None):
    found = sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if only:
        found = [p for p in found if any(p.name.startswith(o) for o in only)]
    return found


def toc_files_missing() -> list[str]:
    """Files that book/_toc.yml lists but that do not exist (executed notebooks included)."""
    import yaml

    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    listed, stack = [toc["root"]], [toc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "file" in node:
                listed.append(node["file"])
            stack += [node.get(k) or [] for k in ("parts", "chapters", "sections")]
        elif isinstance(node, list):
            stack += node
    return [f for f in listed if not any((BOOK / f"{f}{ext}").exists() for ext in (".md", ".ipynb"))]


def check_kernel() -> None:
    """The kernel named `python3` must run this interpreter (the project's venv)."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(KERNEL)
    exe = spec.argv[0]
    if exe in ("python", "python3", f"python{sys.version_info[0]}.{sys.version_info[1]}"):
        return  # jupyter_client substitutes sys.executable for a bare "python"
    if Path(exe).resolve() != Path(sys.executable).resolve():
        sys.exit(f"build_book: the Jupyter kernel '{KERNEL}' runs {exe}, not {sys.executable}; "
                 f"run `{sys.executable} -m ipykernel install --sys-prefix --name {KERNEL}`")


def execute(nb: Path, quick: bool, position: str = "", expected: float | None = None) -> float:
    """Execute ``nb`` into book/_executed; ``position`` ("[3/9]") prefixes its console lines.
    Returns the seconds it took."""
    from skilib.studies.notebook import run_notebook

    out = EXECUTED / nb.name
    params = {"quick": bool(quick), "results_dir": "results"}
    t0 = time.perf_counter()
    tag = f"[book] {position} " if position else "[book] "
    took = f", took {_minutes(expected)} when last measured" if expected else ""
    print(f"{tag}{nb.name} executing -> {out.relative_to(ROOT)}{' (quick)' if quick else ''}{took}", flush=True)
    # on a terminal, papermill's bar over the notebook's cells shows where a long notebook is
    run_notebook(nb, out, params, cwd=NOTEBOOKS, kernel_name=KERNEL, progress=sys.stderr.isatty())
    dt = time.perf_counter() - t0
    tag_for_book(out)
    print(f"{tag}{nb.name} done in {dt:.1f} s", flush=True)
    return dt


def tag_for_book(path: Path) -> None:
    """Fold the code of the executed copy (Jupyter Book's `hide-input`: a click shows it) so the
    pages read as a report; drop the default `parameters` cell, which papermill's injected
    cell (kept, it records the settings used) overrides."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.setdefault("tags", [])
        if "parameters" in tags:
            tags.append("remove-cell")
        elif not {"remove-cell", "remove-input", "hide-input", "hide-cell"} & set(tags):
            tags.append("hide-input")
    nbformat.write(nb, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="run the notebooks at their small CI settings")
    ap.add_argument("--only", nargs="*", help="execute only notebooks whose names start with these")
    ap.add_argument("--no-execute", action="store_true", help="reuse book/_executed as it is")
    ap.add_argument("--no-build", action="store_true", help="execute the notebooks only")
    ap.add_argument("--record-times", action="store_true",
                    help=f"keep this build's times as the expected ones in {TIMES.relative_to(ROOT)}")
    ap.add_argument("--no-verification", action="store_true",
                    help="do not run the verification tests; the Verification chapter then says it shows no numbers")
    args = ap.parse_args(argv)

    times = {}
    if not args.no_execute:
        check_kernel()
        EXECUTED.mkdir(parents=True, exist_ok=True)
        nbs = notebooks(args.only)
        if not nbs:
            print("[book] no notebooks found", file=sys.stderr)
            return 1
        expected = expected_times(args.quick)
        if expected:
            print(f"[book] {len(nbs)} notebooks{' (quick)' if args.quick else ''}: the last measured build took "
                  f"{_minutes(sum(expected.values()))} in all", flush=True)
        for i, nb in enumerate(nbs, 1):
            try:
                times[nb.name] = execute(nb, args.quick, f"[{i}/{len(nbs)}]", expected.get(nb.name))
            except Exception as exc:  # papermill's PapermillExecutionError names the cell
                what = f"{getattr(exc, 'ename', type(exc).__name__)}: {getattr(exc, 'evalue', exc)}"
                cell = getattr(exc, "exec_count", None)
                print(f"[book] FAILED: {nb.name}{f' (cell {cell})' if cell else ''}: {what}", file=sys.stderr)
                print(f"[book] the partly executed notebook is {EXECUTED / nb.name}", file=sys.stderr)
                return 1
    if args.no_build:
        return 0
    if args.no_execute:
        for p in EXECUTED.glob("*.ipynb"):
            tag_for_book(p)
    missing = [p.name for p in notebooks() if not (EXECUTED / p.name).exists()]
    if missing:
        print(f"[book] not executed yet: {missing}", file=sys.stderr)
        return 1
    for page in toc_files_missing():
        print(f"[book] WARNING: book/_toc.yml lists '{page}', but book/{page}.md (or .ipynb) does not exist; "
              f"the book is built without it", file=sys.stderr)
    if args.no_verification:
        subprocess.call([sys.executable, str(REPORT), "--skip", "the book was built with `--no-verification`"], cwd=ROOT)
    else:
        t0 = time.perf_counter()
        took = expected_times(args.quick).get("verification report")
        print("[book] measuring the Verification chapter: scripts/verification_report.py"
              + (f" (took {_minutes(took)} when last measured)" if took else ""), flush=True)
        rc = subprocess.call([sys.executable, str(REPORT)], cwd=ROOT)
        if rc:
            print(f"[book] FAILED: the verification report (exit {rc}): "
                  + ("a verification test failed" if rc == 1 else "the tests recorded nothing")
                  + f"; see the output above and {BOOK / '_generated' / 'verification.md'}. The book is not built.",
                  file=sys.stderr)
            return 1
        times["verification report"] = time.perf_counter() - t0
    if subprocess.call([sys.executable, str(ROOT / "scripts" / "reading_numbers.py")], cwd=ROOT):
        print("[book] FAILED: scripts/reading_numbers.py (the results chapter's box)", file=sys.stderr)
        return 1
    jb = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or "jupyter-book"
    t0 = time.perf_counter()
    print("[book] jupyter-book build book/", flush=True)
    # the API pages' autodoc imports skilib: this checkout's, whatever the venv has installed
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    rc = subprocess.call([jb, "build", str(BOOK), "--builder", "html"], cwd=ROOT, env=env)
    if rc:
        print(f"[book] jupyter-book build failed (exit {rc})", file=sys.stderr)
        return rc
    times["jupyter-book build"] = time.perf_counter() - t0
    for k, v in times.items():
        print(f"[book] {k:32s} {v:7.1f} s")
    (BOOK / "_build" / "build_times.json").write_text(json.dumps(
        {"quick": None if args.no_execute else bool(args.quick), "verification": not args.no_verification,
         "seconds": {k: round(v, 1) for k, v in times.items()}}, indent=1))
    if args.record_times and not args.no_execute and not args.only:
        record_times(args.quick, times)
        print(f"[book] times kept in {TIMES.relative_to(ROOT)}")
    print(f"[book] open {BOOK / '_build' / 'html' / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
