package storesql

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

func TestColumns(t *testing.T) {
	v := []float32{1, -0.5, float32(math.Pi)}
	if got := DecodeVector(EncodeVector(v)); !slices.Equal(got, v) {
		t.Errorf("vector %v", got)
	}
	if EncodeVector(nil) != nil || DecodeVector(nil) != nil {
		t.Error("empty vector is not NULL")
	}
	if EncodeStrings(nil) != nil {
		t.Error("empty list is not NULL")
	}
	got, err := DecodeStrings([]byte(*EncodeStrings([]string{"a", "b"})))
	if err != nil || !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("strings %v %v", got, err)
	}
	if got, err := DecodeStrings([]byte("[]")); got != nil || err != nil {
		t.Errorf("empty array %v %v", got, err)
	}
	r := &mnemo.Record{Correction: &mnemo.Correction{Outcome: "modified", Summary: "s"}}
	d, c, err := DecodeBody([]byte(*EncodeBody(r)))
	if err != nil || d != nil || c == nil || c.Summary != "s" || Outcome(r) != "modified" {
		t.Errorf("body %v %v %v", d, c, err)
	}
	if EncodeBody(&mnemo.Record{}) != nil {
		t.Error("no body is not NULL")
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	if got := Time(Nanos(at)); !got.Equal(at) || got.Location() != time.UTC {
		t.Errorf("time %v", got)
	}
	if Nanos(time.Time{}) != nil || NanosPtr(nil) != nil || TimePtr(nil) != nil || !Time(nil).IsZero() {
		t.Error("zero times are not NULL")
	}
}

func TestEmbedder(t *testing.T) {
	info := mnemo.EmbedderInfo{Name: "hash", Dim: 256}
	if err := CheckEmbedder(mnemo.EmbedderInfo{Name: "x"}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("no dimension: %v", err)
	}
	if w, err := SwitchEmbedder(nil, info, false); !w || err != nil {
		t.Errorf("none recorded: %v %v", w, err)
	}
	if w, err := SwitchEmbedder([]byte(`{"name":"hash","dim":256}`), info, false); w || err != nil {
		t.Errorf("same: %v %v", w, err)
	}
	if w, err := SwitchEmbedder([]byte(`{"name":"openai:x","dim":1536}`), info, false); w || mnemo.ErrorCode(err) != mnemo.EMISMATCH {
		t.Errorf("another: %v %v", w, err)
	}
	if w, err := SwitchEmbedder([]byte(`{"name":"openai:x","dim":1536}`), info, true); !w || err != nil {
		t.Errorf("forced: %v %v", w, err)
	}
	none := errors.New("no row")
	noRows := func(err error) bool { return err == none }
	if got, err := ReadEmbedder(row{[]byte(`{"name":"hash","dim":256}`), nil}, noRows); got != info || err != nil {
		t.Errorf("read %v %v", got, err)
	}
	if got, err := ReadEmbedder(row{nil, none}, noRows); got != (mnemo.EmbedderInfo{}) || err != nil {
		t.Errorf("none recorded: %v %v", got, err)
	}
}

func TestCheckRetrieval(t *testing.T) {
	now := time.Now()
	l := mnemo.RetrievalLog{ID: "r1", Namespace: "ns"}
	if err := CheckRetrieval(&l, now); err != nil || !l.At.Equal(now) || l.IDs == nil || l.Scores == nil {
		t.Errorf("%+v %v", l, err)
	}
	for _, bad := range []mnemo.RetrievalLog{{Namespace: "ns"}, {ID: "r"}, {ID: "r", Namespace: "ns", Scores: []float64{math.NaN()}}} {
		if err := CheckRetrieval(&bad, now); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestCheckList(t *testing.T) {
	opt := mnemo.ListOptions{}
	if err := CheckList(&opt); err != nil || opt.Limit != 100 {
		t.Errorf("default: %v %d", err, opt.Limit)
	}
	for _, bad := range []mnemo.ListOptions{{Limit: -1}, {ByTime: true, After: "x"}} {
		if err := CheckList(&bad); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestPages(t *testing.T) {
	items := []int{1, 2, 3, 4, 5, 6, 7}
	next, calls := 0, 0
	var got []int
	err := Pages(3, func() ([]int, error) {
		calls++
		page := items[next:min(next+3, len(items))]
		next += len(page)
		return page, nil
	}, func(x int) error { got = append(got, x); return nil })
	if err != nil || !slices.Equal(got, items) || calls != 3 {
		t.Errorf("%v %v after %d pages", got, err, calls)
	}
	stop := errors.New("stop")
	if err := Pages(3, func() ([]int, error) { return []int{1, 2, 3}, nil }, func(int) error { return stop }); err != stop {
		t.Errorf("fn's error: %v", err)
	}
}

func TestRecords(t *testing.T) {
	// ListKnownAt is checked through both stores by the conformance suite
	// (storetest/knownat.go).
	rev, err := ScanRevision(row{[]any{int64(3), int64(5), "update", "me", []byte(`{"id":"a"}`)}, nil})
	if err != nil || rev.Seq != 3 || rev.At.UnixNano() != 5 || rev.Record.ID != "a" {
		t.Errorf("revision %+v %v", rev, err)
	}
	var e memindex.Entry
	e.ID = "a"
	created := int64(7)
	err = FinishEntry(&e, "domain", "fact", []byte(`["operator:ann"]`), []byte(`["operator:bob"]`), &created, nil, nil)
	if err != nil || e.Layer != mnemo.LayerDomain || len(e.Tags) != 1 || len(e.Operators) != 2 {
		t.Errorf("entry %+v %v", e, err)
	}
}

// row is a Row of fixed values.
type row struct {
	v   any
	err error
}

func (r row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	vs, ok := r.v.([]any)
	if !ok {
		vs = []any{r.v}
	}
	for i, d := range dest {
		switch d := d.(type) {
		case *int64:
			*d = vs[i].(int64)
		case *string:
			*d = vs[i].(string)
		case *[]byte:
			*d = vs[i].([]byte)
		}
	}
	return nil
}
