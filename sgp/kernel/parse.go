package kernel

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// specNames lists the kernel specifications SplitSpec accepts.
const specNames = "rbf, wl[:h], wl-depth[:h], spectrum[:k], tanimoto[:r], histogram[:C]"

// SplitSpec splits a kernel specification "name[:p]" into the name and
// its integer parameter, filling in the default. Specifications name a
// built-in kernel and the kind of inputs it reads, for command lines and
// scripts (sgprepl fit --kernel; see Parse, and mol.InputsFromCells for
// reading inputs from table cells):
//
//	rbf             RBF-ARD on numeric columns (NewRBFFromData)
//	wl[:h]          WL subtree kernel on SMILES, h iterations (default 3)
//	wl-depth[:h]    WL with one variance per depth 0…h (default h = 3)
//	spectrum[:k]    normalised k-mer spectrum on strings (default k = 3)
//	tanimoto[:r]    MinMax on count fingerprints: "index:count …" cells, or
//	                SMILES turned into WLFingerprint of radius r (default 2)
//	histogram[:C]   histogram intersection; the numeric columns are the bins
//	                of C channels of equal size (default 1)
//
// Names are case-insensitive. It returns an error for an unknown name or a
// parameter out of range.
func SplitSpec(spec string) (name string, param int, err error) {
	name, arg, hasArg := strings.Cut(strings.ToLower(strings.TrimSpace(spec)), ":")
	def, lo, hi := 0, 0, 0
	switch name {
	case "rbf":
		if hasArg {
			return "", 0, fmt.Errorf("sgp: kernel %q takes no parameter", spec)
		}
		return name, 0, nil
	case "wl", "wl-depth":
		def, lo, hi = 3, 0, wlMaxDepth
	case "spectrum":
		def, lo, hi = 3, 1, 64
	case "tanimoto":
		def, lo, hi = 2, 0, wlMaxDepth
	case "histogram":
		def, lo, hi = 1, 1, 1<<20
	default:
		return "", 0, fmt.Errorf("sgp: unknown kernel %q; choose one of %s", spec, specNames)
	}
	if !hasArg {
		return name, def, nil
	}
	p, err := strconv.Atoi(arg)
	if err != nil || p < lo || p > hi {
		return "", 0, fmt.Errorf("sgp: kernel %q: parameter %q must be an integer in [%d, %d]", spec, arg, lo, hi)
	}
	return name, p, nil
}

// Parse returns the kernel named by spec (see SplitSpec) for inputs x, with its variance set to the variance of the targets y (1
// if y is constant or empty): for wl-depth V_d = var(y)/(h+1), for the
// histogram kernel as NewHistogramIntersectionFromData, for rbf as
// NewRBFFromData. It returns an error if the kernel cannot read x.
func Parse(spec string, x Inputs, y []float64) (Kernel, error) {
	name, p, err := SplitSpec(spec)
	if err != nil {
		return nil, err
	}
	vy := 1.0
	if len(y) > 0 {
		if v := variance(y); v > 0 && !math.IsInf(v, 0) {
			vy = v
		}
	}
	var k Kernel
	switch name {
	case "rbf":
		v, ok := x.(*Vectors)
		if !ok {
			return nil, fmt.Errorf("sgp: kernel rbf needs numeric inputs (*kernel.Vectors), got %T", x)
		}
		k = NewRBFFromData(v, y)
	case "wl":
		k = NewWL(p, vy)
	case "wl-depth":
		vars := make([]float64, p+1)
		for d := range vars {
			vars[d] = vy / float64(p+1)
		}
		k = NewWLPerDepth(vars)
	case "spectrum":
		k = NewSpectrum(p, vy)
	case "tanimoto":
		k = NewTanimoto(vy)
	case "histogram":
		h, ok := x.(*Histograms)
		if !ok {
			return nil, fmt.Errorf("sgp: kernel histogram needs histogram inputs (*kernel.Histograms), got %T", x)
		}
		k = NewHistogramIntersectionFromData(h, y)
	}
	if err := k.Accepts(x); err != nil {
		return nil, err
	}
	return k, nil
}
