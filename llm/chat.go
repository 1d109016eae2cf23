// Package llm is mnemo's optional language model: a chat model behind an
// OpenAI-compatible /chat/completions endpoint (a local Ollama, llama.cpp
// server or vLLM, or a hosted service) that answers JSON objects. It is
// used only off the request path of recall and digest (push-mode
// summaries, episodes, extraction from threads, the intent of queries
// the rules call general, asked in the background), always with a
// deterministic fallback: on a timeout, a refusal or an answer that is not
// the JSON object asked for, the caller's own rules make the result.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
)

// Model is a chat model that answers one JSON object per request.
type Model interface {
	// Name names the model in records and reports ("chat:MODEL").
	Name() string
	// JSON sends req and decodes the model's answer, one JSON object,
	// into out (unknown fields ignored). Errors: ErrRefused when the model
	// declines, ErrInvalid when the answer is not a JSON object of the
	// right shape or was cut off, mnemo codes for transport failures, and
	// ctx's error when it is done.
	JSON(ctx context.Context, req Request, out any) error
}

// Request is one question to the model.
type Request struct {
	System string // what the model is and the JSON shape it must answer
	User   string // the material
	// MaxTokens bounds the answer (default: the model's configuration).
	MaxTokens int
}

// Sentinel errors of Model.JSON.
var (
	ErrRefused = errors.New("the model declined to answer")
	ErrInvalid = errors.New("the model's answer is not the JSON object asked for")
)

// decodeObject finds the JSON object in a model's answer — bare, or in a
// ```json fence, or after a sentence of preamble — and decodes it into out.
func decodeObject(content string, out any) error {
	s := strings.TrimSpace(content)
	if i := strings.Index(s, "```"); i >= 0 {
		rest := s[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.HasPrefix(strings.TrimSpace(rest[:nl]), "{") {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			rest = rest[:j]
		}
		s = strings.TrimSpace(rest)
	}
	start := strings.IndexByte(s, '{')
	if start < 0 {
		return ErrInvalid
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s[start:])))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return errors.Join(ErrInvalid, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return errors.Join(ErrInvalid, err)
	}
	return nil
}
