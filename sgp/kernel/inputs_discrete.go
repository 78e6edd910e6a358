package kernel

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// This file holds the Inputs of the discrete domains (Cao et al. 2013, §5): strings,
// labelled graphs, multi-channel histograms and sparse count vectors. The
// kernels that read them are in kernel_*.go and wl.go.
//
// Every kernel that needs derived features (the k-mer counts of a string,
// the Weisfeiler–Lehman label counts of a graph) computes them once per
// Inputs value and feature configuration and keeps them in the Inputs, in a
// featureCache: the cache is keyed by the Inputs pointer in the sense that it
// lives and dies with it, so features of test inputs built later never mix
// with the training set's and nothing outlives its data. Features are
// functions of one item only (labels are hashed, not numbered in order of
// appearance), so that training and test inputs featurised at different
// times agree.

// featKey names a feature configuration: the kind of features and its
// integer parameter (k of a k-mer spectrum, h of a WL kernel).
type featKey struct {
	kind byte
	p    int
}

const (
	featSpectrum byte = iota + 1
	featWL
)

// featureCache holds the features derived from one Inputs value. Lookups
// are lock free (an immutable map published atomically); a miss builds the
// features under a mutex, once, while concurrent callers of the same key
// wait. The zero value is empty and ready.
type featureCache struct {
	mu sync.Mutex
	m  atomic.Pointer[map[featKey]any]
}

