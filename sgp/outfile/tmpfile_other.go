//go:build !linux

package outfile

import (
	"errors"
	"os"
)

// errNoUnnamed says that a directory cannot hold unnamed temporary files:
// always, on this system.
var errNoUnnamed = errors.New("unnamed temporary files are not available")

// openUnnamed returns errNoUnnamed: unnamed temporary files (O_TMPFILE)
// are Linux's.
func openUnnamed(string) (*os.File, error) { return nil, errNoUnnamed }

// linkUnnamed is never called: openUnnamed makes no unnamed files here.
func linkUnnamed(*os.File, string) error { return errNoUnnamed }
