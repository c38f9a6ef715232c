// Package s3test runs, for the tests of arcport's packages, a real S3 server
// on loopback: the versitygw gateway (github.com/versity/versitygw, go
// install github.com/versity/versitygw/cmd/versitygw@v1.8.0) with its posix
// backend in a test's temporary directory. Start finds the binary
// ($ARCPORT_VERSITYGW, PATH, $(go env GOPATH)/bin), picks a free port,
// waits until the server answers and stops it when the test ends;
// Server.Kill, Run and Restart stop and start it again on the same port and
// directory for fault tests; StartTLS serves https:// with a certificate of
// a test CA (CAFile, for AWS_CA_BUNDLE). Proxy is a small reverse proxy in
// front of the real server that counts and logs requests and bytes and
// injects faults (503 SlowDown answers, response bodies cut short, request
// bodies with a corrupted byte), on every request or on those a Match
// selects (UploadPart, PutObject).
//
// It follows the Amazon S3 REST API as versitygw implements it; it is not a
// fake: every request a test makes reaches the real gateway, or is answered
// by the proxy with the error a real S3 service sends.
//
// When versitygw is not installed, Start skips the test with a loud message,
// or fails it when the CI environment variable is "true".
package s3test
