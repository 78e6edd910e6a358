package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// TestKernelVerbose: `sgprepl kernel` writes its "kernel: listening on …"
// line (repl/jupyter/kernel.go) and other diagnostics to stderr only with
// --verbose (jupyter.go's kernelFlags); without it stderr stays empty,
// which Jupyter shows to the user. The kernel runs in this process on ipc
// sockets with unsigned messages (an empty key) and is stopped by a
// shutdown_request, so that Main has returned — and the line been
// written, if at all — when stderr is read.
func TestKernelVerbose(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		t.Run(fmt.Sprint("verbose=", verbose), func(t *testing.T) {
			dir, err := os.MkdirTemp("", "sgpv") // short: ipc paths are socket paths
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			ip := filepath.Join(dir, "k")
			conn := map[string]any{"transport": "ipc", "ip": ip, "shell_port": 1, "control_port": 2, "stdin_port": 3,
				"iopub_port": 4, "hb_port": 5, "signature_scheme": "hmac-sha256", "key": ""}
			b, _ := json.Marshal(conn)
			path := writeFile(t, dir, "conn.json", string(b))
			args := []string{"kernel", "--capture=false"}
			if verbose {
				args = append(args, "--verbose")
			}
			args = append(args, path)
			var stdout, stderr lockedBuffer
			done := make(chan int, 1)
			go func() { done <- Main(context.Background(), args, strings.NewReader(""), &stdout, &stderr) }()

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			control := zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity("test-client")), zmq4.WithDialerRetry(50*time.Millisecond), zmq4.WithDialerMaxRetries(600))
			defer control.Close()
			if err := control.Dial(fmt.Sprintf("ipc://%s-2", ip)); err != nil {
				t.Fatal(err)
			}
			hdr, _ := json.Marshal(map[string]string{"msg_id": "m1", "session": "s1", "username": "test",
				"date": time.Now().UTC().Format(time.RFC3339Nano), "msg_type": "shutdown_request", "version": "5.3"})
			frames := [][]byte{[]byte("<IDS|MSG>"), {}, hdr, []byte("{}"), []byte("{}"), []byte(`{"restart":false}`)}
			if err := control.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
				t.Fatal(err)
			}
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr.String())
				}
			case <-time.After(30 * time.Second): // a hang, not a latency bound
				t.Fatalf("the kernel did not stop after a shutdown_request; stderr:\n%s", stderr.String())
			}
			got := stderr.String()
			if verbose != strings.Contains(got, "kernel: listening on "+ip) {
				t.Errorf("--verbose=%v: stderr %q", verbose, got)
			}
			if !verbose && got != "" {
				t.Errorf("stderr without --verbose: %q", got)
			}
			if stdout.String() != "" {
				t.Errorf("stdout %q", stdout.String())
			}
		})
	}
}
