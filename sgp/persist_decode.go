package sgp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/internal/jsonstream"
	"github.com/cholqr/sgp/sgp/internal/table"
)

// This file reads model files, which are untrusted input, as a stream of
// JSON tokens (encoding/json's Decoder.Token), so that every array is
// checked against its bound as it is read instead of after it has been
// decoded whole: a file of 25 million one-value rows where k = 1 is
// refused at its second row. The bounds are the sizes the file declares
// (k, n, the kernel's dimension) where they come first, as they do in the
// files Save writes, and the format's limits (maxModelK inducing points,
// MaxExactN training points, maxModelDim values in a row) where they do
// not: in files that give the inducing inputs before input_kind and k,
// and in files whose keys a tool has sorted. The
// factors w and r (k² values) are read only once k, or a (k values), has
// been. Values whose size nothing declares — the strings, graphs,
// histograms and sparse counts of the inputs, within their limits — cost
// memory in proportion to the values present.

// modelFields are the fields of a model file of either format.
type modelFields struct {
	format                                   string
	kernel                                   kernel.Description
	noise, mean, jitter, trainMean, trainVar float64
	inputKind                                string
	inputNames                               []string // nil when absent
	targetName                               string
	k, n                                     int // -1 until read
	inducing                                 []int
	inducingInputs, inputs                   *kernel.SavedInputs
	w, r, a, alpha                           []float64
	noiseVars                                []float64 // "noise_variances", nil when absent
	hasKernel, hasTrainMean, hasTrainVar     bool
	knownNoise                               bool                 // "known_noise"
	fixed                                    map[string]float64   // "fixed", nil when absent
	bounds                                   map[string][]float64 // "bounds", nil when absent
}

// Limits of the stream that no size in the file declares.
const (
	maxObjectKeys = 64      // keys of an object other than hyperparameters
	maxSkipTokens = 1 << 16 // tokens of the value of a key this version does not know
	// maxItemSize bounds the parts of one input whose size nothing
	// declares: a histogram's channels (when the kernel has not given
	// them) and its bins, a graph's nodes and edges, a sparse count
	// vector's entries; and the hyperparameters by name before the
	// kernel has been read.
	maxItemSize = 1 << 14
)

// modelDecoder reads the JSON tokens of a model file.
type modelDecoder struct {
	jsonstream.Decoder
	lr *io.LimitedReader
}

// readModelFile reads one model file's JSON object, of at most
// maxModelBytes, from r, and refuses data after it.
func readModelFile(r io.Reader) (*modelFields, error) {
	lr := &io.LimitedReader{R: r, N: maxModelBytes + 1}
	d := &modelDecoder{Decoder: jsonstream.Decoder{Decoder: json.NewDecoder(lr)}, lr: lr}
	mf := &modelFields{k: -1, n: -1}
	if err := d.Object("the model file", jsonstream.MaxObjectKeys, true, func(key string) error { return mf.field(d, key) }); err != nil {
		return nil, d.wrap(err)
	}
	if _, err := d.Token(); err != io.EOF {
		if lr.N <= 0 {
			return nil, d.wrap(err)
		}
		return nil, errors.New("sgp: reading model: data after the model's JSON object")
	}
	return mf, nil
}

// wrap returns the error a load reports for err: the file is too large,
// its JSON cannot be read, or its content is wrong.
func (d *modelDecoder) wrap(err error) error {
	var em jsonstream.Error
	switch {
	case d.lr.N <= 0:
		return fmt.Errorf("sgp: reading model: the file is larger than %d bytes", maxModelBytes)
	case errors.As(err, &em):
		return em.Unwrap()
	}
	return fmt.Errorf("sgp: reading model: %w", err)
}

// field reads the value of the top-level key.
func (mf *modelFields) field(d *modelDecoder, key string) error {
	switch key {
	case "format":
		return d.Value(key, &mf.format)
	case "kernel":
		mf.hasKernel = true
		var err error
		mf.kernel, err = kernel.ReadDescription(d.Decoder.Decoder)
		return err
	case "noise":
		return d.Value(key, &mf.noise)
	case "mean":
		return d.Value(key, &mf.mean)
	case "jitter":
		return d.Value(key, &mf.jitter)
	case "known_noise":
		return d.Value(key, &mf.knownNoise)
	case "train_mean":
		mf.hasTrainMean = true
		return d.number(key, &mf.trainMean)
	case "train_var":
		mf.hasTrainVar = true
		return d.number(key, &mf.trainVar)
	case "input_kind":
		return d.Value(key, &mf.inputKind)
	case "k":
		return d.Value(key, &mf.k)
	case "input_names":
		return d.Strs(key, &mf.inputNames, mf.rowDim())
	case "target_name":
		return d.Value(key, &mf.targetName)
	case "n":
		return d.Value(key, &mf.n)
	case "hyperparameters":
		// Only informative (the kernel's log_params hold θ): its values
		// must be numbers, and are not kept. There is one for each of
		// the kernel's parameters, and the noise.
		max := maxItemSize
		if mf.hasKernel {
			max = len(mf.kernel.Params) + 1
		}
		return d.Object(key, max, false, func(name string) error {
			var v float64
			return d.Value(name, &v)
		})
	case "fixed", "bounds":
		// At most one for each of the kernel's parameters and the noise.
		max := maxItemSize
		if mf.hasKernel {
			max = len(mf.kernel.Params) + 1
		}
		return d.Object(key, max, false, func(name string) error {
			if key == "fixed" {
				var v float64
				err := d.Value(name, &v)
				mf.fixed = mapSet(mf.fixed, name, v)
				return err
			}
			var b []float64
			err := d.Floats(name, &b, 2)
			mf.bounds = mapSet(mf.bounds, name, b)
			return err
		})
	case "inducing":
		return d.Array(key, mf.declared(mf.k, maxModelK), func(int) error {
			var j int
			err := d.Value(key, &j)
			mf.inducing = append(mf.inducing, j)
			return err
		})
	case "inducing_inputs":
		var err error
		mf.inducingInputs, err = kernel.ReadInputs(d.Decoder.Decoder, key, mf.declared(mf.k, maxModelK), mf.declaredKernel())
		return err
	case "inputs":
		var err error
		mf.inputs, err = kernel.ReadInputs(d.Decoder.Decoder, key, mf.declared(mf.n, MaxExactN), mf.declaredKernel())
		return err
	case "a":
		return d.Floats(key, &mf.a, mf.declared(mf.k, maxModelK))
	case "alpha":
		return d.Floats(key, &mf.alpha, mf.declared(mf.n, MaxExactN))
	case "noise_variances":
		return d.Floats(key, &mf.noiseVars, mf.declared(mf.n, MaxExactN))
	case "w", "r":
		k := mf.declared(mf.k, maxModelK)
		if mf.k < 0 {
			if mf.a == nil {
				return jsonstream.Errorf("%q comes before \"k\", which gives its size (k×k); write k first", key)
			}
			k = len(mf.a)
		}
		dst := &mf.w
		if key == "r" {
			dst = &mf.r
		}
		return d.Floats(key, dst, k*k)
	}
	return d.Skip(key)
}

