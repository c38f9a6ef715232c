//go:build !unix

package crawl

// setRcvBuf is a no-op where the socket option is not reachable the Unix
// way; the bandwidth cap then still holds on average at the client.
func setRcvBuf(fd uintptr, n int) error { return nil }
