package sgp

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
)

// modelFormat identifies the JSON layout written by Predictor.Save.
const modelFormat = "sgp-model/1"

// savedModel is the JSON form of a Predictor. Floats are written by
// encoding/json in their shortest round-trip form, so a loaded model
// predicts bit for bit as the saved one.
type savedModel struct {
	Format          string             `json:"format"`
	Kernel          savedKernel        `json:"kernel"`
	Noise           float64            `json:"noise"`
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	Inducing        []int              `json:"inducing,omitempty"`
	InducingInputs  json.RawMessage    `json:"inducing_inputs"`
	InputKind       string             `json:"input_kind"`
	K               int                `json:"k"`
	W               []float64          `json:"w"`
	R               []float64          `json:"r"`
	A               []float64          `json:"a"`
}

type savedKernel struct {
	Type   string    `json:"type"`
	Dim    int       `json:"dim,omitempty"`
	Names  []string  `json:"names"`
	Params []float64 `json:"log_params"`
}

// Save writes the predictor as JSON to w.
func (p *Predictor) Save(w io.Writer) error {
	sk, err := kernelSpec(p.Kern)
	if err != nil {
		return err
	}
	kind, raw, err := marshalInputs(p.X)
	if err != nil {
		return err
	}
	hyp := map[string]float64{"noise": p.NoiseV}
	for i, name := range sk.Names {
		hyp[name] = math.Exp(sk.Params[i])
	}
	sm := savedModel{Format: modelFormat, Kernel: sk, Noise: p.NoiseV, Hyperparameters: hyp,
		Inducing: p.inducer, InducingInputs: raw, InputKind: kind, K: len(p.A), W: p.W, R: p.R, A: p.A}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(&sm)
}

// SaveFile writes the predictor to path, replacing it only once the whole
// model has been written.
func (p *Predictor) SaveFile(path string) error {
	tmp, err := os.CreateTemp(dirOf(path), ".sgp-model-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := p.Save(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func dirOf(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[:i+1]
		}
	}
	return "."
}

// Save writes the model's current predictor as JSON (see LoadPredictor).
func (md *Model) Save(w io.Writer) error {
	p, err := md.Predictor()
	if err != nil {
		return err
	}
	return p.Save(w)
}

// LoadPredictor reads a model written by Save.
func LoadPredictor(r io.Reader) (*Predictor, error) {
	var sm savedModel
	dec := json.NewDecoder(r)
	if err := dec.Decode(&sm); err != nil {
		return nil, fmt.Errorf("sgp: reading model: %w", err)
	}
	if sm.Format != modelFormat {
		return nil, fmt.Errorf("sgp: not an sgp model file (format %q, want %q)", sm.Format, modelFormat)
	}
	k := sm.K
	if k < 0 || len(sm.W) != k*k || len(sm.R) != k*k || len(sm.A) != k {
		return nil, fmt.Errorf("sgp: model file is inconsistent: k=%d with %d, %d and %d factor entries", k, len(sm.W), len(sm.R), len(sm.A))
	}
	if !(sm.Noise > 0) || math.IsInf(sm.Noise, 0) {
		return nil, fmt.Errorf("sgp: model file has noise variance %v", sm.Noise)
	}
	kern, err := kernelFromSpec(sm.Kernel)
	if err != nil {
		return nil, err
	}
	x, err := unmarshalInputs(sm.InputKind, sm.InducingInputs)
	if err != nil {
		return nil, err
	}
	if x.Len() != k {
		return nil, fmt.Errorf("sgp: model file has %d inducing inputs for k=%d", x.Len(), k)
	}
	if err := kern.Accepts(x); err != nil {
		return nil, fmt.Errorf("sgp: model file: %w", err)
	}
	for i := 0; i < k; i++ {
		if !(sm.W[i*k+i] > 0) || !(math.Abs(sm.R[i*k+i]) > 0) {
			return nil, fmt.Errorf("sgp: model file has a singular factor at %d", i)
		}
	}
	p := &Predictor{Kern: kern, NoiseV: sm.Noise, X: x, W: sm.W, R: sm.R, A: sm.A, inducer: sm.Inducing}
	p.prepare()
	return p, nil
}

// LoadPredictorFile reads a model file written by SaveFile.
func LoadPredictorFile(path string) (*Predictor, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	p, err := LoadPredictor(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// kernelSpec describes a built-in kernel for saving.
func kernelSpec(k Kernel) (savedKernel, error) {
	sk := savedKernel{Names: k.ParamNames(), Params: k.Params(nil)}
	switch kk := k.(type) {
	case *RBF:
		sk.Type, sk.Dim = "rbf", kk.Dim()
	default:
		return sk, fmt.Errorf("sgp: cannot save a model with kernel %T", k)
	}
	return sk, nil
}

// kernelFromSpec rebuilds a built-in kernel.
func kernelFromSpec(sk savedKernel) (Kernel, error) {
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
	default:
		return nil, fmt.Errorf("sgp: model file: unknown kernel type %q", sk.Type)
	}
	if len(sk.Params) != k.NumParams() {
		return nil, fmt.Errorf("sgp: model file: kernel %q has %d parameters, want %d", sk.Type, len(sk.Params), k.NumParams())
	}
	for _, v := range sk.Params {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("sgp: model file: non-finite kernel parameter")
		}
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
	}
	return "", nil, fmt.Errorf("sgp: cannot save inducing inputs of type %T", x)
}

func unmarshalInputs(kind string, raw json.RawMessage) (Inputs, error) {
	switch kind {
	case "vectors":
		var rows [][]float64
		if err := json.Unmarshal(raw, &rows); err != nil {
			return nil, fmt.Errorf("sgp: model file: inducing inputs: %w", err)
		}
		return VectorsFromRows(rows)
	}
	return nil, fmt.Errorf("sgp: model file: unknown input kind %q", kind)
}
