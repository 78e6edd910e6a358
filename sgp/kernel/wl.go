package kernel

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/cholqr/sgp/sgp/internal/par"
)

// wlMaxDepth is the largest number of Weisfeiler–Lehman iterations h. The
// depth of a label is stored in the top 8 bits of its feature id.
const wlMaxDepth = 31

// wlDepthShift is the bit position of the depth in a WL feature id.
const wlDepthShift = 56

// wlEmpty is the label of an empty graph (no nodes) at every depth, so
// that empty graphs are alike and orthogonal to all others.
const wlEmpty = 1<<wlDepthShift - 1

// mix64 is the SplitMix64 finaliser (Steele, Lea & Flood 2014), a
// bijection of uint64 whose output bits each depend on all input bits.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// wlLabels appends to buf the feature ids of the Weisfeiler–Lehman labels
// of every node of g at depths 0…h (Shervashidze et al. 2011, JMLR 12,
// Alg. 2, with hashing in place of the label dictionary):
//
//	ℓ₀(v) = mix(FNV(label(v)))
//	ℓ_d(v) = fold(mix(ℓ_{d−1}(v)), sort{ mix(ℓ_{d−1}(u) + φ·bond(u,v)) : u ∈ N(v) })
//
// where fold(a, s₁…s_r) = mix(…mix(mix(a ⊕ s₁) ⊕ s₂)… ⊕ s_r). Sorting the
// neighbour signatures makes ℓ_d a function of the multiset, as WL's sorted
// label string is. Unlike a dictionary that numbers labels in order of
// appearance, the hash depends on the graph alone, so graphs featurised at
// different times (train and test) agree. The edge label enters each
// neighbour's signature, the usual extension of WL to bond types. The id is
// d·2⁵⁶ + ⌊ℓ_d/2⁸⌋: the depth in the top byte, so ids sort by depth.
// Distinct labels collide with probability about (#labels)²·2⁻⁵⁷. Cost
// O(h·(|V| + |E| log Δ)) for maximum degree Δ.
func wlLabels(buf []uint64, g *Graph, h int) []uint64 {
	n := len(g.labels)
	if n == 0 {
		for d := 0; d <= h; d++ {
			buf = append(buf, uint64(d)<<wlDepthShift|wlEmpty)
		}
		return buf
	}
	cur := make([]uint64, 2*n)
	cur, next := cur[:n], cur[n:]
	for v, l := range g.labels {
		cur[v] = mix64(fnv64(l))
		buf = append(buf, cur[v]>>8)
	}
	var sig []uint64
	for d := 1; d <= h; d++ {
		for v := 0; v < n; v++ {
			sig = sig[:0]
			for p := g.adjOff[v]; p < g.adjOff[v+1]; p++ {
				sig = append(sig, mix64(cur[g.adj[p]]+0x9e3779b97f4a7c15*uint64(g.adjLab[p])))
			}
			slices.Sort(sig)
			a := mix64(cur[v] ^ 0x6a09e667f3bcc909)
			for _, s := range sig {
				a = mix64(a ^ s)
			}
			next[v] = a
			buf = append(buf, uint64(d)<<wlDepthShift|a>>8)
		}
		cur, next = next, cur
	}
	return buf
}

// wlFeatures are the WL label counts of a set of graphs at depths 0…h.
type wlFeatures struct {
	sp  *sparseFeatures // row i: counts of the labels of graph i, ids sorted (so by depth)
	sqd []float64       // sqd[i·(h+1)+d] = ‖φ_d(G_i)‖², the squared norm at depth d
}

// wlFeaturesOf returns the WL features of gs to depth h, computing them on
// first use and keeping them in gs.
func wlFeaturesOf(gs *Graphs, h int) *wlFeatures {
	return gs.cache.get(featKey{featWL, h}, func() any {
		f := &wlFeatures{sp: newSparseFeatures(countRows(len(gs.g), func(i int, buf []uint64) []uint64 { return wlLabels(buf, gs.g[i], h) }))}
		f.sqd = make([]float64, len(gs.g)*(h+1))
		for i := range gs.g {
			ix, vx := f.sp.row(i)
			sq := f.sqd[i*(h+1) : (i+1)*(h+1)]
			// The same order of summation as sparseDotSplit of row i with
			// itself, so that the normalised diagonal is exactly 1.
			for t, k := range ix {
				sq[k>>wlDepthShift] += vx[t] * vx[t]
			}
		}
		return f
	}).(*wlFeatures)
}