// get returns the features for key, calling build at most once per cache.
func (c *featureCache) get(key featKey, build func() any) any {
	if m := c.m.Load(); m != nil {
		if v, ok := (*m)[key]; ok {
			return v
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	if old != nil {
		if v, ok := (*old)[key]; ok {
			return v
		}
	}
	v := build()
	next := make(map[featKey]any, 1)
	if old != nil {
		for k, x := range *old {
			next[k] = x
		}
	}
	next[key] = v
	c.m.Store(&next)
	return v
}

// Strings holds n strings as Inputs, for the k-mer spectrum kernel
// (Spectrum). The slice is shared, not copied: do not modify it after
// NewStrings.
type Strings struct {
	s     []string
	cache featureCache
}

var _ Inputs = (*Strings)(nil)

// NewStrings wraps s as Inputs. It returns an error if s is empty. Strings
// are taken as byte sequences; any bytes, including invalid UTF-8, are
// allowed.
func NewStrings(s []string) (*Strings, error) {
	if len(s) == 0 {
		return nil, fmt.Errorf("sgp: no strings given")
	}
	return &Strings{s: s}, nil
}

// Len returns the number of strings n.
func (s *Strings) Len() int { return len(s.s) }

// At returns string i.
func (s *Strings) At(i int) string { return s.s[i] }

// Subset returns the strings idx in order, as a new *Strings.
func (s *Strings) Subset(idx []int) Inputs {
	out := make([]string, len(idx))
	for r, i := range idx {
		out[r] = s.s[i]
	}
	return &Strings{s: out}
}

// Edge is an undirected edge {U, V} of a Graph carrying an integer label:
// for molecular graphs read by ParseSMILES, the bond type (BondSingle, …).
type Edge struct {
	U, V  int
	Label int
}

// Graph is an undirected graph with a string label on every node and an
// integer label on every edge, such as the heavy-atom graph of a molecule
// (ParseSMILES). It is immutable once built by NewGraph.
type Graph struct {
	labels []string
	edges  []Edge
	// Compressed adjacency: the neighbours of node v are adj[adjOff[v]:adjOff[v+1]]
	// and the labels of the edges to them adjLab[adjOff[v]:adjOff[v+1]].
	adjOff []int32
	adj    []int32
	adjLab []int
}

// NewGraph returns the graph with node labels labels (node v has label
// labels[v]) and the given edges. It copies both slices. It returns an error
// if an edge has an endpoint outside [0, len(labels)), joins a node to
// itself, or repeats an earlier edge. A graph with no nodes is allowed.
func NewGraph(labels []string, edges []Edge) (*Graph, error) {
	n := len(labels)
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("sgp: graph has %d nodes, more than %d", n, math.MaxInt32)
	}
	g := &Graph{labels: slices.Clone(labels), edges: slices.Clone(edges), adjOff: make([]int32, n+1)}
	seen := make(map[[2]int]int, len(edges))
	for e, ed := range edges {
		if ed.U < 0 || ed.U >= n || ed.V < 0 || ed.V >= n {
			return nil, fmt.Errorf("sgp: graph edge %d joins nodes %d and %d, but the graph has %d nodes", e, ed.U, ed.V, n)
		}
		if ed.U == ed.V {
			return nil, fmt.Errorf("sgp: graph edge %d joins node %d to itself", e, ed.U)
		}
		key := [2]int{min(ed.U, ed.V), max(ed.U, ed.V)}
		if f, ok := seen[key]; ok {
			return nil, fmt.Errorf("sgp: graph edges %d and %d both join nodes %d and %d", f, e, key[0], key[1])
		}
		seen[key] = e
		g.adjOff[ed.U+1]++
		g.adjOff[ed.V+1]++
	}
	for v := 0; v < n; v++ {
		g.adjOff[v+1] += g.adjOff[v]
	}
	g.adj = make([]int32, 2*len(edges))
	g.adjLab = make([]int, 2*len(edges))
	fill := slices.Clone(g.adjOff[:n])
	for _, ed := range edges {
		g.adj[fill[ed.U]], g.adjLab[fill[ed.U]] = int32(ed.V), ed.Label
		fill[ed.U]++
		g.adj[fill[ed.V]], g.adjLab[fill[ed.V]] = int32(ed.U), ed.Label
		fill[ed.V]++
	}
	return g, nil
}

// NewGraphCodes is NewGraph with integer node labels: node v is labelled
// by the decimal form of codes[v].
func NewGraphCodes(codes []int, edges []Edge) (*Graph, error) {
	labels := make([]string, len(codes))
	for v, c := range codes {
		labels[v] = strconv.Itoa(c)
	}
	return NewGraph(labels, edges)
}

// NumNodes returns the number of nodes.
func (g *Graph) NumNodes() int { return len(g.labels) }

// NumEdges returns the number of edges.
func (g *Graph) NumEdges() int { return len(g.edges) }

// Label returns the label of node v.
func (g *Graph) Label(v int) string { return g.labels[v] }

// Labels returns a copy of the node labels.
func (g *Graph) Labels() []string { return slices.Clone(g.labels) }

// Edge returns edge e.
func (g *Graph) Edge(e int) Edge { return g.edges[e] }

// Edges returns a copy of the edges.
func (g *Graph) Edges() []Edge { return slices.Clone(g.edges) }

// Degree returns the number of neighbours of node v.
func (g *Graph) Degree(v int) int { return int(g.adjOff[v+1] - g.adjOff[v]) }

// Neighbor returns the t-th neighbour of node v (0 ≤ t < Degree(v)) and
// the label of the edge joining them.
func (g *Graph) Neighbor(v, t int) (u, label int) {
	p := int(g.adjOff[v]) + t
	if t < 0 || p >= int(g.adjOff[v+1]) {
		panic(errIndex)
	}
	return int(g.adj[p]), g.adjLab[p]
}

// String returns a short description such as "graph(12 nodes, 13 edges)".
func (g *Graph) String() string {
	return fmt.Sprintf("graph(%d nodes, %d edges)", len(g.labels), len(g.edges))
}

// Graphs holds n labelled graphs as Inputs, for the Weisfeiler–Lehman
// kernel (WL). The graphs are shared, not copied (they are immutable).
type Graphs struct {
	g     []*Graph
	cache featureCache
}

var _ Inputs = (*Graphs)(nil)

// NewGraphs wraps gs as Inputs. It returns an error if gs is empty or holds
// a nil graph. The slice is shared: do not modify it afterwards.
func NewGraphs(gs []*Graph) (*Graphs, error) {
	if len(gs) == 0 {
		return nil, fmt.Errorf("sgp: no graphs given")
	}
	for i, g := range gs {
		if g == nil {
			return nil, fmt.Errorf("sgp: graph %d is nil", i)
		}
	}
	return &Graphs{g: gs}, nil
}

// Len returns the number of graphs n.
func (gs *Graphs) Len() int { return len(gs.g) }

// Graph returns graph i.
func (gs *Graphs) Graph(i int) *Graph { return gs.g[i] }

// Subset returns the graphs idx in order (sharing the *Graph values).
func (gs *Graphs) Subset(idx []int) Inputs {
	out := make([]*Graph, len(idx))
	for r, i := range idx {
		out[r] = gs.g[i]
	}
	return &Graphs{g: out}
}

// Histograms holds n items, each a set of C histograms (channels) of
// non-negative bins, for the histogram intersection kernel. Channel c has
// the same number of bins B_c in every item; different channels may differ
// (e.g. HoG cells at several scales, Cao et al. 2013 §5).
type Histograms struct {
	n     int
	chOff []int     // channel c is bins chOff[c]:chOff[c+1] of an item
	data  []float64 // item i is data[i·B : (i+1)·B], B = chOff[C]
	sums  []float64 // sums[i·C+c] = Σ_b h_icb
}

var _ Inputs = (*Histograms)(nil)

// NewHistograms copies items into a new Histograms: items[i][c][b] is bin b
// of channel c of item i. It returns an error if items is empty, if the
// items do not all have the same number of channels with the same numbers
// of bins (ragged channels), if a channel has no bins, or if a bin is
// negative, NaN or infinite.
func NewHistograms(items [][][]float64) (*Histograms, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("sgp: no histograms given")
	}
	C := len(items[0])
	if C == 0 {
		return nil, fmt.Errorf("sgp: histogram item 0 has no channels")
	}
	h := &Histograms{n: len(items), chOff: make([]int, C+1)}
	for c, ch := range items[0] {
		if len(ch) == 0 {
			return nil, fmt.Errorf("sgp: histogram item 0, channel %d has no bins", c)
		}
		h.chOff[c+1] = h.chOff[c] + len(ch)
	}
	B := h.chOff[C]
	h.data = make([]float64, 0, len(items)*B)
	h.sums = make([]float64, len(items)*C)
	for i, it := range items {
		if len(it) != C {
			return nil, fmt.Errorf("sgp: histogram item %d has %d channels, item 0 has %d", i, len(it), C)
		}
		for c, ch := range it {
			if len(ch) != h.chOff[c+1]-h.chOff[c] {
				return nil, fmt.Errorf("sgp: histogram item %d, channel %d has %d bins, item 0 has %d", i, c, len(ch), h.chOff[c+1]-h.chOff[c])
			}
			var s float64
			for b, v := range ch {
				if !(v >= 0) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("sgp: histogram item %d, channel %d, bin %d is %v; bins must be non-negative and finite", i, c, b, v)
				}
				s += v
			}
			h.sums[i*C+c] = s
			h.data = append(h.data, ch...)
		}
	}
	return h, nil
}

