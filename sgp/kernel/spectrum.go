package kernel

import (
	"fmt"
	"strconv"
)

// Spectrum is the normalised k-mer spectrum string kernel (Leslie, Eskin &
// Noble 2002, "The spectrum kernel", PSB; normalised as in Shawe-Taylor &
// Cristianini 2004, §11.2):
//
//	κ(s, t) = V · ⟨φ(s), φ(t)⟩ / (‖φ(s)‖ ‖φ(t)‖),   φ(s)_u = #occurrences of u in s
//
// over all k-mers u, the substrings of k bytes. κ(s, s) = V.
//
// A string shorter than k has no k-mer; it is mapped instead to a unit
// vector of its own, orthogonal to all k-mer counts, so that κ(s, t) = V if
// s and t are the same short string and 0 otherwise. The kernel stays
// positive semi-definite (it is the inner product of unit feature vectors).
//
// Its only hyperparameter is log V. It accepts *Strings. The k-mer counts of
// each string are computed once per *Strings and k (O(L log L) for a string
// of length L, in parallel) and kept in the inputs, with an inverted index
// (k-mer → strings) built on first use; a column then costs O(number of
// matching k-mers), and a single value a merge of two sorted count vectors,
// O(L_s + L_t) (see WL for timings). For k ≤ 7 k-mers are
// packed exactly into the feature ids; for k > 7 they are hashed to 63 bits
// (FNV-1a), where a collision has probability about 2⁻⁶³ per pair.
type Spectrum struct {
	k int
	s logScales
}

var (
	_ Kernel         = (*Spectrum)(nil)
	_ BlockEvaluator = (*Spectrum)(nil)
)

// NewSpectrum returns the normalised k-mer spectrum kernel with variance V.
// It panics if k < 1 or V is not positive and finite.
func NewSpectrum(k int, variance float64) *Spectrum {
	if k < 1 {
		panic(fmt.Sprintf("sgp: spectrum kernel needs k ≥ 1, got %d", k))
	}
	return &Spectrum{k: k, s: newLogScales("spectrum", []float64{variance})}
}

// K returns the k-mer length k.
func (k *Spectrum) K() int { return k.k }

// Variance returns V.
func (k *Spectrum) Variance() float64 { return k.s.v[0] }

// String describes the kernel in one line, spectrum(k K, variance V).
func (k *Spectrum) String() string {
	return callText("spectrum", "k "+strconv.Itoa(k.k), argText("variance", k.s.v[0]))
}

// HTML returns the hyperparameters as a table, by name in θ order.
func (k *Spectrum) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name.
func (k *Spectrum) kind() string { return fmt.Sprintf("spectrum, %d-mers", k.k) }

// NumParams returns 1.
func (k *Spectrum) NumParams() int { return 1 }

// ParamNames returns "variance".
func (k *Spectrum) ParamNames() []string { return []string{"variance"} }

// Params returns (log V) in dst.
func (k *Spectrum) Params(dst []float64) []float64 { return k.s.params(dst) }

// SetParams sets V = exp θ₀.
func (k *Spectrum) SetParams(theta []float64) { k.s.set(theta) }

// Accepts reports whether x is *Strings.
func (k *Spectrum) Accepts(x Inputs) error {
	if _, ok := x.(*Strings); !ok {
		return fmt.Errorf("sgp: the spectrum kernel needs string inputs (*kernel.Strings), got %T", x)
	}
	return nil
}

// spectrumShort marks the feature id of a string shorter than k.
const spectrumShort = 1 << 63

// kmerIDs appends the feature ids of the k-mers of s to buf, or the id of s
// itself if len(s) < k.
func kmerIDs(buf []uint64, s string, k int) []uint64 {
	if len(s) < k {
		if k <= 7 {
			var id uint64
			for t := 0; t < len(s); t++ {
				id |= uint64(s[t]) << (8 * t)
			}
			return append(buf, spectrumShort|uint64(len(s))<<56|id)
		}
		return append(buf, spectrumShort|fnv64(s)>>1)
	}
	for p := 0; p+k <= len(s); p++ {
		if k <= 7 {
			var id uint64
			for t := 0; t < k; t++ {
				id |= uint64(s[p+t]) << (8 * t)
			}
			buf = append(buf, id)
		} else {
			buf = append(buf, fnv64(s[p:p+k])>>1)
		}
	}
	return buf
}

// features returns the k-mer counts of x, computing them on first use.
func (k *Spectrum) features(x Inputs) *sparseFeatures {
	xs := x.(*Strings)
	return xs.cache.get(featKey{featSpectrum, k.k}, func() any {
		return newSparseFeatures(countRows(len(xs.s), func(i int, buf []uint64) []uint64 { return kmerIDs(buf, xs.s[i], k.k) }))
	}).(*sparseFeatures)
}

// Column sets dst[i−lo] = κ(x_i, y_j).
func (k *Spectrum) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	normalisedColumn(dst, k.s.v[0], k.features(x), lo, hi, k.features(y), j)
}

// Diag sets dst[i−lo] = V.
func (k *Spectrum) Diag(dst []float64, x Inputs, lo, hi int) {
	for i := range dst[:hi-lo] {
		dst[i] = k.s.v[0]
	}
}

// AddGrad adds the weighted derivatives ∂κ/∂log V = κ.
func (k *Spectrum) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	if hi-lo >= invMinRows {
		addGradByColumns(k, &grad[0], w, x, lo, hi, y, cols)
		return
	}
	normalisedAddGrad(&grad[0], w, k.s.v[0], k.features(x), lo, hi, k.features(y), cols)
}

// AddDiagGrad adds Σ_i w_i V to the derivative for log V.
func (k *Spectrum) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	var s float64
	for _, v := range w[:hi-lo] {
		s += v
	}
	grad[0] += s * k.s.v[0]
}

func (k *Spectrum) CrossT(dst []float64, x Inputs, y Inputs, cols []int) {
	crossColumns(k, dst, x, y, cols)
}

// AddGradBlockT uses ∂κ/∂log V = κ: no kernel evaluations.
func (k *Spectrum) AddGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	addGradScaled(&grad[0], w, kv, x.Len(), len(cols))
}
