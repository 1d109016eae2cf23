.PHONY: test build demo bench

# The whole test suite (installs what the tests need when missing).
test:
	./scripts/test.sh

build:
	CGO_ENABLED=0 go build -o mnemo ./cmd/mnemo

demo:
	go run ./cmd/mnemo demo
