package store

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/arcport/arcport/lib/internal/syserr"
)

// Kinds of failure, for errors.Is on the errors of this package.
var (
	// ErrNotFound: no such object, bucket, file or page (404).
	ErrNotFound = errors.New("not found")
	// ErrAccessDenied: credentials missing, wrong or not allowed (401/403).
	ErrAccessDenied = errors.New("access denied")
	// ErrChanged: the object changed between two ranged reads (its ETag
	// differs, 412 Precondition Failed).
	ErrChanged = errors.New("object changed while being read")
	// ErrReadOnly: an http(s):// URL was given as an output.
	ErrReadOnly = errors.New("http(s) URLs are read-only")
	// ErrNoRange: an http(s) server does not answer Range requests, which a
	// resumed or random-access read needs.
	ErrNoRange = errors.New("server does not support Range requests")
	// ErrClosed: a Writer was used after Commit or Abort.
	ErrClosed = errors.New("writer already committed or aborted")
)

// Error is the error of every operation of this package on a name: one
// line naming the operation, the URL (redacted: no userinfo, no
// signatures) and, for reads, the byte offset.
type Error struct {
	// Op is what failed: open, read, list, create, write, commit, abort.
	Op string
	// URL is the name, passed through Redact.
	URL string
	// Offset is the byte offset of a failed read, or -1.
	Offset int64
	// Kind is ErrNotFound, ErrAccessDenied, ErrChanged, ... or nil.
	Kind error
	// Err is the underlying error (may be nil when Kind says it all).
	Err error
	// Attempts is how many requests were tried before giving up, when
	// more than one.
	Attempts int
}

// Error returns the one-line message.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.URL)
	if e.Offset > 0 {
		fmt.Fprintf(&b, " at offset %d", e.Offset)
	}
	b.WriteString(": ")
	b.WriteString(e.Op)
	if e.Kind != nil {
		b.WriteString(": ")
		b.WriteString(e.Kind.Error())
	}
	if e.Err != nil {
		if e.Kind != nil {
			b.WriteString(" (")
		} else {
			b.WriteString(": ")
		}
		b.WriteString(oneLine(describe(e.Err)))
		if e.Kind != nil {
			b.WriteString(")")
		}
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, "; gave up after %d attempts", e.Attempts)
	}
	return b.String()
}

// Unwrap returns Kind and Err.
func (e *Error) Unwrap() []error {
	var l []error
	if e.Kind != nil {
		l = append(l, e.Kind)
	}
	if e.Err != nil {
		l = append(l, e.Err)
	}
	return l
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// describe is a short text of err: for S3 errors the HTTP status and the
// S3 error code and message, not the SDK's operation chain; for URL errors
// the cause, without the URL (which the Error names, redacted).
func describe(err error) string {
	if why := credentialsFailure(err); why != "" {
		return "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or --no-sign-request for a public bucket (" + why + ")"
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		s := api.ErrorCode()
		if m := api.ErrorMessage(); m != "" && m != s {
			s += ": " + m
		}
		if st := statusOf(err); st != 0 {
			s = fmt.Sprintf("%d %s", st, s)
		}
		return s
	}
	if st := statusOf(err); st != 0 {
		return fmt.Sprintf("HTTP %d %s", st, http.StatusText(st))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return describe(ue.Err)
	}
	var se *smithy.OperationError
	if errors.As(err, &se) {
		return describe(se.Err)
	}
	var rse *smithyhttp.RequestSendError
	if errors.As(err, &rse) {
		return describe(rse.Err)
	}
	return err.Error()
}

// statusError is an unexpected HTTP status of an http(s) request.
type statusError struct {
	code int
}

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d %s", e.code, http.StatusText(e.code))
}

// statusOf returns the HTTP status of a failed request, or 0.
func statusOf(err error) int {
	var se *statusError
	if errors.As(err, &se) {
		return se.code
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	var sre *smithyhttp.ResponseError
	if errors.As(err, &sre) {
		return sre.HTTPStatusCode()
	}
	return 0
}

func codeOf(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// credentialsFailure returns the SDK's reason when err says no
// credentials could be found or refreshed (the SDK has no typed error for
// it), else "".
func credentialsFailure(err error) string {
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, "get credentials: "); ok {
		// "failed to refresh cached credentials, no EC2 IMDS role found,
		// operation error ec2imds: ...": the first clauses say enough
		after, _, _ = strings.Cut(after, ", operation error")
		return after
	}
	return ""
}

// kindOf classifies err as ErrNotFound, ErrAccessDenied, ErrChanged or nil.
func kindOf(err error) error {
	if credentialsFailure(err) != "" {
		return ErrAccessDenied
	}
	switch codeOf(err) {
	case "NoSuchKey", "NoSuchBucket", "NotFound":
		return ErrNotFound
	case "AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId", "ExpiredToken",
		"InvalidToken", "TokenRefreshRequired", "AllAccessDisabled", "AccountProblem",
		// versitygw's answer (404) to an unknown access key ID
		"XAdminUserNotFound":
		return ErrAccessDenied
	case "PreconditionFailed":
		return ErrChanged
	}
	switch statusOf(err) {
	case http.StatusNotFound, http.StatusGone:
		return ErrNotFound
	case http.StatusUnauthorized, http.StatusForbidden:
		return ErrAccessDenied
	case http.StatusPreconditionFailed:
		return ErrChanged
	}
	return nil
}

// errStalled is a read that made no progress for Options.ReadTimeout.
var errStalled = errors.New("read timed out")

// retryable reports whether err is worth retrying: 5xx, 429, S3
// throttling codes, timeouts and dropped or refused connections.
func retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	// An untrusted or wrong certificate will not get better.
	var cve *tls.CertificateVerificationError
	var uae x509.UnknownAuthorityError
	var hne x509.HostnameError
	var cie x509.CertificateInvalidError
	if errors.As(err, &cve) || errors.As(err, &uae) || errors.As(err, &hne) || errors.As(err, &cie) {
		return false
	}
	switch codeOf(err) {
	case "SlowDown", "Throttling", "ThrottlingException", "RequestTimeout", "InternalError",
		"ServiceUnavailable", "RequestLimitExceeded", "TooManyRequests":
		return true
	}
	if st := statusOf(err); st != 0 {
		return st >= 500 || st == http.StatusTooManyRequests || st == http.StatusRequestTimeout
	}
	if kindOf(err) != nil {
		return false
	}
	if errors.Is(err, errStalled) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, context.DeadlineExceeded) || syserr.ConnRefused(err) ||
		syserr.ConnReset(err) || syserr.BrokenPipe(err) {
		return true
	}
	// (not every net.Error: *url.Error is one, whatever its cause, a
	// certificate the client does not trust included)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return true
	}
	var rse *smithyhttp.RequestSendError
	if errors.As(err, &rse) {
		return true
	}
	var rte *awshttp.ResponseTimeoutError
	if errors.As(err, &rte) {
		return true
	}
	// A transport failure reading a body: "connection reset", "use of
	// closed network connection", http2 stream errors.
	msg := err.Error()
	return strings.Contains(msg, "connection reset") || strings.Contains(msg, "broken pipe") ||
		strings.Contains(msg, "closed network connection") || strings.Contains(msg, "stream error")
}

// wrap makes err an *Error of op on name at offset off (-1: none), unless
// it is one already.
func wrap(op, name string, off int64, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Op: op, URL: Redact(name), Offset: off, Kind: kindOf(err), Err: err}
}
