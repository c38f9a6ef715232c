package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/arcport/arcport/lib/store/s3test"
)

// TestProfile: credentials from AWS_SHARED_CREDENTIALS_FILE and the
// endpoint from the AWS_CONFIG_FILE profile named by AWS_PROFILE, with no
// AWS_* key variables and no region set (us-east-1, which versitygw
// checks in the signature).
func TestProfile(t *testing.T) {
	e := setup(t, Options{})
	e.put(t, "k", []byte("profile data"))
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials")
	conf := filepath.Join(dir, "config")
	os.WriteFile(creds, []byte(fmt.Sprintf("[default]\naws_access_key_id = nope\naws_secret_access_key = nope\n\n[arc]\naws_access_key_id = %s\naws_secret_access_key = %s\n", e.srv.Access, e.srv.Secret)), 0o600)
	os.WriteFile(conf, []byte(fmt.Sprintf("[profile arc]\nendpoint_url = %s\n", e.proxy.URL)), 0o600)
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_REGION": "",
		"AWS_ENDPOINT_URL_S3": "", "AWS_PROFILE": "arc", "AWS_SHARED_CREDENTIALS_FILE": creds, "AWS_CONFIG_FILE": conf} {
		t.Setenv(k, v)
	}
	os.Unsetenv("AWS_ACCESS_KEY_ID")
	os.Unsetenv("AWS_SECRET_ACCESS_KEY")
	os.Unsetenv("AWS_REGION")
	os.Unsetenv("AWS_DEFAULT_REGION")
	os.Unsetenv("AWS_ENDPOINT_URL_S3")
	os.Unsetenv("AWS_ENDPOINT_URL")
	e.proxy.Reset()
	if got := readAll(t, New(Options{}), "s3://bkt/k"); string(got) != "profile data" {
		t.Fatalf("read %q", got)
	}
	if e.proxy.Stats().Requests != 1 {
		t.Errorf("%+v", e.proxy.Stats())
	}
	// The default profile's wrong keys are refused.
	t.Setenv("AWS_PROFILE", "default")
	if _, err := New(Options{Endpoint: e.proxy.URL}).Open(context.Background(), "s3://bkt/k"); !errors.Is(err, ErrAccessDenied) {
		t.Errorf("default profile: %v", err)
	}
}

// TestEndpointURL: AWS_ENDPOINT_URL (for every service) when
// AWS_ENDPOINT_URL_S3 is not set; AWS_ENDPOINT_URL_S3 wins over it.
func TestEndpointURL(t *testing.T) {
	e := setup(t, Options{})
	e.put(t, "k", []byte("x"))
	os.Unsetenv("AWS_ENDPOINT_URL_S3")
	t.Setenv("AWS_ENDPOINT_URL", e.proxy.URL)
	e.proxy.Reset()
	if got := readAll(t, New(Options{}), "s3://bkt/k"); string(got) != "x" || e.proxy.Stats().Requests != 1 {
		t.Fatalf("AWS_ENDPOINT_URL: %q %+v", got, e.proxy.Stats())
	}
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
	t.Setenv("AWS_ENDPOINT_URL_S3", e.proxy.URL)
	e.proxy.Reset()
	if got := readAll(t, New(Options{}), "s3://bkt/k"); string(got) != "x" || e.proxy.Stats().Requests != 1 {
		t.Fatalf("AWS_ENDPOINT_URL_S3: %q %+v", got, e.proxy.Stats())
	}
}

// TestNoSignRequest: a public-read bucket read with no credentials at all,
// as aws --no-sign-request does; without the policy the same read is
// ErrAccessDenied.
func TestNoSignRequest(t *testing.T) {
	e := setup(t, Options{})
	data := []byte("public data")
	e.put(t, "pub", data)
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	anon := New(Options{NoSignRequest: true})
	if _, err := anon.Open(context.Background(), "s3://bkt/pub"); !errors.Is(err, ErrAccessDenied) {
		t.Fatalf("anonymous read of a private bucket: %v", err)
	}
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::bkt","arn:aws:s3:::bkt/*"]}]}`
	signed := New(Options{})
	t.Setenv("AWS_ACCESS_KEY_ID", e.srv.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", e.srv.Secret)
	c, err := signed.s3client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.api.PutBucketPolicy(context.Background(), &s3.PutBucketPolicyInput{Bucket: aws.String("bkt"), Policy: aws.String(policy)}); err != nil {
		t.Fatal(err)
	}
	os.Unsetenv("AWS_ACCESS_KEY_ID")
	os.Unsetenv("AWS_SECRET_ACCESS_KEY")
	anon = New(Options{NoSignRequest: true})
	if got := readAll(t, anon, "s3://bkt/pub"); !bytes.Equal(got, data) {
		t.Fatalf("anonymous read: %q", got)
	}
	if l, err := anon.List(context.Background(), "s3://bkt/"); err != nil || len(l) != 1 {
		t.Errorf("anonymous list: %v %v", l, err)
	}
}

// TestS3TLS: an https:// endpoint with a private CA, trusted through
// AWS_CA_BUNDLE (read by the SDK) or Options.RootCAs; without either the
// first request fails, once, with a one-line certificate error.
func TestS3TLS(t *testing.T) {
	srv := s3test.StartTLS(t)
	srv.Bucket(t, "bkt")
	srv.Setenv(t, srv.URL)
	t.Setenv("AWS_CA_BUNDLE", srv.CAFile)
	st := New(Options{})
	write(t, st, "s3://bkt/k", []byte("over tls"))
	if got := readAll(t, st, "s3://bkt/k"); string(got) != "over tls" {
		t.Fatalf("AWS_CA_BUNDLE: %q", got)
	}
	os.Unsetenv("AWS_CA_BUNDLE")
	if got := readAll(t, New(Options{RootCAs: srv.CertPool}), "s3://bkt/k"); string(got) != "over tls" {
		t.Fatalf("RootCAs: %q", got)
	}
	st = New(Options{RetryBase: time.Millisecond})
	_, err := st.Open(context.Background(), "s3://bkt/k")
	t.Logf("untrusted: %v", err)
	if err == nil || !strings.Contains(err.Error(), "certificate") || strings.Contains(err.Error(), "\n") || st.Stats().Requests != 1 {
		t.Errorf("untrusted endpoint: %v after %v", err, st.Stats())
	}
}

// TestNoCredentials: no credentials anywhere, or a profile that does not
// exist: a one-line error naming the URL, at once (no request sent).
func TestNoCredentials(t *testing.T) {
	e := setup(t, Options{})
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	e.proxy.Reset()
	_, err := New(Options{}).Open(context.Background(), "s3://bkt/k")
	t.Logf("no credentials: %v", err)
	if err == nil || !errors.Is(err, ErrAccessDenied) || !strings.HasPrefix(err.Error(), "s3://bkt/k: open: ") || strings.Contains(err.Error(), "\n") || e.proxy.Stats().Requests != 0 {
		t.Errorf("no credentials: %v after %d requests", err, e.proxy.Stats().Requests)
	}
	t.Setenv("AWS_PROFILE", "nosuchprofile")
	_, err = New(Options{}).Open(context.Background(), "s3://bkt/k")
	t.Logf("missing profile: %v", err)
	if err == nil || !strings.HasPrefix(err.Error(), "s3://bkt/k: open: ") || !strings.Contains(err.Error(), "nosuchprofile") || e.proxy.Stats().Requests != 0 {
		t.Errorf("missing profile: %v", err)
	}
}
