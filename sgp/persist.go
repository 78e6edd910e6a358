package sgp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/cholqr/sgp/sgp/internal/table"
	"github.com/cholqr/sgp/sgp/outfile"

	"github.com/cholqr/sgp/sgp/kernel"
)

// modelFormat identifies the JSON layout written by Predictor.Save.
const modelFormat = "sgp-model/1"

// savedModel is the JSON form of a Predictor. Floats are written by
// encoding/json in their shortest round-trip form, so a loaded model
// predicts bit for bit as the saved one.
//
// The fields that declare sizes (the kernel with its dimension, the input
// kind and k) come before the arrays, so that a reader checks each array
// against them as it streams (readModelFile).
type savedModel struct {
	Format     string             `json:"format"`
	Kernel     kernel.Description `json:"kernel"`
	InputKind  string             `json:"input_kind"`
	K          int                `json:"k"`
	InputNames []string           `json:"input_names,omitempty"` // Predictor.InputNames; absent for unnamed inputs
	TargetName string             `json:"target_name,omitempty"`
	Noise      float64            `json:"noise"`
	// KnownNoise says the factors condition on the training rows' known
	// noise variances (Predictor.KnownNoise); absent without them.
	KnownNoise bool    `json:"known_noise,omitempty"`
	Mean       float64 `json:"mean"` // the constant prior mean μ; 0 when absent
	// TrainMean and TrainVar are the training targets' mean and
	// population variance, SNLP's trivial model (Evaluate); absent when
	// the predictor does not know them.
	TrainMean       *float64           `json:"train_mean,omitempty"`
	TrainVar        *float64           `json:"train_var,omitempty"`
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	// Fixed and Bounds record the hyperparameters the fit held fixed,
	// with their values, and the bounds it kept (Predictor.Fixed,
	// Bounds); absent when none were.
	Fixed          map[string]float64    `json:"fixed,omitempty"`
	Bounds         map[string][2]float64 `json:"bounds,omitempty"`
	Inducing       []int                 `json:"inducing,omitempty"`
	InducingInputs json.RawMessage       `json:"inducing_inputs"`
	W              []float64             `json:"w"`
	R              []float64             `json:"r"`
	A              []float64             `json:"a"`
}

