package kernel

import (
	"encoding/json"
	"fmt"

	"github.com/cholqr/sgp/sgp/internal/jsonstream"
	"github.com/cholqr/sgp/sgp/internal/table"
)

// MarshalInputs returns the JSON form of inputs of the built-in kinds, as
// model files hold them, and their kind ("vectors", "strings", "graphs",
// "histograms" or "sparse_counts"); ReadInputs and SavedInputs.Inputs read
// it back. It returns an error for inputs of another package.
func MarshalInputs(x Inputs) (kind string, raw json.RawMessage, err error) {
	switch v := x.(type) {
	case *Vectors:
		rows := make([][]float64, v.n)
		for i := range rows {
			rows[i] = v.Row(i)
		}
		raw, err := json.Marshal(rows)
		return "vectors", raw, err
	case *Strings:
		raw, err := json.Marshal(v.s)
		return "strings", raw, err
	case *Graphs:
		gs := make([]savedGraph, len(v.g))
		for i, g := range v.g {
			gs[i].Labels = g.labels
			gs[i].Edges = make([][3]int, len(g.edges))
			for e, ed := range g.edges {
				gs[i].Edges[e] = [3]int{ed.U, ed.V, ed.Label}
			}
		}
		raw, err := json.Marshal(gs)
		return "graphs", raw, err
	case *Histograms:
		items := make([][][]float64, v.n)
		for i := range items {
			items[i] = make([][]float64, v.NumChannels())
			for c := range items[i] {
				items[i][c] = v.Channel(i, c)
			}
		}
		raw, err := json.Marshal(items)
		return "histograms", raw, err
	case *SparseCounts:
		items := make([]savedSparse, v.Len())
		for i := range items {
			items[i].Indices, items[i].Values = v.Item(i)
		}
		raw, err := json.Marshal(items)
		return "sparse_counts", raw, err
	}
	return "", nil, fmt.Errorf("sgp: cannot save inputs of type %T", x)
}

// savedGraph is the JSON form of a Graph: node labels and edges (u, v, label).
type savedGraph struct {
	Labels []string `json:"labels"`
	Edges  [][3]int `json:"edges"`
}

// savedSparse is the JSON form of one sparse count vector.
type savedSparse struct {
	Indices []int     `json:"indices"`
	Values  []float64 `json:"values"`
}

