package sgp

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// repeatReader yields head, then body count times, then tail, without
// holding the whole: a file of any size at no cost to the test.
type repeatReader struct {
	parts []string
	count int // repeats of parts[1] left
	off   int // in the current part
	i     int // current part
}

func newRepeatReader(head, body string, count int, tail string) *repeatReader {
	return &repeatReader{parts: []string{head, body, tail}, count: count}
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.i < 3 {
		if r.i == 1 && r.count == 0 {
			r.i, r.off = 2, 0
			continue
		}
		part := r.parts[r.i]
		c := copy(p[n:], part[r.off:])
		n += c
		r.off += c
		if r.off == len(part) {
			r.off = 0
			if r.i == 1 {
				r.count--
			} else {
				r.i++
			}
		}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// TestLoadHostileSizesStream: a model file declares sizes that its arrays
// must match, and the arrays are checked as they are read, so that a
// hostile file of 100 MB — 25 million one-value rows of inducing inputs
// where k = 1, 50 million zeros in w, 20 million empty histograms — is
// refused after allocating a few MiB, not gigabytes: TotalAlloc around
// the load stays below 16 MiB, in the layout Save writes (sizes first)
// and in files whose arrays come before their sizes (inducing inputs
// first, or sorted keys), which the format's limits bound
// (maxModelK rows, MaxExactN training points).
func TestLoadHostileSizesStream(t *testing.T) {
	const (
		rbf       = `"kernel":{"type":"rbf","dim":1,"names":["variance","lengthscale[0]"],"log_params":[0,0]}`
		histogram = `"kernel":{"type":"histogram","dim":1,"names":["variance"],"log_params":[0]}`
		sparse    = `{"format":"sgp-model/1",`
		exact     = `{"format":"sgp-exact-model/1",`
		mb        = 100 << 20
		budget    = 16 << 20
	)
	cases := []struct {
		name             string
		head, body, tail string
		load             func(io.Reader) error
	}{
		{"rows, k first", sparse + rbf + `,"input_kind":"vectors","k":1,"noise":1,"inducing_inputs":[`, `[0],`, `[0]],"w":[1],"r":[1],"a":[1]}`, nil},
		{"rows, k last", sparse + rbf + `,"noise":1,"inducing_inputs":[`, `[0],`, `[0]],"input_kind":"vectors","k":1,"w":[1],"r":[1],"a":[1]}`, nil},
		{"rows, sorted keys", `{"a":[1],"format":"sgp-model/1","inducing_inputs":[`, `[0],`, `[0]],"input_kind":"vectors","k":1,` + rbf + `,"noise":1,"r":[1],"w":[1]}`, nil},
		{"zeros in w", sparse + rbf + `,"input_kind":"vectors","k":1,"noise":1,"inducing_inputs":[[0]],"w":[`, `0,`, `1],"r":[1],"a":[1]}`, nil},
		{"zeros in a, sorted keys", `{"a":[`, `0,`, `1],"format":"sgp-model/1","k":1}`, nil},
		{"w before k", `{"format":"sgp-model/1","w":[`, `0,`, `1],"k":1}`, nil},
		{"empty histograms, k first", sparse + histogram + `,"input_kind":"histograms","k":1,"noise":1,"inducing_inputs":[`, `[],`, `[]],"w":[1],"r":[1],"a":[1]}`, nil},
		{"empty histograms, k last", sparse + histogram + `,"noise":1,"inducing_inputs":[`, `[],`, `[]],"input_kind":"histograms","k":1,"w":[1],"r":[1],"a":[1]}`, nil},
		{"histogram channels", sparse + histogram + `,"input_kind":"histograms","k":1,"noise":1,"inducing_inputs":[[`, `[],`, `[]]],"w":[1],"r":[1],"a":[1]}`, nil},
		{"row values", sparse + rbf + `,"input_kind":"vectors","k":1,"noise":1,"inducing_inputs":[[`, `0,`, `0]],"w":[1],"r":[1],"a":[1]}`, nil},
		{"kernel parameters", sparse + `"kernel":{"type":"rbf","dim":1,"log_params":[`, `0,`, `0]}}`, nil},
		{"periodic parameters", sparse + `"kernel":{"type":"periodic","dim":1,"log_params":[`, `0,`, `0]}}`, nil},
		{"product components", sparse + `"kernel":{"type":"product","components":[`, `{"type":"const","names":["variance"],"log_params":[0]},`, `{"type":"const"}]}}`, nil},
		{"hyperparameters", sparse + rbf + `,"hyperparameters":{`, `"a":0,`, `"b":0}}`, nil},
		{"sparse counts", sparse + `"k":1,"inducing_inputs":[{"indices":[`, `0,`, `0]}]}`, nil},
		{"exact rows, n last", exact + rbf + `,"noise":1,"input_kind":"vectors","inputs":[`, `[0],`, `[0]],"n":1,"alpha":[1]}`, nil},
		{"exact alpha", exact + rbf + `,"n":1,"noise":1,"alpha":[`, `0,`, `0]}`, nil},
		{"unknown key", sparse + `"comment":[`, `0,`, `0]}`, nil},
		{"strings", sparse + `"k":1,"inducing_inputs":[`, `"",`, `""]}`, nil},
		{"graphs", sparse + `"k":1,"inducing_inputs":[`, `{},`, `{}]}`, nil},
		{"graph edges", sparse + `"k":1,"inducing_inputs":[{"labels":["C"],"edges":[`, `[0,0,0],`, `[0,0,0]]}]}`, nil},
	}
	for _, c := range cases {
		count := mb / len(c.body)
		for _, load := range []struct {
			name string
			fn   func(io.Reader) error
		}{
			{"LoadPredictor", func(r io.Reader) error { _, err := LoadPredictor(r); return err }},
			{"LoadExactPredictor", func(r io.Reader) error { _, err := LoadExactPredictor(r); return err }},
			{"LoadRegressor", func(r io.Reader) error { _, err := LoadRegressor(r); return err }},
		} {
			r := newRepeatReader(c.head, c.body, count, c.tail)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := load.fn(r)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Errorf("%s, %s: a hostile file of %d MiB loaded", c.name, load.name, mb>>20)
				continue
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > budget {
				t.Errorf("%s, %s: %d MiB allocated to refuse a file of %d MiB (want at most %d MiB): %v", c.name, load.name, got>>20, mb>>20, budget>>20, err)
			}
			if len(err.Error()) > 300 {
				t.Errorf("%s, %s: error message of %d bytes", c.name, load.name, len(err.Error()))
			}
		}
	}
}

// TestLoadKeyOrders: a model file loads whatever the order of its keys —
// the one Save writes (the sizes first), the inducing inputs before
// input_kind and k, sorted keys — and predicts
// bit for bit as the saved model; Save writes every size before the
// arrays it bounds.
func TestLoadKeyOrders(t *testing.T) {
	t.Parallel()
	good := savedSnelson(t)
	res, _ := fittedExact(t)
	goodExact := savedExact(t, res.Predictor)
	for _, file := range []struct {
		name   string
		data   []byte
		sizes  []string // declared before the arrays
		arrays []string
		old    []string // a key order with the inducing inputs first
	}{
		{"sparse", good, []string{`"kernel"`, `"input_kind"`, `"k"`}, []string{`"inducing"`, `"inducing_inputs"`, `"w"`, `"r"`, `"a"`},
			[]string{"format", "kernel", "noise", "mean", "hyperparameters", "inducing", "inducing_inputs", "input_kind", "k", "w", "r", "a"}},
		{"exact", goodExact, []string{`"kernel"`, `"input_kind"`, `"n"`}, []string{`"inputs"`, `"alpha"`},
			[]string{"format", "kernel", "noise", "jitter", "mean", "hyperparameters", "input_kind", "inputs", "n", "alpha", "train_mean", "train_var"}},
	} {
		text := string(file.data)
		for _, s := range file.sizes {
			for _, a := range file.arrays {
				if i, j := strings.Index(text, s), strings.Index(text, a); i < 0 || j < 0 || i > j {
					t.Errorf("%s: Save writes %s at %d, after %s at %d", file.name, s, i, a, j)
				}
			}
		}
		want, err := LoadRegressor(bytes.NewReader(file.data))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(file.data, &m); err != nil {
			t.Fatal(err)
		}
		sorted, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var old bytes.Buffer
		old.WriteString("{")
		for i, k := range file.old {
			if i > 0 {
				old.WriteString(",")
			}
			old.WriteString(`"` + k + `":` + string(m[k]))
		}
		old.WriteString("}")
		for name, data := range map[string][]byte{"sorted keys": sorted, "inducing inputs first": old.Bytes()} {
			got, err := LoadRegressor(bytes.NewReader(data))
			if err != nil {
				t.Errorf("%s, %s: %v", file.name, name, err)
				continue
			}
			x := SnelsonLikeGrid(t)
			wm, wv, _ := want.Predict(x)
			gm, gv, err := got.Predict(x)
			if err != nil {
				t.Fatal(err)
			}
			for i := range wm {
				if gm[i] != wm[i] || !(gv[i] == wv[i] || file.name == "exact") {
					t.Errorf("%s, %s: prediction %d is %v ± %v, the saved model's %v ± %v", file.name, name, i, gm[i], gv[i], wm[i], wv[i])
					break
				}
			}
		}
	}
}

// SnelsonLikeGrid returns the test grid of SnelsonLike.
func SnelsonLikeGrid(t *testing.T) *kernel.Vectors {
	t.Helper()
	_, grid := data.SnelsonLike(1, 1)
	return grid.X
}
