# Shoal: one multicall executable. `make` builds bin/shoal and its links;
# `make test` runs every test (unit, corpus, e2e) and is what CI runs.
SHELL   := /bin/bash
GO      ?= go
PREFIX  ?= /usr/local
BIN     := bin/shoal
LINKS   := shoal-kernel shoal-mcp shoal-token
FUZZTIME ?= 20s

.PHONY: all build run test test-race conformance bench fuzz install clean vet

all: build

build:
	$(GO) build -o $(BIN) .
	@for l in $(LINKS); do ln -sf shoal bin/$$l; done

run: build
	./$(BIN)

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

# Every test: unit, fuzz seed corpora, the conformance corpus through both
# hosts, e2e against the real binary; then the concurrent packages under -race.
test: vet
	$(GO) test -count=1 -timeout 30m ./...
	$(GO) test -race -count=1 -timeout 30m ./kernel/... ./term/... ./mcp/...

# The corpus through the evaluator and through a kernel session: a table per
# file and the total line "corpus: N passed, N failed, N skipped" for each.
conformance:
	@set -o pipefail; SHOAL_CORPUS_REPORT=1 $(GO) test -count=1 -v -run '^TestCorpus$$' ./lang/eval/ ./kernel/kerneltest/ \
		| grep -Ev '^[[:space:]]*(=== |--- )|^(ok|PASS|FAIL)([[:space:]]|$$)'

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Short, bounded fuzzing of every fuzz target (FUZZTIME each).
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for fn in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$fn ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/shoal
	@for l in $(LINKS); do ln -sf shoal $(DESTDIR)$(PREFIX)/bin/$$l; done

clean:
	rm -rf bin
