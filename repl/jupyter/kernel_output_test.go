package jupyter

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startKernelProcess runs the kernel in a process of its own on TCP, as
// Jupyter starts it, with file descriptors 1 and 2 captured (see
// TestKernelProcess), and returns a client connected to it.
func startKernelProcess(t *testing.T) *client {
	t.Helper()
	conn := tcpConnection(t)
	path := filepath.Join(t.TempDir(), "kernel.json")
	b, _ := json.Marshal(conn)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), kernelEnv+"="+path)
	var stderr syncWriter
	stderr.w = new(bytes.Buffer)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("kernel stderr:\n%.4000s", stderr.String())
		}
	})
	c := newClient(t, conn)
	c.waitReady()
	return c
}

// TestKernelLargeOutput: a cell that prints 24 MB, from interpreted code
// (fmt.Print) and, in a kernel process, from compiled code
// (os.Stdout.WriteString, through the captured descriptor), has all of it published before its idle status,
// in order, in stream messages of bounded size: a client such as nbclient
// stops collecting a cell's output at idle, so text published after it is
// lost from the notebook without a word.
func TestKernelLargeOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kernel process")
	}
	t.Parallel()
	for _, c := range []struct {
		name    string
		process bool
	}{{"in process", false}, {"captured descriptors", true}} {
		t.Run(c.name, func(t *testing.T) {
			var cl *client
			if c.process {
				cl = startKernelProcess(t)
			} else {
				conn := ipcConnection(t)
				startKernel(t, conn)
				cl = newClient(t, conn)
				cl.waitReady()
			}
			const lines, width = 120, 100_000 // 24 MB
			// Compiled code's os.Stdout is the test's own outside the
			// kernel process.
			compiled := "fmt.Print"
			if c.process {
				compiled = "os.Stdout.WriteString"
			}
			code := `import ("os"; "strings")
var _ = os.Stdout
line := strings.Repeat("x", 99999) + "\n"
for i := 0; i < 120; i++ { fmt.Print(line); ` + compiled + `(strings.ToUpper(line[:1]) + line[1:]) }
fmt.Println("end")`
			rep, out := cl.execute(code, nil)
			if rep["status"] != "ok" {
				t.Fatalf("reply %v", rep)
			}
			text := streamText(t, out, "stdout")
			want := strings.Repeat(strings.Repeat("x", width-1)+"\n"+"X"+strings.Repeat("x", width-2)+"\n", lines) + "end\n"
			if text != want {
				t.Errorf("%d of %d bytes before idle (%d stream messages)", len(text), len(want), len(ofType(out, "stream")))
			}
			for _, m := range ofType(out, "stream") {
				if n := len(content(t, m)["text"].(string)); n > maxStreamText {
					t.Errorf("a stream message of %d bytes, above %d", n, maxStreamText)
					break
				}
			}
			// Nothing of the cell arrives after its idle status.
			late := 0
			deadline := time.After(500 * time.Millisecond)
		drain:
			for {
				select {
				case m := <-cl.iopubIn:
					if m.Header.MsgType == "stream" {
						late += len(content(t, m)["text"].(string))
					}
				case <-deadline:
					break drain
				}
			}
			for _, ms := range cl.pending {
				for _, m := range ms {
					if m.Header.MsgType == "stream" {
						late += len(content(t, m)["text"].(string))
					}
				}
			}
			if late > 0 {
				t.Errorf("%d bytes of stream text after the idle status", late)
			}
		})
	}
}

// TestKernelResetStopsFit: a fit that a cell started in a goroutine stops
// at :reset: a later cell shows no progress display of it. Without this
// it went on, burning CPU, and its progress appeared in the cells after
// the reset.
func TestKernelResetStopsFit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a fit for seconds")
	}
	t.Parallel()
	conn := ipcConnection(t)
	startKernel(t, conn)
	c := newClient(t, conn)
	c.waitReady()
	rep, _ := c.execute(`import "time"
train, _ := data.SnelsonLike(300, 1)
m := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(15).WithMaxEpochs(1000000).WithTolerance(0)
go func(m *sgp.Model) { m.Fit() }(m) // m as an argument: the goroutine reads no variable of the session, which the interpreter may move
time.Sleep(time.Second)`, nil)
	if rep["status"] != "ok" {
		t.Fatalf("reply %v", rep)
	}
	if rep, _ := c.execute(":reset", nil); rep["status"] != "ok" {
		t.Fatalf(":reset: reply %v", rep)
	}
	rep, out := c.execute("time.Sleep(1500 * time.Millisecond)", nil)
	if rep["status"] != "ok" {
		t.Fatalf("reply %v", rep)
	}
	if n := len(ofType(out, "display_data")) + len(ofType(out, "update_display_data")); n > 0 {
		t.Errorf("the cell after :reset shows %d progress messages of the fit started before it", n)
	}
}

// TestKernelLargeOutputJupyterClient runs a cell that prints 12 MB from
// compiled code (through the captured descriptor) on a kernel process
// with jupyter_client's execute_interactive, which, as nbclient, collects
// the cell's output until its idle status: all of it arrives, in order,
// through the kernel's size-bounding transport with libzmq on the
// client's side.
func TestKernelLargeOutputJupyterClient(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kernel process")
	}
	if out, err := exec.Command(python, "-c", "import jupyter_client").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import jupyter_client (%v): %s; install Debian's python3-jupyter-client", python, err, bytes.TrimSpace(out))
	}
	t.Parallel()
	conn := tcpConnection(t)
	path := filepath.Join(t.TempDir(), "kernel.json")
	b, _ := json.Marshal(conn)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	kernel := exec.Command(os.Args[0], "-test.run=^$")
	kernel.Env = append(os.Environ(), kernelEnv+"="+path)
	var kernelErr syncWriter
	kernelErr.w = new(bytes.Buffer)
	kernel.Stderr = &kernelErr
	if err := kernel.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- kernel.Wait() }()
	defer func() {
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			kernel.Process.Kill()
			<-exited
			t.Error("the kernel process did not exit after the client's shutdown request")
		}
		if t.Failed() {
			t.Logf("kernel stderr:\n%.4000s", kernelErr.String())
		}
	}()
	cells := []string{`import ("os"; "strings")
line := strings.Repeat("y", 99999) + "\n"
for i := 0; i < 120; i++ { os.Stdout.WriteString(line) }
fmt.Println("end")`}
	in, _ := json.Marshal(cells)
	client := exec.Command(python, "-c", progressClient, path)
	client.Stdin = bytes.NewReader(in)
	var clientErr bytes.Buffer
	client.Stderr = &clientErr
	out, err := client.Output()
	if err != nil {
		t.Fatalf("the Python client failed: %v\n%s", err, clientErr.String())
	}
	var got []clientCell
	if err := json.Unmarshal(out, &got); err != nil || len(got) != 1 {
		t.Fatalf("the client's report (%v): %.2000s", err, out)
	}
	var text strings.Builder
	for _, m := range got[0].IOPub {
		if m.Type == "stream" && m.Content["name"] == "stdout" {
			text.WriteString(m.Content["text"].(string))
		}
	}
	if want := strings.Repeat(strings.Repeat("y", 99999)+"\n", 120) + "end\n"; text.String() != want {
		t.Errorf("jupyter_client collected %d of %d bytes before idle", text.Len(), len(want))
	}
}
