package sgp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// This file reads model files, which are untrusted input, as a stream of
// JSON tokens (encoding/json's Decoder.Token), so that every array is
// checked against its bound as it is read instead of after it has been
// decoded whole: a file of 25 million one-value rows where k = 1 is
// refused at its second row. The bounds are the sizes the file declares
// (k, n, the kernel's dimension) where they come first, as they do in the
// files Save writes, and the format's limits (maxModelK inducing points,
// MaxExactN training points, maxModelDim values in a row) where they do
// not: in the layout of earlier versions (inducing inputs before
// input_kind and k) and in files whose keys a tool has sorted. The
// factors w and r (k² values) are read only once k, or a (k values), has
// been. Values whose size nothing declares — the strings, graphs,
// histograms and sparse counts of the inputs, within their limits — cost
// memory in proportion to the values present.

// modelFields are the fields of a model file of either format.
type modelFields struct {
	format                                    string
	kernel                                    savedKernel
	noise, mean, jitter, trainMean, trainVar  float64
	inputKind                                 string
	inputNames                                []string // nil when absent
	targetName                                string
	k, n                                      int // -1 until read
	inducing                                  []int
	inducingInputs, inputs                    *savedInputs
	w, r, a, alpha                            []float64
	hasKernel, hasInducingInputs, hasInputsIn bool
}

// Limits of the stream that no size in the file declares.
const (
	maxSumComponents = 1 << 10 // components of one sum kernel
	maxObjectKeys    = 64      // keys of an object other than hyperparameters
	maxSkipTokens    = 1 << 16 // tokens of the value of a key this version does not know
	// maxItemSize bounds the parts of one input whose size nothing
	// declares: a histogram's channels (when the kernel has not given
	// them) and its bins, a graph's nodes and edges, a sparse count
	// vector's entries; and the hyperparameters by name before the
	// kernel has been read.
	maxItemSize = 1 << 14
)

// modelDecoder reads the JSON tokens of a model file.
type modelDecoder struct {
	dec *json.Decoder
	lr  *io.LimitedReader
}

// readModelFile reads one model file's JSON object, of at most
// maxModelBytes, from r, and refuses data after it.
func readModelFile(r io.Reader) (*modelFields, error) {
	lr := &io.LimitedReader{R: r, N: maxModelBytes + 1}
	d := &modelDecoder{dec: json.NewDecoder(lr), lr: lr}
	mf := &modelFields{k: -1, n: -1}
	if err := d.object("the model file", maxObjectKeys, true, func(key string) error { return mf.field(d, key) }); err != nil {
		return nil, d.wrap(err)
	}
	if _, err := d.dec.Token(); err != io.EOF {
		if lr.N <= 0 {
			return nil, d.wrap(err)
		}
		return nil, errors.New("sgp: reading model: data after the model's JSON object")
	}
	return mf, nil
}

// errModel is an error about the content of a model file, passed on as
// it is; other errors come from reading or parsing the JSON.
type errModel struct{ error }

// modelErrorf returns an errModel.
func modelErrorf(format string, args ...any) error {
	return errModel{fmt.Errorf("sgp: model file: "+format, args...)}
}

// wrap returns the error a load reports for err: the file is too large,
// its JSON cannot be read, or its content is wrong.
func (d *modelDecoder) wrap(err error) error {
	var em errModel
	switch {
	case d.lr.N <= 0:
		return fmt.Errorf("sgp: reading model: the file is larger than %d bytes", maxModelBytes)
	case errors.As(err, &em):
		return em.error
	}
	return fmt.Errorf("sgp: reading model: %w", err)
}

