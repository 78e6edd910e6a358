package kernel

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/cholqr/sgp/sgp/internal/jsonstream"
	"github.com/cholqr/sgp/sgp/internal/table"
)

// Description is the JSON form of a built-in kernel, as model files hold
// it: the kernel's type, its size, its hyperparameters θ by name and a
// sum's components. Describe writes it and FromDescription reads it back,
// θ bit for bit (encoding/json writes floats in their shortest
// round-trip form).
type Description struct {
	Type   string    `json:"type"`
	Dim    int       `json:"dim,omitempty"` // d of the kernels of vectors, the channels of HistogramIntersection
	Names  []string  `json:"names"`
	Params []float64 `json:"log_params"`
	// Order is k of a Spectrum kernel or h of a WL kernel.
	Order int `json:"order,omitempty"`
	// Components are the parts of a Sum or a Product, whose Params are
	// theirs concatenated.
	Components []Description `json:"components,omitempty"`
}

// Limits on descriptions, which are untrusted input (model files).
const (
	maxDim       = 1 << 20 // input dimensions or histogram channels
	maxSpectrumK = 64
	// maxItemSize bounds the parts of one input whose size nothing
	// declares: a histogram's channels (when the kernel has not given
	// them) and its bins, a graph's nodes and edges, a sparse count
	// vector's entries.
	maxItemSize = 1 << 14
)

// MaxLogParameter bounds the log hyperparameters |θ| of a description
// that FromDescription accepts: exp(600) ≈ 4e260 is finite, and squares
// of such values are not needed.
const MaxLogParameter = 600

// knownKernels lists the kernel types a description may hold.
const knownKernels = "rbf, matern12, matern32, matern52, rq, linear, periodic, const, histogram, spectrum, wl, wl-per-depth, tanimoto, sum, product"

// describer is implemented by the kernels Describe can describe: each sets
// its type and size in d, whose Names and Params are already set.
type describer interface {
	describe(d *Description) error
}

// Describe returns the description of a built-in kernel at its current
// hyperparameters. It returns an error for a Func or a kernel of another
// package, which have no description.
func Describe(k Kernel) (Description, error) {
	d := Description{Names: k.ParamNames(), Params: k.Params(nil)}
	kd, ok := k.(describer)
	if !ok {
		return d, fmt.Errorf("sgp: cannot save a model with kernel %T", k)
	}
	return d, kd.describe(&d)
}

func (k *RBF) describe(d *Description) error {
	d.Type, d.Dim = "rbf", len(k.ls)
	return nil
}

func (k *HistogramIntersection) describe(d *Description) error {
	d.Type, d.Dim = "histogram", len(k.s.v)
	return nil
}

func (k *Spectrum) describe(d *Description) error {
	d.Type, d.Order = "spectrum", k.k
	return nil
}

func (k *WL) describe(d *Description) error {
	d.Type, d.Order = "wl", k.h
	if k.perDepth {
		d.Type = "wl-per-depth"
	}
	return nil
}

func (k *Tanimoto) describe(d *Description) error {
	d.Type = "tanimoto"
	return nil
}

func (k *Matern) describe(d *Description) error {
	d.Type, d.Dim = k.specName(), len(k.ls)
	return nil
}

func (k *RQ) describe(d *Description) error {
	d.Type, d.Dim = "rq", len(k.ls)
	return nil
}

func (k *Linear) describe(d *Description) error {
	d.Type, d.Dim = "linear", len(k.v)
	return nil
}

func (k *Periodic) describe(d *Description) error {
	d.Type, d.Dim = "periodic", len(k.ls)
	return nil
}

func (k *Const) describe(d *Description) error {
	d.Type = "const"
	return nil
}

func (k *Sum) describe(d *Description) error {
	d.Type = "sum"
	return describeComponents(d, k.comps)
}

func (k *Product) describe(d *Description) error {
	d.Type = "product"
	return describeComponents(d, k.comps)
}

// describeComponents sets d's components to the descriptions of comps.
func describeComponents(d *Description, comps []Kernel) error {
	for _, c := range comps {
		cd, err := Describe(c)
		if err != nil {
			return err
		}
		d.Components = append(d.Components, cd)
	}
	return nil
}

// FromDescription returns the kernel d describes. d is not trusted: its
// sizes and parameters are checked (finite, |θ| ≤ MaxLogParameter, the
// limits MaxNesting and MaxLeaves of Parse) and an error says what is
// wrong.
func FromDescription(d Description) (Kernel, error) {
	if err := checkShape(d.shape()); err != nil {
		return nil, fmt.Errorf("sgp: model file: kernel with %v", err)
	}
	return fromDescription(d)
}

// shape returns the nesting of sums and products in d and its number of
// leaf kernels, as expr.shape.
func (d *Description) shape() (depth, leaves int) {
	if d.Type != "sum" && d.Type != "product" {
		return 0, 1
	}
	for i := range d.Components {
		cd, cl := d.Components[i].shape()
		depth, leaves = max(depth, cd), leaves+cl
	}
	return depth + 1, leaves
}

