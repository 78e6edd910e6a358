package sgp

import (
	"fmt"
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
	if j < 0 || j >= md.f.N() || !md.f.IsActive(j) {
		return nil, fmt.Errorf("sgp: point %d is not an inducing point", j)
	}
	var choose func([]int) []int
	if maxCandidates > 0 {
		choose = func(cands []int) []int {
			if len(cands) <= maxCandidates {
				return cands
			}
			rng := rand.New(rand.NewPCG(md.seed, rankingStream^uint64(j)))
			rng.Shuffle(len(cands), func(a, b int) { cands[a], cands[b] = cands[b], cands[a] })
			return cands[:maxCandidates]
		}
	}
	rk := md.f.CostRanking(j, md.obj, choose)
	cr = &CostRanking{Removed: j, Candidates: rk.Candidates, Exact: rk.Exact, Approx: rk.Approx, InfoPivots: rk.InfoPivots}
	return cr, nil
}

// rankingStream is the second word of the seed of CostRanking's choice
// of candidates, xored with the removed point.
const rankingStream = 0x72616e6b696e67
