package sgp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/cholqr/sgp/sgp/outfile"
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
	Format          string             `json:"format"`
	Kernel          savedKernel        `json:"kernel"`
	InputKind       string             `json:"input_kind"`
	K               int                `json:"k"`
	InputNames      []string           `json:"input_names,omitempty"` // Predictor.InputNames; absent in files of unnamed inputs and of earlier versions
	TargetName      string             `json:"target_name,omitempty"`
	Noise           float64            `json:"noise"`
	Mean            float64            `json:"mean"` // the constant prior mean μ; absent (0) in files written before it existed
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	Inducing        []int              `json:"inducing,omitempty"`
	InducingInputs  json.RawMessage    `json:"inducing_inputs"`
	W               []float64          `json:"w"`
	R               []float64          `json:"r"`
	A               []float64          `json:"a"`
}

type savedKernel struct {
	Type   string    `json:"type"`
	Dim    int       `json:"dim,omitempty"`
	Names  []string  `json:"names"`
	Params []float64 `json:"log_params"`
	// Order is k of a spectrum kernel or h of a WL kernel.
	Order int `json:"order,omitempty"`
	// Components are the parts of a sum kernel, whose Params are theirs
	// concatenated.
	Components []savedKernel `json:"components,omitempty"`
}

// Save writes the predictor as JSON to w.
func (p *Predictor) Save(w io.Writer) error {
	h, err := newSavedHead(p.Kern, p.X, p.NoiseV)
	if err != nil {
		return err
	}
	return writeModel(w, &savedModel{Format: modelFormat, Kernel: h.kernel, InputNames: p.InputNames, TargetName: p.TargetName,
		Noise: p.NoiseV, Mean: p.PriorMean, Hyperparameters: h.hyp,
		Inducing: p.inducer, InducingInputs: h.inputs, InputKind: h.kind, K: len(p.a), W: p.w, R: p.r, A: p.a})
}

// savedHead is what both kinds of model file hold besides their factors:
// the kernel, the inputs the model keeps (of kind) and the
// hyperparameters by name, the noise variance as "noise".
type savedHead struct {
	kernel savedKernel
	kind   string
	inputs json.RawMessage
	hyp    map[string]float64
}

func newSavedHead(k Kernel, x Inputs, noise float64) (h savedHead, err error) {
	if h.kernel, err = kernelSpec(k); err != nil {
		return h, err
	}
	if h.kind, h.inputs, err = marshalInputs(x); err != nil {
		return h, err
	}
	h.hyp = map[string]float64{"noise": noise}
	for i, name := range h.kernel.Names {
		h.hyp[name] = math.Exp(h.kernel.Params[i])
	}
	return h, nil
}

// writeModel writes a model file's JSON object, indented, to w.
func writeModel(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(v)
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

// Limits on model files, which are untrusted input: every size is checked
// against them, and every array against the sizes, as the file is read
// (readModelFile), so that nothing is allocated beyond what the sizes
// allow.
const (
	maxModelBytes   = 1 << 30 // the whole file
	maxModelDim     = 1 << 20 // input dimensions or histogram channels
	maxModelK       = 1 << 14 // inducing points (W and R are k×k)
	maxKernelDepth  = 8       // nesting of sum kernels
	maxSpectrumK    = 64
	maxLogParameter = 600 // |log θ|: exp(600) ≈ 4e260 is finite, squares of it are not needed
)

// knownKernels lists the kernel types a model file may hold.
const knownKernels = "rbf, histogram, spectrum, wl, wl-per-depth, tanimoto, sum"

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
		return nil, fmt.Errorf("sgp: not an sgp model file (format %q, want %q)", shortText(mf.format), modelFormat)
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
	p := &Predictor{Kern: kern, NoiseV: mf.noise, PriorMean: mf.mean, X: x, InputNames: mf.inputNames, TargetName: mf.targetName,
		w: mf.w, r: mf.r, a: mf.a, inducer: inducer}
	p.prepare()
	if err := finiteAt(p.PredictTo, x, "inducing inputs"); err != nil {
		return nil, err
	}
	return p, nil
}