// fromDescription is FromDescription once the shape is checked.
func fromDescription(sk Description) (Kernel, error) {
	if sk.Dim > maxDim || sk.Dim < 0 {
		return nil, fmt.Errorf("sgp: model file: kernel dimension %d out of range (at most %d)", sk.Dim, maxDim)
	}
	if len(sk.Params) > 2*maxDim+2 {
		return nil, fmt.Errorf("sgp: model file: %d kernel parameters", len(sk.Params))
	}
	for _, v := range sk.Params {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > MaxLogParameter {
			return nil, fmt.Errorf("sgp: model file: log kernel parameter %v is not finite or out of range (|log θ| ≤ %d)", v, MaxLogParameter)
		}
	}
	var k Kernel
	switch sk.Type {
	case "rbf":
		if sk.Dim < 1 {
			return nil, fmt.Errorf("sgp: model file: RBF kernel of dimension %d", sk.Dim)
		}
		k = NewRBF(1, onesLike(sk.Dim))
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
	case "matern12", "matern32", "matern52", "rq", "linear", "periodic":
		if sk.Dim < 1 {
			return nil, fmt.Errorf("sgp: model file: %s kernel of dimension %d", sk.Type, sk.Dim)
		}
		ones := onesLike(sk.Dim)
		switch sk.Type {
		case "matern12":
			k = NewMatern(0.5, 1, ones)
		case "matern32":
			k = NewMatern(1.5, 1, ones)
		case "matern52":
			k = NewMatern(2.5, 1, ones)
		case "rq":
			k = NewRQ(1, ones, 1)
		case "linear":
			k = NewLinear(ones)
		case "periodic":
			k = NewPeriodic(1, ones, ones)
		}
	case "const":
		k = NewConst(1)
	case "sum", "product":
		if len(sk.Components) == 0 {
			return nil, fmt.Errorf("sgp: model file: %s kernel without components", sk.Type)
		}
		comps := make([]Kernel, len(sk.Components))
		for c, cs := range sk.Components {
			kc, err := fromDescription(cs)
			if err != nil {
				return nil, err
			}
			comps[c] = kc
		}
		if sk.Type == "sum" {
			k = NewSum(comps...)
		} else {
			k = NewProduct(comps...)
		}
	default:
		return nil, fmt.Errorf("sgp: model file: unknown kernel type %q (known: %s)", table.Short(sk.Type), knownKernels)
	}
	if len(sk.Params) != k.NumParams() {
		return nil, fmt.Errorf("sgp: model file: kernel %q has %d parameters, want %d", sk.Type, len(sk.Params), k.NumParams())
	}
	k.SetParams(sk.Params)
	return k, nil
}

// onesLike returns n ones, placeholder variances set by SetParams.
func onesLike(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// InputDim returns the dimension of the vector inputs the described kernel
// reads (that of an RBF, Matérn, RQ, linear or periodic kernel, or of
// the first such component of a sum or product), or 0 when the
// description does not give one.
func (d *Description) InputDim() int {
	switch {
	case slices.Contains(numericLeaves, d.Type):
		if d.Dim > 0 && d.Dim <= maxDim { // const has none
			return d.Dim
		}
	case d.Type == "sum" || d.Type == "product":
		for i := range d.Components {
			if v := d.Components[i].InputDim(); v > 0 {
				return v
			}
		}
	}
	return 0
}

// channels returns the number of channels of the histogram inputs the
// described kernel reads, or 0 when the description does not give one.
func (d *Description) channels() int {
	if d.Type == "histogram" && d.Dim > 0 && d.Dim <= maxItemSize {
		return d.Dim
	}
	return 0
}

// ReadDescription reads a kernel's description, a JSON object, from dec
// as a stream of tokens: every array is bounded as it is read (the names
// and parameters by the dimension the description declares, sums by
// their nesting and number of components), so that a hostile file
// allocates no more than its declared sizes allow. FromDescription then
// checks the values.
func ReadDescription(dec *json.Decoder) (Description, error) {
	var d Description
	nodes := 0
	return d, readDescription(jsonstream.Decoder{Decoder: dec}, &d, 0, &nodes)
}

// maxNodes bounds the descriptions in one kernel's as it is read: each of
// at most MaxLeaves leaves has at most MaxNesting sums and products
// above it.
const maxNodes = (MaxNesting + 1) * MaxLeaves

// readDescription reads a kernel's description at sum and product
// nesting depth, counting the descriptions read in nodes.
func readDescription(d jsonstream.Decoder, sk *Description, depth int, nodes *int) error {
	if depth > MaxNesting {
		return jsonstream.Errorf("sum and product kernels nested more than %d deep", MaxNesting)
	}
	if *nodes++; *nodes > maxNodes {
		return jsonstream.Errorf("more kernels than %d leaf kernels nested at most %d deep can hold", MaxLeaves, MaxNesting)
	}
	return d.Object("the kernel", jsonstream.MaxObjectKeys, true, func(key string) error {
		switch key {
		case "type":
			return d.Value(key, &sk.Type)
		case "dim":
			return d.Value(key, &sk.Dim)
		case "order":
			return d.Value(key, &sk.Order)
		case "names":
			return d.Strs(key, &sk.Names, paramBound(sk))
		case "log_params":
			return d.Floats(key, &sk.Params, paramBound(sk))
		case "components":
			return d.Array(key, MaxLeaves, func(int) error {
				var c Description
				err := readDescription(d, &c, depth+1, nodes)
				sk.Components = append(sk.Components, c)
				return err
			})
		}
		return d.Skip(key)
	})
}

// paramBound returns the most parameters a kernel can have given the
// dimension it declares (at most 2d + 1: a periodic kernel's variance, d
// lengthscales and d periods; RBF has d + 1, RQ d + 2, a histogram kernel
// C), or the format's limit while it has declared none.
func paramBound(sk *Description) int {
	if sk.Dim > 0 && sk.Dim <= maxDim {
		return 2*sk.Dim + 2
	}
	return 2*maxDim + 2
}
