package notebooks

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/data"

	// The kernel: importing it makes go test's cache depend on its code
	// (and on sgp and the symbol tables), which the notebooks run through
	// a binary built below, out of the cache's sight.
	_ "github.com/cholqr/sgp/repl/jupyter"
)

// jupyter is Debian's Jupyter command. Its scripts run /usr/bin/python3;
// a python3 earlier on PATH (pyenv) may lack the Jupyter modules, so the
// test never goes through "python3 -m".
const jupyter = "/usr/bin/jupyter"

// maxNotebookTime bounds one notebook's run: each notebook's fits are
// sized to end well within it, with a margin for a loaded machine.
const maxNotebookTime = 4 * time.Minute

// notebook is the part of the nbformat 4 document the test reads.
type notebook struct {
	Cells []struct {
		CellType string `json:"cell_type"`
		Source   any    `json:"source"`
		Outputs  []struct {
			OutputType string         `json:"output_type"`
			Name       string         `json:"name"`
			Text       any            `json:"text"`
			Data       map[string]any `json:"data"`
			Ename      string         `json:"ename"`
			Evalue     string         `json:"evalue"`
		} `json:"outputs"`
	} `json:"cells"`
	Metadata struct {
		Kernelspec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
	} `json:"metadata"`
}

func readNotebook(t *testing.T, path string) *notebook {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &nb
}

// TestCommitted checks the committed notebooks without running them:
// they use the sgp kernel and hold their outputs, with no errors.
func TestCommitted(t *testing.T) {
	paths, _ := filepath.Glob("*.ipynb")
	if len(paths) == 0 {
		t.Fatal("no notebooks")
	}
	for _, p := range paths {
		nb := readNotebook(t, p)
		if nb.Metadata.Kernelspec.Name != "sgp" {
			t.Errorf("%s: kernel %q, want sgp", p, nb.Metadata.Kernelspec.Name)
		}
		outputs, images := 0, 0
		for _, c := range nb.Cells {
			for _, o := range c.Outputs {
				outputs++
				if o.OutputType == "error" {
					t.Errorf("%s: committed with an error output: %s: %s", p, o.Ename, o.Evalue)
				}
				if _, ok := o.Data["image/png"]; ok {
					images++
				}
			}
		}
		if outputs == 0 || images == 0 {
			t.Errorf("%s: committed without outputs (%d outputs, %d images); execute it in place", p, outputs, images)
		}
	}
}

// TestExecute runs every notebook through nbconvert with the kernel built
// from this tree, installed in a temporary JUPYTER_PATH.
func TestExecute(t *testing.T) {
	if testing.Short() {
		t.Skip("executing the notebooks takes about a minute; skipped with -short")
	}
	if _, err := os.Stat(jupyter); err != nil {
		t.Skipf("%s not found: install Debian's jupyter-nbconvert and python3-nbclient to execute the notebooks", jupyter)
	}
	if out, err := exec.Command(jupyter, "nbconvert", "--version").CombinedOutput(); err != nil {
		t.Skipf("%s nbconvert does not run (%v): %s", jupyter, err, bytes.TrimSpace(out))
	}

	// Inputs the cache cannot see otherwise: the command's main file, the
	// data files beside the notebooks and the data folder they read.
	if _, err := os.ReadFile(filepath.Join("..", "cmd", "sgprepl", "main.go")); err != nil {
		t.Fatal(err)
	}
	local, _ := filepath.Glob(filepath.Join("data", "*"))
	for _, p := range local {
		if _, err := os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("SGP_DATA=%q", os.Getenv("SGP_DATA"))

	dir := t.TempDir()
	bin := filepath.Join(dir, "sgprepl")
	build := exec.Command("go", "build", "-o", bin, "github.com/cholqr/sgp/cmd/sgprepl")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	prefix := filepath.Join(dir, "prefix")
	if out, err := exec.Command(bin, "install-kernel", "--prefix", prefix).CombinedOutput(); err != nil {
		t.Fatalf("install-kernel: %v\n%s", err, out)
	}
	env := append(os.Environ(),
		"JUPYTER_PATH="+filepath.Join(prefix, "share", "jupyter"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(dir, "runtime"),
		"JUPYTER_CONFIG_DIR="+filepath.Join(dir, "config"),
	)

	paths, _ := filepath.Glob("*.ipynb")
	for _, p := range paths {
		t.Run(strings.TrimSuffix(p, ".ipynb"), func(t *testing.T) {
			readNotebook(t, p) // also puts the notebook in go test's cache key
			outDir := filepath.Join(dir, "out")
			cmd := exec.Command(jupyter, "nbconvert", "--to", "notebook", "--execute",
				"--ExecutePreprocessor.kernel_name=sgp",
				"--ExecutePreprocessor.timeout=600",
				"--output-dir", outDir, p)
			cmd.Env = env
			start := time.Now()
			out, err := cmd.CombinedOutput()
			elapsed := time.Since(start)
			if err != nil {
				t.Fatalf("nbconvert --execute %s failed after %v: %v\n%s", p, elapsed.Round(time.Millisecond), err, tail(out, 60))
			}
			t.Logf("%s executed in %v", p, elapsed.Round(time.Millisecond))
			if elapsed > maxNotebookTime {
				t.Errorf("%s took %v, more than %v", p, elapsed.Round(time.Second), maxNotebookTime)
			}
			nb := readNotebook(t, filepath.Join(outDir, p))
			images := 0
			for _, c := range nb.Cells {
				for _, o := range c.Outputs {
					if o.OutputType == "error" {
						t.Errorf("error output: %s: %s", o.Ename, o.Evalue)
					}
					if _, ok := o.Data["image/png"]; ok {
						images++
					}
				}
			}
			if images == 0 {
				t.Errorf("%s produced no image", p)
			}
		})
	}
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestMcycleData checks the motorcycle-crash file that notebook 06 reads
// against what data/SOURCE.md records: 133 rows of times,accel, with the
// replicates the notebook's noise variances come from.
func TestMcycleData(t *testing.T) {
	ds, err := data.ReadCSVFile(filepath.Join("data", "mcycle.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 133 {
		t.Errorf("%d rows, want 133", ds.Len())
	}
	if names := ds.X.Names(); len(names) != 1 || names[0] != "times" || ds.TargetName != "accel" {
		t.Errorf("columns %v, %q; want [times], accel", names, ds.TargetName)
	}
	count := map[float64]int{}
	for i := 0; i < ds.Len(); i++ {
		count[ds.X.At(i, 0)]++
	}
	if count[14.6] != 6 || count[15.4] != 4 {
		t.Errorf("14.6 ms measured %d times and 15.4 ms %d, want 6 and 4", count[14.6], count[15.4])
	}
	// The cells parse to the same float64 as these literals.
	first, last := 0, ds.Len()-1
	if ds.X.At(first, 0) != 2.4 || ds.Y[first] != 0 || ds.X.At(last, 0) != 57.6 || ds.Y[last] != 10.7 {
		t.Errorf("first row (%g, %g), last (%g, %g); want (2.4, 0), (57.6, 10.7)",
			ds.X.At(first, 0), ds.Y[first], ds.X.At(last, 0), ds.Y[last])
	}
}
