//go:build !mpi

package comm

// World returns the communicator of every process of the job. Built
// without the tag mpi it is Single(): one rank, and MPI is not linked.
func World() (*Comm, error) { return Single(), nil }

// MPI reports whether the program was built with MPI (the tag mpi).
const MPI = false