// Save writes the predictor as JSON to w. A model LoadPredictor would
// refuse is not written: Save reads what it would write back as
// LoadPredictor does (O(k²·d), no more than predicting at the k inducing
// inputs) and returns an error saying why the model cannot be saved,
// writing nothing.
func (p *Predictor) Save(w io.Writer) error {
	h, err := newSavedHead(p.Kern, p.X, p.NoiseV, p.Fixed, p.Bounds)
	if err != nil {
		return err
	}
	sm := &savedModel{Format: modelFormat, Kernel: h.kernel, InputNames: p.InputNames, TargetName: p.TargetName,
		Noise: p.NoiseV, KnownNoise: p.knownNoise, Mean: p.PriorMean, Hyperparameters: h.hyp, Fixed: p.Fixed, Bounds: h.bounds,
		Inducing: p.inducer, InducingInputs: h.inputs, InputKind: h.kind, K: len(p.a), W: p.w, R: p.r, A: p.a}
	sm.TrainMean, sm.TrainVar = savedTargets(p.trainMean, p.trainVar)
	var buf bytes.Buffer
	if err := writeModel(&buf, sm); err != nil {
		return err
	}
	if _, err := LoadPredictor(bytes.NewReader(buf.Bytes())); err != nil {
		return fmt.Errorf("sgp: the model cannot be saved, as it would not load back: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// savedTargets returns the training targets' mean and variance as a model
// file holds them: both, or neither when the variance is not known (0).
func savedTargets(mean, variance float64) (*float64, *float64) {
	if !(variance > 0) {
		return nil, nil
	}
	return &mean, &variance
}

// savedHead is what both kinds of model file hold besides their factors:
// the kernel, the inputs the model keeps (of kind) and the
// hyperparameters by name, the noise variance as "noise".
type savedHead struct {
	kernel kernel.Description
	kind   string
	inputs json.RawMessage
	hyp    map[string]float64
	bounds map[string][2]float64 // the bounds as the file holds them, nil for none
}

// newSavedHead returns the head of a model file for kernel k, inputs x,
// noise variance noise and the fit's fixed values and bounds: the
// hyperparameters by name hold a fixed value as given.
func newSavedHead(k kernel.Kernel, x kernel.Inputs, noise float64, fixed map[string]float64, bounds []Bound) (h savedHead, err error) {
	if h.kernel, err = kernel.Describe(k); err != nil {
		return h, err
	}
	if _, err := kernel.FromDescription(h.kernel); err != nil {
		return h, fmt.Errorf("sgp: the model cannot be saved, as its kernel would not load back: %w", err)
	}
	if h.kind, h.inputs, err = kernel.MarshalInputs(x); err != nil {
		return h, err
	}
	h.hyp = map[string]float64{"noise": noise}
	for i, name := range h.kernel.Names {
		h.hyp[name] = math.Exp(h.kernel.Params[i])
	}
	for name, v := range fixed {
		if _, ok := h.hyp[name]; ok {
			h.hyp[name] = v
		}
	}
	for _, b := range bounds {
		if h.bounds == nil {
			h.bounds = map[string][2]float64{}
		}
		h.bounds[b.Name] = [2]float64{b.Lo, b.Hi}
	}
	return h, nil
}

// writeModel writes a model file's JSON object, indented, to w. A value
// JSON cannot hold (NaN or ±Inf: a fit that did not reach finite
// hyperparameters or factors) is an error that says so.
func writeModel(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	err := enc.Encode(v)
	var uv *json.UnsupportedValueError
	if errors.As(err, &uv) {
		return fmt.Errorf("sgp: the model cannot be saved: it holds the value %s, which is not finite (a fit that did not reach finite hyperparameters and factors)", uv.Str)
	}
	return err
}

// SaveFile writes the predictor to path by the rules of package outfile
// (outfile.Write): a regular file, or a new one, is replaced only once
// the whole model has been written, through symbolic links and keeping
// its permissions; a device, named pipe or /dev/stdout is written in
// place; a directory is an error.
func (p *Predictor) SaveFile(path string) error {
	return outfile.Write(path, p.Save)
}

// Save writes the model's current predictor as JSON (see LoadPredictor).
func (md *Model) Save(w io.Writer) (err error) {
	defer md.recoverPanic(&err)
	p, err := md.Predictor()
	if err != nil {
		return err
	}
	return p.Save(w)
}

// LoadPredictor reads a model written by Save. The input is not trusted:
// sizes are validated before allocation and every array against them as
// it is read, parameters must be finite and in range, trailing data is an
// error, and the model must predict finite values at its own inducing
// inputs.
func LoadPredictor(r io.Reader) (*Predictor, error) {
	mf, err := readModelFile(r)
	if err != nil {
		return nil, err
	}
	return mf.predictor()
}

// predictor builds the Predictor of a sparse model file.
func (mf *modelFields) predictor() (*Predictor, error) {
	if mf.format == exactModelFormat {
		return nil, errors.New("sgp: this is an exact GP model file: load it with LoadExactPredictor (or LoadRegressor, which reads both)")
	}
	if mf.format != modelFormat {
		return nil, fmt.Errorf("sgp: not an sgp model file (format %q, want %q)", table.Short(mf.format), modelFormat)
	}
	k := mf.k
	if k < 1 || k > maxModelK || len(mf.w) != k*k || len(mf.r) != k*k || len(mf.a) != k {
		return nil, fmt.Errorf("sgp: model file is inconsistent: k=%d with %d, %d and %d factor entries", k, len(mf.w), len(mf.r), len(mf.a))
	}
	if !(mf.noise > 0) || math.IsInf(mf.noise, 0) {
		return nil, fmt.Errorf("sgp: model file has noise variance %v", mf.noise)
	}
	if math.IsNaN(mf.mean) || math.IsInf(mf.mean, 0) {
		return nil, fmt.Errorf("sgp: model file has prior mean %v", mf.mean)
	}
	for _, v := range [][]float64{mf.w, mf.r, mf.a} {
		for _, e := range v {
			if math.IsNaN(e) || math.IsInf(e, 0) {
				return nil, errors.New("sgp: model file has a non-finite factor entry")
			}
		}
	}
	if len(mf.inducing) > 0 && len(mf.inducing) != k {
		return nil, fmt.Errorf("sgp: model file is inconsistent: k=%d with %d inducing rows", k, len(mf.inducing))
	}
	for _, j := range mf.inducing {
		if j < 0 {
			return nil, fmt.Errorf("sgp: model file has inducing row %d", j)
		}
	}
	x, kern, err := savedInputsKernel(mf.inputKind, mf.inducingInputs, mf.kernel, k, "inducing inputs for k")
	if err != nil {
		return nil, err
	}
	for i := 0; i < k; i++ {
		if !(mf.w[i*k+i] > 0) || !(math.Abs(mf.r[i*k+i]) > 0) {
			return nil, fmt.Errorf("sgp: model file has a singular factor at %d", i)
		}
	}
	var inducer []int
	if len(mf.inducing) > 0 {
		inducer = mf.inducing
	}
	if err := mf.checkNames(x); err != nil {
		return nil, err
	}
	if err := mf.checkTargets(false); err != nil {
		return nil, err
	}
	fixed, bounds, err := mf.constraints(kern)
	if err != nil {
		return nil, err
	}
	p := &Predictor{Kern: kern, NoiseV: mf.noise, PriorMean: mf.mean, X: x, InputNames: mf.inputNames, TargetName: mf.targetName,
		Fixed: fixed, Bounds: bounds,
		w: mf.w, r: mf.r, a: mf.a, inducer: inducer, trainMean: mf.trainMean, trainVar: mf.trainVar, knownNoise: mf.knownNoise}
	p.prepare()
	if err := finiteAt(p.PredictTo, x, "inducing inputs"); err != nil {
		return nil, err
	}
	return p, nil
}

// savedInputsKernel rebuilds a model file's n inputs of kind (described
// as what, "… for n", in errors) and its kernel, and checks that the
// kernel takes the inputs.
func savedInputsKernel(kind string, in *kernel.SavedInputs, sk kernel.Description, n int, what string) (kernel.Inputs, kernel.Kernel, error) {
	x, err := in.Inputs(kind)
	if err != nil {
		return nil, nil, err
	}
	if x.Len() != n {
		return nil, nil, fmt.Errorf("sgp: model file has %d %s=%d", x.Len(), what, n)
	}
	kern, err := kernel.FromDescription(sk)
	if err != nil {
		return nil, nil, err
	}
	if err := kern.Accepts(x); err != nil {
		return nil, nil, fmt.Errorf("sgp: model file: %w", err)
	}
	return x, kern, nil
}

// finiteAt refuses a loaded model that cannot predict, or predicts
// non-finite values, at x, some of its own inputs (described as what).
func finiteAt(predictTo func(mean, variance []float64, xs kernel.Inputs) ([]float64, []float64, error), x kernel.Inputs, what string) error {
	mean, vr, err := predictTo(nil, nil, x)
	if err != nil {
		return fmt.Errorf("sgp: model file: %w", err)
	}
	for i := range mean {
		if math.IsNaN(mean[i]) || math.IsInf(mean[i], 0) || math.IsNaN(vr[i]) || math.IsInf(vr[i], 0) {
			return fmt.Errorf("sgp: model file: the model predicts non-finite values at its own %s (parameters out of range?)", what)
		}
	}
	return nil
}

// LoadPredictorFile reads a model file written by SaveFile.
func LoadPredictorFile(path string) (*Predictor, error) {
	return loadFile(path, LoadPredictor)
}

// constraints returns the fixed values and the bounds of a model file
// with kernel kern, checked: names of its hyperparameters, values
// positive and finite, lo < hi. Where each bound ended is read off the
// saved hyperparameters.
func (mf *modelFields) constraints(kern kernel.Kernel) (map[string]float64, []Bound, error) {
	names := kernelNames(kern)
	theta := append(kern.Params(nil), math.Log(mf.noise))
	for name, v := range mf.fixed {
		if !slices.Contains(names, name) {
			return nil, nil, fmt.Errorf("sgp: model file fixes %q, which is not one of its hyperparameters (%s)", table.Short(name), strings.Join(names, ", "))
		}
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("sgp: model file fixes %s at %v", name, v)
		}
	}
	var bounds []Bound
	for i, name := range names {
		b, ok := mf.bounds[name]
		if !ok {
			continue
		}
		if len(b) != 2 || !(b[0] > 0) || !(b[1] > b[0]) || math.IsInf(b[1], 0) {
			return nil, nil, fmt.Errorf("sgp: model file bounds %s by %v; want [lo, hi] with 0 < lo < hi", name, b)
		}
		bounds = append(bounds, Bound{Name: name, Lo: b[0], Hi: b[1], At: boundAt(theta[i], math.Log(b[0]), math.Log(b[1]))})
	}
	if len(bounds) != len(mf.bounds) {
		return nil, nil, fmt.Errorf("sgp: model file bounds a name that is not one of its hyperparameters (%s)", strings.Join(names, ", "))
	}
	return mf.fixed, bounds, nil
}