// field reads the value of the top-level key.
func (mf *modelFields) field(d *modelDecoder, key string) error {
	switch key {
	case "format":
		return d.value(key, &mf.format)
	case "kernel":
		mf.hasKernel = true
		return d.kernel(&mf.kernel, 0)
	case "noise":
		return d.value(key, &mf.noise)
	case "mean":
		return d.value(key, &mf.mean)
	case "jitter":
		return d.value(key, &mf.jitter)
	case "train_mean":
		return d.value(key, &mf.trainMean)
	case "train_var":
		return d.value(key, &mf.trainVar)
	case "input_kind":
		return d.value(key, &mf.inputKind)
	case "k":
		return d.value(key, &mf.k)
	case "input_names":
		return d.strs(key, &mf.inputNames, mf.rowDim())
	case "target_name":
		return d.value(key, &mf.targetName)
	case "n":
		return d.value(key, &mf.n)
	case "hyperparameters":
		// Only informative (the kernel's log_params hold θ): its values
		// must be numbers, and are not kept. There is one for each of
		// the kernel's parameters, and the noise.
		max := maxItemSize
		if mf.hasKernel {
			max = len(mf.kernel.Params) + 1
		}
		return d.object(key, max, false, func(name string) error {
			var v float64
			return d.value(name, &v)
		})
	case "inducing":
		return d.array(key, mf.declared(mf.k, maxModelK), func(int) error {
			var j int
			err := d.value(key, &j)
			mf.inducing = append(mf.inducing, j)
			return err
		})
	case "inducing_inputs":
		mf.inducingInputs = &savedInputs{}
		return mf.inducingInputs.read(d, key, mf.declared(mf.k, maxModelK), mf.rowDim(), mf.channels())
	case "inputs":
		mf.inputs = &savedInputs{}
		return mf.inputs.read(d, key, mf.declared(mf.n, MaxExactN), mf.rowDim(), mf.channels())
	case "a":
		return d.floats(key, &mf.a, mf.declared(mf.k, maxModelK))
	case "alpha":
		return d.floats(key, &mf.alpha, mf.declared(mf.n, MaxExactN))
	case "w", "r":
		k := mf.declared(mf.k, maxModelK)
		if mf.k < 0 {
			if mf.a == nil {
				return modelErrorf("%q comes before \"k\", which gives its size (k×k); write k first", key)
			}
			k = len(mf.a)
		}
		dst := &mf.w
		if key == "r" {
			dst = &mf.r
		}
		return d.floats(key, dst, k*k)
	}
	return d.skip(key)
}

// declared returns the bound of an array whose length the file declares
// as size, at most limit: limit while size has not been read (−1), and
// for a size out of range, which the loader refuses once the file is read.
func (mf *modelFields) declared(size, limit int) int {
	if size < 0 || size > limit {
		return limit
	}
	return size
}

// rowDim returns the length of a row of vector inputs that the kernel
// declares, or maxModelDim when it is not known (yet).
func (mf *modelFields) rowDim() int {
	if mf.hasKernel && mf.kernel.Type == "rbf" && mf.kernel.Dim > 0 && mf.kernel.Dim <= maxModelDim {
		return mf.kernel.Dim
	}
	return maxModelDim
}

// checkNames checks the names of the input columns against the inputs x
// the file holds: one per column for vectors, unique and non-empty, and
// the target's another.
func (mf *modelFields) checkNames(x Inputs) error {
	if mf.inputNames == nil {
		if mf.targetName != "" {
			return fmt.Errorf("sgp: model file names its target column %q but not its input columns", shortText(mf.targetName))
		}
		return nil
	}
	d := len(mf.inputNames)
	if v, ok := x.(*Vectors); ok {
		d = v.Dim()
	}
	if err := checkColumnNames(mf.inputNames, max(d, 1)); err != nil {
		return fmt.Errorf("sgp: model file: input_names: %w", err)
	}
	if slices.Contains(mf.inputNames, mf.targetName) {
		return fmt.Errorf("sgp: model file: the target column %q is also an input", shortText(mf.targetName))
	}
	return nil
}

// channels returns the number of channels of histogram inputs that the
// kernel declares, or maxItemSize when it is not known (yet).
func (mf *modelFields) channels() int {
	if mf.hasKernel && mf.kernel.Type == "histogram" && mf.kernel.Dim > 0 && mf.kernel.Dim <= maxItemSize {
		return mf.kernel.Dim
	}
	return maxItemSize
}

