//go:build !linux && !darwin

package repl

// physicalMemory returns the machine's memory in bytes, or 0 if it is
// not known: make's sizes are then not checked (guard.go).
func physicalMemory() uint64 { return 0 }