// number reads the value of key, which must be a number (not null).
func (d *modelDecoder) number(key string, dst *float64) error {
	var v *float64
	if err := d.Value(key, &v); err != nil {
		return err
	}
	if v == nil {
		return jsonstream.Errorf("%q is null, want a number", key)
	}
	*dst = *v
	return nil
}

// declared returns the bound of an array whose length the file declares
// as size, at most limit: limit while size has not been read (−1), and
// for a size out of range, which the loader refuses once the file is read.
func (mf *modelFields) declared(size, limit int) int {
	if size < 0 || size > limit {
		return limit
	}
	return size
}

// declaredKernel returns the kernel's description if the file has given
// it, or nil.
func (mf *modelFields) declaredKernel() *kernel.Description {
	if !mf.hasKernel {
		return nil
	}
	return &mf.kernel
}

// rowDim returns the length of a row of vector inputs that the kernel
// declares, or maxModelDim when it is not known (yet).
func (mf *modelFields) rowDim() int {
	if d := mf.kernel.InputDim(); mf.hasKernel && d > 0 {
		return d
	}
	return maxModelDim
}

// checkNames checks the names of the input columns against the inputs x
// the file holds: one per column for vectors, unique and non-empty, and
// the target's another.
func (mf *modelFields) checkNames(x kernel.Inputs) error {
	if mf.inputNames == nil {
		if mf.targetName != "" {
			return fmt.Errorf("sgp: model file names its target column %q but not its input columns", table.Short(mf.targetName))
		}
		return nil
	}
	d := len(mf.inputNames)
	if v, ok := x.(*kernel.Vectors); ok {
		d = v.Dim()
	}
	if err := kernel.CheckNames(mf.inputNames, max(d, 1)); err != nil {
		return fmt.Errorf("sgp: model file: input_names: %w", err)
	}
	if slices.Contains(mf.inputNames, mf.targetName) {
		return fmt.Errorf("sgp: model file: the target column %q is also an input", table.Short(mf.targetName))
	}
	return nil
}

// checkTargets checks the training targets' mean and variance, SNLP's
// trivial model: both present or both absent (the model then does not
// know them, and its Evaluate gives SNLP = NaN), the mean finite and the
// variance finite and positive; zeroVar accepts a variance of 0 as not
// known, as exact model files of constant targets hold it.
func (mf *modelFields) checkTargets(zeroVar bool) error {
	if mf.hasTrainMean != mf.hasTrainVar {
		return errors.New("sgp: model file has one of train_mean and train_var without the other")
	}
	if math.IsNaN(mf.trainMean) || math.IsInf(mf.trainMean, 0) {
		return fmt.Errorf("sgp: model file has training mean %v", mf.trainMean)
	}
	if ok := mf.trainVar > 0 || zeroVar && mf.trainVar == 0 || !mf.hasTrainVar; !ok || math.IsInf(mf.trainVar, 0) {
		return fmt.Errorf("sgp: model file has training variance %v (want a finite variance > 0)", mf.trainVar)
	}
	return nil
}

// Limits on model files, which are untrusted input: every size is checked
// against them, and every array against the sizes, as the file is read
// (readModelFile), so that nothing is allocated beyond what the sizes
// allow.
const (
	maxModelBytes = 1 << 30 // the whole file
	maxModelDim   = 1 << 20 // input dimensions
	maxModelK     = 1 << 14 // inducing points (W and R are k×k)
)

// exactModelFormat identifies the JSON layout written by
// ExactPredictor.Save.
const exactModelFormat = "sgp-exact-model/1"

// loadFile opens path and reads a model from it with load, naming the
// file in errors.
func loadFile[T any](path string, load func(io.Reader) (T, error)) (T, error) {
	var zero T
	fh, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer fh.Close()
	p, err := load(fh)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// mapSet sets m[k] = v, making m if it is nil, and returns m.
func mapSet[V any](m map[string]V, k string, v V) map[string]V {
	if m == nil {
		m = map[string]V{}
	}
	m[k] = v
	return m
}
