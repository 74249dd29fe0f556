# Kernel Heuristics Workbook.  Every target sets up .venv itself, so any of
# them can be the first command on a fresh machine.
#
#   make lab         JupyterLab on notebooks/00-start-here.ipynb (a working copy in build/lab)
#   make slides THREAD=2015   one thread as a live slide deck (1280x720, offline)
#   make test        pytest + every notebook through nbval
#   make reproduce   print every reproduced table, headless
#   make bench       pyperf benchmarks, JSON report in build/bench.json
#   make report      execute the notebooks, static HTML in build/report/

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
LAB_ARGS ?=
# Jupyter refuses to start as root unless told; containers often run as root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
# No news feed, no update check: the lab must start and stay quiet with no network.
OFFLINE_FLAGS := --LabApp.news_url=None --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate
PYTEST_ARGS ?=

.PHONY: all lab slides slides-html webassets test reproduce fidelity bench report venv constraints clean distclean notebooks

all: test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Installs the package (editable) with every extra, pinned by constraints.txt
# so a fresh machine gets the versions this repository was tested with.
$(STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade "pip>=23.2"
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[lab,test]"
	# jupyterlab-rise, the talk mode before jupyterlab-slideshow, would take over every notebook with RISE
	# metadata in the lab: a virtualenv that still has it loses it here
	if $(BIN)/python -m pip show --quiet jupyterlab_rise >/dev/null 2>&1; then \
		$(BIN)/python -m pip uninstall --quiet --yes jupyterlab_rise; fi
	mkdir -p $(VENV)/share/jupyter/lab/settings
	cp lib/kernel_workbook/lab_overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	# reveal.js and the widgets' HTML manager (npm): tried here, but a machine without Node.js still gets
	# the lab and the live decks; the static decks, the report and make test ask for them (webassets below)
	$(BIN)/python -m kernel_workbook.webassets install || \
		echo "make venv: going on without the static pages' JavaScript (see above)" >&2
	touch $@

venv: $(STAMP)

# reveal.js and the ipywidgets HTML manager for the static decks and the report, fetched with npm (Node.js),
# pinned by version and integrity (lib/kernel_workbook/webassets.py): nothing is loaded from a CDN.
# Quick once installed; without npm it stops with the reason.
webassets: $(STAMP)
	$(BIN)/python -m kernel_workbook.webassets install

# The lab works in build/lab, a copy that looks like the repository (README,
# data/, docs/ are links to it; notebooks/ and exercises/ are copies): running
# and saving there never touches the committed, CI-executed notebooks that
# `make test` checks (see kernel_workbook/nbtools.py).  MODE=slides for a projector.
LAB_DIR ?= build/lab
MODE ?= lab
lab: $(STAMP)
	$(BIN)/python -m kernel_workbook.nbtools workspace $(LAB_DIR)
	cd $(LAB_DIR) && WORKBOOK_MODE=$(MODE) $(abspath $(BIN))/jupyter lab $(ROOT_FLAG) $(OFFLINE_FLAGS) \
		--ServerApp.root_dir=. $(LAB_ARGS) notebooks/00-start-here.ipynb

# Talk mode: one thread as a live deck (jupyterlab-slideshow: the lab's notebook, widgets and live
# charts work), charts sized for 1280x720, offline; the URL printed opens the deck.
# make slides THREAD=2015  (any unique part of a notebook's name)
THREAD ?= 00-start-here
slides: $(STAMP)
	$(BIN)/kwb present $(THREAD) --dir $(LAB_DIR) $(foreach a,$(LAB_ARGS),--lab-arg=$(a))

# The decks as static reveal.js pages (no kernel, no network; reveal.js copied beside them):
# build/slides/<notebook>.slides.html
slides-html: webassets
	$(BIN)/kwb present --all --html build/slides

# One pytest run: the unit tests and every notebook (nbval-lax: only cells
# marked NBVAL_CHECK_OUTPUT are compared with their committed output).
# -n auto --dist loadfile: one worker per core; a notebook's cells stay on one worker.
# --no-loadscope-reorder: the workers take the files costliest first, as tests/conftest.py orders them
# (tests/ci_order.py), not xdist's most-items-first, which started the long notebooks last.
# Tests, stored fidelity and executed notebooks always fit the machines from the code: no stored fits
# (reproduce/fit_cache.py).
# models.warm first: every model's Numba kernels compiled once, two processes costliest first, so that the
# two pytest workers load them from the cache instead of both compiling a model they reach at the same time.
test: webassets
	KWB_FIT_CACHE=off WORKBOOK_MODE=ci $(BIN)/python -m kernel_workbook.models.warm --jobs 2
	KWB_FIT_CACHE=off WORKBOOK_MODE=ci $(BIN)/python -m pytest tests notebooks exercises \
		-n auto --dist loadfile --no-loadscope-reorder \
		--nbval-lax --nbval-sanitize-with tests/nbval_sanitize.cfg \
		--nbval-cell-timeout=600 --nbval-kernel-startup-timeout=300 $(PYTEST_ARGS)

reproduce: $(STAMP)
	WORKBOOK_MODE=ci $(BIN)/kwb reproduce --all

# Store every modelled thread's reproduction over 8 seed bases in data/fidelity/ (CI size) and
# data/fidelity/full/ (the full size a shell or the lab runs), and regenerate the README's fidelity
# table from them (tests compare the CI size with a fresh seed-base-0 run).  About 3 minutes on 2 cores.
fidelity: $(STAMP)
	KWB_FIT_CACHE=off WORKBOOK_MODE=ci $(BIN)/python -m kernel_workbook.reproduce.fidelity
	KWB_FIT_CACHE=off WORKBOOK_MODE=lab $(BIN)/python -m kernel_workbook.reproduce.fidelity

bench: $(STAMP)
	mkdir -p build
	$(BIN)/kwb bench --json > build/bench.json
	cat build/bench.json
	$(BIN)/python -m kernel_workbook.bench.formats_bench | tee build/bench-formats.txt

report: webassets
	WORKBOOK_MODE=ci $(BIN)/kwb report --out build/report

# Refresh the pins after a deliberate upgrade (then run make test).
constraints: $(STAMP)
	$(BIN)/python -m pip freeze --exclude-editable | grep -v '^-e ' > constraints.txt

clean:
	rm -rf build .pytest_cache
	find lib tests -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)

# Rebuild every notebook from its paired percent script and execute it
# (WORKBOOK_MODE=ci: charts as SVG), so the committed .ipynb has outputs.
NB_PY := $(wildcard notebooks/*.py exercises/*.py exercises/solutions/*.py)
notebooks: $(STAMP)
	for f in $(NB_PY); do \
		$(BIN)/jupytext --quiet --to ipynb --update "$$f" 2>/dev/null || $(BIN)/jupytext --quiet --to ipynb "$$f"; \
		KWB_FIT_CACHE=off WORKBOOK_MODE=ci $(BIN)/jupyter nbconvert --to notebook --execute --inplace \
			--ExecutePreprocessor.timeout=900 --ExecutePreprocessor.store_widget_state=False \
			"$${f%.py}.ipynb" || exit 1; \
		$(BIN)/python -m kernel_workbook.nbtools strip "$${f%.py}.ipynb" || exit 1; \
	done
