package syserr

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// TestRealErrors: the errors of a real refused connection and of a real
// reset one (the peer closed with unread data) are recognised.
func TestRealErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := l.Accept()
		if err != nil {
			return
		}
		c.(*net.TCPConn).SetLinger(0) // close sends RST
		c.Close()
	}()
	c, rerr := net.Dial("tcp", addr) // the reset may come as early as this
	<-done
	if rerr == nil {
		time.Sleep(50 * time.Millisecond)
		for i := 0; i < 20 && rerr == nil; i++ {
			_, rerr = c.Write([]byte("x"))
			if rerr == nil {
				_, rerr = c.Read(make([]byte, 1))
			}
		}
		c.Close()
	}
	if !ConnReset(rerr) && !BrokenPipe(rerr) {
		t.Errorf("after an RST: %v, want a reset or broken pipe", rerr)
	}
	l.Close()
	_, err = net.DialTimeout("tcp", addr, 2*time.Second)
	if !ConnRefused(err) {
		t.Errorf("dial of a closed port: %v, want refused", err)
	}
	for _, e := range []error{nil, io.EOF, errors.New("x"), fmt.Errorf("w: %w", io.ErrUnexpectedEOF)} {
		if ConnReset(e) || ConnRefused(e) || BrokenPipe(e) {
			t.Errorf("%v counted as a network error", e)
		}
	}
}

// TestStorageFull: a real write to a full device (/dev/full) is a full
// disk, not an I/O error; a plain error is neither.
func TestStorageFull(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full on this system: %v", err)
	}
	defer f.Close()
	_, werr := f.Write([]byte("x"))
	if werr == nil {
		t.Fatal("write to /dev/full succeeded")
	}
	if !StorageFull(fmt.Errorf("output: %w", werr)) || IO(werr) {
		t.Errorf("write to /dev/full: %v: StorageFull %v, IO %v", werr, StorageFull(werr), IO(werr))
	}
	if StorageFull(errors.New("no space")) || IO(io.ErrUnexpectedEOF) {
		t.Error("plain errors taken for system ones")
	}
}
