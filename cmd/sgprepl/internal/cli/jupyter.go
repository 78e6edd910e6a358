package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cholqr/sgp/repl/jupyter"
)

// The subcommands kernel and install-kernel.

// kernelFlags defines the flags of `sgprepl kernel CONNECTION_FILE`.
func kernelFlags(fs *flag.FlagSet) func(ctx context.Context, e *env) error {
	formats := fs.String("formats", "png,html", "renderings of values with PNG, SVG or HTML methods (any of png, svg, html)")
	capture := fs.Bool("capture", true, "send what compiled code writes to the process's standard output and error to the notebook")
	verbose := fs.Bool("verbose", false, "log the kernel's sockets and dropped messages to stderr")
	return func(ctx context.Context, e *env) error {
		if fs.NArg() != 1 {
			return usageErrorf("kernel needs one argument, the connection file that Jupyter passes as {connection_file}")
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
		o := jupyter.ServeOptions{Formats: fmts, CaptureFDs: *capture}
		if *verbose {
			o.Log = e.stderr
		}
		return jupyter.Serve(ctx, fs.Arg(0), o)
	}
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
		if !jupyter.ValidName(*name) {
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
		dir, err := jupyter.Install(exe, jupyter.InstallOptions{User: *user, Prefix: *prefix, Name: *name, DisplayName: *displayName})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "installed kernel spec %s in %s\n", *name, dir)
		return nil
	}
}
