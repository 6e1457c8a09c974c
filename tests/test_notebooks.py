"""Every notebook in notebooks/ runs end to end under papermill at its small settings.

The notebooks are executed in name order, in groups that share no results (``RUNS``: 01–06,
then each later one alone), each in a temporary copy of notebooks/ (so that they find
../data through the repository and write their results/ into the temporary directory, not into
the checkout), with the parameter ``quick=True`` (shorter runs and fewer sweep points) and one
non-default input each, which the output must reflect (``NON_DEFAULT``); an unknown or invalid
parameter must stop a notebook with an error naming it. A cell
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
# one non-default input per notebook, and a text its output must then contain
NON_DEFAULT = {
    "01": ({"n_states": 3}, "max over 3 random states"),
    "02": ({"harmonics": 8}, "8-harmonic fit (eq. 102 sums)"),
    "03": ({"mass": 70.0, "force_scale": 0.9}, "M = 70 kg; friction 5.305 N; push-off force × 0.9"),
    "04": ({"skating_angle_deg": 40.0}, "skating angle 40° between the skis, each ski ±20° from X"),
    "05": ({"ranges": {"skating_angle_deg": [35.0, 65.0], "phase_time": [0.7, 1.5], "force_scale": [0.5, 1.5],
                       "friction": [0.0, 20.0], "mass": [60.0, 90.0]}}, "35–65 °"),
    "06": ({}, "Results read from"),
    "07": ({"skating_angle_deg": 30.0}, "skating angle 30° between the skis"),
    "08": ({"power": 150.0}, "The optimum at **150 W** mean leg power"),
    "09": ({"noise_mm": 2.0}, "marker noise 2 mm"),
    "10": ({"perturbation": 0.001}, "periodic stroke by 0.001 m/s in speed"),
    "11": ({"slopes_percent": [0.0, 3.0], "pole_force_max": 120.0}, "120 N per pole"),
    "12": ({"metabolic_power": 500.0}, "at 500 W metabolic with the laws free"),
    "13": ({"speeds": [4.5], "slopes_percent": [0.0, 2.0]}, "speeds 4.5 m/s on gradients 0, 2 %"),
}


# what a sentence assembled from pieces must never read: a missing value, or two pieces that do
# not fit ("comes within 1 % of u0 at not within the 4 strokes")
GENERATED_SLIPS = re.compile(r"stroke None|\bat not\b|\bat at\b|\bnan (?:m/s|W|J|%)|(?<![\w\\])\{[a-z_]+\}")


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
            # a caption is a markdown cell, or a code cell that writes it from the inputs
            ok = nxt is not None and (
                (nxt.cell_type == "markdown" and nxt.source.lstrip().startswith("**Figure"))
                or (nxt.cell_type == "code" and re.search(r"Markdown\(\s*f?\"\*\*Figure \d", nxt.source)))
            assert ok, f"{where}: the figure needs a caption cell '**Figure N.M.** ...' right after it"
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


def _text(nb) -> str:
    parts = []
    for c in nb.cells:
        for o in c.get("outputs", []):
            parts.append(o.get("text", ""))
            parts += [str(v) for k, v in o.get("data", {}).items() if k.startswith("text/")]
    return "\n".join(parts)


def _run(src, out, parameters, cwd):
    from skilib.studies.notebook import run_notebook

    return run_notebook(src, out, parameters, cwd=cwd, kernel_name=KERNEL)


def test_every_notebook_has_a_non_default_check():
    assert sorted(NON_DEFAULT) == sorted(p.name[:2] for p in NOTEBOOKS)


@pytest.mark.parametrize("params, match", [
    ({"skating_angle": 40.0}, "unknown parameter 'skating_angle'"),
    ({"strokes": 0}, "parameter strokes: must be an integer >= 2"),
    ({"skating_angle_deg": "wide"}, "parameter skating_angle_deg: must be a finite number"),
])
def test_an_unknown_or_invalid_parameter_stops_the_notebook(tmp_path, params, match):
    """papermill's `-p skating_angle 40` (a misspelt name) is an error naming it, not a silent default."""
    src = NOTEBOOK_DIR / "04_long_run.ipynb"
    with pytest.raises(papermill.PapermillExecutionError) as err:
        _run(src, tmp_path / src.name, {"quick": True, "results_dir": str(tmp_path / "r"), **params}, tmp_path)
    assert match in str(err.value.evalue), err.value.evalue
    assert err.value.exec_count <= 3, "the parameters are checked at the top, before any work"


# The notebooks run in groups that share nothing: the conclusions (06) read what 01–05 wrote,
# every later notebook stands alone. Each group is one test with its own xdist group, so that
# `make test` runs them on both cores at once (tests/conftest.py).
CHAIN = [p for p in NOTEBOOKS if p.name[:2] <= "06"]
RUNS = [CHAIN] + [[p] for p in NOTEBOOKS if p.name[:2] > "06"]


@pytest.mark.slow
@pytest.mark.parametrize("group", [pytest.param(g, id="-".join(p.name[:2] for p in g),
                                                marks=pytest.mark.xdist_group("notebooks-" + g[-1].name[:2]))
                                   for g in RUNS])
def test_notebooks_run_quick(tmp_path, group):
    work = tmp_path / "notebooks"
    work.mkdir()
    results = work / "results"
    # notebooks locate the data set through skilib (repository path), so only cwd moves
    timings = {}
    t_all = time.perf_counter()
    for src in group:
        out = work / src.name
        t0 = time.perf_counter()
        extra, expect = NON_DEFAULT[src.name[:2]]
        try:
            _run(src, out, {"quick": True, "results_dir": str(results), **extra}, work)
        except papermill.PapermillExecutionError as exc:
            pytest.fail(f"{src.name} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue}")
        timings[src.name] = time.perf_counter() - t0
        nb = nbformat.read(out, as_version=4)
        assert expect in _text(nb), f"{src.name} run with {extra}: its output does not say {expect!r}"
        broken = [m.group(0) for m in GENERATED_SLIPS.finditer(_text(nb))]
        assert not broken, f"{src.name}: generated sentences read wrongly: {broken[:3]}"
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
        for table in tables:  # the thesis's values carry U+2212: ours must too, one sign per table
            ascii_signs = re.findall(r">[^<]*?(?<![\w.)\]])-(?=\.?\d)[^<]*<", table)
            assert not ascii_signs, f"{src.name}: ASCII minus signs in the thesis table: {ascii_signs[:3]}"
    total = time.perf_counter() - t_all
    print("notebook timings (quick):", {k: round(v, 1) for k, v in timings.items()}, f"total {total:.0f} s")
    assert sorted(p.name for p in results.iterdir()), "the notebooks wrote no results"
    # their run time is printed, not asserted: speed targets live in `make bench`


def test_the_notebook_groups_cover_every_notebook_once():
    assert sorted(p for g in RUNS for p in g) == NOTEBOOKS
