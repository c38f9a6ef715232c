// Package redistest starts a real redis-server (Debian's, as `make peers`
// installs it) on a free loopback port for a test, and stops it when the
// test ends. It follows no file format spec; the server speaks RESP as
// described at https://redis.io/docs/reference/protocol-spec/.
//
// A test that needs Redis calls Start; when redis-server is not installed
// the test is skipped with "missing peer redis-server: ..." (and fails under
// CI=true, where every peer must be there), as peertest.Missing does for
// every other peer.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// Server is one redis-server process run for a test.
type Server struct {
	// Addr is HOST:PORT of the server (127.0.0.1 and a port that was free).
	Addr string

	t    testing.TB
	bin  string
	args []string
	dir  string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Options changes how the server is run.
type Options struct {
	// Persist runs the server with an append-only file fsynced on every
	// write (--appendonly yes --appendfsync always) in a directory of the
	// test's, so that its data survives Restart. By default the server
	// keeps nothing on disk (--save "" --appendonly no): a restart empties
	// it.
	Persist bool
}

// Start runs redis-server on a free loopback port and returns once it
// answers PING; it is killed when t ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	bin := peertest.Need(t, "redis-server", "redis-server")
	port, err := freePort()
	if err != nil {
		t.Fatalf("redistest: no free port: %v", err)
	}
	s := &Server{
		Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		t:    t,
		bin:  bin,
		dir:  t.TempDir(),
	}
	s.args = []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--dir", s.dir, "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning"}
	if o.Persist {
		s.args = append(s.args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		s.args = append(s.args, "--appendonly", "no")
	}
	if err := s.start(); err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(s.Kill)
	return s
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command(s.bin, s.args...)
	log, err := os.Create(s.dir + "/redis.log")
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start redis-server: %w", err)
	}
	log.Close()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := ping(s.Addr); err == nil {
			s.cmd = cmd
			return nil
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(s.dir + "/redis.log")
			return fmt.Errorf("redis-server on %s exited at start: %s", s.Addr, strings.TrimSpace(string(b)))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			return fmt.Errorf("redis-server on %s does not answer PING after 10 s", s.Addr)
		}
	}
}

// ping sends PING and waits for +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Kill stops the server with SIGKILL (no shutdown save) and waits until
// its port is closed. It does nothing when the server is not running.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	for i := 0; i < 500 && ping(s.Addr) == nil; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	s.cmd = nil
}

// StartAgain starts a killed server again on the same port and waits for
// PING; the test fails when it cannot.
func (s *Server) StartAgain() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("redistest: restart: %v", err)
	}
}

// Restart kills the server and starts it again on the same port. Without
// Options.Persist the restarted server is empty.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	s.StartAgain()
}
