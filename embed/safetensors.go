package embed

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
)

// maxSafetensorsHeader caps the JSON header of a safetensors file (the
// format's own limit is 100 MB; a model's header is a few hundred bytes).
const maxSafetensorsHeader = 16 << 20

// tensor is one tensor of a safetensors file: its dtype, its shape and its
// raw little-endian bytes (a slice of the file).
type tensor struct {
	name  string
	dtype string
	shape []int
	data  []byte
}

// dtypeSize is the byte size of one element of each dtype this package
// reads, and false for any other.
func dtypeSize(dtype string) (int, bool) {
	switch dtype {
	case "F64", "I64":
		return 8, true
	case "F32", "I32":
		return 4, true
	case "F16", "BF16", "I16":
		return 2, true
	case "I8", "U8":
		return 1, true
	}
	return 0, false
}

// parseSafetensors reads the tensors of a safetensors file held in b: an
// 8-byte little-endian header length, a JSON header mapping each tensor name
// to its dtype, shape and [begin, end) byte offsets into the data that
// follows, then the data. Every length and offset is checked against the file
// before use; the tensors share b.
func parseSafetensors(b []byte) (map[string]tensor, error) {
	if len(b) < 8 {
		return nil, errors.New("safetensors: file shorter than its 8-byte header length")
	}
	n := binary.LittleEndian.Uint64(b[:8])
	if n > maxSafetensorsHeader {
		return nil, fmt.Errorf("safetensors: header of %d bytes exceeds the %d-byte limit", n, maxSafetensorsHeader)
	}
	if n > uint64(len(b)-8) {
		return nil, fmt.Errorf("safetensors: header of %d bytes runs past the end of the %d-byte file", n, len(b))
	}
	header, data := b[8:8+n], b[8+n:]
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(header, &raw); err != nil {
		return nil, fmt.Errorf("safetensors: header: %w", err)
	}
	out := make(map[string]tensor, len(raw))
	for name, msg := range raw {
		if name == "__metadata__" {
			continue
		}
		var h struct {
			Dtype   string   `json:"dtype"`
			Shape   []int64  `json:"shape"`
			Offsets []uint64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(msg, &h); err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		size, ok := dtypeSize(h.Dtype)
		if !ok {
			return nil, fmt.Errorf("safetensors: tensor %q: unsupported dtype %q", name, h.Dtype)
		}
		if len(h.Offsets) != 2 {
			return nil, fmt.Errorf("safetensors: tensor %q: data_offsets needs 2 numbers, has %d", name, len(h.Offsets))
		}
		begin, end := h.Offsets[0], h.Offsets[1]
		if begin > end || end > uint64(len(data)) {
			return nil, fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] outside the %d data bytes", name, begin, end, len(data))
		}
		elems := uint64(1)
		shape := make([]int, len(h.Shape))
		for i, d := range h.Shape {
			if d < 0 {
				return nil, fmt.Errorf("safetensors: tensor %q: negative dimension %d", name, d)
			}
			// end <= len(data) bounds any valid product, so overflow means a lie.
			if d != 0 && elems > uint64(len(data))/uint64(d) {
				return nil, fmt.Errorf("safetensors: tensor %q: shape %v larger than the file", name, h.Shape)
			}
			elems *= uint64(d)
			shape[i] = int(d)
		}
		if elems*uint64(size) != end-begin {
			return nil, fmt.Errorf("safetensors: tensor %q: shape %v of %s needs %d bytes, data_offsets give %d",
				name, h.Shape, h.Dtype, elems*uint64(size), end-begin)
		}
		out[name] = tensor{name: name, dtype: h.Dtype, shape: shape, data: data[begin:end:end]}
	}
	return out, nil
}

// pickEmbeddings returns the embedding matrix of a Model2Vec file: the tensor
// named "embeddings" (Model2Vec) or "embedding.weight" (sentence-transformers
// StaticEmbedding), else the file's only 2-D tensor.
func pickEmbeddings(ts map[string]tensor) (tensor, error) {
	for _, name := range []string{"embeddings", "embedding.weight"} {
		if t, ok := ts[name]; ok {
			if len(t.shape) != 2 {
				return tensor{}, fmt.Errorf("safetensors: tensor %q has shape %v, want 2 dimensions", name, t.shape)
			}
			return t, nil
		}
	}
	var names []string
	for name, t := range ts {
		if len(t.shape) == 2 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	switch len(names) {
	case 1:
		return ts[names[0]], nil
	case 0:
		return tensor{}, errors.New(`safetensors: no "embeddings" tensor and no 2-D tensor`)
	default:
		return tensor{}, fmt.Errorf(`safetensors: no "embeddings" tensor and several 2-D tensors %q`, names)
	}
}

// floats decodes a floating-point (or int8-quantised) tensor into float32.
func (t tensor) floats() ([]float32, error) {
	size, _ := dtypeSize(t.dtype)
	n := len(t.data) / size
	out := make([]float32, n)
	d := t.data
	switch t.dtype {
	case "F32":
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(d[4*i:]))
		}
	case "F16":
		for i := range out {
			out[i] = f16ToF32(binary.LittleEndian.Uint16(d[2*i:]))
		}
	case "BF16":
		for i := range out {
			out[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(d[2*i:])) << 16)
		}
	case "F64":
		for i := range out {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(d[8*i:])))
		}
	case "I8":
		for i := range out {
			out[i] = float32(int8(d[i]))
		}
	default:
		return nil, fmt.Errorf("safetensors: tensor %q: dtype %s is not a float type", t.name, t.dtype)
	}
	for i, x := range out {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("safetensors: tensor %q: element %d is %v", t.name, i, x)
		}
	}
	return out, nil
}

// ints decodes an integer tensor (a token-to-row mapping).
func (t tensor) ints() ([]int64, error) {
	size, _ := dtypeSize(t.dtype)
	n := len(t.data) / size
	out := make([]int64, n)
	d := t.data
	switch t.dtype {
	case "I64":
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(d[8*i:]))
		}
	case "I32":
		for i := range out {
			out[i] = int64(int32(binary.LittleEndian.Uint32(d[4*i:])))
		}
	case "I16":
		for i := range out {
			out[i] = int64(int16(binary.LittleEndian.Uint16(d[2*i:])))
		}
	case "I8":
		for i := range out {
			out[i] = int64(int8(d[i]))
		}
	case "U8":
		for i := range out {
			out[i] = int64(d[i])
		}
	default:
		return nil, fmt.Errorf("safetensors: tensor %q: dtype %s is not an integer type", t.name, t.dtype)
	}
	return out, nil
}

// f16ToF32 converts an IEEE 754 half-precision value to float32.
func f16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	case mant == 0: // signed zero
		return math.Float32frombits(sign)
	default: // subnormal: mant × 2^-24
		f := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
}
