# skilib: `make test` and `make book` are the only two commands a fresh clone needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# quick=1 runs the notebooks at their small CI settings (make book quick=1)
BOOK_FLAGS := $(if $(quick),--quick,)
# test processes (pytest-xdist): one per core; JOBS=1 runs the suite in this process
JOBS ?= auto
# make notebook NB=04 ARGS="-p skating_angle_deg 40 -p quick True": one notebook, your parameters
NB   ?=
ARGS ?=

.PHONY: test check book notebook screenshots bench clean venv

venv: $(STAMP)

# The venv's own Jupyter kernel (share/jupyter/kernels/python3, installed with ipykernel)
# runs the notebooks; --sys-prefix re-installs it there in case an older ipykernel left none.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,book,sensitivity,c3d,ocp]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (skilib .venv)" > /dev/null
	touch $(STAMP)

# Test files are spread over the cores whole (a file's fixtures are built once), the notebook
# runs one by one and first (--dist loadgroup, the groups of tests/conftest.py, in their order).
# `make test` leaves out the tests marked slow (a few seconds to minutes each: the notebooks, the
# README and the usage page run as scripts, the long solves) and those marked check.
XDIST := $(if $(filter 1,$(JOBS)),,-n $(JOBS) --dist loadgroup --no-loadscope-reorder)
test: $(STAMP)
	$(BIN)/python -m pytest -m "not check and not slow" $(XDIST)

# Slow checks, which CI runs after `make test`: first every test marked slow, on every core (the
# notebooks at their small settings, each with one non-default input; the README's and the usage
# page's snippets as written; the long solves), then, one by one, every test marked `check`: the
# cross-path comparisons (tests marked cross_path, the kept Sobol rows among them) again under two
# other processors' OpenBLAS kernels, their error/tolerance ratios listed (tests/test_margins.py);
# the optimizers' duality under the physiological budget (tests/test_physiology.py); the
# documented `skilib optimum` commands as written.
check: $(STAMP)
	$(BIN)/python -m pytest -m "slow and not check" -p no:cacheprovider $(XDIST) tests
	$(BIN)/python -m pytest -m check -s -p no:cacheprovider tests

# Executes notebooks/<NB>_*.ipynb with papermill, in notebooks/ (it finds ../data there), into
# runs/<name>.ipynb, its result files into runs/results_<NB>/ (runs/ is not tracked by git).
notebook: $(STAMP)
	@test -n "$(NB)" || { echo "make notebook: say which, e.g. make notebook NB=04 ARGS=\"-p quick True\"" >&2; exit 2; }
	@nb=$$(ls notebooks/$(NB)_*.ipynb 2>/dev/null | head -n 1); \
	test -n "$$nb" || { echo "make notebook: no notebook notebooks/$(NB)_*.ipynb" >&2; exit 2; }; \
	mkdir -p runs; \
	$(BIN)/papermill "$$nb" "runs/$$(basename $$nb)" --cwd notebooks --kernel python3 \
		-p results_dir "$(CURDIR)/runs/results_$(NB)" $(ARGS)

# Executes every notebook with papermill into book/_executed/ (a failing notebook stops
# the build), runs the verification tests to measure the errors the Verification chapter
# lists (scripts/verification_report.py; a failing test stops the build), then builds the
# HTML report in book/_build/html (open index.html).
book: $(STAMP)
	$(BIN)/python scripts/build_book.py $(BOOK_FLAGS)

# Speed targets live here, never in timed tests: prints one table and writes it
# as JSON under benchmarks/results/.
bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py

# Screenshot check of the built book (after `make book`): headless Chromium opens every
# chapter offline, saves a PNG and fails if a page was not built, a formula is not typeset, an
# image is missing or does not load, the console shows an error or a cell's output is an error
# (needs chromium: apt-get install chromium; without it only a message, unless STRICT=1)
screenshots:
	PYTHON=$(BIN)/python bash scripts/screenshot_book.sh

clean:
	rm -rf $(VENV) book/_build book/_executed notebooks/results runs .pytest_cache
