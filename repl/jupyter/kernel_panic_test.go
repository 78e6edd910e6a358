package jupyter

import (
	"fmt"
	"strings"
	"testing"
)

// TestKernelFuncKernelPanic: a user's kernel function (kernel.NewFunc)
// that indexes out of range for one row, at n = 3000, panics on the
// library's worker goroutines inside m.Fit(). The notebook gets an error
// output and an execute_reply with status error, and the next
// execute_request works, the model included once the kernel behaves.
func TestKernelFuncKernelPanic(t *testing.T) {
	conn := ipcConnection(t)
	startKernel(t, conn)
	c := newClient(t, conn)
	c.waitReady()

	setup := `train, _ := data.SnelsonLike(3000, 4)
bad := true
short := []float64{1, 2, 3}
f := func(x kernel.Inputs, i int, y kernel.Inputs, j int) float64 {
	if bad && (i == 1500 || j == 1500) {
		return short[i]
	}
	a, b := x.(*kernel.Vectors).Row(i)[0], y.(*kernel.Vectors).Row(j)[0]
	return math.Exp(-0.5 * (a - b) * (a - b) / 0.25)
}
m := sgp.NewModel(train.X, train.Y, kernel.NewFunc(f, 1)).WithM(8).WithSeed(3).WithMaxEpochs(2)`
	if rep, _ := c.execute(setup, nil); rep["status"] != "ok" {
		t.Fatalf("setup: %v", rep)
	}
	for _, cell := range []string{"m.Fit()", "res, err := m.Fit()\nif err != nil {\n\tpanic(err)\n}\nres"} {
		rep, out := c.execute(cell, nil)
		if rep["status"] != "error" || !strings.Contains(fmt.Sprint(rep["evalue"]), "index out of range") {
			t.Errorf("%q: execute_reply %v, want status error with the panic", cell, rep)
		}
		e := ofType(out, "error")
		if len(e) != 1 {
			t.Fatalf("%q: %d error outputs, want 1", cell, len(e))
		}
		if tb := fmt.Sprint(content(t, e[0])["traceback"]); !strings.Contains(tb, "index out of range") {
			t.Errorf("%q: traceback %s", cell, tb)
		}
		if res := ofType(out, "execute_result"); len(res) != 0 {
			t.Errorf("%q: an execute_result with the error", cell)
		}
		// The kernel answers the next request.
		rep, out = c.execute("40 + 2", nil)
		res := ofType(out, "execute_result")
		if rep["status"] != "ok" || len(res) != 1 || content(t, res[0])["data"].(map[string]any)["text/plain"] != "42" {
			t.Fatalf("after %q: execute_reply %v, %d results", cell, rep, len(res))
		}
	}
	rep, out := c.execute("bad = false\nv, err := m.Value()\nerr == nil && v < 1e9", nil)
	res := ofType(out, "execute_result")
	if rep["status"] != "ok" || len(res) != 1 || content(t, res[0])["data"].(map[string]any)["text/plain"] != "true" {
		t.Errorf("the model after the kernel is fixed: execute_reply %v, results %d", rep, len(res))
	}
}
