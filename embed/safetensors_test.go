package embed

import (
	"encoding/binary"
	"strings"
	"testing"
)

// rawSafetensors is a file with the given header text and data length.
func rawSafetensors(header string, data int) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return append(b, make([]byte, data)...)
}

func TestParseSafetensors(t *testing.T) {
	b := safetensorsBytes(t, map[string]testTensor{
		"embeddings": {"F32", []int{2, 3}, f32Bytes([]float32{1, 2, 3, 4, 5, 6})},
		"mapping":    {"I64", []int{2}, i64Bytes([]int64{1, 0})},
	})
	ts, err := parseSafetensors(b)
	if err != nil {
		t.Fatal(err)
	}
	e, err := pickEmbeddings(ts)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := e.floats()
	if err != nil || len(fs) != 6 || fs[0] != 1 || fs[5] != 6 {
		t.Fatalf("floats = %v, %v", fs, err)
	}
	m, err := ts["mapping"].ints()
	if err != nil || len(m) != 2 || m[0] != 1 || m[1] != 0 {
		t.Fatalf("ints = %v, %v", m, err)
	}
}

func TestParseSafetensorsErrors(t *testing.T) {
	huge := binary.LittleEndian.AppendUint64(nil, 1<<62)
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "shorter than"},
		{"huge header length", huge, "exceeds"},
		{"header past end", rawSafetensors(`{}`, 0)[:9], "runs past the end"},
		{"not json", rawSafetensors(`{"a":`, 0), "header"},
		{"not an object", rawSafetensors(`[1,2]`, 0), "header"},
		{"unknown dtype", rawSafetensors(`{"x":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}}`, 1), "unsupported dtype"},
		{"offsets count", rawSafetensors(`{"x":{"dtype":"F32","shape":[1],"data_offsets":[0]}}`, 4), "needs 2 numbers"},
		{"offsets reversed", rawSafetensors(`{"x":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}`, 4), "outside"},
		{"offsets past data", rawSafetensors(`{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,8]}}`, 4), "outside"},
		{"shape mismatch", rawSafetensors(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, 4), "needs 8 bytes"},
		{"negative dim", rawSafetensors(`{"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}`, 4), "negative"},
		{"overflowing shape", rawSafetensors(`{"x":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}}`, 4), "larger than the file"},
		{"offset overflow", rawSafetensors(`{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,18446744073709551615]}}`, 4), "outside"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseSafetensors(tt.file)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestPickEmbeddings(t *testing.T) {
	one := func(name string, shape []int) map[string]tensor {
		return map[string]tensor{name: {name: name, dtype: "F32", shape: shape}}
	}
	if e, err := pickEmbeddings(one("0", []int{3, 2})); err != nil || e.name != "0" {
		t.Errorf("single 2-D tensor: %v %v", e.name, err)
	}
	if _, err := pickEmbeddings(one("embeddings", []int{6})); err == nil {
		t.Error("1-D embeddings accepted")
	}
	if _, err := pickEmbeddings(one("weights", []int{6})); err == nil {
		t.Error("no 2-D tensor accepted")
	}
	two := map[string]tensor{"a": {shape: []int{1, 1}}, "b": {shape: []int{1, 1}}}
	if _, err := pickEmbeddings(two); err == nil || !strings.Contains(err.Error(), "several") {
		t.Errorf("two 2-D tensors: %v", err)
	}
}

// FuzzParseSafetensors: any bytes parse or fail cleanly, and every tensor of
// a parsed file decodes within its bounds.
func FuzzParseSafetensors(f *testing.F) {
	f.Add(safetensorsBytes(f, map[string]testTensor{
		"embeddings": {"F32", []int{2, 2}, f32Bytes([]float32{1, 2, 3, 4})},
		"weights":    {"F16", []int{2}, []byte{0, 0x3c, 0, 0x40}},
		"mapping":    {"I64", []int{2}, i64Bytes([]int64{0, 1})},
	}))
	f.Add(rawSafetensors(`{"__metadata__":{"format":"pt"},"x":{"dtype":"BF16","shape":[2,0],"data_offsets":[0,0]}}`, 0))
	f.Add(rawSafetensors(`{"x":{"dtype":"I8","shape":[3],"data_offsets":[1,4]}}`, 4))
	f.Add(rawSafetensors(`{"x":{"dtype":"F64","shape":[],"data_offsets":[0,8]}}`, 8))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, err := parseSafetensors(b)
		if err != nil {
			return
		}
		for _, tt := range ts {
			if _, ok := dtypeSize(tt.dtype); !ok {
				t.Fatalf("dtype %q accepted", tt.dtype)
			}
			_, _ = tt.floats()
			_, _ = tt.ints()
		}
		_, _ = pickEmbeddings(ts)
	})
}
