package repl

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// heapMiB returns the live heap after two collections, in MiB.
func heapMiB() float64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

// evalOK evaluates cell in s and fails the test on an error.
func evalOK(t *testing.T, s *Session, cell string) *Result {
	t.Helper()
	res, err := s.Eval(context.Background(), cell)
	if err != nil {
		t.Fatalf("%q: %v", cell, err)
	}
	return res
}

// TestSessionMemory: a long session holds what is live, not every value
// it computed (yaegi issue #1678, yaegi_release.go). Not parallel: it
// measures the process's heap and goroutines.
func TestSessionMemory(t *testing.T) {
	s := newSession(t, Options{})
	defer runtime.KeepAlive(s) // else the session itself is collected after its last cell

	// Fifty redefinitions of a 1 MiB slice.
	h := heapMiB()
	for range 50 {
		evalOK(t, s, "buf := make([]float64, 1<<17)")
	}
	if grown := heapMiB() - h; grown > 10 {
		t.Errorf("fifty redefinitions of a 1 MiB slice hold %.1f MiB", grown)
	}

	// A displayed 20 MiB value goes with the Result that shows it.
	h = heapMiB()
	res := evalOK(t, s, "make([]float64, 20<<17)")
	held := heapMiB() - h
	runtime.KeepAlive(res)
	if held < 15 {
		t.Fatalf("the Result holds %.1f MiB, want about 20: the measure cannot see the value", held)
	}
	res = nil
	if grown := heapMiB() - h; grown > 5 {
		t.Errorf("a displayed 20 MiB value holds %.1f MiB once its Result is dropped", grown)
	}

	// Refits: each model holds about 10 MiB (G and Q at n = 2000 and
	// m = 256) and, while it works, a pool of goroutines.
	evalOK(t, s, "train, _ := data.SnelsonLike(2000, 1)")
	g0, h0 := runtime.NumGoroutine(), heapMiB()
	refit := "m := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{1})).WithM(256).WithMaxEpochs(1)\nres, err := m.Fit()"
	evalOK(t, s, refit)
	h1 := heapMiB()
	for range 9 {
		evalOK(t, s, refit)
	}
	h10 := heapMiB()
	t.Logf("heap above the data: %.1f MiB after one fit, %.1f MiB after ten", h1-h0, h10-h0)
	if h1-h0 < 5 {
		t.Fatalf("one model holds %.1f MiB: the measure cannot see a model", h1-h0)
	}
	if h10-h0 > 3*(h1-h0) {
		t.Errorf("ten refits hold %.1f MiB against %.1f MiB for one: the session keeps the earlier models", h10-h0, h1-h0)
	}
	deadline := time.Now().Add(30 * time.Second) // a budget: the pools' idle timers fire late under load
	for runtime.NumGoroutine() > g0+1 {
		if time.Now().After(deadline) {
			t.Errorf("%d goroutines 30 s after ten refits, %d before", runtime.NumGoroutine(), g0)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSessionRedefinitionKeepsReaders: what the session frees is never
// what code still reads: a function and a closure that read a redefined
// variable, and a pointer to it, see its old value (yaegi's binding: a
// function reads the variable of its definition time), and a variable
// whose field a cell's temporary aliased keeps its field.
func TestSessionRedefinitionKeepsReaders(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	evalOK(t, s, "x := 1\nfunc getX() int { return x }\nf := func() int { return x * 10 }\np := &x")
	evalOK(t, s, "type T struct{ A []int }\nv := T{A: []int{7}}\na := v.A\nw := T{A: []int{1, 2}}")
	evalOK(t, s, "w.A")
	for range 3 {
		evalOK(t, s, "x := 2\nv := T{}")
	}
	for cell, want := range map[string]string{
		"getX()":   "1",
		"f()":      "10",
		"*p":       "1",
		"x":        "2",
		"len(a)":   "1",
		"len(v.A)": "0",
		"len(w.A)": "2",
	} {
		res := evalOK(t, s, cell)
		if res.Value == nil || strings.TrimSpace(res.Value.Text) != want {
			t.Errorf("%s = %+v, want %s", cell, res.Value, want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

// TestSessionReset: Reset drops variables, functions and types, keeps the
// imports under their names, frees what the variables held and stops the
// goroutines the session's code started.
func TestSessionReset(t *testing.T) {
	out := new(syncBuffer)
	s := newSession(t, Options{Stdout: out})
	defer runtime.KeepAlive(s)
	evalOK(t, s, "import \"strconv\"\nimport st \"gonum.org/v1/gonum/stat\"\nbig := make([]float64, 20<<17)\nfunc f() int { return len(big) }\ntype T struct{ A int }")
	evalOK(t, s, "import \"time\"\ngo func() {\n\tfor {\n\t\tfmt.Print(\".\")\n\t\ttime.Sleep(time.Millisecond)\n\t}\n}()")
	h := heapMiB()
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if freed := h - heapMiB(); freed < 15 {
		t.Errorf("the reset freed %.1f MiB, want the 20 MiB of big", freed)
	}
	for _, cell := range []string{"big", "f()", "T{}"} {
		if _, err := s.Eval(context.Background(), cell); err == nil || !strings.Contains(err.Error(), "undefined") {
			t.Errorf("%s after the reset: error %v, want undefined", cell, err)
		}
	}
	for cell, want := range map[string]string{
		"strconv.Itoa(7)":                "7",
		"st.Mean([]float64{1, 3}, nil)":  "2",
		"time.Duration(0).String()":      "0s",
		"sgp.VAR.String()":               "VAR",
		"big := \"text\"\nbig":           "text",
		"type T struct{ B string }\nT{}": "{B:}",
	} {
		res := evalOK(t, s, cell)
		if res.Value == nil || strings.TrimSpace(res.Value.Text) != want {
			t.Errorf("%q after the reset = %+v, want %s", cell, res.Value, want)
		}
	}
	if vars := s.Vars(); len(vars) != 2 || vars[0].Name != "big" || vars[1].Name != "T" {
		t.Errorf("Vars after the reset: %+v, want big and T", vars)
	}
	n := out.Len()
	time.Sleep(200 * time.Millisecond)
	if out.Len() != n {
		t.Errorf("the goroutine started before the reset still prints")
	}
}
