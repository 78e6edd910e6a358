package repl

import "golang.org/x/sys/unix"

// physicalMemory returns the machine's memory in bytes, or 0 if it is
// not known.
func physicalMemory() uint64 {
	var info unix.Sysinfo_t
	if unix.Sysinfo(&info) != nil {
		return 0
	}
	return uint64(info.Totalram) * uint64(info.Unit)
}
