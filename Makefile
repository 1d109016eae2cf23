.PHONY: test build install demo bench

# The whole test suite (installs what the tests need when missing).
test:
	./scripts/test.sh

build:
	CGO_ENABLED=0 go build -o mnemo ./cmd/mnemo

# mnemo in $(go env GOPATH)/bin (or $GOBIN).
install:
	CGO_ENABLED=0 go install ./cmd/mnemo

demo:
	go run ./cmd/mnemo demo
