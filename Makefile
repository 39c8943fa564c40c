# Two commands on a fresh machine: `make demo` and `make test`. Each builds the
# virtualenv on first use and rebuilds it when pyproject.toml changes.

VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
EXTRAS ?= dev,eval
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false
export POSTHOG_DISABLED := 1
export GRAPHITI_TELEMETRY_ENABLED := false

# graphmem needs Python >= 3.12 (falkordblite does); find one without guessing wrong.
PYTHON_BOOT ?= $(shell for p in python3.12 python3.13 python3 $(wildcard $(HOME)/.pyenv/versions/3.1[23]*/bin/python3) /usr/bin/python3.12 /usr/local/bin/python3.12; do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1 && { echo $$p; break; }; done)

.PHONY: venv test demo bench notebooks forget-llm clean-venv

$(STAMP): pyproject.toml
	@test -n "$(PYTHON_BOOT)" || { echo "graphmem needs Python >= 3.12; none found (set PYTHON_BOOT=...)" >&2; exit 1; }
	@test -x $(PY) || $(PYTHON_BOOT) -m venv $(VENV)
	@echo "Installing graphmem and its dependencies into $(VENV). The first build fills about"
	@echo "6 GB (PyTorch with the CUDA libraries PyPI's torch brings) and takes minutes;"
	@echo "later builds reuse pip's cache."
	$(PY) -m pip install -e '.[$(EXTRAS)]'
	@touch $@

venv: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

demo: $(STAMP)
	$(PY) -m graphmem.demo

bench: $(STAMP)
	$(PY) -m bench

# The forgetting set through the LLM path (a rules-backed scripted LLM on loopback),
# so the LLM-cache column applies to every item.
forget-llm: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) tests/forget_set_llm.py

clean-venv:
	rm -rf $(VENV)

# Execute the analyst notebooks and render them to HTML in notebooks/_html/ (git-ignored).
notebooks: $(STAMP)
	$(PY) notebooks/render.py --out notebooks/_html
