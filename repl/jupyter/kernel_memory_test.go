package jupyter

import (
	"runtime"
	"testing"
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