// WL is the Weisfeiler–Lehman subtree kernel on labelled graphs
// (Shervashidze, Schweitzer, van Leeuwen, Mehlhorn & Borgwardt 2011,
// "Weisfeiler–Lehman graph kernels", JMLR 12, §3.4), normalised. With
// φ_d(G) the counts of the WL labels of G's nodes after d relabelling
// iterations and φ = (φ₀, …, φ_h), NewWL gives
//
//	κ(G, G′) = V · ⟨φ(G), φ(G′)⟩ / (‖φ(G)‖ ‖φ(G′)‖)
//
// and NewWLPerDepth one variance per depth, each depth normalised alone,
//
//	κ(G, G′) = Σ_{d=0…h} V_d · ⟨φ_d(G), φ_d(G′)⟩ / (‖φ_d(G)‖ ‖φ_d(G′)‖),
//
// a sum of h+1 graph kernels with h+1 variances, as the sum of 14 graph
// kernels of Cao et al. (2013, §5) on BindingDB. Both are positive
// semi-definite (inner products of feature vectors) with κ(G, G) = V, resp.
// Σ V_d. Edge labels (bond types) enter the relabelling; the labels are
// hashed, so that they need no state shared between training and test
// graphs. An empty graph is alike to empty graphs only.
//
// Its hyperparameters, in θ order, are log V, or log V₀, …, log V_h. It
// accepts *Graphs. The label counts of each graph are computed once per
// *Graphs and h, O(h·(|V| + |E| log Δ)) per graph, and kept in the inputs
// with an inverted index (label → graphs) built on first use. A column
// κ(x_lo…x_hi, y_j) then costs O(Σ_{labels ℓ of y_j} #graphs holding ℓ),
// which touches only the graphs that share a label with y_j; row ranges
// of fewer than 16 use one merge of the two sorted count vectors per
// value, O(nnz).
type WL struct {
	h        int
	perDepth bool
	s        logScales
	pool     sync.Pool // *[]float64 scratch of the per-depth columns
}

var (
	_ Kernel         = (*WL)(nil)
	_ BlockEvaluator = (*WL)(nil)
)

// NewWL returns the normalised WL subtree kernel with h iterations and
// variance V. It panics unless 0 ≤ h ≤ 31 and V is positive and finite.
func NewWL(h int, variance float64) *WL {
	checkWLDepth(h)
	return &WL{h: h, s: newLogScales("WL", []float64{variance})}
}

// NewWLPerDepth returns the WL kernel with h = len(variances)−1 iterations
// and one variance per depth, variances[d] for depth d. It panics unless
// 1 ≤ len(variances) ≤ 32 and every variance is positive and finite.
func NewWLPerDepth(variances []float64) *WL {
	checkWLDepth(len(variances) - 1)
	return &WL{h: len(variances) - 1, perDepth: true, s: newLogScales("WL", variances)}
}

// scratch returns a slice of length n from k's pool.
func (k *WL) scratch(n int) *[]float64 {
	p, _ := k.pool.Get().(*[]float64)
	if p == nil {
		p = new([]float64)
	}
	if cap(*p) < n {
		*p = make([]float64, n)
	}
	*p = (*p)[:n]
	return p
}

func checkWLDepth(h int) {
	if h < 0 || h > wlMaxDepth {
		panic(fmt.Sprintf("sgp: WL kernel needs 0 ≤ h ≤ %d iterations, got %d", wlMaxDepth, h))
	}
}

// Depth returns h, the number of WL iterations.
func (k *WL) Depth() int { return k.h }

// PerDepth reports whether the kernel has one variance per depth.
func (k *WL) PerDepth() bool { return k.perDepth }

// Variances returns a copy of the variances: V, or V₀, …, V_h.
func (k *WL) Variances() []float64 { return append([]float64(nil), k.s.v...) }

// String describes the kernel in one line: wl(h H, variance V), or
// wl(h H, variances [V₀ … V_h]) with a variance per depth.
func (k *WL) String() string {
	if k.perDepth {
		return callText("wl", "h "+strconv.Itoa(k.h), vecText("variances", k.s.v))
	}
	return callText("wl", "h "+strconv.Itoa(k.h), argText("variance", k.s.v[0]))
}

