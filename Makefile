# Two commands for a fresh clone: `make run` and `make test`. Each bootstraps .venv from pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test test-corpus test-browser bench package lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

# Opens the workbench on the bundled example (headless audit where there is no window to open).
run: $(STAMP)
	$(BIN)/workbench

# The whole default suite, plus ruff. pytest's "no tests collected" (exit 5) counts as a failure.
test: $(STAMP)
	$(BIN)/ruff check .
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "make test: no tests ran" >&2; exit 1; fi; exit $$rc

# Sweeps over every corpus file (slower; not part of `make test`).
test-corpus: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -m corpus_sweep

# The HTML reports opened in headless Chromium (not part of `make test`: it needs `apt-get install chromium`).
test-browser: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -m browser

bench: $(STAMP)
	$(BIN)/python bench/load.py

# A one-folder build of the application in dist/workbench/ (PyInstaller, from packaging/workbench.spec).
package: $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check 'pyinstaller>=6.10'
	$(BIN)/pyinstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller packaging/workbench.spec

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
