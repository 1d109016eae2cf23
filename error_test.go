package mnemo_test

import (
	"testing"

	"github.com/mnemo-dev/mnemo"
)

func TestHTTPStatus(t *testing.T) {
	for code, want := range map[string]int{
		mnemo.EINVALID: 400, mnemo.EUNAUTHORIZED: 401, mnemo.EFORBIDDEN: 403, mnemo.ENOTFOUND: 404,
		mnemo.ECONFLICT: 409, mnemo.ETOOLARGE: 413, mnemo.EMEDIATYPE: 415, mnemo.ERATELIMIT: 429,
		mnemo.EMISMATCH: 500, mnemo.EINTERNAL: 500, mnemo.EUNAVAILABLE: 503, "no such code": 500,
	} {
		if got := mnemo.HTTPStatus(code); got != want {
			t.Errorf("%s: %d, want %d", code, got, want)
		}
	}
}

func TestHTTPCode(t *testing.T) {
	for _, code := range []string{mnemo.EINVALID, mnemo.EUNAUTHORIZED, mnemo.EFORBIDDEN, mnemo.ENOTFOUND, mnemo.ECONFLICT,
		mnemo.ETOOLARGE, mnemo.EMEDIATYPE, mnemo.ERATELIMIT, mnemo.EUNAVAILABLE} {
		if got := mnemo.HTTPCode(mnemo.HTTPStatus(code)); got != code {
			t.Errorf("%s: %s", code, got)
		}
	}
	for _, status := range []int{500, 502, 418, 200} {
		if got := mnemo.HTTPCode(status); got != mnemo.EINTERNAL {
			t.Errorf("%d: %s", status, got)
		}
	}
}
