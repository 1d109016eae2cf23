package main

import (
	"context"
	"errors"
	"io"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/capture"
	"github.com/mnemo-dev/mnemo/cmd/mnemo/internal/capturecli"
)

// runCapture is `mnemo capture` when main runs it: with a help flag, a CPU
// profile, or in a test. The binary's own `mnemo capture` has usually run
// and exited before main, from capturecli's init.
func runCapture(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return capturecli.Run(ctx, args, stdin, stderr)
}

// captureKinds are the codes of the capture package's kinds of error.
var captureKinds = []struct {
	kind error
	code string
}{
	{capture.ErrInvalid, mnemo.EINVALID},
	{capture.ErrNotFound, mnemo.ENOTFOUND},
	{capture.ErrTooLarge, mnemo.ETOOLARGE},
}

// captureCoded gives an error of the capture package the code of its
// kind; any other error is returned as it is.
func captureCoded(err error) error {
	for _, k := range captureKinds {
		if errors.Is(err, k.kind) {
			return &mnemo.Error{Code: k.code, Message: err.Error()}
		}
	}
	return err
}