// HTML returns the hyperparameters as a table, by name in θ order.
func (k *WL) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name.
func (k *WL) kind() string {
	if k.perDepth {
		return fmt.Sprintf("WL subtree, depth %d, a variance per depth", k.h)
	}
	return fmt.Sprintf("WL subtree, depth %d", k.h)
}

// NumParams returns 1, or h+1 with one variance per depth.
func (k *WL) NumParams() int { return len(k.s.v) }

// ParamNames returns "variance", or "variance[0]", …, "variance[h]".
func (k *WL) ParamNames() []string {
	if !k.perDepth {
		return []string{"variance"}
	}
	names := make([]string, len(k.s.v))
	for d := range names {
		names[d] = fmt.Sprintf("variance[%d]", d)
	}
	return names
}

// Params returns θ in dst.
func (k *WL) Params(dst []float64) []float64 { return k.s.params(dst) }

// SetParams sets the variances to exp θ.
func (k *WL) SetParams(theta []float64) { k.s.set(theta) }

// Accepts reports whether x is *Graphs.
func (k *WL) Accepts(x Inputs) error {
	if _, ok := x.(*Graphs); !ok {
		return fmt.Errorf("sgp: the WL kernel needs graph inputs (*kernel.Graphs, e.g. from mol.ParseSMILES), got %T", x)
	}
	return nil
}

func (k *WL) features(x Inputs) *wlFeatures { return wlFeaturesOf(x.(*Graphs), k.h) }

// perDepthValue returns Σ_d scale_d · acc_d/√(sa_d·sb_d), and stores the
// terms in terms if it is not nil.
func perDepthValue(scale, acc, sa, sb, terms []float64) float64 {
	var s float64
	for d, v := range scale {
		t := v * acc[d] / math.Sqrt(sa[d]*sb[d])
		if terms != nil {
			terms[d] = t
		}
		s += t
	}
	return s
}

// Column sets dst[i−lo] = κ(x_i, y_j).
func (k *WL) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	fx, fy := k.features(x), k.features(y)
	if !k.perDepth {
		normalisedColumn(dst, k.s.v[0], fx.sp, lo, hi, fy.sp, j)
		return
	}
	D := k.h + 1
	bi, bv := fy.sp.row(j)
	sb := fy.sqd[j*D : (j+1)*D]
	if w := hi - lo; w >= invMinRows {
		// Through the inverted index: acc[d·w + i−lo] = ⟨φ_d(x_i), φ_d(y_j)⟩.
		p := k.scratch(D * w)
		acc := *p
		clear(acc)
		fx.sp.index().scatterDotSplit(acc, wlDepthShift, lo, hi, bi, bv)
		for i := lo; i < hi; i++ {
			sa := fx.sqd[i*D : (i+1)*D]
			var s float64
			for d, v := range k.s.v { // the order of perDepthValue
				s += v * acc[d*w+i-lo] / math.Sqrt(sa[d]*sb[d])
			}
			dst[i-lo] = s
		}
		k.pool.Put(p)
		return
	}
	var buf [wlMaxDepth + 1]float64
	acc := buf[:D]
	for i := lo; i < hi; i++ {
		clear(acc)
		ai, av := fx.sp.row(i)
		sparseDotSplit(acc, wlDepthShift, ai, av, bi, bv)
		dst[i-lo] = perDepthValue(k.s.v, acc, fx.sqd[i*D:(i+1)*D], sb, nil)
	}
}

// Diag sets dst[i−lo] = V, or Σ_d V_d.
func (k *WL) Diag(dst []float64, x Inputs, lo, hi int) {
	var s float64
	for _, v := range k.s.v {
		s += v // the order of perDepthValue
	}
	for i := range dst[:hi-lo] {
		dst[i] = s
	}
}

