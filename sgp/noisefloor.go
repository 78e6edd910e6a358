package sgp

import "math"

// noiseFloorRel is the least noise variance a fit of the hyperparameters
// can reach, relative to the targets' variance. As σ² → 0 on targets with
// little or no noise (a deterministic simulator, a smooth function
// sampled exactly) both objectives run away towards an interpolant whose
// value rounding decides: on sin(x) at 400 points (n = 400, m = 100, MLE)
// σ² fell to 10⁻¹³ of var(y), F jumped by a nat between two evaluations
// of one state and the fit stalled; under VAR a rebuild at σ² ≈ 3·10⁻⁹
// that left three inducing points out raised F from −3766 to 173954. The
// floor is 10⁻⁶ of var(y), GPflow's default lower bound on the likelihood
// variance for standardised targets (GPyTorch's is 10⁻⁴); the fitted model
// is then accurate to about that fraction of the targets' variance.
const noiseFloorRel = 1e-6

// noiseMap is the change of variables that keeps the optimisers of the
// hyperparameters above the noise floor: the last coordinate u of the
// optimiser's vector gives σ² = floor + exp(u), so every u is feasible,
// the objective stays smooth, and its gradient in u vanishes towards the
// floor (GPyTorch's GreaterThan constraint does the same through
// softplus). The other coordinates are the log hyperparameters unchanged.
// A zero floor is the identity.
type noiseMap struct {
	floor float64
}

// newNoiseMap returns the map for targets y (floor noiseFloorRel·var(y)).
func newNoiseMap(y []float64) noiseMap {
	f := noiseFloorRel * variance(y)
	if !(f > 0) || math.IsInf(f, 0) {
		f = 0
	}
	return noiseMap{floor: f}
}

// toTheta stores in theta the log hyperparameters of the optimiser's
// point x (log σ² last) and returns theta.
func (nm noiseMap) toTheta(theta, x []float64) []float64 {
	copy(theta, x)
	if nm.floor > 0 {
		k := len(x) - 1
		theta[k] = math.Log(nm.floor + math.Exp(x[k]))
	}
	return theta
}

// toX stores in x the optimiser's point for the log hyperparameters theta
// and returns x; toTheta maps it back to theta, to rounding. A noise at or
// below the floor (a start the user chose) starts at twice the floor.
func (nm noiseMap) toX(x, theta []float64) []float64 {
	copy(x, theta)
	if nm.floor > 0 {
		k := len(theta) - 1
		if s2 := math.Exp(theta[k]); s2 > nm.floor {
			x[k] = theta[k] + math.Log1p(-nm.floor/s2)
		} else {
			x[k] = math.Log(nm.floor)
		}
	}
	return x
}

// grad turns the gradient g in the log hyperparameters at the point x into
// the gradient in the optimiser's coordinates, in place:
// ∂F/∂u = ∂F/∂log σ² · exp(u)/(floor + exp(u)).
func (nm noiseMap) grad(g, x []float64) {
	if nm.floor > 0 {
		k := len(x) - 1
		e := math.Exp(x[k])
		g[k] *= e / (nm.floor + e)
	}
}
