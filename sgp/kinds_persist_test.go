package sgp

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// kindSpecs are specifications of the kinds of kernel beyond RBF and of sums
// and products of them, for one-dimensional inputs.
var kindSpecs = []string{"matern12", "matern32", "matern52", "rq", "linear", "periodic", "const+rbf",
	"rbf+linear", "periodic*rbf", "matern52+const", "(rbf+linear)*const", "linear*linear+matern32"}

// savedKind fits a small model with the kernel spec and returns it with
// its saved JSON.
func savedKind(t testing.TB, spec string) (*Model, []byte) {
	t.Helper()
	train, _ := data.SnelsonLike(60, 1)
	k, err := kernel.Parse(spec, train.X, train.Y)
	if err != nil {
		t.Fatal(err)
	}
	md := NewModel(train.X, train.Y, k).WithM(5).WithMaxEpochs(2)
	if _, err := md.Fit(); err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	var b bytes.Buffer
	if err := md.Save(&b); err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return md, b.Bytes()
}

// TestKindsSaveLoad: a model with any of the kernels beyond RBF, or a sum or
// product of them, shows its kernel in its summary, saves and loads back
// to the same kernel (its display, θ bit for bit) and predicts bit for
// bit as the model.
func TestKindsSaveLoad(t *testing.T) {
	t.Parallel()
	for _, spec := range kindSpecs {
		md, saved := savedKind(t, spec)
		p, err := LoadPredictor(bytes.NewReader(saved))
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if got, want := kernel.Text(p.Kern), kernel.Text(md.Kernel()); got != want {
			t.Errorf("%s: loaded kernel %s, saved %s", spec, got, want)
		}
		// The model's summary shows the kernel in one line, text and HTML.
		if text := kernel.Text(md.Kernel()); !strings.Contains(md.String(), "\n  kernel ") || !strings.Contains(md.String(), text) || !strings.Contains(md.HTML(), text) {
			t.Errorf("%s: the model's summary does not show %s:\n%s", spec, text, md.String())
		}
		th, th0 := p.Kern.Params(nil), md.Kernel().Params(nil)
		for i := range th0 {
			if math.Float64bits(th[i]) != math.Float64bits(th0[i]) {
				t.Errorf("%s: θ[%d] = %v loaded, %v saved", spec, i, th[i], th0[i])
			}
		}
		test, _ := data.SnelsonLike(20, 2)
		m1, v1, err1 := md.Predict(test.X)
		m2, v2, err2 := p.PredictTo(nil, nil, test.X)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", spec, err1, err2)
		}
		for i := range m1 {
			if math.Float64bits(m1[i]) != math.Float64bits(m2[i]) || math.Float64bits(v1[i]) != math.Float64bits(v2[i]) {
				t.Fatalf("%s: prediction %d: model %v ± %v, loaded %v ± %v", spec, i, m1[i], v1[i], m2[i], v2[i])
			}
		}
	}
}

// TestLoadHostileKinds: hostile files with the kinds of kernel beyond RBF are
// refused with an error saying what is wrong.
func TestLoadHostileKinds(t *testing.T) {
	t.Parallel()
	_, good := savedKind(t, "periodic*rbf")
	kern := func(m map[string]any) map[string]any { return m["kernel"].(map[string]any) }
	comp := func(m map[string]any, c int) map[string]any {
		return kern(m)["components"].([]any)[c].(map[string]any)
	}
	for name, c := range map[string]struct {
		file, want string
	}{
		"periodic dim 1e8": {edit(t, good, func(m map[string]any) { comp(m, 0)["dim"] = 1e8 }), "out of range"},
		"periodic dim 0":   {edit(t, good, func(m map[string]any) { comp(m, 0)["dim"] = 0 }), "dimension 0"},
		"too few params":   {edit(t, good, func(m map[string]any) { comp(m, 0)["log_params"] = []any{0.0, 0.0} }), "want 3"},
		"NaN period": {edit(t, good, func(m map[string]any) {
			comp(m, 0)["log_params"] = []any{0.0, 0.0, 1e300}
		}), "out of range"},
		"product without components": {edit(t, good, func(m map[string]any) { kern(m)["components"] = []any{} }), "without components"},
		"product nested": {edit(t, good, func(m map[string]any) {
			var k any = map[string]any{"type": "const", "names": []any{"variance"}, "log_params": []any{0.0}}
			for range 20 {
				k = map[string]any{"type": "product", "components": []any{k}, "log_params": []any{0.0}}
			}
			m["kernel"] = k
		}), "nested"},
		"rq of 0 dimensions": {edit(t, good, func(m map[string]any) { comp(m, 1)["type"], comp(m, 1)["dim"] = "rq", 0 }), "dimension 0"},
	} {
		_, err := LoadPredictor(strings.NewReader(c.file))
		if err == nil {
			t.Errorf("%s: loaded", name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to mention %q", name, err, c.want)
		}
	}
}
