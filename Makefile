# The README's commands. Each target creates or reuses .venv and installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench release-check install clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

CHROMIUM := /usr/bin/chromium

# The web client's browser test drives Debian's Chromium; no browser download.
$(CHROMIUM):
	@command -v apt-get >/dev/null || { echo "make test: install Chromium at $(CHROMIUM) (Debian/Ubuntu: apt-get install -y chromium)" >&2; exit 1; }
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

install: $(STAMP)

run: $(STAMP)
	$(BIN)/spades dev

test: $(STAMP) $(CHROMIUM)
	$(BIN)/python -m pytest tests --ignore=tests/bench --ignore=tests/release --durations=25

lint: $(STAMP)
	$(BIN)/ruff check engine schemas services spades_client tests
	$(BIN)/mypy engine schemas services spades_client tests

bench: $(STAMP)
	$(BIN)/python -m tests.bench

# The wheel built from the tree, installed into an empty virtual environment, runs the
# four services with no source tree beside it (one to three minutes: left out of `make test`).
release-check: $(STAMP)
	$(BIN)/python -m pytest tests/release -n 0

clean:
	rm -rf $(VENV)