// Len returns the number of items n.
func (h *Histograms) Len() int { return h.n }

// NumChannels returns the number of channels C.
func (h *Histograms) NumChannels() int { return len(h.chOff) - 1 }

// NumBins returns the number of bins B_c of channel c.
func (h *Histograms) NumBins(c int) int { return h.chOff[c+1] - h.chOff[c] }

// Channel returns channel c of item i as a view into the shared data.
func (h *Histograms) Channel(i, c int) []float64 {
	B := h.chOff[len(h.chOff)-1]
	lo, hi := i*B+h.chOff[c], i*B+h.chOff[c+1]
	return h.data[lo:hi:hi]
}

// item returns all bins of item i, channels concatenated.
func (h *Histograms) item(i int) []float64 {
	B := h.chOff[len(h.chOff)-1]
	return h.data[i*B : (i+1)*B : (i+1)*B]
}

// Subset returns a copy of the items idx in order.
func (h *Histograms) Subset(idx []int) Inputs {
	C, B := h.NumChannels(), h.chOff[len(h.chOff)-1]
	out := &Histograms{n: len(idx), chOff: h.chOff, data: make([]float64, len(idx)*B), sums: make([]float64, len(idx)*C)}
	for r, i := range idx {
		copy(out.data[r*B:(r+1)*B], h.item(i))
		copy(out.sums[r*C:(r+1)*C], h.sums[i*C:(i+1)*C])
	}
	return out
}

