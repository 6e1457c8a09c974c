"""Every notebook in notebooks/ runs end to end under papermill at its small settings.

The notebooks are executed in name order in a temporary copy of notebooks/ (so that they find
../data through the repository and write their results/ into the temporary directory, not into
the checkout), with the parameter ``quick=True``: shorter runs and fewer sweep points. A cell
that raises fails the test; so does a warning printed to a notebook's stderr. The kernel
named ``python3`` must run this interpreter (the project's venv), see the Makefile.
"""
import re
import sys
import time
from pathlib import Path

import pytest

papermill = pytest.importorskip("papermill")
nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))
KERNEL = "python3"
BUDGET_S = 240.0  # all notebooks together, quick settings, 2 cores


def test_there_are_notebooks_with_a_parameters_cell():
    assert len(NOTEBOOKS) >= 5, [p.name for p in NOTEBOOKS]
    for p in NOTEBOOKS:
        nb = nbformat.read(p, as_version=4)
        tagged = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == 1, f"{p.name}: needs exactly one cell tagged 'parameters'"
        src = tagged[0].source
        assert "quick" in src and "results_dir" in src, f"{p.name}: parameters must define quick and results_dir"
        assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
            f"{p.name}: commit notebooks without outputs (papermill writes the executed copies)"


PLOT_CALL = re.compile(r"plt\.(subplots|figure)\(")
AXIS_LABEL = re.compile(r"""[xy]label\s*[=(]\s*f?(['"])(.*?)\1""")


def test_every_figure_has_unit_labels_and_a_caption():
    """Each plotting cell labels its axes with units in [brackets] (an x-axis of named categories
    needs no label) and is followed by a markdown caption "**Figure N.M.** ..."."""
    n_fig = 0
    for p in NOTEBOOKS:
        nb = nbformat.read(p, as_version=4)
        for i, c in enumerate(nb.cells):
            if c.cell_type != "code" or not PLOT_CALL.search(c.source):
                continue
            n_fig += 1
            where = f"{p.name}, cell {i}"
            labels = [m.group(2) for m in AXIS_LABEL.finditer(c.source)]
            categorical_x = "set_xticklabels" in c.source or re.search(r"set_xticks\([^)]*,", c.source)
            assert "ylabel" in c.source and ("xlabel" in c.source or categorical_x), f"{where}: axes without labels"
            assert all("[" in lab and "]" in lab for lab in labels), f"{where}: a label without [unit]: {labels}"
            nxt = nb.cells[i + 1] if i + 1 < len(nb.cells) else None
            assert nxt is not None and nxt.cell_type == "markdown" and nxt.source.lstrip().startswith("**Figure"), \
                f"{where}: the figure needs a caption cell '**Figure N.M.** ...' right after it"
    assert n_fig >= 10, n_fig


def test_kernel_is_this_interpreter():
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(KERNEL)
    exe = spec.argv[0]
    if exe not in ("python", "python3"):
        assert Path(exe).resolve() == Path(sys.executable).resolve(), (
            f"kernel '{KERNEL}' runs {exe}, not {sys.executable}: "
            f"run `{sys.executable} -m ipykernel install --sys-prefix --name {KERNEL}`")


def _stderr_warnings(nb):
    bad = []
    for i, c in enumerate(nb.cells):
        for o in c.get("outputs", []):
            if o.get("output_type") == "stream" and o.get("name") == "stderr" and "Warning" in o.get("text", ""):
                bad.append((i, o["text"][:300]))
    return bad


def test_notebooks_run_quick(tmp_path):
    work = tmp_path / "notebooks"
    work.mkdir()
    results = work / "results"
    # notebooks locate the data set through skilib (repository path), so only cwd moves
    timings = {}
    t_all = time.perf_counter()
    for src in NOTEBOOKS:
        out = work / src.name
        t0 = time.perf_counter()
        try:
            papermill.execute_notebook(str(src), str(out), parameters={"quick": True, "results_dir": str(results)},
                                       kernel_name=KERNEL, cwd=str(work), progress_bar=False,
                                       request_save_on_cell_execute=False)
        except papermill.PapermillExecutionError as exc:
            pytest.fail(f"{src.name} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue}")
        timings[src.name] = time.perf_counter() - t0
        nb = nbformat.read(out, as_version=4)
        assert not _stderr_warnings(nb), f"{src.name}: warnings in the output: {_stderr_warnings(nb)}"
        images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
        assert images or src.name.startswith("06"), f"{src.name}: no figure was rendered (matplotlib backend?)"
        errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, f"{src.name}: error outputs {errors[:1]}"
        # every notebook ends with its "this project vs. thesis" table
        last = [c for c in nb.cells if c.cell_type == "code" and c.get("outputs")][-1]
        tables = [o["data"]["text/html"] for o in last.outputs if "<table" in o.get("data", {}).get("text/html", "")]
        assert tables and re.search(r"thesis|Bruzzo", tables[-1]), \
            f"{src.name}: the last output must be the 'this project vs. thesis' table"
    total = time.perf_counter() - t_all
    print("notebook timings (quick):", {k: round(v, 1) for k, v in timings.items()}, f"total {total:.0f} s")
    assert sorted(p.name for p in results.iterdir()), "the notebooks wrote no results"
    assert total < BUDGET_S, f"quick notebooks took {total:.0f} s > {BUDGET_S:.0f} s: {timings}"
