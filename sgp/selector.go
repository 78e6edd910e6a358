package sgp

import (
	"fmt"
	"strconv"
	"strings"
)

// Selector is the rule that chooses the inducing points among the training
// data. CholQR is the default; the others are the baselines of Cao et al.
// (2013, §5), which optimise the same objective with the same
// conjugate-gradient phase:
//
//	cholqr            swaps scored through information pivots (this package)
//	random            a random subset, fixed; only θ is optimised
//	greedy-variance   each epoch, the m points chosen greedily by largest
//	                  residual variance at the current θ (a pivoted partial
//	                  Cholesky: IVM-like, Burt et al. 2020 "conditional
//	                  variance"), then CG
//	titsias:S         each epoch, greedy forward selection (Titsias 2009):
//	                  m times, score S random candidates exactly and add the
//	                  best; then CG
//	hybrid            CholQR and continuous SGPR (Continuous, from m random
//	                  training inputs), each run as it runs alone with the
//	                  same seed, then continuous fits from CholQR's fit
//	                  and, with time left in a budget, from the k-means
//	                  centres and seeds of the inputs; the lowest objective
//	                  is kept. With a time budget the two share it in
//	                  turns until one ends or cannot catch up with the
//	                  other (then it is parked); without one its time is
//	                  their sum and it ends no higher than either. Vector
//	                  inputs and a kernel with lengthscales and input
//	                  gradients only
type Selector struct {
	kind selectorKind
	s    int // candidates per step for titsias
}

type selectorKind int

const (
	selCholQR selectorKind = iota
	selRandom
	selGreedyVariance
	selTitsias
	selHybrid
)

// Selectors.
var (
	SelectCholQR         = Selector{kind: selCholQR}
	SelectRandom         = Selector{kind: selRandom}
	SelectGreedyVariance = Selector{kind: selGreedyVariance}
	SelectHybrid         = Selector{kind: selHybrid}
)

// SelectTitsias returns Titsias' greedy forward selection scoring s random
// candidates exactly per added point.
func SelectTitsias(s int) Selector { return Selector{kind: selTitsias, s: s} }

// String returns the selector's name as ParseSelector reads it.
func (s Selector) String() string {
	switch s.kind {
	case selRandom:
		return "random"
	case selGreedyVariance:
		return "greedy-variance"
	case selTitsias:
		return fmt.Sprintf("titsias:%d", s.s)
	case selHybrid:
		return "hybrid"
	}
	return "cholqr"
}

// ParseSelector reads "cholqr", "random", "greedy-variance",
// "titsias:S" (S ≥ 1 candidates per step) or "hybrid".
func ParseSelector(name string) (Selector, error) {
	switch n := strings.ToLower(strings.TrimSpace(name)); {
	case n == "cholqr":
		return SelectCholQR, nil
	case n == "random":
		return SelectRandom, nil
	case n == "hybrid":
		return SelectHybrid, nil
	case n == "greedy-variance" || n == "greedy" || n == "ivm":
		return SelectGreedyVariance, nil
	case strings.HasPrefix(n, "titsias:"):
		s, err := strconv.Atoi(strings.TrimPrefix(n, "titsias:"))
		if err != nil || s < 1 {
			return Selector{}, fmt.Errorf("sgp: selector %q: titsias needs a candidate count, e.g. titsias:16", name)
		}
		return SelectTitsias(s), nil
	}
	return Selector{}, fmt.Errorf("sgp: unknown selector %q: use cholqr, random, greedy-variance, titsias:S or hybrid", name)
}
