package jupyter

import (
	"bytes"
	"encoding/binary"
	"net"
	"strings"
	"testing"
	"time"
)

// zmtpDealer returns the bytes a ZMTP 3.0 DEALER sends before its first
// message: the greeting (NULL mechanism) and the READY command.
func zmtpDealer() []byte {
	var b bytes.Buffer
	b.Write([]byte{0xff, 0, 0, 0, 0, 0, 0, 0, 1, 0x7f, 3, 0})
	mech := make([]byte, 20)
	copy(mech, "NULL")
	b.Write(mech)
	b.WriteByte(0)            // as-server
	b.Write(make([]byte, 31)) // filler
	var ready bytes.Buffer
	ready.WriteByte(5)
	ready.WriteString("READY")
	ready.WriteByte(byte(len("Socket-Type")))
	ready.WriteString("Socket-Type")
	binary.Write(&ready, binary.BigEndian, uint32(len("DEALER")))
	ready.WriteString("DEALER")
	b.Write([]byte{0x04, byte(ready.Len())})
	b.Write(ready.Bytes())
	return b.Bytes()
}

// TestKernelRefusesHugeFrames: a peer that declares a frame of 100 MB on
// the shell socket (unsigned, as anyone who can reach the port can) has
// its connection closed as soon as the frame's header arrives, with a line
// in the kernel's log, rather than the kernel reading the whole frame
// into memory before it can check the signature; the kernel goes on
// answering signed requests.
func TestKernelRefusesHugeFrames(t *testing.T) {
	t.Parallel()
	conn := tcpConnection(t)
	k, _ := startKernel(t, conn)
	c := newClient(t, conn)
	c.waitReady()

	raw, err := net.Dial("tcp", strings.TrimPrefix(conn.endpoint(conn.ShellPort), "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Write(zmtpDealer()); err != nil {
		t.Fatal(err)
	}
	hdr := make([]byte, 9)
	hdr[0] = 0x02 // a long frame, the last of its message
	binary.BigEndian.PutUint64(hdr[1:], 100<<20)
	if _, err := raw.Write(hdr); err != nil {
		t.Fatal(err)
	}
	go raw.Write(make([]byte, 1<<20)) // the start of the body; the kernel may close before it is read
	raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 4096)
	for {
		if _, err := raw.Read(buf); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the kernel kept the connection of a 100 MB frame open for 10 s")
			}
			break // closed by the kernel
		}
	}
	log := k.log.(*syncWriter).String()
	if !strings.Contains(log, "closing the connection") || !strings.Contains(log, "at most 67108864 bytes") {
		t.Errorf("the kernel's log does not say why it closed the connection:\n%s", log)
	}
	if rep, _ := c.execute("1 + 1", nil); rep["status"] != "ok" {
		t.Errorf("the kernel does not answer after the refused frame: %v", rep)
	}
}
