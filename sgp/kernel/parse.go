package kernel

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cholqr/sgp/sgp/internal/stats"
)

// specNames lists the kernel specifications SplitSpec accepts.
const specNames = "rbf, matern12, matern32, matern52, rq, linear, periodic, const, sums and products of these (rbf+linear, periodic*rbf, (rbf+linear)*const), wl[:h], wl-depth[:h], spectrum[:k], tanimoto[:r], histogram[:C]"

// numericLeaves are the names of the single kernels of numeric inputs,
// which expressions combine: the one list of them (SplitSpec,
// NumericSpec, NamesWith and the model files' InputDim read it).
var numericLeaves = []string{"rbf", "matern12", "matern32", "matern52", "rq", "linear", "periodic", "const"}

// numericNames lists numericLeaves for messages.
var numericNames = strings.Join(numericLeaves, ", ")

// SplitSpec splits a kernel specification "name[:p]" into the name and
// its integer parameter, filling in the default. Specifications name a
// built-in kernel and the kind of inputs it reads, for command lines and
// scripts (sgprepl fit --kernel; see Parse, and mol.InputsFromCells for
// reading inputs from table cells):
//
//	rbf             RBF-ARD on numeric columns (NewRBFFromData)
//	matern12, matern32, matern52
//	                Matérn-ARD of smoothness 1/2, 3/2, 5/2 (NewMaternFromData)
//	rq              rational quadratic ARD (NewRQFromData)
//	linear          linear ARD, one variance per column (NewLinearFromData)
//	periodic        periodic, one period and lengthscale per column
//	                (NewPeriodicFromData)
//	const           constant (a variance for an offset)
//	a+b, a*b        sums and products of the kernels above, * before +,
//	                with parentheses: rbf+linear, periodic*rbf,
//	                matern52+const, (rbf+linear)*const
//	wl[:h]          WL subtree kernel on SMILES, h iterations (default 3)
//	wl-depth[:h]    WL with one variance per depth 0…h (default h = 3)
//	spectrum[:k]    normalised k-mer spectrum on strings (default k = 3)
//	tanimoto[:r]    MinMax on count fingerprints: "index:count …" cells, or
//	                SMILES turned into WLFingerprint of radius r (default 2)
//	histogram[:C]   histogram intersection; the numeric columns are the bins
//	                of C channels of equal size (default 1)
//
// For an expression (a spec with +, * or parentheses) name is the
// expression without spaces, in lower case, and param 0; NumericSpec
// reports that it reads numeric columns. Names are case-insensitive. It
// returns an error for an unknown name, a parameter out of range or an
// expression it cannot read, listing what is accepted, or one beyond
// MaxNesting or MaxLeaves.
func SplitSpec(spec string) (name string, param int, err error) {
	s := strings.ToLower(strings.TrimSpace(spec))
	if strings.ContainsAny(s, "+*()") {
		e, err := parseExpr(spec)
		if err != nil {
			return "", 0, err
		}
		return e.String(), 0, nil
	}
	name, arg, hasArg := strings.Cut(s, ":")
	def, lo, hi := 0, 0, 0
	if slices.Contains(numericLeaves, name) {
		if hasArg {
			return "", 0, fmt.Errorf("sgp: kernel %q takes no parameter", echo(spec, -1))
		}
		return name, 0, nil
	}
	switch name {
	case "wl", "wl-depth":
		def, lo, hi = 3, 0, wlMaxDepth
	case "spectrum":
		def, lo, hi = 3, 1, 64
	case "tanimoto":
		def, lo, hi = 2, 0, wlMaxDepth
	case "histogram":
		def, lo, hi = 1, 1, 1<<20
	default:
		return "", 0, fmt.Errorf("sgp: unknown kernel %q; choose one of %s", echo(spec, -1), specNames)
	}
	if !hasArg {
		return name, def, nil
	}
	p, err := strconv.Atoi(arg)
	if err != nil || p < lo || p > hi {
		return "", 0, fmt.Errorf("sgp: kernel %q: parameter %q must be an integer in [%d, %d]", echo(spec, -1), echo(arg, -1), lo, hi)
	}
	return name, p, nil
}

// NumericSpec reports whether name, a name SplitSpec returned, is a
// kernel of numeric columns (*Vectors): rbf, matern12, matern32,
// matern52, rq, linear, periodic, const, or an expression of these.
func NumericSpec(name string) bool {
	return slices.Contains(numericLeaves, name) || strings.ContainsAny(name, "+*()")
}

// expr is a parsed kernel expression: a leaf kernel's name, or a sum or
// product of its terms.
type expr struct {
	op    byte // 0 for a leaf, '+' or '*'
	name  string
	terms []*expr
}

