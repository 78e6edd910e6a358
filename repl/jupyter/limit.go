package jupyter

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"sync"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/transport"
)

// The ZeroMQ library reads each frame of a message whole into memory, at
// the size its header declares, before the kernel sees any of it and can
// check the message's signature: an unsigned 300 MB frame from anyone who
// can reach the port cost 300 MB. The kernel's sockets therefore listen
// through the transports below, which read the ZMTP 3 framing (the 64-byte
// greeting, then frames of a flags byte, a 1- or 8-byte size and the
// body; RFC 23/ZMTP) as the bytes pass, and close a connection, before
// anything is allocated for it, when a frame or a message (its frames
// together) would exceed maxMessageBytes, with a line in the kernel's log.

// maxMessageBytes bounds a message the kernel receives: far above any
// cell's code or a widget's state, far below the memory of the machine.
const maxMessageBytes = 64 << 20

// zmtpGreeting is the length of a ZMTP 3 greeting.
const zmtpGreeting = 64

// limitedScheme prefixes the names of the transports that bound message
// sizes: "sgp+tcp" and "sgp+ipc".
const limitedScheme = "sgp+"

var registerLimited sync.Once

// limitedEndpoint returns the endpoint on which the kernel listens on
// port: endpoint's, through the transport that bounds message sizes,
// which it registers with zmq4 on first use.
func (c *connectionInfo) limitedEndpoint(port int) string {
	registerLimited.Do(func() {
		for name, network := range map[string]string{"tcp": "tcp", "ipc": "unix"} {
			if err := zmq4.RegisterTransport(limitedScheme+name, limitedTransport{network}); err != nil {
				panic(err) // only a second registration of the name fails
			}
		}
	})
	return limitedScheme + c.endpoint(port)
}

// rejectKey is the context key of the function that limitedTransport's
// connections call when they close a connection for its message size (the
// kernel's log): the sockets' context carries it to Listen.
type rejectKey struct{}

// limitedTransport is a zmq4 transport on network whose listeners bound
// the size of the messages they receive (limitedConn).
type limitedTransport struct{ network string }

func (t limitedTransport) Dial(ctx context.Context, d transport.Dialer, addr string) (net.Conn, error) {
	return d.DialContext(ctx, t.network, addr)
}

func (t limitedTransport) Listen(ctx context.Context, addr string) (net.Listener, error) {
	l, err := net.Listen(t.network, addr)
	if err != nil {
		return nil, err
	}
	reject, _ := ctx.Value(rejectKey{}).(func(string))
	return limitedListener{l, reject}, nil
}

func (t limitedTransport) Addr(ep string) (string, error) { return transport.New(t.network).Addr(ep) }

// limitedListener wraps the connections it accepts in limitedConn.
type limitedListener struct {
	net.Listener
	reject func(string)
}

func (l limitedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &limitedConn{Conn: c, greeting: zmtpGreeting, reject: l.reject}, nil
}

// limitedConn passes the bytes of a ZMTP connection through, following its
// framing, and fails (closing the connection) as soon as a frame header
// declares a frame or completes a message larger than maxMessageBytes.
type limitedConn struct {
	net.Conn
	reject   func(string)
	greeting int     // bytes of the greeting still to come
	hdr      [9]byte // the frame header being read
	hdrN     int     // its bytes read
	body     uint64  // bytes of the current frame's body still to come
	msg      uint64  // bytes of the current message's frames so far
	err      error   // set once the connection is refused
}

func (c *limitedConn) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.Conn.Read(p)
	if e := c.scan(p[:n]); e != nil {
		c.err = e
		if c.reject != nil {
			c.reject(fmt.Sprintf("kernel: closing the connection from %v: %v", c.RemoteAddr(), e))
		}
		c.Conn.Close()
		return 0, e
	}
	return n, err
}

// scan follows the framing over b, the next bytes of the connection, and
// returns an error for a frame or message above maxMessageBytes.
func (c *limitedConn) scan(b []byte) error {
	for len(b) > 0 {
		switch {
		case c.greeting > 0:
			k := min(c.greeting, len(b))
			c.greeting -= k
			b = b[k:]
		case c.body > 0:
			k := min(c.body, uint64(len(b)))
			c.body -= k
			b = b[k:]
		default:
			c.hdr[c.hdrN] = b[0]
			c.hdrN++
			b = b[1:]
			flags := c.hdr[0]
			want := 2
			if flags&0x02 != 0 { // a long frame: an 8-byte size
				want = 9
			}
			if c.hdrN < want {
				continue
			}
			size := uint64(c.hdr[1])
			if want == 9 {
				size = binary.BigEndian.Uint64(c.hdr[1:9])
			}
			c.hdrN = 0
			if size > maxMessageBytes || c.msg+size > maxMessageBytes {
				return fmt.Errorf("a message of more than %d bytes (a frame of %d bytes after %d): the kernel receives messages of at most %d bytes", maxMessageBytes, size, c.msg, maxMessageBytes)
			}
			c.body = size
			c.msg += size
			if flags&0x01 == 0 { // the last frame of a message or a command
				c.msg = 0
			}
		}
	}
	return nil
}
