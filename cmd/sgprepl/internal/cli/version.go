package cli

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/cholqr/sgp/sgp"
)

// version returns the module version of the binary, or its VCS revision
// for a build from a checkout ("devel" when neither is known).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return "devel " + rev
}

// blasName describes the BLAS in use; an unusable SGP_BLAS is an error.
func blasName() (string, error) {
	name, err := sgp.BLAS()
	if err != nil {
		return "", fmt.Errorf("BLAS: %w", err)
	}
	return name, nil
}

// versionFlags runs `sgprepl version`.
func versionFlags(fs *flag.FlagSet) func(context.Context, *env) error {
	return func(_ context.Context, e *env) error {
		fmt.Fprintf(e.stdout, "sgprepl %s\n%s %s/%s\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
		name, err := blasName()
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "BLAS: %s\n", name)
		return nil
	}
}
