package repl

import "golang.org/x/sys/unix"

// physicalMemory returns the machine's memory in bytes, or 0 if it is
// not known.
func physicalMemory() uint64 {
	m, err := unix.SysctlUint64("hw.memsize")
	if err != nil {
		return 0
	}
	return m
}