// String writes e without spaces, with parentheses where a sum is a
// factor of a product or a term is parenthesised in the source.
func (e *expr) String() string {
	if e.op == 0 {
		return e.name
	}
	parts := make([]string, len(e.terms))
	for i, t := range e.terms {
		parts[i] = t.String()
		if t.op == '+' || (t.op == '*' && e.op == '*') {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	return strings.Join(parts, string(e.op))
}

// parseExpr parses a kernel expression of the numeric kernels: sum :=
// product {+ product}, product := atom {* atom}, atom := name | (sum).
func parseExpr(spec string) (*expr, error) {
	p := &exprParser{src: strings.ToLower(spec), spec: spec}
	e, err := p.sum(0)
	if err != nil {
		return nil, err
	}
	if p.skip(); p.pos < len(p.src) {
		return nil, p.errorf("unexpected %q", p.src[p.pos:p.pos+1])
	}
	if err := checkShape(e.shape()); err != nil {
		return nil, fmt.Errorf("sgp: kernel %q: %v", p.spec, err)
	}
	return e, nil
}

// exprParser reads a kernel expression from src.
type exprParser struct {
	src, spec string
	pos       int
	leaves    int // terms read after the first of their list, bounded while reading
}

// MaxNesting bounds the sums and products on the way from a kernel to
// any of its leaf kernels (rbf+linear has one, (rbf+linear)*const two),
// and MaxLeaves the leaf kernels of one kernel in all. Parse refuses a
// specification beyond them and FromDescription a description, so that
// every kernel Parse builds is one a model file can hold.
const (
	MaxNesting = 8
	MaxLeaves  = 1 << 10
)

// checkShape returns an error if a kernel nests sums and products more
// than MaxNesting deep or has more than MaxLeaves leaf kernels.
func checkShape(depth, leaves int) error {
	if depth > MaxNesting {
		return fmt.Errorf("sums and products nested %d deep (at most %d)", depth, MaxNesting)
	}
	if leaves > MaxLeaves {
		return fmt.Errorf("more than %d kernels in all", MaxLeaves)
	}
	return nil
}

// shape returns the nesting of sums and products in e and its number of
// leaves.
func (e *expr) shape() (depth, leaves int) {
	if e.op == 0 {
		return 0, 1
	}
	for _, t := range e.terms {
		d, l := t.shape()
		depth, leaves = max(depth, d), leaves+l
	}
	return depth + 1, leaves
}

func (p *exprParser) errorf(format string, args ...any) error {
	return fmt.Errorf("sgp: kernel %q: %s at character %d; write sums and products of %s, such as rbf+linear, periodic*rbf or (rbf+linear)*const",
		echo(p.spec, p.pos), fmt.Sprintf(format, args...), p.pos+1, numericNames)
}

// maxEcho is how many characters of a specification (or of a name in it)
// an error message quotes: a generated expression can be many kilobytes,
// and the message must stay one readable line.
const maxEcho = 80

// echo returns s for an error message: whole if it has at most maxEcho
// characters, or else maxEcho of them around byte offset at (from the
// start if at < 0), with "…" where it is cut.
func echo(s string, at int) string {
	r := []rune(s)
	if len(r) <= maxEcho {
		return s
	}
	i := 0
	if at > 0 && at <= len(s) {
		i = utf8.RuneCountInString(s[:at]) - maxEcho/2
	}
	i = max(0, min(i, len(r)-maxEcho))
	out := string(r[i : i+maxEcho])
	if i > 0 {
		out = "…" + out
	}
	if i+maxEcho < len(r) {
		out += "…"
	}
	return out
}

func (p *exprParser) skip() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

func (p *exprParser) sum(depth int) (*expr, error) {
	return p.list(depth, '+', p.product)
}

func (p *exprParser) product(depth int) (*expr, error) {
	return p.list(depth, '*', p.atom)
}

// list reads items separated by op; one item is returned as it is.
func (p *exprParser) list(depth int, op byte, item func(int) (*expr, error)) (*expr, error) {
	first, err := item(depth)
	if err != nil {
		return nil, err
	}
	e := &expr{op: op, terms: []*expr{first}}
	for {
		p.skip()
		if p.pos >= len(p.src) || p.src[p.pos] != op {
			break
		}
		p.pos++
		t, err := item(depth)
		if err != nil {
			return nil, err
		}
		if p.leaves++; p.leaves > MaxLeaves {
			return nil, p.errorf("more than %d kernels in all", MaxLeaves)
		}
		e.terms = append(e.terms, t)
	}
	if len(e.terms) == 1 {
		return first, nil
	}
	return e, nil
}

func (p *exprParser) atom(depth int) (*expr, error) {
	p.skip()
	if p.pos >= len(p.src) {
		return nil, p.errorf("a kernel name is missing")
	}
	if p.src[p.pos] == '(' {
		if depth == MaxNesting {
			return nil, p.errorf("parentheses nested more than %d deep", MaxNesting)
		}
		p.pos++
		e, err := p.sum(depth + 1)
		if err != nil {
			return nil, err
		}
		if p.skip(); p.pos >= len(p.src) || p.src[p.pos] != ')' {
			return nil, p.errorf("a closing parenthesis is missing")
		}
		p.pos++
		return e, nil // a sum or product in parentheses stays one term
	}
	start := p.pos
	for p.pos < len(p.src) && strings.IndexByte("+*() \t", p.src[p.pos]) < 0 {
		p.pos++
	}
	name := p.src[start:p.pos]
	if name == "" {
		return nil, p.errorf("a kernel name is missing")
	}
	if !NumericSpec(name) {
		p.pos = start
		if _, _, err := SplitSpec(name); err == nil {
			return nil, p.errorf("%s reads no numeric columns, and only the numeric kernels combine", echo(name, -1))
		}
		return nil, p.errorf("unknown kernel %q", echo(name, -1))
	}
	return &expr{name: name}, nil
}

// Parse returns the kernel named by spec (see SplitSpec) for inputs x,
// with starting hyperparameters from the data: its variance set to the
// variance of the targets y (1 if y is constant or empty); for wl-depth
// V_d = var(y)/(h+1), for the histogram kernel as
// NewHistogramIntersectionFromData, for the numeric kernels as their
// FromData constructors (NewRBFFromData, …). In a sum of C terms each term
// starts with variance var(y)/C; in a product the first factor starts
// with var(y) and the others with variance 1, so that the product's
// variance is var(y) (see Product). It returns an error if the kernel
// cannot read x.
func Parse(spec string, x Inputs, y []float64) (Kernel, error) {
	name, p, err := SplitSpec(spec)
	if err != nil {
		return nil, err
	}
	vy := stats.TargetScale(y)
	var k Kernel
	switch {
	case NumericSpec(name):
		v, ok := x.(*Vectors)
		if !ok {
			return nil, fmt.Errorf("sgp: kernel %s needs numeric inputs (*kernel.Vectors), got %T", echo(name, -1), x)
		}
		e, err := parseExpr(name)
		if err != nil {
			return nil, err
		}
		k = e.build(SpreadOf(v, y), vy)
	case name == "wl":
		k = NewWL(p, vy)
	case name == "wl-depth":
		vars := make([]float64, p+1)
		for d := range vars {
			vars[d] = vy / float64(p+1)
		}
		k = NewWLPerDepth(vars)
	case name == "spectrum":
		k = NewSpectrum(p, vy)
	case name == "tanimoto":
		k = NewTanimoto(vy)
	case name == "histogram":
		h, ok := x.(*Histograms)
		if !ok {
			return nil, fmt.Errorf("sgp: kernel histogram needs histogram inputs (*kernel.Histograms), got %T", x)
		}
		k = NewHistogramIntersectionFromData(h, y)
	}
	if err := k.Accepts(x); err != nil {
		return nil, err
	}
	return k, nil
}

// ParseSpread returns the numeric kernel named by spec (a NumericSpec
// name or an expression of them) with the starting hyperparameters Parse
// gives it for inputs and targets of Spread s: for rows spread over
// processes, each holding some (sgp.SpreadRanks), the kernel Parse builds
// from all of them, to the rounding of the sums.
func ParseSpread(spec string, s *Spread) (Kernel, error) {
	name, _, err := SplitSpec(spec)
	if err != nil {
		return nil, err
	}
	if !NumericSpec(name) {
		return nil, fmt.Errorf("sgp: kernel %s does not read numeric columns: it starts from the inputs themselves (Parse), not a Spread of them", echo(name, -1))
	}
	if len(s.Lo) == 0 || len(s.Hi) != len(s.Lo) || len(s.MeanSquare) != len(s.Lo) {
		return nil, fmt.Errorf("sgp: a Spread of %d, %d and %d columns: kernel %s needs one range and mean square per input column", len(s.Lo), len(s.Hi), len(s.MeanSquare), echo(name, -1))
	}
	e, err := parseExpr(name)
	if err != nil {
		return nil, err
	}
	return e.build(s, s.TargetScale), nil
}

// build returns the kernel of e for inputs and targets of Spread s with
// prior variance v.
func (e *expr) build(s *Spread, v float64) Kernel {
	switch e.op {
	case '+':
		terms := make([]Kernel, len(e.terms))
		for i, t := range e.terms {
			terms[i] = t.build(s, v/float64(len(e.terms)))
		}
		return NewSum(terms...)
	case '*':
		factors := make([]Kernel, len(e.terms))
		for i, t := range e.terms {
			fv := 1.0
			if i == 0 {
				fv = v
			}
			factors[i] = t.build(s, fv)
		}
		return NewProduct(factors...)
	}
	var k Kernel
	switch e.name {
	case "rbf":
		k = NewRBF(s.TargetScale, spreadLengthscales(s))
	case "matern12":
		k = NewMatern(0.5, s.TargetScale, rbfLengthscales(s))
	case "matern32":
		k = NewMatern(1.5, s.TargetScale, rbfLengthscales(s))
	case "matern52":
		k = NewMatern(2.5, s.TargetScale, rbfLengthscales(s))
	case "rq":
		k = NewRQ(s.TargetScale, rbfLengthscales(s), DefaultRQAlpha)
	case "periodic":
		k = periodicFromSpread(s)
	case "linear":
		return newLinearScaled(s.MeanSquare, v)
	case "const":
		return NewConst(v)
	}
	// The variance is θ₀ of each of these.
	theta := k.Params(nil)
	theta[0] = math.Log(v)
	k.SetParams(theta)
	return k
}
