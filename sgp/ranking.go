package sgp

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// CostRanking holds the exact and approximate decrease of the objective
// for every candidate replacement of one removed inducing point: the data
// of the "exact versus approximate cost" figure of Cao et al. (2013).
type CostRanking struct {
	Removed    int       // data index of the inducing point taken out
	Candidates []int     // data indices of the candidates
	Exact      []float64 // exact ΔF of adding each candidate
	Approx     []float64 // approximate ΔF from the information pivots
	InfoPivots []int     // the information pivots used
}

// CostRanking scores, with inducing point j (a data index) taken out,
// every candidate replacement both exactly and approximately, using the
// model's information pivots as they are. It is an inspection: it works
// on a copy of the factored state, so the model, its information pivots
// and its random stream are left exactly as they were, and two calls on
// the same state return the same ranking. It costs O(n²·k), so it is
// meant for small and medium data sets; maxCandidates > 0 limits the
// exact scoring to that many candidates chosen uniformly at random by a
// stream seeded from the model's seed and j.
func (md *Model) CostRanking(j, maxCandidates int) (cr *CostRanking, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return nil, err
	}
	if j < 0 || j >= md.f.n || !md.f.IsActive(j) {
		return nil, fmt.Errorf("sgp: point %d is not an inducing point", j)
	}
	f := md.f.clone()
	f.removeToPark(f.pos[j])
	approx := f.ApproxDeltasTo(nil, md.obj)
	cr = &CostRanking{Removed: j, InfoPivots: f.InfoPivots(nil)}
	var cands []int
	for i, v := range approx {
		if i != j && !math.IsNaN(v) && !math.IsInf(v, -1) {
			cands = append(cands, i)
		}
	}
	if maxCandidates > 0 && len(cands) > maxCandidates {
		rng := rand.New(rand.NewPCG(md.seed, rankingStream^uint64(j)))
		rng.Shuffle(len(cands), func(a, b int) { cands[a], cands[b] = cands[b], cands[a] })
		cands = cands[:maxCandidates]
	}
	for _, c := range cands {
		wasPivot := f.pos[c] >= 0
		if !f.insertCandidate(c) {
			continue
		}
		ex := f.deltaFromTentative(md.obj)
		f.tent.valid = false
		if !wasPivot {
			f.move(f.k, f.t-1)
			f.dropInfoLast()
		}
		cr.Candidates = append(cr.Candidates, c)
		cr.Exact = append(cr.Exact, ex)
		cr.Approx = append(cr.Approx, approx[c])
	}
	return cr, nil
}

// rankingStream is the second word of the seed of CostRanking's choice
// of candidates, xored with the removed point.
const rankingStream = 0x72616e6b696e67