// value decodes one scalar value (a number, string or null; null leaves
// v as it is, as encoding/json does) for key into v.
func (d *modelDecoder) value(key string, v any) error {
	if err := d.dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return modelErrorf("%q holds a %s where a %s belongs", shortText(key), te.Value, te.Type)
		}
		return err
	}
	return nil
}

// floats reads an array of at most max numbers for key into *dst.
func (d *modelDecoder) floats(key string, dst *[]float64, max int) error {
	*dst = []float64{}
	return d.array(key, max, func(int) error {
		var v float64
		err := d.value(key, &v)
		*dst = append(*dst, v)
		return err
	})
}

// strs reads an array of at most max strings for key into *dst.
func (d *modelDecoder) strs(key string, dst *[]string, max int) error {
	*dst = []string{}
	return d.array(key, max, func(int) error {
		var s string
		err := d.value(key, &s)
		*dst = append(*dst, s)
		return err
	})
}

// ints reads an array of at most max integers for key into *dst.
func (d *modelDecoder) ints(key string, dst *[]int, max int) error {
	*dst = []int{}
	return d.array(key, max, func(int) error {
		var v int
		err := d.value(key, &v)
		*dst = append(*dst, v)
		return err
	})
}

// array reads an array for key, calling elem for each element, and
// refuses more than max elements. null reads as no elements.
func (d *modelDecoder) array(key string, max int, elem func(i int) error) error {
	t, err := d.dec.Token()
	if err != nil || t == nil {
		return err
	}
	if t != json.Delim('[') {
		return modelErrorf("%q is not an array", shortText(key))
	}
	return d.elems(key, 0, max, elem)
}

// elems reads the elements of an array for key whose '[' and first
// elements have been read, calling elem for element from, from+1, …, and
// the closing ']'; it refuses more than max elements in all.
func (d *modelDecoder) elems(key string, from, max int, elem func(i int) error) error {
	for i := from; d.dec.More(); i++ {
		if i >= max {
			return modelErrorf("%q has more than %d entries", shortText(key), max)
		}
		if err := elem(i); err != nil {
			return err
		}
	}
	_, err := d.dec.Token() // ']'
	return err
}

// object reads an object for what, calling field for each key; it
// refuses more than max keys and, with unique, a key given twice. null
// reads as no keys.
func (d *modelDecoder) object(what string, max int, unique bool, field func(key string) error) error {
	t, err := d.dec.Token()
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if t != json.Delim('{') {
		return modelErrorf("%s is not a JSON object", what)
	}
	return d.keys(what, max, unique, field)
}

// keys reads the keys and values of an object for what whose '{' has been
// read, as object does, and its closing '}'.
func (d *modelDecoder) keys(what string, max int, unique bool, field func(key string) error) error {
	var seen map[string]bool
	if unique {
		seen = make(map[string]bool)
	}
	for i := 0; d.dec.More(); i++ {
		if i >= max {
			return modelErrorf("%s has more than %d keys", what, max)
		}
		t, err := d.dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if unique {
			if seen[key] {
				return modelErrorf("%s has the key %q twice", what, shortText(key))
			}
			seen[key] = true
		}
		if err := field(key); err != nil {
			return err
		}
	}
	_, err := d.dec.Token() // '}'
	return err
}