// savedInputsKernel rebuilds a model file's n inputs of kind (described
// as what, "… for n", in errors) and its kernel, and checks that the
// kernel takes the inputs.
func savedInputsKernel(kind string, in *savedInputs, sk savedKernel, n int, what string) (Inputs, Kernel, error) {
	if in == nil {
		in = &savedInputs{}
	}
	x, err := in.build(kind)
	if err != nil {
		return nil, nil, err
	}
	if x.Len() != n {
		return nil, nil, fmt.Errorf("sgp: model file has %d %s=%d", x.Len(), what, n)
	}
	kern, err := kernelFromSpec(sk, 0)
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
func finiteAt(predictTo func(mean, variance []float64, xs Inputs) ([]float64, []float64, error), x Inputs, what string) error {
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

// shortText quotes at most 40 characters of s in an error message.
func shortText(s string) string {
	r := []rune(s)
	if len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// LoadPredictorFile reads a model file written by SaveFile.
func LoadPredictorFile(path string) (*Predictor, error) {
	return loadFile(path, LoadPredictor)
}

// kernelSpec describes a built-in kernel for saving.
func kernelSpec(k Kernel) (savedKernel, error) {
	sk := savedKernel{Names: k.ParamNames(), Params: k.Params(nil)}
	switch kk := k.(type) {
	case *RBF:
		sk.Type, sk.Dim = "rbf", kk.Dim()
	case *HistogramIntersection:
		sk.Type, sk.Dim = "histogram", kk.NumChannels()
	case *Spectrum:
		sk.Type, sk.Order = "spectrum", kk.K()
	case *WL:
		sk.Type, sk.Order = "wl", kk.Depth()
		if kk.PerDepth() {
			sk.Type = "wl-per-depth"
		}
	case *Tanimoto:
		sk.Type = "tanimoto"
	case *Sum:
		sk.Type = "sum"
		for _, c := range kk.comps {
			cs, err := kernelSpec(c)
			if err != nil {
				return sk, err
			}
			sk.Components = append(sk.Components, cs)
		}
	default:
		return sk, fmt.Errorf("sgp: cannot save a model with kernel %T", k)
	}
	return sk, nil
}

// kernelFromSpec rebuilds a built-in kernel.
func kernelFromSpec(sk savedKernel, depth int) (Kernel, error) {
	if depth > maxKernelDepth {
		return nil, fmt.Errorf("sgp: model file: sum kernels nested more than %d deep", maxKernelDepth)
	}
	if sk.Dim > maxModelDim || sk.Dim < 0 {
		return nil, fmt.Errorf("sgp: model file: kernel dimension %d out of range (at most %d)", sk.Dim, maxModelDim)
	}
	if len(sk.Params) > maxModelDim+1 {
		return nil, fmt.Errorf("sgp: model file: %d kernel parameters", len(sk.Params))
	}
	for _, v := range sk.Params {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxLogParameter {
			return nil, fmt.Errorf("sgp: model file: log kernel parameter %v is not finite or out of range (|log θ| ≤ %d)", v, maxLogParameter)
		}
	}
	var k Kernel
	switch sk.Type {
	case "rbf":
		if sk.Dim < 1 {
			return nil, fmt.Errorf("sgp: model file: RBF kernel of dimension %d", sk.Dim)
		}
		ls := make([]float64, sk.Dim)
		for i := range ls {
			ls[i] = 1
		}
		k = NewRBF(1, ls)
	case "histogram":
		if sk.Dim < 1 {
			return nil, fmt.Errorf("sgp: model file: histogram kernel with %d channels", sk.Dim)
		}
		k = NewHistogramIntersection(onesLike(sk.Dim))
	case "spectrum":
		if sk.Order < 1 || sk.Order > maxSpectrumK {
			return nil, fmt.Errorf("sgp: model file: spectrum kernel with k=%d", sk.Order)
		}
		k = NewSpectrum(sk.Order, 1)
	case "wl", "wl-per-depth":
		if sk.Order < 0 || sk.Order > wlMaxDepth {
			return nil, fmt.Errorf("sgp: model file: WL kernel with h=%d iterations", sk.Order)
		}
		if sk.Type == "wl" {
			k = NewWL(sk.Order, 1)
		} else {
			k = NewWLPerDepth(onesLike(sk.Order + 1))
		}
	case "tanimoto":
		k = NewTanimoto(1)
	case "sum":
		if len(sk.Components) == 0 {
			return nil, fmt.Errorf("sgp: model file: sum kernel without components")
		}
		comps := make([]Kernel, len(sk.Components))
		for c, cs := range sk.Components {
			kc, err := kernelFromSpec(cs, depth+1)
			if err != nil {
				return nil, err
			}
			comps[c] = kc
		}
		k = NewSum(comps...)
	default:
		return nil, fmt.Errorf("sgp: model file: unknown kernel type %q (known: %s)", shortText(sk.Type), knownKernels)
	}
	if len(sk.Params) != k.NumParams() {
		return nil, fmt.Errorf("sgp: model file: kernel %q has %d parameters, want %d", sk.Type, len(sk.Params), k.NumParams())
	}
	k.SetParams(sk.Params)
	return k, nil
}

// marshalInputs encodes inducing inputs of the built-in kinds.
func marshalInputs(x Inputs) (string, json.RawMessage, error) {
	switch v := x.(type) {
	case *Vectors:
		rows := make([][]float64, v.n)
		for i := range rows {
			rows[i] = v.Row(i)
		}
		raw, err := json.Marshal(rows)
		return "vectors", raw, err
	case *Strings:
		raw, err := json.Marshal(v.s)
		return "strings", raw, err
	case *Graphs:
		gs := make([]savedGraph, len(v.g))
		for i, g := range v.g {
			gs[i].Labels = g.labels
			gs[i].Edges = make([][3]int, len(g.edges))
			for e, ed := range g.edges {
				gs[i].Edges[e] = [3]int{ed.U, ed.V, ed.Label}
			}
		}
		raw, err := json.Marshal(gs)
		return "graphs", raw, err
	case *Histograms:
		items := make([][][]float64, v.n)
		for i := range items {
			items[i] = make([][]float64, v.NumChannels())
			for c := range items[i] {
				items[i][c] = v.Channel(i, c)
			}
		}
		raw, err := json.Marshal(items)
		return "histograms", raw, err
	case *SparseCounts:
		items := make([]savedSparse, v.Len())
		for i := range items {
			items[i].Indices, items[i].Values = v.Item(i)
		}
		raw, err := json.Marshal(items)
		return "sparse_counts", raw, err
	}
	return "", nil, fmt.Errorf("sgp: cannot save inducing inputs of type %T", x)
}

// savedGraph is the JSON form of a Graph: node labels and edges (u, v, label).
type savedGraph struct {
	Labels []string `json:"labels"`
	Edges  [][3]int `json:"edges"`
}

// savedSparse is the JSON form of one sparse count vector.
type savedSparse struct {
	Indices []int     `json:"indices"`
	Values  []float64 `json:"values"`
}

// onesLike returns n ones, placeholder variances set by SetParams.
func onesLike(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// cloneKernel returns an independent copy of a built-in kernel (through its
// saved form, so the copy's θ is bit-identical), or k itself for kernels
// that cannot be saved, such as FuncKernel.
func cloneKernel(k Kernel) Kernel {
	sk, err := kernelSpec(k)
	if err != nil {
		return k
	}
	c, err := kernelFromSpec(sk, 0)
	if err != nil {
		return k
	}
	return c
}
