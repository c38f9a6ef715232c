package redistest

import (
	"bufio"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"
)

// do sends one inline command and returns the first line of the answer.
func do(t *testing.T, addr, cmd string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	defer c.Close()
	c.Write([]byte(cmd + "\r\n"))
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "$") && line != "$-1" {
		line, _ = r.ReadString('\n')
		line = strings.TrimSpace(line)
	}
	return line
}

func TestStartRestart(t *testing.T) {
	for _, persist := range []bool{false, true} {
		s := Start(t, Options{Persist: persist})
		if !strings.HasPrefix(s.Addr, "127.0.0.1:") {
			t.Fatalf("addr %s", s.Addr)
		}
		if got := do(t, s.Addr, "SET k v"); got != "+OK" {
			t.Fatalf("SET: %s", got)
		}
		s.Kill()
		if _, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
			t.Fatal("server still answers after Kill")
		}
		s.StartAgain()
		want := "$-1" // nothing kept without persistence
		if persist {
			want = "v"
		}
		if got := do(t, s.Addr, "GET k"); got != want {
			t.Fatalf("persist=%v: GET after restart %q, want %q", persist, got, want)
		}
		s.Restart()
		if got := do(t, s.Addr, "PING"); got != "+PONG" {
			t.Fatalf("PING after Restart: %s", got)
		}
	}
}

// TestMissing: without redis-server on PATH, Start ends the test with the
// skip line "missing peer redis-server: ..." (a failure under CI=true,
// peertest's own tests cover that). The skip is caught here rather than
// taken, so that make test's summary does not count a missing peer.
func TestMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CI", "")
	tb := &catchTB{T: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(tb, Options{})
	}()
	<-done
	if !strings.HasPrefix(tb.msg, "missing peer redis-server: ") {
		t.Fatalf("Start without redis-server ended with %q", tb.msg)
	}
}

// catchTB records the message of Skipf or Fatalf and ends the goroutine
// that called it, without skipping or failing the test.
type catchTB struct {
	*testing.T
	msg string
}

func (c *catchTB) Skipf(format string, args ...any) {
	c.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (c *catchTB) Fatalf(format string, args ...any) {
	c.msg = "fatal: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}
