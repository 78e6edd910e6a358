package jupyter

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// The Jupyter messaging protocol, version 5.3, on the wire
// (https://jupyter-client.readthedocs.io/en/stable/messaging.html): the
// connection file, the multipart message format and its HMAC signature.

// protocolVersion is the version of the messaging protocol the kernel
// speaks.
const protocolVersion = "5.3"

// connectionInfo is a Jupyter connection file: where the five sockets
// listen and the key that signs the messages.
type connectionInfo struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	StdinPort       int    `json:"stdin_port"`
	IOPubPort       int    `json:"iopub_port"`
	HBPort          int    `json:"hb_port"`
	SignatureScheme string `json:"signature_scheme"`
	Key             string `json:"key"`
}

// readConnectionFile reads and checks a connection file.
func readConnectionFile(path string) (*connectionInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c connectionInfo
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("connection file %s: %w", path, err)
	}
	if c.Transport == "" {
		c.Transport = "tcp"
	}
	if c.IP == "" {
		c.IP = "127.0.0.1"
	}
	if c.Transport != "tcp" && c.Transport != "ipc" {
		return nil, fmt.Errorf("connection file %s: transport %q: only tcp and ipc are supported", path, c.Transport)
	}
	if c.Key != "" && c.SignatureScheme != "hmac-sha256" {
		return nil, fmt.Errorf("connection file %s: signature scheme %q: only hmac-sha256 is supported", path, c.SignatureScheme)
	}
	return &c, nil
}

// endpoint returns the ZeroMQ address of a port: tcp://IP:PORT, or for
// the ipc transport the socket file IP-PORT, as Jupyter names it.
func (c *connectionInfo) endpoint(port int) string {
	if c.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", c.IP, port)
	}
	return fmt.Sprintf("tcp://%s:%d", c.IP, port)
}

// header is a message header.
type header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// message is a Jupyter message. The parent header and the metadata are
// kept as raw JSON, so that a reply carries the request's header exactly
// as it came, with fields this kernel does not know.
type message struct {
	// Identities are the routing frames before the delimiter: a reply on
	// a ROUTER socket goes back to them.
	Identities [][]byte
	Header     header
	rawHeader  json.RawMessage // the header as received (for parents)
	Parent     json.RawMessage
	Metadata   json.RawMessage
	Content    json.RawMessage
	Buffers    [][]byte
	received   time.Time // when the kernel received it
}

// delimiter separates the routing identities from the message.
var delimiter = []byte("<IDS|MSG>")

// errSignature is returned for a message whose signature does not match.
var errSignature = errors.New("invalid message signature")

// errReplay is returned for a message whose signature was seen before.
var errReplay = errors.New("replayed message: its signature was already used")

// signer signs and verifies messages with HMAC-SHA256; with an empty key
// messages are neither signed nor checked, as the protocol specifies. With
// a history, a signature seen before is refused, as ipykernel does: a
// captured execute_request cannot be sent again to run again.
type signer struct {
	key     []byte
	history *digestHistory
}

// digestHistory remembers the last size signatures received.
type digestHistory struct {
	mu    sync.Mutex
	seen  map[string]bool
	order []string // ring of the remembered signatures
	next  int
}

func newDigestHistory(size int) *digestHistory {
	return &digestHistory{seen: make(map[string]bool, size), order: make([]string, size)}
}

// add records sig and reports whether it is new.
func (h *digestHistory) add(sig []byte) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	key := string(sig)
	if h.seen[key] {
		return false
	}
	if old := h.order[h.next]; old != "" {
		delete(h.seen, old)
	}
	h.order[h.next] = key
	h.next = (h.next + 1) % len(h.order)
	h.seen[key] = true
	return true
}

// sign returns the hex signature of the four message parts.
func (s signer) sign(parts ...[]byte) []byte {
	if len(s.key) == 0 {
		return []byte{}
	}
	mac := hmac.New(sha256.New, s.key)
	for _, p := range parts {
		mac.Write(p)
	}
	sum := mac.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// decode parses the frames of a multipart message and verifies its
// signature.
func (s signer) decode(frames [][]byte) (*message, error) {
	i := 0
	for i < len(frames) && !bytes.Equal(frames[i], delimiter) {
		i++
	}
	if i == len(frames) {
		return nil, errors.New("message without the <IDS|MSG> delimiter")
	}
	if len(frames) < i+6 {
		return nil, fmt.Errorf("message with %d frames after the delimiter, want at least 5", len(frames)-i-1)
	}
	m := &message{Identities: frames[:i]}
	sig, h, p, md, c := frames[i+1], frames[i+2], frames[i+3], frames[i+4], frames[i+5]
	if len(s.key) > 0 && !hmac.Equal(bytes.ToLower(sig), s.sign(h, p, md, c)) {
		return nil, errSignature
	}
	if len(s.key) > 0 && s.history != nil && !s.history.add(bytes.ToLower(sig)) {
		return nil, errReplay
	}
	if err := json.Unmarshal(h, &m.Header); err != nil {
		return nil, fmt.Errorf("message header: %w", err)
	}
	m.rawHeader = append(json.RawMessage(nil), h...)
	m.Parent = append(json.RawMessage(nil), p...)
	m.Metadata = append(json.RawMessage(nil), md...)
	m.Content = append(json.RawMessage(nil), c...)
	for _, b := range frames[i+6:] {
		m.Buffers = append(m.Buffers, append([]byte(nil), b...))
	}
	return m, nil
}

// encode returns the frames of m, signed.
func (s signer) encode(m *message) ([][]byte, error) {
	h, err := json.Marshal(m.Header)
	if err != nil {
		return nil, err
	}
	p, md, c := []byte(m.Parent), []byte(m.Metadata), []byte(m.Content)
	if len(p) == 0 {
		p = []byte("{}")
	}
	if len(md) == 0 {
		md = []byte("{}")
	}
	if len(c) == 0 {
		c = []byte("{}")
	}
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, delimiter, s.sign(h, p, md, c), h, p, md, c)
	frames = append(frames, m.Buffers...)
	return frames, nil
}

// newID returns a random UUID (version 4) for message and session ids.
func newID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// isoNow is the current time in the ISO 8601 form of message dates.
func isoNow() string {
	return time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
}
