// Package httpjson is what mnemo's calls of outside JSON APIs share: the
// chat model (llm), the OpenAI-compatible embedder (embed) and the issue
// trackers of push mode. It checks a base URL, sends one request with a
// time limit of the caller's context and reads a bounded answer, maps an
// HTTP status to an error code, takes the provider's message out of an
// error body, keeps the credential out of every error text and waits
// before a retry.
package httpjson

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// BaseURL parses raw, surrounding spaces trimmed, as an absolute http(s)
// URL; ok is false when it is not one.
func BaseURL(raw string) (u *url.URL, ok bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, false
	}
	return u, true
}

// Client calls one API.
type Client struct {
	// HTTP sends the requests (nil: http.DefaultClient).
	HTTP *http.Client
	// Secret is the credential: it never appears in an error's text.
	Secret string
	// Limit is the most of an answer read, in bytes.
	Limit int64
	// Header sets the headers of every request (authentication, protocol);
	// Accept is application/json unless it sets another.
	Header func(http.Header)
}

// Bearer is a Client.Header that sends key as a bearer token, if any.
func Bearer(key string) func(http.Header) {
	return func(h http.Header) {
		if key != "" {
			h.Set("Authorization", "Bearer "+key)
		}
	}
}

// Do sends one request (body, when not nil, as application/json) and
// returns the answer's status and headers with up to Limit bytes of its
// body, whatever the status. An error means no answer was read: its text,
// the credential taken out, says whether sending or reading failed.
func (c *Client) Do(ctx context.Context, method, rawURL string, body []byte) (*http.Response, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
	if err != nil {
		return nil, nil, fmt.Errorf("%s", c.Redact(err.Error()))
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Header != nil {
		c.Header(req.Header)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		// url.Error names the URL, which holds no credentials.
		return nil, nil, fmt.Errorf("%s", c.Redact(err.Error()))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.Limit))
	if err != nil {
		return nil, nil, fmt.Errorf("read response: %s", c.Redact(err.Error()))
	}
	return resp, data, nil
}

// Redact takes the credential out of s.
func (c *Client) Redact(s string) string {
	if c.Secret == "" {
		return s
	}
	return strings.ReplaceAll(s, c.Secret, "[redacted]")
}

// Code is the error code of an answer's status that is not a success:
// EUNAUTHORIZED for 401 and 403, ETOOLARGE for 413, ERATELIMIT for 429,
// EINVALID for the other 4xx, EINTERNAL for the rest.
func Code(status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return mnemo.EUNAUTHORIZED
	case status == http.StatusRequestEntityTooLarge:
		return mnemo.ETOOLARGE
	case status == http.StatusTooManyRequests:
		return mnemo.ERATELIMIT
	case status >= 400 && status < 500:
		return mnemo.EINVALID
	}
	return mnemo.EINTERNAL
}

// Message is the provider's text in an error body, on one line and at
// most 300 characters: {"error":{"message":...}} (OpenAI), {"error":"..."}
// (Ollama, Plane), {"message":...} (GitHub), {"detail":...} (Plane), else
// the body itself; the status's name when that is empty.
func Message(status int, body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	s := ""
	if json.Unmarshal(body, &v) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		var str string
		var other any
		switch {
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			s = obj.Message
		case json.Unmarshal(v.Error, &str) == nil && str != "":
			s = str
		case v.Message != "":
			s = v.Message
		case json.Unmarshal(v.Error, &other) == nil && other != nil:
			s = fmt.Sprint(other)
		case v.Detail != nil:
			s = fmt.Sprint(v.Detail)
		}
	}
	if s == "" {
		s = string(body)
	}
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "")), " ")
	if s == "" {
		return http.StatusText(status)
	}
	if r := []rune(s); len(r) > 300 {
		s = string(r[:299]) + "…"
	}
	return s
}

// Wait waits d, before a retry, or until ctx is done (its error).
func Wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
