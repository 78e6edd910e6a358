package jupyter

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/cholqr/sgp/repl"
)

// heapMiB returns the live heap after two collections, in MiB.
func heapMiB() float64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

// TestKernelDropsUnstoredValues: the value of a cell executed with
// store_history false is shown and then not kept, by the kernel or its
// session. Not parallel: it measures the process's heap.
func TestKernelDropsUnstoredValues(t *testing.T) {
	conn := ipcConnection(t)
	k, _ := startKernel(t, conn)
	defer runtime.KeepAlive(k)
	c := newClient(t, conn)
	c.waitReady()
	c.execute("1 + 1", nil)
	h := heapMiB()
	rep, msgs := c.execute("make([]float64, 20<<17)", map[string]any{"store_history": false})
	if rep["status"] != "ok" || len(ofType(msgs, "execute_result")) != 1 {
		t.Fatalf("reply %v, %d execute_result messages", rep, len(ofType(msgs, "execute_result")))
	}
	if grown := heapMiB() - h; grown > 5 {
		t.Errorf("a displayed 20 MiB value executed with store_history false holds %.1f MiB afterwards", grown)
	}
}

// TestKernelReset: a cell ":reset" resets the session as :reset does in
// the terminal: variables gone, imports kept, the message on stdout.
func TestKernelReset(t *testing.T) {
	t.Parallel()
	conn := ipcConnection(t)
	startKernel(t, conn)
	c := newClient(t, conn)
	c.waitReady()
	if rep, _ := c.execute("import \"strconv\"\nx := 5", nil); rep["status"] != "ok" {
		t.Fatalf("reply %v", rep)
	}
	rep, msgs := c.execute("  :reset\n", nil)
	if rep["status"] != "ok" || !strings.Contains(streamText(t, msgs, "stdout"), repl.ResetMessage) {
		t.Fatalf("reply %v, stdout %q", rep, streamText(t, msgs, "stdout"))
	}
	if rep, _ := c.execute("x", nil); rep["status"] != "error" || !strings.Contains(fmt.Sprint(rep["evalue"]), "undefined: x") {
		t.Errorf("x after :reset: reply %v", rep)
	}
	if rep, msgs := c.execute("strconv.Itoa(42)", nil); rep["status"] != "ok" || len(ofType(msgs, "execute_result")) != 1 {
		t.Errorf("strconv after :reset: reply %v", rep)
	}
}

// TestKernelSurvivesCellFailures: a panic in a goroutine the cell
// started, unbounded recursion and os.Exit are error replies, and the
// kernel (in this test's process) answers the next cell. Uncaught, the
// first two end the process.
func TestKernelSurvivesCellFailures(t *testing.T) {
	conn := ipcConnection(t)
	startKernel(t, conn)
	c := newClient(t, conn)
	c.waitReady()
	for _, cc := range []struct{ code, evalue string }{
		{"import \"time\"\ngo func() { panic(\"late\") }()\ntime.Sleep(200 * time.Millisecond)", "in a goroutine: late"},
		{"func rec(n int) int { return rec(n+1) + 1 }\nrec(0)", "unbounded recursion"},
		{"import \"os\"\nos.Exit(1)", "os.Exit(1) called"},
	} {
		rep, _ := c.execute(cc.code, nil)
		if rep["status"] != "error" || !strings.Contains(fmt.Sprint(rep["evalue"]), cc.evalue) {
			t.Errorf("%q: reply %v, want an error with %q", cc.code, rep, cc.evalue)
		}
		if rep, _ := c.execute("1 + 1", nil); rep["status"] != "ok" {
			t.Errorf("after %q: reply %v", cc.code, rep)
		}
	}
}
