package repl

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// The subcommands kernel and install-kernel.

// kernelFlags defines the flags of `sgprepl kernel CONNECTION_FILE`.
func kernelFlags(fs *flag.FlagSet) func(ctx context.Context, e *env) error {
	formats := fs.String("formats", "png,html", "renderings of values with PNG, SVG or HTML methods (any of png, svg, html)")
	capture := fs.Bool("capture", true, "send what compiled code writes to the process's standard output and error to the notebook")
	return func(ctx context.Context, e *env) error {
		if fs.NArg() != 1 {
			return usageErrorf("kernel needs one argument, the connection file that Jupyter passes as {connection_file}")
		}
		conn, err := readConnectionFile(fs.Arg(0))
		if err != nil {
			return err
		}
		var fmts []string
		for _, f := range strings.Split(*formats, ",") {
			switch f = strings.TrimSpace(strings.ToLower(f)); f {
			case "png", "svg", "html":
				fmts = append(fmts, f)
			case "":
			default:
				return usageErrorf("kernel: --formats: unknown format %q (png, svg, html)", f)
			}
		}
		if fmts == nil {
			fmts = []string{}
		}
		ppid, _ := strconv.Atoi(os.Getenv("JPY_PARENT_PID"))
		k, err := newKernel(conn, kernelOptions{
			Formats:    fmts,
			CaptureFDs: *capture,
			Log:        e.stderr,
			ParentPID:  ppid,
		})
		if err != nil {
			return err
		}
		// SIGINT (a front end in signal interrupt mode, or Ctrl-C in the
		// terminal that started it) interrupts the running cell; it does
		// not stop the kernel, whose life ends with a shutdown request.
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
}

// kernelSpec is a Jupyter kernel spec (kernel.json).
type kernelSpec struct {
	Argv          []string       `json:"argv"`
	DisplayName   string         `json:"display_name"`
	Language      string         `json:"language"`
	InterruptMode string         `json:"interrupt_mode"`
	Metadata      map[string]any `json:"metadata"`
}

// installKernelFlags defines the flags of `sgprepl install-kernel`.
func installKernelFlags(fs *flag.FlagSet) func(ctx context.Context, e *env) error {
	user := fs.Bool("user", false, "install for the current user (Jupyter's user data directory)")
	prefix := fs.String("prefix", "", "install under `DIR`/share/jupyter/kernels (add DIR/share/jupyter to JUPYTER_PATH)")
	name := fs.String("name", "sgp", "kernel name, the spec's directory name")
	displayName := fs.String("display-name", "Go (sgp)", "name shown by Jupyter")
	return func(ctx context.Context, e *env) error {
		if *user && *prefix != "" {
			return usageErrorf("install-kernel: give --user or --prefix, not both")
		}
		if !validKernelName(*name) {
			return usageErrorf("install-kernel: --name %q: want letters, digits, '.', '_' or '-', not starting with '.' (Jupyter's kernel names)", *name)
		}
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		if p, err := filepath.EvalSymlinks(exe); err == nil {
			exe = p
		}
		if strings.Contains(exe, string(filepath.Separator)+"go-build") {
			fmt.Fprintf(e.stderr, "sgprepl: warning: %s is a temporary binary of go run; install from a built binary (go build ./cmd/sgprepl)\n", exe)
		}
		dir, err := kernelsDir(*user, *prefix)
		if err != nil {
			return err
		}
		dir = filepath.Join(dir, *name)
		spec := kernelSpec{
			Argv:          []string{exe, "kernel", "{connection_file}"},
			DisplayName:   *displayName,
			Language:      "go",
			InterruptMode: "message",
			Metadata:      map[string]any{},
		}
		b, err := json.MarshalIndent(spec, "", "  ")
		if err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "kernel.json"), append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "installed kernel spec %s in %s\n", *name, dir)
		return nil
	}
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

// validKernelName reports whether name is a Jupyter kernel name that stays
// inside the kernels folder: ASCII letters, digits, '.', '_' and '-', not
// empty, not starting with '.', at most 64 characters ("..", "a/b" are not).
func validKernelName(name string) bool {
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