// AddGrad adds the weighted derivatives ∂κ/∂log V = κ, or ∂κ/∂log V_d =
// the depth-d term.
func (k *WL) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	if !k.perDepth && hi-lo >= invMinRows {
		addGradByColumns(k, &grad[0], w, x, lo, hi, y, cols)
		return
	}
	fx, fy := k.features(x), k.features(y)
	if !k.perDepth {
		normalisedAddGrad(&grad[0], w, k.s.v[0], fx.sp, lo, hi, fy.sp, cols)
		return
	}
	D := k.h + 1
	if wd := hi - lo; wd >= invMinRows {
		// Per column through the inverted index, as in Column.
		p := k.scratch(D * wd)
		acc := *p
		nc := len(cols)
		for c, j := range cols {
			clear(acc)
			bi, bv := fy.sp.row(j)
			sb := fy.sqd[j*D : (j+1)*D]
			fx.sp.index().scatterDotSplit(acc, wlDepthShift, lo, hi, bi, bv)
			for i := lo; i < hi; i++ {
				wi := w[(i-lo)*nc+c]
				if wi == 0 {
					continue
				}
				sa := fx.sqd[i*D : (i+1)*D]
				for d, v := range k.s.v {
					grad[d] += wi * v * acc[d*wd+i-lo] / math.Sqrt(sa[d]*sb[d])
				}
			}
		}
		k.pool.Put(p)
		return
	}
	var buf, tbuf [wlMaxDepth + 1]float64
	acc, terms := buf[:D], tbuf[:D]
	for i := lo; i < hi; i++ {
		ai, av := fx.sp.row(i)
		wi := w[(i-lo)*len(cols) : (i-lo+1)*len(cols)]
		for c, j := range cols {
			if wi[c] == 0 {
				continue
			}
			clear(acc)
			bi, bv := fy.sp.row(j)
			sparseDotSplit(acc, wlDepthShift, ai, av, bi, bv)
			perDepthValue(k.s.v, acc, fx.sqd[i*D:(i+1)*D], fy.sqd[j*D:(j+1)*D], terms)
			for d, t := range terms {
				grad[d] += wi[c] * t
			}
		}
	}
}

// AddDiagGrad adds Σ_i w_i V_d to the derivative for each log V_d.
func (k *WL) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	var s float64
	for _, v := range w[:hi-lo] {
		s += v
	}
	for d, v := range k.s.v {
		grad[d] += s * v
	}
}

func (k *WL) CrossT(dst []float64, x Inputs, y Inputs, cols []int) {
	crossColumns(k, dst, x, y, cols)
}

// AddGradBlockT uses ∂κ/∂log V = κ with one variance; per depth it
// recomputes the terms.
func (k *WL) AddGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	if !k.perDepth {
		addGradScaled(&grad[0], w, kv, x.Len(), len(cols))
		return
	}
	addGradColumns(k, grad, w, x, y, cols)
}

// WLFingerprint returns a Morgan-like count fingerprint of g: the WL labels
// of its nodes at depths 0…h (see WL; for h = 2 the atom environments of
// radius 2, as in ECFP4, Rogers & Hahn 2010, though with the node labels as
// the only atom invariants and without removing duplicate environments),
// each folded to a 31-bit index, with their counts. indices are strictly
// increasing. Distinct labels share an index with probability about 2⁻³¹
// per pair, as in RDKit's unfolded count fingerprints. It panics unless
// 0 ≤ h ≤ 31.
func WLFingerprint(g *Graph, h int) (indices []int, counts []float64) {
	checkWLDepth(h)
	ids := wlLabels(nil, g, h)
	for t, id := range ids {
		ids[t] = mix64(id) >> 33
	}
	slices.Sort(ids)
	for t := 0; t < len(ids); {
		u := t + 1
		for u < len(ids) && ids[u] == ids[t] {
			u++
		}
		indices = append(indices, int(ids[t]))
		counts = append(counts, float64(u-t))
		t = u
	}
	return indices, counts
}

// WLFingerprints returns the WLFingerprint of every graph of gs, as inputs
// for the Tanimoto kernel.
func WLFingerprints(gs *Graphs, h int) *SparseCounts {
	checkWLDepth(h)
	indices := make([][]int, len(gs.g))
	counts := make([][]float64, len(gs.g))
	par.For(len(gs.g), 32, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			indices[i], counts[i] = WLFingerprint(gs.g[i], h)
		}
	})
	sc, err := NewSparseCounts(indices, counts)
	if err != nil {
		panic("sgp: WLFingerprints: " + err.Error()) // unreachable: indices are sorted, counts positive
	}
	return sc
}
