package jupyter

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// python is Debian's Python, which has the Jupyter modules (see the
// notebooks' test).
const python = "/usr/bin/python3"

// progressClient is a Jupyter client in Python (jupyter_client, as
// notebooks and nbclient use it): it runs the cells given as JSON on
// stdin on the kernel of the connection file argv[1], one after the
// other, and prints, for each, its execute_reply and the iopub messages
// execute_interactive passes to its output hook, with their type, content
// and the kernel's send time.
const progressClient = `
import json, sys
from jupyter_client import BlockingKernelClient

kc = BlockingKernelClient(connection_file=sys.argv[1])
kc.load_connection_file()
kc.start_channels()
kc.wait_for_ready(timeout=60)
out = []
for code in json.load(sys.stdin):
    msgs = []
    def hook(msg):
        date = msg["header"]["date"]
        msgs.append({"type": msg["msg_type"], "content": msg["content"],
                     "date": date.isoformat() if hasattr(date, "isoformat") else str(date)})
    reply = kc.execute_interactive(code, output_hook=hook, timeout=300)
    out.append({"reply": reply["content"], "iopub": msgs})
kc.shutdown()
kc.stop_channels()
json.dump(out, sys.stdout)
`

// clientCell is what progressClient reports of a cell.
type clientCell struct {
	Reply map[string]any `json:"reply"`
	IOPub []struct {
		Type    string         `json:"type"`
		Content map[string]any `json:"content"`
		Date    string         `json:"date"`
	} `json:"iopub"`
}

