package syserr

import (
	"errors"
	"fmt"
	"io"
	"net"
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
