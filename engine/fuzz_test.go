package engine_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// FuzzImport feeds arbitrary bytes to Import: it either imports valid
// records or fails with a coded error, never panics, and a failed import
// leaves the store as it was.
func FuzzImport(f *testing.F) {
	f.Add([]byte(`{"id":"01A","layer":"domain","kind":"fact","scope":"/x","text":"hello","importance":0.5,"confidence":1,"criticality":0,"access_level":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","valid_from":"2026-01-01T00:00:00Z","access_count":0,"tokens":3}` + "\n"))
	f.Add([]byte(`{"text":"x"}` + "\n" + `{"text":`))
	f.Add([]byte("\xff\xfe\n{}\n"))
	f.Add([]byte(`{"text":"a","importance":7}`))
	f.Add([]byte(`{"text":"a","unknown":1}`))
	f.Add([]byte(`[1,2,3]`))
	f.Add([]byte(`{"text":"a"} {"text":"b"}`))
	fx := open(f, "", nil)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte) {
		before, err := fx.store.Count(ctx, "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		res, err := fx.svc.Import(mnemo.WithCallerIn(ctx, admin, "fuzz"), bytes.NewReader(data), nil)
		after, _ := fx.store.Count(ctx, "fuzz")
		if err != nil {
			if code := mnemo.ErrorCode(err); code != mnemo.EINVALID && code != mnemo.ETOOLARGE && code != mnemo.EFORBIDDEN {
				t.Fatalf("import error with code %s: %v", code, err)
			}
			if after != before {
				t.Fatalf("failed import changed the store: %d -> %d", before, after)
			}
			return
		}
		if after < before || after > before+res.Imported {
			t.Fatalf("import of %d records moved the count %d -> %d", res.Imported, before, after)
		}
	})
}
