package jupyter

import (
	"encoding/json"
	"io"
	"sync"
)

// kernelStdin is the session's standard input: a read asks the front end
// for a line with an input_request on the stdin channel, if the running
// execute request allows it; otherwise input is at its end.
type kernelStdin struct {
	k   *kernel
	mu  sync.Mutex
	buf []byte
}

func (in *kernelStdin) Read(p []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.buf) == 0 {
		line, err := in.k.requestInput("")
		if err != nil {
			return 0, err
		}
		in.buf = []byte(line + "\n")
	}
	n := copy(p, in.buf)
	in.buf = in.buf[n:]
	return n, nil
}

// requestInput asks the front end of the running execute request for a
// line of input and waits for it.
func (k *kernel) requestInput(prompt string) (string, error) {
	k.mu.Lock()
	req, ctx := k.inputReq, k.cellCtx
	k.mu.Unlock()
	if req == nil || ctx == nil {
		return "", io.EOF
	}
	for { // drop replies to earlier requests
		select {
		case <-k.inputReplies:
			continue
		default:
		}
		break
	}
	k.out.sync()
	m := k.newMessage("input_request", req, map[string]any{"prompt": prompt, "password": false})
	m.Identities = req.Identities
	k.send(k.stdin, m)
	select {
	case r := <-k.inputReplies:
		var c struct {
			Value string `json:"value"`
		}
		if err := json.Unmarshal(r.Content, &c); err != nil {
			return "", err
		}
		return c.Value, nil
	case <-ctx.Done():
		return "", ctx.Err()
	case <-k.done:
		return "", io.EOF
	}
}