// SavedInputs are inputs as a model file holds them, read by their JSON
// shape before the file's input kind may have been read: rows of numbers
// (vectors), strings, arrays of arrays of numbers (histograms) or objects
// (graphs or sparse count vectors). ReadInputs reads them; Inputs turns
// them into Inputs of the declared kind.
type SavedInputs struct {
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

// ReadInputs reads the inputs for key, a JSON array, from dec as a
// stream of tokens: at most max items, rows of at most the kernel's input
// dimension and histograms of at most its channels where k (nil if the
// file has not given its kernel yet) declares them, and every other part
// within the format's limits, so that a hostile file allocates no more
// than its sizes allow.
func ReadInputs(dec *json.Decoder, key string, max int, k *Description) (*SavedInputs, error) {
	dim, chans := maxDim, maxItemSize
	if k != nil {
		if v := k.InputDim(); v > 0 {
			dim = v
		}
		if c := k.channels(); c > 0 {
			chans = c
		}
	}
	s := &SavedInputs{}
	return s, s.read(jsonstream.Decoder{Decoder: dec}, key, max, dim, chans)
}

// read reads the inputs for key: at most max items, rows of at most dim
// values, histograms of at most chans channels.
func (s *SavedInputs) read(d jsonstream.Decoder, key string, max, dim, chans int) error {
	return d.Array(key, max, func(i int) error {
		// The first one or two tokens of an item tell its shape.
		t, err := d.Token()
		if err != nil {
			return err
		}
		var shape string
		var first json.Token // a row's first value, or the '[' of a histogram's first channel
		switch t {
		case json.Delim('{'):
			shape = "objects"
		case json.Delim('['):
			if first, err = d.Token(); err != nil {
				return err
			}
			shape = "rows"
			if first == json.Delim('[') {
				shape = "histograms"
			}
		default:
			if _, ok := t.(string); !ok {
				return jsonstream.Errorf("%q holds an item that is not an array, a string or an object", table.Short(key))
			}
			shape = "strings"
		}
		if i == 0 {
			s.shape = shape
		} else if shape != s.shape {
			return jsonstream.Errorf("%q mixes %s and %s", table.Short(key), s.shape, shape)
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
func (s *SavedInputs) row(d jsonstream.Decoder, key string, i, dim int, first json.Token) error {
	if i > 0 {
		dim = s.d
	}
	n := 0
	if first != json.Delim(']') {
		v, ok := first.(float64)
		if !ok {
			return jsonstream.Errorf("%q holds a row whose first value is not a number", table.Short(key))
		}
		if dim < 1 {
			return jsonstream.Errorf("%q: row %d has more than %d values", table.Short(key), i, dim)
		}
		s.data = append(s.data, v)
		n = 1
		err := d.Elems(key, 1, dim, func(int) error {
			var v float64
			err := d.Value(key, &v)
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
		return jsonstream.Errorf("%q: row %d has %d values, row 0 has %d", table.Short(key), i, n, s.d)
	}
	return nil
}

// histogram reads histogram item i, whose '[' and the '[' of its first
// channel have been read: at most chans channels and maxItemSize bins in
// all; item 0 fixes the number of channels and bins of the others
// (NewHistograms checks each channel's).
func (s *SavedInputs) histogram(d jsonstream.Decoder, key string, i, chans int) error {
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
		err := d.Elems(key, 0, bins, func(int) error {
			var v float64
			err := d.Value(key, &v)
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
	err := d.Elems(key, 1, chans, func(int) error {
		t, err := d.Token()
		if err != nil {
			return err
		}
		if t != json.Delim('[') {
			return jsonstream.Errorf("%q holds a histogram channel that is not an array", table.Short(key))
		}
		return channel()
	})
	s.hist = append(s.hist, item)
	return err
}

// object reads a graph or sparse count vector, whose '{' has been read.
func (s *SavedInputs) object(d jsonstream.Decoder, key string) error {
	var o savedObject
	err := d.Keys("an item of "+key, jsonstream.MaxObjectKeys, true, func(k string) error {
		switch k {
		case "labels":
			o.labels = true
			return d.Strs(k, &o.Labels, maxItemSize)
		case "edges":
			o.edges = true
			o.Edges = [][3]int{}
			return d.Array(k, maxItemSize, func(int) error {
				var e []int
				if err := d.Ints(k, &e, 3); err != nil {
					return err
				}
				if len(e) != 3 {
					return jsonstream.Errorf("an edge has %d numbers; want 3 (u, v, label)", len(e))
				}
				o.Edges = append(o.Edges, [3]int{e[0], e[1], e[2]})
				return nil
			})
		case "indices":
			o.indices = true
			return d.Ints(k, &o.Indices, maxItemSize)
		case "values":
			o.values = true
			return d.Floats(k, &o.Values, maxItemSize)
		}
		return d.Skip(k)
	})
	s.objs = append(s.objs, o)
	return err
}

// Inputs returns the inputs as Inputs of kind (an input kind of
// MarshalInputs), refusing a shape that is not kind's. A nil s holds no
// inputs.
func (s *SavedInputs) Inputs(kind string) (Inputs, error) {
	if s == nil {
		s = &SavedInputs{}
	}
	want := map[string]string{"vectors": "rows", "strings": "strings", "histograms": "histograms", "graphs": "objects", "sparse_counts": "objects"}[kind]
	if want == "" {
		return nil, fmt.Errorf("sgp: model file: unknown input kind %q (known: vectors, strings, graphs, histograms, sparse_counts)", table.Short(kind))
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
