# clinsql: see README.md. `make demo` runs the main job, `make test` the tests.
GO       ?= go
BIN      ?= bin/clinsql
SHARED   ?= $(or $(CLINSQL_SHARED),$(abspath ../shared))
OUT      ?= out

.PHONY: build test lint vet fmtcheck demo bench clean

build:
	$(GO) build -o $(BIN) ./cmd/clinsql

# The CI gate: formatting, vet, then every test under the race detector.
test: lint
	$(GO) test -race -timeout 45m ./...

lint: fmtcheck vet

vet:
	$(GO) vet ./...

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

demo: build
	./scripts/demo.sh "$(BIN)" "$(SHARED)" "$(OUT)/demo"

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 60m ./... | tee bench.txt

clean:
	rm -rf bin $(OUT) bench.txt
