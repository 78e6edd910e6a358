package sgp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/linalg"
	"github.com/cholqr/sgp/sgp/internal/table"
	"github.com/cholqr/sgp/sgp/outfile"

	"gonum.org/v1/gonum/blas"

	"github.com/cholqr/sgp/sgp/kernel"
)

// savedExactModel is the JSON form of an ExactPredictor: the kernel, σ²,
// the jitter ε and μ, the n training inputs and α = (K + (σ² + ε)I)⁻¹(y − μ).
// The n×n Cholesky factor is not stored (8n² bytes, 3.2 GB at MaxExactN):
// LoadExactPredictor computes it again from the inputs, in about n³/3
// flops, by the same arithmetic as the fit, so the predictive means are
// bit for bit the saved model's and the variances agree to rounding.
// The fields that declare sizes (the kernel, the input kind and n) come
// before the arrays, as in savedModel.
type savedExactModel struct {
	Format          string                `json:"format"`
	Kernel          kernel.Description    `json:"kernel"`
	InputKind       string                `json:"input_kind"`
	N               int                   `json:"n"`
	InputNames      []string              `json:"input_names,omitempty"`
	TargetName      string                `json:"target_name,omitempty"`
	Noise           float64               `json:"noise"`
	Jitter          float64               `json:"jitter"`
	Mean            float64               `json:"mean"`
	TrainMean       *float64              `json:"train_mean,omitempty"` // as in savedModel
	TrainVar        *float64              `json:"train_var,omitempty"`
	Hyperparameters map[string]float64    `json:"hyperparameters"`
	Fixed           map[string]float64    `json:"fixed,omitempty"` // as in savedModel
	Bounds          map[string][2]float64 `json:"bounds,omitempty"`
	Inputs          json.RawMessage       `json:"inputs"`
	Alpha           []float64             `json:"alpha"`
	// NoiseVariances are the known per-point noise variances of the
	// training points (Exact.WithNoiseVariances), which the factor
	// needs; absent for none.
	NoiseVariances []float64 `json:"noise_variances,omitempty"`
}

// Save writes the exact model as JSON to w: its kernel and noise, the
// training inputs and the weights α (see LoadExactPredictor). The file
// holds every training input, so it is about as large as the training
// data; a model whose kernel is not built in (kernel.Func, a user type)
// cannot be saved.
func (p *ExactPredictor) Save(w io.Writer) (err error) {
	defer base.RecoverTo(&err)
	h, err := newSavedHead(p.Kern, p.X, p.NoiseV, p.Fixed, p.Bounds)
	if err != nil {
		return err
	}
	sm := &savedExactModel{Format: exactModelFormat, Kernel: h.kernel, InputNames: p.InputNames, TargetName: p.TargetName,
		Noise: p.NoiseV, Jitter: p.Jitter, Mean: p.PriorMean,
		Hyperparameters: h.hyp, Fixed: p.Fixed, Bounds: h.bounds, InputKind: h.kind, Inputs: h.inputs, N: len(p.alpha), Alpha: p.alpha, NoiseVariances: p.s2}
	sm.TrainMean, sm.TrainVar = savedTargets(p.trainMean, p.trainVar)
	return writeModel(w, sm)
}

// SaveFile writes the exact model to path by the rules of Predictor.SaveFile
// (outfile.Write).
func (p *ExactPredictor) SaveFile(path string) error {
	return outfile.Write(path, p.Save)
}

// LoadExactPredictor reads a model written by ExactPredictor.Save. The
// input is not trusted, as for LoadPredictor: sizes are checked before
// anything is allocated from them (n ≤ MaxExactN), parameters must be
// finite and in range, and trailing data is an error. It then factorises
// K + (σ² + ε)I over the saved training inputs, 8n² bytes and about n³/3
// flops, and refuses a model whose matrix does not
// factorise or that predicts non-finite values at its first inputs.
func LoadExactPredictor(r io.Reader) (*ExactPredictor, error) {
	mf, err := readModelFile(r)
	if err != nil {
		return nil, err
	}
	return mf.exactPredictor()
}

