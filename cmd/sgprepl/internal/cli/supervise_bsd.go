//go:build unix && !linux

package cli

import "syscall"

// dieWithParent does nothing here: only Linux kills a child when its
// parent dies.
func dieWithParent(*syscall.SysProcAttr) {}
