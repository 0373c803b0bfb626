# Fresh Debian machine, as root: `make demo` or `make test`.
VENV    ?= .venv
PY      := $(VENV)/bin/python
PIP     := $(VENV)/bin/pip
STAMP   := $(VENV)/.installed
OUT     ?= out
APT_PKGS := tesseract-ocr tesseract-ocr-eng tesseract-ocr-script-latn libtesseract-dev libleptonica-dev pkg-config poppler-utils qpdf
export OMP_THREAD_LIMIT := 1

.PHONY: demo test test-all lint bench system venv clean constraints

system:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:$$missing" >&2; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

$(STAMP): pyproject.toml constraints.txt Makefile
	$(MAKE) system
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -c constraints.txt -e '.[dev,ocr]' || $(PIP) install -q -c constraints.txt -e '.[dev]'
	$(PY) -m starsheets.warmup
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(PY) -m starsheets demo --out $(OUT)

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest

test-all: $(STAMP)
	$(PY) -m pytest -m ''

bench: $(STAMP)
	$(PIP) install -q -c constraints.txt -e '.[bench]'
	$(PY) bench/run_all.py

constraints: $(STAMP)
	@{ sed -n '1,3p' constraints.txt; $(PIP) freeze --exclude-editable | grep -v '^-e'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .ruff_cache
