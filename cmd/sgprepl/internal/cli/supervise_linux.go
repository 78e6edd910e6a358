package cli

import (
	"runtime"
	"syscall"
)

// dieWithParent makes the child killed when this process dies, so that a
// supervising process killed outright leaves no session running. Linux
// sends the signal when the thread that started the child exits, so the
// calling goroutine keeps its thread.
func dieWithParent(attr *syscall.SysProcAttr) {
	runtime.LockOSThread()
	attr.Pdeathsig = syscall.SIGKILL
}
