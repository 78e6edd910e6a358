//go:build unix && !linux

package cli

import (
	"os"
	"testing"
)

// openPTY skips the test: the pseudo-terminal is opened the Linux way.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	t.Skip("the pseudo-terminal is opened the Linux way")
	return nil, nil
}
