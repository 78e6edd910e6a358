package jupyter

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzWireDecode: the kernel's decoder of multipart messages never panics
// on what arrives on its sockets; with a key, only correctly signed
// messages pass, once; without a key, what it accepts encodes again.
func FuzzWireDecode(f *testing.F) {
	s := signer{key: []byte("k")}
	m := &message{Identities: [][]byte{[]byte("id")}, Header: header{MsgID: "1", MsgType: "execute_request"},
		Content: json.RawMessage(`{"code":"1+1"}`)}
	frames, err := s.encode(m)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.Join(frames, []byte{0xff}))
	f.Add([]byte("<IDS|MSG>\xff\xff{}\xff{}\xff{}\xff{}"))
	f.Add([]byte("<IDS|MSG>\xffsig\xff{\"msg_id\":1}\xff{}\xff{}\xff{}\xffbuffer"))
	f.Add([]byte("no delimiter"))
	f.Fuzz(func(t *testing.T, data []byte) {
		frames := bytes.Split(data, []byte{0xff})
		keyed := signer{key: []byte("k"), history: newDigestHistory(4)}
		if got, err := keyed.decode(frames); err == nil {
			if _, err := keyed.decode(frames); err != errReplay {
				t.Fatalf("a signed message decoded twice: %v", err)
			}
			if got == nil {
				t.Fatal("nil message without an error")
			}
		}
		got, err := (signer{}).decode(frames)
		if err != nil {
			return
		}
		if _, err := (signer{}).encode(got); err != nil {
			t.Fatalf("decoded, but cannot encode again: %v", err)
		}
	})
}