// exactPredictor builds the ExactPredictor of an exact model file.
func (mf *modelFields) exactPredictor() (*ExactPredictor, error) {
	if mf.format != exactModelFormat {
		if mf.format == modelFormat {
			return nil, errors.New("sgp: this is a sparse model file: load it with LoadPredictor (or LoadRegressor, which reads both)")
		}
		return nil, fmt.Errorf("sgp: not an sgp exact model file (format %q, want %q)", table.Short(mf.format), exactModelFormat)
	}
	n := mf.n
	if n < 1 || n > MaxExactN || len(mf.alpha) != n {
		return nil, fmt.Errorf("sgp: model file is inconsistent: n=%d (at most %d) with %d weights", n, MaxExactN, len(mf.alpha))
	}
	if !(mf.noise > 0) || math.IsInf(mf.noise, 0) {
		return nil, fmt.Errorf("sgp: model file has noise variance %v", mf.noise)
	}
	if !(mf.jitter >= 0) || math.IsInf(mf.jitter, 0) {
		return nil, fmt.Errorf("sgp: model file has jitter %v", mf.jitter)
	}
	if math.IsNaN(mf.mean) || math.IsInf(mf.mean, 0) {
		return nil, fmt.Errorf("sgp: model file has prior mean %v", mf.mean)
	}
	if err := mf.checkTargets(true); err != nil {
		return nil, err
	}
	for _, v := range mf.alpha {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("sgp: model file has a non-finite weight")
		}
	}
	if mf.noiseVars != nil {
		if len(mf.noiseVars) != n {
			return nil, fmt.Errorf("sgp: model file is inconsistent: n=%d with %d noise variances", n, len(mf.noiseVars))
		}
		if err := checkNoiseVariances(mf.noiseVars); err != nil {
			return nil, fmt.Errorf("sgp: model file: %w", err)
		}
	}
	x, kern, err := savedInputsKernel(mf.inputKind, mf.inputs, mf.kernel, n, "training inputs for n")
	if err != nil {
		return nil, err
	}
	if err := mf.checkNames(x); err != nil {
		return nil, err
	}
	l, err := exactCholesky(x, kern, mf.noise, mf.jitter, mf.noiseVars)
	if err != nil {
		return nil, fmt.Errorf("sgp: model file: %w", err)
	}
	fixed, bounds, err := mf.constraints(kern)
	if err != nil {
		return nil, err
	}
	p := &ExactPredictor{Kern: kern, NoiseV: mf.noise, PriorMean: mf.mean, Jitter: mf.jitter, X: x, InputNames: mf.inputNames, TargetName: mf.targetName,
		Fixed: fixed, Bounds: bounds,
		l: l, alpha: mf.alpha, trainMean: mf.trainMean, trainVar: mf.trainVar, s2: mf.noiseVars}
	if err := finiteAt(p.PredictTo, x.Subset(firstRows(min(n, 16))), "training inputs"); err != nil {
		return nil, err
	}
	return p, nil
}

// LoadExactPredictorFile reads an exact model file written by SaveFile.
func LoadExactPredictorFile(path string) (*ExactPredictor, error) {
	return loadFile(path, LoadExactPredictor)
}

// exactCholesky returns the lower Cholesky factor L (n×n row-major, zero
// above the diagonal) of K(x, x) + diag(s²) + (σ² + ε)I (s2 the known
// noise variances, nil for none), with K built and factorised by the same
// arithmetic as a fit's (exactEval.factor, which adds s_i², σ² and then ε
// to each K_ii), so that L is the fit's own factor.
func exactCholesky(x kernel.Inputs, k kernel.Kernel, noise, jitter float64, s2 []float64) ([]float64, error) {
	n := x.Len()
	a := make([]float64, n*n)
	diag := make([]float64, n)
	if err := fillKernelMatrix(a, diag, k, x); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		a[i*n+i] = diag[i] + knownNoise(s2, i) + noise + jitter
	}
	if !linalg.Potrf(blas.Lower, n, a, n) {
		return nil, fmt.Errorf("K + σ²I is not positive definite at the saved hyperparameters (σ² = %.3g, jitter %.3g)", noise, jitter)
	}
	for i := 0; i < n; i++ {
		clear(a[i*n+i+1 : (i+1)*n])
	}
	return a, nil
}

// firstRows returns 0, 1, …, k−1.
func firstRows(k int) []int {
	rows := make([]int, k)
	for i := range rows {
		rows[i] = i
	}
	return rows
}