// skip reads and drops the value of a key this version does not know, of
// at most maxSkipTokens tokens.
func (d *modelDecoder) skip(key string) error {
	depth := 0
	for n := 0; ; n++ {
		if n >= maxSkipTokens {
			return modelErrorf("the value of the unknown key %q is too large", shortText(key))
		}
		t, err := d.dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// kernel reads a kernel's description at sum nesting depth.
func (d *modelDecoder) kernel(sk *savedKernel, depth int) error {
	if depth > maxKernelDepth {
		return modelErrorf("sum kernels nested more than %d deep", maxKernelDepth)
	}
	return d.object("the kernel", maxObjectKeys, true, func(key string) error {
		switch key {
		case "type":
			return d.value(key, &sk.Type)
		case "dim":
			return d.value(key, &sk.Dim)
		case "order":
			return d.value(key, &sk.Order)
		case "names":
			return d.strs(key, &sk.Names, paramBound(sk))
		case "log_params":
			return d.floats(key, &sk.Params, paramBound(sk))
		case "components":
			return d.array(key, maxSumComponents, func(int) error {
				var c savedKernel
				err := d.kernel(&c, depth+1)
				sk.Components = append(sk.Components, c)
				return err
			})
		}
		return d.skip(key)
	})
}

// paramBound returns the most parameters a kernel can have given the
// dimension it declares (an RBF kernel's variance and d lengthscales, a
// histogram kernel's C channel variances), or the format's limit while it
// has declared none.
func paramBound(sk *savedKernel) int {
	if sk.Dim > 0 && sk.Dim <= maxModelDim {
		return sk.Dim + 1
	}
	return maxModelDim + 1
}

// savedInputs are the inputs of a model file, read by their JSON shape
// before the file's input_kind may have been read: rows of numbers
// (vectors), strings, arrays of arrays of numbers (histograms) or objects
// (graphs or sparse count vectors). build turns them into Inputs of the
// declared kind.
type savedInputs struct {
	shape string // "rows", "strings", "histograms", "objects"; "" for none
	n     int
	d     int       // rows: values per row
	data  []float64 // rows: n×d, row-major
	strs  []string
	hist  [][][]float64
	objs  []savedObject
}

// savedObject is an object among the inputs: a graph (labels, edges) or a
// sparse count vector (indices, values).
type savedObject struct {
	labels, indices, edges, values bool // keys present
	Labels                         []string
	Edges                          [][3]int
	Indices                        []int
	Values                         []float64
}

// read reads the inputs for key: at most max items, rows of at most dim
// values, histograms of at most chans channels.
func (s *savedInputs) read(d *modelDecoder, key string, max, dim, chans int) error {
	return d.array(key, max, func(i int) error {
		// The first one or two tokens of an item tell its shape.
		t, err := d.dec.Token()
		if err != nil {
			return err
		}
		var shape string
		var first json.Token // a row's first value, or the '[' of a histogram's first channel
		switch t {
		case json.Delim('{'):
			shape = "objects"
		case json.Delim('['):
			if first, err = d.dec.Token(); err != nil {
				return err
			}
			shape = "rows"
			if first == json.Delim('[') {
				shape = "histograms"
			}
		default:
			if _, ok := t.(string); !ok {
				return modelErrorf("%q holds an item that is not an array, a string or an object", shortText(key))
			}
			shape = "strings"
		}
		if i == 0 {
			s.shape = shape
		} else if shape != s.shape {
			return modelErrorf("%q mixes %s and %s", shortText(key), s.shape, shape)
		}
		s.n++
		switch shape {
		case "strings":
			s.strs = append(s.strs, t.(string))
			return nil
		case "rows":
			return s.row(d, key, i, dim, first)
		case "histograms":
			return s.histogram(d, key, i, chans)
		}
		return s.object(d, key)
	})
}

// row reads row i of vector inputs, whose '[' and first token (a number,
// or the ']' of an empty row) have been read: at most dim numbers, as
// many as row 0.
func (s *savedInputs) row(d *modelDecoder, key string, i, dim int, first json.Token) error {
	if i > 0 {
		dim = s.d
	}
	n := 0
	if first != json.Delim(']') {
		v, ok := first.(float64)
		if !ok {
			return modelErrorf("%q holds a row whose first value is not a number", shortText(key))
		}
		if dim < 1 {
			return modelErrorf("%q: row %d has more than %d values", shortText(key), i, dim)
		}
		s.data = append(s.data, v)
		n = 1
		err := d.elems(key, 1, dim, func(int) error {
			var v float64
			err := d.value(key, &v)
			s.data = append(s.data, v)
			n++
			return err
		})
		if err != nil {
			return err
		}
	}
	if i == 0 {
		s.d = n
	} else if n != s.d {
		return modelErrorf("%q: row %d has %d values, row 0 has %d", shortText(key), i, n, s.d)
	}
	return nil
}

// histogram reads histogram item i, whose '[' and the '[' of its first
// channel have been read: at most chans channels and maxItemSize bins in
// all; item 0 fixes the number of channels and bins of the others
// (NewHistograms checks each channel's).
func (s *savedInputs) histogram(d *modelDecoder, key string, i, chans int) error {
	bins := maxItemSize
	if i > 0 {
		chans, bins = len(s.hist[0]), 0
		for _, ch := range s.hist[0] {
			bins += len(ch)
		}
	}
	var item [][]float64
	channel := func() error {
		ch := []float64{}
		err := d.elems(key, 0, bins, func(int) error {
			var v float64
			err := d.value(key, &v)
			ch = append(ch, v)
			return err
		})
		bins -= len(ch)
		item = append(item, ch)
		return err
	}
	if err := channel(); err != nil {
		return err
	}
	err := d.elems(key, 1, chans, func(int) error {
		t, err := d.dec.Token()
		if err != nil {
			return err
		}
		if t != json.Delim('[') {
			return modelErrorf("%q holds a histogram channel that is not an array", shortText(key))
		}
		return channel()
	})
	s.hist = append(s.hist, item)
	return err
}

// object reads a graph or sparse count vector, whose '{' has been read.
func (s *savedInputs) object(d *modelDecoder, key string) error {
	var o savedObject
	err := d.keys("an item of "+key, maxObjectKeys, true, func(k string) error {
		switch k {
		case "labels":
			o.labels = true
			return d.strs(k, &o.Labels, maxItemSize)
		case "edges":
			o.edges = true
			o.Edges = [][3]int{}
			return d.array(k, maxItemSize, func(int) error {
				var e []int
				if err := d.ints(k, &e, 3); err != nil {
					return err
				}
				if len(e) != 3 {
					return modelErrorf("an edge has %d numbers; want 3 (u, v, label)", len(e))
				}
				o.Edges = append(o.Edges, [3]int{e[0], e[1], e[2]})
				return nil
			})
		case "indices":
			o.indices = true
			return d.ints(k, &o.Indices, maxItemSize)
		case "values":
			o.values = true
			return d.floats(k, &o.Values, maxItemSize)
		}
		return d.skip(k)
	})
	s.objs = append(s.objs, o)
	return err
}

// build returns the inputs as Inputs of kind, refusing a shape that is not
// kind's.
func (s *savedInputs) build(kind string) (Inputs, error) {
	want := map[string]string{"vectors": "rows", "strings": "strings", "histograms": "histograms", "graphs": "objects", "sparse_counts": "objects"}[kind]
	if want == "" {
		return nil, fmt.Errorf("sgp: model file: unknown input kind %q (known: vectors, strings, graphs, histograms, sparse_counts)", shortText(kind))
	}
	if s.n == 0 {
		return nil, fmt.Errorf("sgp: model file: no inputs")
	}
	if s.shape != want {
		return nil, fmt.Errorf("sgp: model file: inputs of kind %s are not %s", kind, s.shape)
	}
	switch kind {
	case "vectors":
		return NewVectors(s.n, s.d, s.data)
	case "strings":
		return NewStrings(s.strs)
	case "histograms":
		return NewHistograms(s.hist)
	case "graphs":
		gs := make([]*Graph, len(s.objs))
		for i, o := range s.objs {
			if o.indices || o.values {
				return nil, fmt.Errorf("sgp: model file: inducing graph %d holds indices or values", i)
			}
			edges := make([]Edge, len(o.Edges))
			for e, ed := range o.Edges {
				edges[e] = Edge{U: ed[0], V: ed[1], Label: ed[2]}
			}
			g, err := NewGraph(o.Labels, edges)
			if err != nil {
				return nil, fmt.Errorf("sgp: model file: inducing graph %d: %w", i, err)
			}
			gs[i] = g
		}
		return NewGraphs(gs)
	}
	indices := make([][]int, len(s.objs))
	values := make([][]float64, len(s.objs))
	for i, o := range s.objs {
		if o.labels || o.edges {
			return nil, fmt.Errorf("sgp: model file: sparse count vector %d holds labels or edges", i)
		}
		indices[i], values[i] = o.Indices, o.Values
		if values[i] == nil {
			values[i] = []float64{}
		}
	}
	return NewSparseCounts(indices, values)
}