// SparseCounts holds n sparse vectors of non-negative counts, such as
// molecular count fingerprints, for the Tanimoto (MinMax) kernel. Vector i
// is given by strictly increasing non-negative indices and their values;
// absent indices are zero.
type SparseCounts struct {
	sp *sparseFeatures
}

var _ Inputs = (*SparseCounts)(nil)

// NewSparseCounts copies indices and values into a new SparseCounts: item i
// has value values[i][t] at index indices[i][t]. If values is nil every
// listed index has value 1 (a binary fingerprint). It returns an error if
// there are no items, if the lengths disagree, if the indices of an item
// are negative or not strictly increasing, or if a value is negative, NaN
// or infinite. An item with no indices is the zero vector.
func NewSparseCounts(indices [][]int, values [][]float64) (*SparseCounts, error) {
	if len(indices) == 0 {
		return nil, fmt.Errorf("sgp: no sparse count vectors given")
	}
	if values != nil && len(values) != len(indices) {
		return nil, fmt.Errorf("sgp: %d index lists but %d value lists", len(indices), len(values))
	}
	var b sparseBuilder
	b.init(len(indices))
	for i, idx := range indices {
		if values != nil && len(values[i]) != len(idx) {
			return nil, fmt.Errorf("sgp: sparse vector %d has %d indices but %d values", i, len(idx), len(values[i]))
		}
		for t, k := range idx {
			if k < 0 {
				return nil, fmt.Errorf("sgp: sparse vector %d has negative index %d", i, k)
			}
			if t > 0 && k <= idx[t-1] {
				return nil, fmt.Errorf("sgp: sparse vector %d: indices must be strictly increasing, got %d after %d", i, k, idx[t-1])
			}
			v := 1.0
			if values != nil {
				v = values[i][t]
			}
			if !(v >= 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("sgp: sparse vector %d, index %d has value %v; counts must be non-negative and finite", i, k, v)
			}
			b.push(uint64(k), v)
		}
		b.endRow()
	}
	return &SparseCounts{sp: newSparseFeatures(b.done())}, nil
}

// SparseCountsFromMaps is NewSparseCounts from one map index → count per
// item.
func SparseCountsFromMaps(items []map[int]float64) (*SparseCounts, error) {
	indices := make([][]int, len(items))
	values := make([][]float64, len(items))
	for i, m := range items {
		for k := range m {
			indices[i] = append(indices[i], k)
		}
		slices.Sort(indices[i])
		values[i] = make([]float64, len(indices[i]))
		for t, k := range indices[i] {
			values[i][t] = m[k]
		}
	}
	return NewSparseCounts(indices, values)
}

// Len returns the number of vectors n.
func (s *SparseCounts) Len() int { return s.sp.n() }

// Item returns copies of the indices and values of vector i.
func (s *SparseCounts) Item(i int) (indices []int, values []float64) {
	ix, vx := s.sp.row(i)
	indices = make([]int, len(ix))
	for t, k := range ix {
		indices[t] = int(k)
	}
	return indices, slices.Clone(vx)
}

// Subset returns a copy of the vectors idx in order.
func (s *SparseCounts) Subset(idx []int) Inputs {
	return &SparseCounts{sp: newSparseFeatures(s.sp.subset(idx))}
}
