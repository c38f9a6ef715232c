package s3test

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Region is the region the test server is given to clients (versitygw
// accepts any; this is the AWS default).
const Region = "us-east-1"

// FindVersitygw returns the path of the versitygw binary: $ARCPORT_VERSITYGW
// if set, else versitygw on PATH, else $(go env GOPATH)/bin/versitygw.
func FindVersitygw() (string, error) {
	if p := os.Getenv("ARCPORT_VERSITYGW"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("ARCPORT_VERSITYGW=%s: %w", p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			gopath = strings.TrimSpace(string(out))
		}
	}
	for _, d := range filepath.SplitList(gopath) {
		p := filepath.Join(d, "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("versitygw not installed (make peers: go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)")
}

// Server is a running versitygw S3 gateway on loopback with its posix
// backend in Dir. Its methods other than the fields are safe for use by
// several goroutines.
type Server struct {
	// URL is the endpoint, http://127.0.0.1:PORT.
	URL string
	// Addr is the host:port the server listens on.
	Addr string
	// Dir is the posix backend's root: each directory in it is a bucket.
	Dir string
	// Access and Secret are the root credentials the server accepts.
	Access, Secret string
	// CAFile and CertPool hold the test CA of a StartTLS server.
	CAFile   string
	CertPool *x509.CertPool

	bin           string
	log           string
	cert, certKey string // TLS files, or ""

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan error
	n      int // starts so far
}

// Start runs versitygw for t on a free loopback port with a fresh
// temporary directory and random root credentials, waits until it answers
// and stops it when t ends. Without the binary it skips t (fails it when
// CI=true).
func Start(t testing.TB) *Server {
	t.Helper()
	return start(t, false)
}

// StartTLS is Start serving https:// with a certificate for 127.0.0.1
// signed by a test CA made for t: the CA is in CAFile (PEM, for
// AWS_CA_BUNDLE) and CertPool.
func StartTLS(t testing.TB) *Server {
	t.Helper()
	return start(t, true)
}

func start(t testing.TB, withTLS bool) *Server {
	t.Helper()
	bin, err := FindVersitygw()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("missing peer versitygw: %v (CI=true: every peer must be installed)", err)
		}
		t.Skipf("missing peer versitygw: %v", err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatalf("s3test: free port: %v", err)
	}
	secret := make([]byte, 16)
	rand.Read(secret)
	tmp := t.TempDir()
	s := &Server{
		Addr:   fmt.Sprintf("127.0.0.1:%d", port),
		Dir:    filepath.Join(tmp, "root"),
		Access: "arcporttestkey",
		Secret: "arcport-secret-" + hex.EncodeToString(secret),
		bin:    bin,
		log:    filepath.Join(tmp, "versitygw.log"),
	}
	s.URL = "http://" + s.Addr
	if err := os.Mkdir(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if withTLS {
		if err := s.makeCerts(tmp); err != nil {
			t.Fatalf("s3test: certificates: %v", err)
		}
		s.URL = "https://" + s.Addr
	}
	t.Cleanup(func() { s.Kill() })
	if err := s.Run(); err != nil {
		t.Fatalf("s3test: %v", err)
	}
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

// Run starts the server (again, after Kill) on the same port and directory
// and waits until it answers HTTP requests.
func (s *Server) Run() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("s3test: server already running")
	}
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	args := []string{"--access", s.Access, "--secret", s.Secret, "--port", s.Addr}
	if s.cert != "" {
		args = append(args, "--cert", s.cert, "--key", s.certKey)
	}
	cmd := exec.Command(s.bin, append(args, "posix", s.Dir)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	s.n++
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	client := &http.Client{Timeout: time.Second}
	if s.CertPool != nil {
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CertPool}}
	}
	// A readiness wait, not a timed assertion: the gateway starts in well
	// under a second; 30s only bounds a broken start.
	for deadline := time.Now().Add(30 * time.Second); ; {
		select {
		case err := <-exited:
			return fmt.Errorf("versitygw exited at start (%v): %s", err, s.tail())
		default:
		}
		resp, err := client.Get(s.URL + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			return fmt.Errorf("versitygw did not answer on %s: %v: %s", s.Addr, err, s.tail())
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.cmd = cmd
	s.exited = exited
	return nil
}

// Kill stops the server with SIGKILL and waits for it to exit; open
// connections drop at once. It does nothing when the server is not running.
func (s *Server) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil
	}
	s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
	return nil
}

// Restart kills the server and starts it again on the same port and
// directory.
func (s *Server) Restart() error {
	if err := s.Kill(); err != nil {
		return err
	}
	return s.Run()
}

// Starts returns how many times the server was started.
func (s *Server) Starts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *Server) tail() string {
	b, _ := os.ReadFile(s.log)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(bytes.TrimSpace(b))
}

// Bucket creates the bucket name (a directory of the posix backend) and
// returns name.
func (s *Server) Bucket(t testing.TB, name string) string {
	t.Helper()
	if err := os.Mkdir(filepath.Join(s.Dir, name), 0o755); err != nil {
		t.Fatalf("s3test: bucket %s: %v", name, err)
	}
	return name
}

// Setenv sets, for t, the environment an AWS client reads so that it
// talks to endpoint (s.URL, or a Proxy's URL in front of s) with s's
// credentials, and points the shared config and credentials files at
// files that do not exist so that the host's ~/.aws is not read.
func (s *Server) Setenv(t testing.TB, endpoint string) {
	t.Helper()
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           s.Access,
		"AWS_SECRET_ACCESS_KEY":       s.Secret,
		"AWS_SESSION_TOKEN":           "",
		"AWS_REGION":                  Region,
		"AWS_DEFAULT_REGION":          "",
		"AWS_PROFILE":                 "",
		"AWS_ENDPOINT_URL":            "",
		"AWS_ENDPOINT_URL_S3":         endpoint,
		"AWS_CONFIG_FILE":             none,
		"AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		t.Setenv(k, v)
	}
}
