# skilib: `make test` and `make book` are the only two commands a fresh clone needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test book bench clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest

book: $(STAMP)
	@echo "make book: the compendium (issue 5) is not built yet; running notebooks that exist"
	@for nb in notebooks/[0-9]*.ipynb; do [ -e "$$nb" ] || continue; echo "$$nb"; done

clean:
	rm -rf $(VENV) book/_build .pytest_cache