// TestProgressDisplay runs fits on a kernel process through jupyter_client
// and checks the progress display a notebook gets: a fit that works for
// long shows one display_data with a display_id, updated with
// update_display_data at most every progressInterval (epoch, objective,
// swaps, elapsed, time left of the budget), ending in its final state
// where it was shown; the cell's value comes last, as execute_result,
// after everything the cell printed, before and after the fit; a quick fit
// shows none.
func TestProgressDisplay(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kernel process and runs fits of several seconds")
	}
	if out, err := exec.Command(python, "-c", "import jupyter_client").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import jupyter_client (%v): %s; install Debian's python3-jupyter-client", python, err, bytes.TrimSpace(out))
	}
	conn := tcpConnection(t)
	path := filepath.Join(t.TempDir(), "kernel.json")
	b, _ := json.Marshal(conn)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	kernel := exec.Command(os.Args[0], "-test.run=^$")
	kernel.Env = append(os.Environ(), kernelEnv+"="+path)
	var kernelErr bytes.Buffer
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
			t.Logf("kernel stderr:\n%s", kernelErr.String())
		}
	}()

	// The fits run for their time budgets on any machine: with tolerance
	// 0 they do not converge before.
	model := func(name, budget string) string {
		return name + " := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(20).WithTolerance(0).WithMaxEpochs(1000000).WithTimeBudget(" + budget + ")\n"
	}
	cells := []string{
		"import \"time\"\ntrain, _ := data.SnelsonLike(400, 1)\n" + model("m", "3 * time.Second") + "m.Fit()",
		model("m2", "1500 * time.Millisecond") + "res2, _ := m2.Fit()",
		model("m3", "1500 * time.Millisecond") + "r3, _ := m3.Fit()\ndisplay.Show(r3.Epochs > 0)\nm3.Kernel()",
		"small, _ := data.SnelsonLike(40, 1)\nq := sgp.NewModel(small.X, small.Y, kernel.NewRBF(1, []float64{0.5})).WithM(4).WithMaxEpochs(2)\nq.Fit()",
		"fmt.Println(\"before the fit\")\n" + model("m5", "1500 * time.Millisecond") + "r5, _ := m5.Fit()\nfmt.Println(\"after the fit\")\nr5.Epochs > 0",
	}
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
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(cells) {
		t.Fatalf("the client's report (%v): %s", err, out)
	}
	for i, c := range got {
		if c.Reply["status"] != "ok" {
			t.Fatalf("cell %d: execute_reply %v", i, c.Reply)
		}
	}

	// progress returns a cell's messages of its progress display: the
	// display_data with a display_id and the updates of that id.
	type shown struct {
		typ, text, html string
		at              time.Time
	}
	progress := func(i int) (id string, msgs []shown) {
		for _, m := range got[i].IOPub {
			tr, _ := m.Content["transient"].(map[string]any)
			did, _ := tr["display_id"].(string)
			if did == "" || (id != "" && did != id) || (id == "" && m.Type != "display_data") {
				continue
			}
			id = did
			data, _ := m.Content["data"].(map[string]any)
			text, _ := data["text/plain"].(string)
			h, _ := data["text/html"].(string)
			at, err := time.Parse(time.RFC3339Nano, m.Date)
			if err != nil {
				t.Fatalf("cell %d: date %q: %v", i, m.Date, err)
			}
			msgs = append(msgs, shown{m.Type, text, h, at})
		}
		return id, msgs
	}
	types := func(i int) []string {
		var ts []string
		for _, m := range got[i].IOPub {
			ts = append(ts, m.Type)
		}
		return ts
	}
	left := regexp.MustCompile(`, ([0-9.]+) s left of `)
	// checkRunning checks the display while the fit runs: shown, then
	// updated at least once before its final update.
	checkRunning := func(i int, msgs []shown, budget string) {
		if len(msgs) < 3 || msgs[0].typ != "display_data" {
			t.Fatalf("cell %d: progress messages %+v; want a display_data and at least 2 updates (types %v)", i, msgs, types(i))
		}
		prevLeft := 1e9
		for k, m := range msgs[:len(msgs)-1] {
			if k > 0 && m.typ != "update_display_data" {
				t.Errorf("cell %d: progress message %d is %s", i, k, m.typ)
			}
			if !strings.HasPrefix(m.text, "fit: ") || !strings.Contains(m.text, " s left of "+budget) || !strings.Contains(m.html, "<progress ") {
				t.Errorf("cell %d: progress %q / %q", i, m.text, m.html)
			}
			if k > 0 && !strings.Contains(m.text, "swaps accepted ") {
				t.Errorf("cell %d: progress after the first update without an epoch: %q", i, m.text)
			}
			if l := left.FindStringSubmatch(m.text); l != nil {
				v, _ := strconv.ParseFloat(l[1], 64)
				if v > prevLeft {
					t.Errorf("cell %d: time left grows: %q", i, m.text)
				}
				prevLeft = v
			}
			// The kernel throttles its updates; the display_data waits for
			// the output before it, so its gap to the next may be a little
			// shorter.
			if k > 0 && m.at.Sub(msgs[k-1].at) < progressInterval-100*time.Millisecond {
				t.Errorf("cell %d: updates %d and %d sent %v apart", i, k-1, k, m.at.Sub(msgs[k-1].at))
			}
		}
	}

	// outputs returns the types of a cell's output messages, with the
	// text of its streams.
	outputs := func(i int) []string {
		var ts []string
		for _, m := range got[i].IOPub {
			switch m.Type {
			case "stream":
				text, _ := m.Content["text"].(string)
				ts = append(ts, "stream "+strings.TrimSpace(text))
			case "display_data", "update_display_data", "execute_result", "error":
				ts = append(ts, m.Type)
			}
		}
		return ts
	}

	// A fit whose result is the cell's value: the display ends in its
	// final state, and the value comes after it.
	id, msgs := progress(0)
	checkRunning(0, msgs, "3s")
	final := msgs[len(msgs)-1]
	if final.typ != "update_display_data" || !strings.HasPrefix(final.text, "fit finished: epoch ") || strings.Contains(final.html, "<progress") {
		t.Errorf("cell 0: the display ends as %+v, want its final state", final)
	}
	if ts := outputs(0); len(ts) == 0 || ts[len(ts)-1] != "execute_result" {
		t.Errorf("cell 0: outputs %v; want the value last, as execute_result", ts)
	}

	// No value: the display ends in its final state.
	id2, msgs := progress(1)
	checkRunning(1, msgs, "1.5s")
	if id2 == id {
		t.Errorf("cells 0 and 1 share display_id %s", id)
	}
	final = msgs[len(msgs)-1]
	if !strings.HasPrefix(final.text, "fit finished: epoch ") || strings.Contains(final.text, "left of") || strings.Contains(final.html, "<progress") {
		t.Errorf("cell 1: the display ends as %+v", final)
	}

	// A display after the progress: the display ends in its final state,
	// then come the display and the value.
	_, msgs = progress(2)
	checkRunning(2, msgs, "1.5s")
	if final = msgs[len(msgs)-1]; !strings.HasPrefix(final.text, "fit finished: ") {
		t.Errorf("cell 2: the display ends as %+v", final)
	}
	ts := types(2)
	if lastIndex(ts, "execute_result") != lastIndex(ts, "update_display_data")+1 || lastIndex(ts, "display_data") <= indexOf0(ts, "display_data") {
		t.Errorf("cell 2: messages %v; want the progress, the display, then the value as execute_result", ts)
	}

	// A quick fit shows no progress.
	if id, _ := progress(3); id != "" || indexOf0(types(3), "execute_result") < 0 {
		t.Errorf("cell 3: progress display %q, messages %v", id, types(3))
	}

	// Prints around a fit with progress: in the order they happened, the
	// display between them, the value last.
	_, msgs = progress(4)
	checkRunning(4, msgs, "1.5s")
	ts = outputs(4)
	before, display, after := indexOf0(ts, "stream before the fit"), indexOf0(ts, "display_data"), indexOf0(ts, "stream after the fit")
	if before < 0 || display < before || after < display || ts[len(ts)-1] != "execute_result" || indexOf0(ts, "execute_result") != len(ts)-1 {
		t.Errorf("cell 4: outputs %v; want stream (before), display_data and its updates, stream (after), execute_result last", ts)
	}
	// The fit's warning (stderr) came before the print after it (stdout).
	if w := indexOf0(ts, "stream warning: the fit did not converge (time budget); the model is the best state reached"); w < 0 || w > after {
		t.Errorf("cell 4: outputs %v; want the fit's warning before the print after the fit", ts)
	}
}

func indexOf0(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func lastIndex(list []string, s string) int {
	for i := len(list) - 1; i >= 0; i-- {
		if list[i] == s {
			return i
		}
	}
	return -1
}
