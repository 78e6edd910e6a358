package jupyter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/cholqr/sgp/sgp/outfile"
)

// ServeOptions configure Serve.
type ServeOptions struct {
	// Formats lists the renderings of values with PNG, SVG or HTML
	// methods sent to the notebook: any of "png", "svg", "html".
	Formats []string
	// CaptureFDs sends what compiled code writes to the process's
	// standard output and error to the notebook.
	CaptureFDs bool
	// Log receives the kernel's own diagnostics (nil: discarded).
	Log io.Writer
}

// Serve runs a kernel on the sockets of a Jupyter connection file until a
// shutdown request (a restart request starts a fresh session and goes
// on). SIGINT interrupts the running cell, as an interrupt request does;
// it does not stop the kernel.
func Serve(ctx context.Context, connectionFile string, o ServeOptions) error {
	conn, err := readConnectionFile(connectionFile)
	if err != nil {
		return err
	}
	ppid, _ := strconv.Atoi(os.Getenv("JPY_PARENT_PID"))
	k, err := newKernel(conn, kernelOptions{Formats: o.Formats, CaptureFDs: o.CaptureFDs, Log: o.Log, ParentPID: ppid})
	if err != nil {
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	go func() {
		for range sig {
			k.interrupt()
		}
	}()
	_, err = k.run(context.WithoutCancel(ctx))
	return err
}

// InstallOptions say where Install writes a kernel spec.
type InstallOptions struct {
	// User installs in the user's Jupyter data directory, Prefix under
	// Prefix/share/jupyter/kernels; neither: the system-wide directory.
	User   bool
	Prefix string
	// Name is the kernel's name (its directory), DisplayName what Jupyter
	// shows.
	Name, DisplayName string
}

// Install writes the kernel spec (kernel.json) that starts `exe kernel
// {connection_file}` and returns its directory. The name must satisfy
// ValidName.
func Install(exe string, o InstallOptions) (string, error) {
	if !ValidName(o.Name) {
		return "", fmt.Errorf("kernel name %q: want letters, digits, '.', '_' or '-', not starting with '.'", o.Name)
	}
	dir, err := kernelsDir(o.User, o.Prefix)
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, o.Name)
	spec := kernelSpec{
		Argv:          []string{exe, "kernel", "{connection_file}"},
		DisplayName:   o.DisplayName,
		Language:      "go",
		InterruptMode: "message",
		Metadata:      map[string]any{},
	}
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	b = append(b, '\n')
	if err := outfile.Write(filepath.Join(dir, "kernel.json"), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}); err != nil {
		return "", err
	}
	return dir, nil
}

// kernelSpec is a Jupyter kernel spec (kernel.json).
type kernelSpec struct {
	Argv          []string       `json:"argv"`
	DisplayName   string         `json:"display_name"`
	Language      string         `json:"language"`
	InterruptMode string         `json:"interrupt_mode"`
	Metadata      map[string]any `json:"metadata"`
}

// kernelsDir returns the directory that holds kernel specs: under prefix,
// the user's Jupyter data directory, or the system-wide one.
func kernelsDir(user bool, prefix string) (string, error) {
	switch {
	case prefix != "":
		abs, err := filepath.Abs(prefix)
		if err != nil {
			return "", err
		}
		return filepath.Join(abs, "share", "jupyter", "kernels"), nil
	case user:
		if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
			return filepath.Join(d, "kernels"), nil
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		switch runtime.GOOS {
		case "darwin":
			return filepath.Join(home, "Library", "Jupyter", "kernels"), nil
		case "windows":
			if a := os.Getenv("APPDATA"); a != "" {
				return filepath.Join(a, "jupyter", "kernels"), nil
			}
		}
		if x := os.Getenv("XDG_DATA_HOME"); x != "" {
			return filepath.Join(x, "jupyter", "kernels"), nil
		}
		return filepath.Join(home, ".local", "share", "jupyter", "kernels"), nil
	default:
		if runtime.GOOS == "windows" {
			return filepath.Join(os.Getenv("PROGRAMDATA"), "jupyter", "kernels"), nil
		}
		return "/usr/local/share/jupyter/kernels", nil
	}
}

// ValidName reports whether name is a Jupyter kernel name that stays
// inside the kernels folder: ASCII letters, digits, '.', '_' and '-', not
// empty, not starting with '.', at most 64 characters ("..", "a/b" are not).
func ValidName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '.' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
